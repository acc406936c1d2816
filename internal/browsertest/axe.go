package browsertest

// axe-core comes from its npm package, pinned with its integrity hash in
// testdata/axe/package-lock.json; node_modules is not committed. .ci/run
// runs this step; run it once by hand before the browser tests.
//go:generate npm ci --prefix testdata/axe --no-audit --no-fund

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// AxeViolation is one axe-core rule that a page breaks, with the elements
// that break it.
type AxeViolation struct {
	ID      string `json:"id"`
	Impact  string `json:"impact"`
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
	Nodes   []struct {
		// Target is axe's selector path to the element (a list, nested
		// for frames and shadow roots).
		Target         json.RawMessage `json:"target"`
		HTML           string          `json:"html"`
		FailureSummary string          `json:"failureSummary"`
	} `json:"nodes"`
}

// String describes v and each offending element on its own lines.
func (v AxeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s — %s", v.ID, v.Impact, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %s %s\n      %s", n.Target, n.HTML, strings.ReplaceAll(n.FailureSummary, "\n", "\n      "))
	}
	return b.String()
}

var axeSource = sync.OnceValues(func() ([]byte, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return nil, fmt.Errorf("cannot tell where package browsertest is")
	}
	return os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", "axe", "node_modules", "axe-core", "axe.min.js"))
})

// Axe runs axe-core's WCAG 2 A and AA rules (and its best practices) on
// the page the tab shows and returns the violations whose impact is serious
// or critical. axe-core is injected through the DevTools protocol, which
// the page's Content-Security-Policy does not govern, so the page itself
// keeps forbidding scripts. It skips t (or fails it under
// REGISTRYD_TEST_REQUIRE_BROWSER=1) when axe-core is not installed.
func Axe(t testing.TB, ctx context.Context) []AxeViolation {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		Require(t, fmt.Sprintf("axe-core is not installed (%v): run go generate ./internal/browsertest", err))
	}
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	if !loaded {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](string(src))); err != nil {
			t.Fatalf("inject axe-core: %v", err)
		}
	}
	const run = `axe.run(document, {
		runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']},
		resultTypes: ['violations'],
	}).then(r => JSON.stringify(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')))`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core: %v", err)
	}
	var vs []AxeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("decode axe-core's result: %v", err)
	}
	return vs
}

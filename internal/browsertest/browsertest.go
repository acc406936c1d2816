// Package browsertest starts headless Chromium for tests, driven with
// chromedp. A test that needs it skips, saying how to install it, when the
// browser is missing — or fails when REGISTRYD_TEST_REQUIRE_BROWSER=1, as CI
// sets.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// Require skips t (or fails it under REGISTRYD_TEST_REQUIRE_BROWSER=1) with
// msg.
func Require(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("REGISTRYD_TEST_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (REGISTRYD_TEST_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg + " (set REGISTRYD_TEST_REQUIRE_BROWSER=1 to make this a failure)")
}

// Start launches a fresh headless Chromium (its own profile in a temporary
// directory) with a window of width×height and returns a chromedp context
// for one tab. Everything is torn down when t ends. It needs DejaVu Sans,
// the font badge widths are measured from.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		Require(t, ChromiumPath+" is missing: install it with apt-get install -y chromium fonts-dejavu-core")
	}
	if out, err := exec.Command("fc-list", "DejaVu Sans:style=Book", "family").Output(); err != nil || !strings.Contains(string(out), "DejaVu Sans") {
		Require(t, "DejaVu Sans is not installed, so Chromium would draw another font: install it with apt-get install -y fonts-dejavu-core")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		// Containers often have a small /dev/shm; Chromium crashes when it fills.
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(width, height),
	}
	// The browser lives as long as the test may: a fixed budget fails a
	// test of many pages on a busy machine that would pass given the time.
	// A hang still ends, at the test binary's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), browserBudget(t))
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// browserBudget is how long the browser of t may live: until shortly
// before the test binary's deadline, or 10 minutes without one.
func browserBudget(t testing.TB) time.Duration {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := d.Deadline(); ok {
			return max(time.Until(at)-30*time.Second, time.Minute)
		}
	}
	return 10 * time.Minute
}

// ScreenshotOnFailure saves a full-page screenshot of the tab to
// dir/<test name>.png when t has failed by the time it ends.
func ScreenshotOnFailure(t testing.TB, ctx context.Context, dir string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+".png")
		if err := os.WriteFile(name, png, 0o644); err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		t.Logf("screenshot saved to %s", name)
	})
}

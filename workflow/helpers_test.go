package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// The actors of the tests: sam submits and alice approves, as they do in
// fixture.Publish.
var (
	alice = fixture.Maintainer
	bob   = workflow.Actor{Name: "bob", TokenID: "tok_bob", Role: registry.RoleAdmin}
	sam   = fixture.Submitter
)

// start is the fake clock's first instant.
var start = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// ids is a deterministic ID generator: prefix_000001, prefix_000002, …
type ids struct {
	mu sync.Mutex
	n  map[string]int
}

func (g *ids) New(prefix string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == nil {
		g.n = map[string]int{}
	}
	g.n[prefix]++
	return fmt.Sprintf("%s_%06d", prefix, g.n[prefix])
}

// harness is a Service over a fresh store with a fake clock and IDs.
type harness struct {
	store storage.Store
	svc   *workflow.Service
	clock *clock
}

func newHarness(t testing.TB, b fixture.Backend) *harness {
	t.Helper()
	st := b.Open(t)
	c := &clock{now: start}
	return &harness{store: st, clock: c, svc: workflow.New(st, workflow.Options{Now: c.Now, NewID: (&ids{}).New})}
}

// eachBackend runs fn once per store implementation, in parallel subtests.
func eachBackend(t *testing.T, fn func(t *testing.T, h *harness)) {
	t.Helper()
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) { fn(t, newHarness(t, b)) })
}

// The manifests of the tests.

// warned has one warn finding: unpinned at mcp.args[1].
func warned(name, version string) []byte {
	return fmt.Appendf(nil, `[addon]
name = %q
version = %q

[mcp]
command = "npx"
args = ["-y", "@example/mcp-server@latest"]

[capabilities]
network = "full"
exec = ["npx"]
`, name, version)
}

// submit submits m as sam and fails the test on error.
func (h *harness) submit(t *testing.T, m []byte) registry.Submission {
	t.Helper()
	sub, _, _, err := h.svc.Submit(context.Background(), sam, m, workflow.FormatTOML, nil)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	return sub
}

// publish submits m as sam and approves it as alice.
func (h *harness) publish(t *testing.T, m []byte) registry.Submission {
	t.Helper()
	return fixture.Publish(t, h.svc, m)
}

// report returns the decoded stored report of a submission.
func (h *harness) report(t *testing.T, id string) (registry.Report, *report.Report) {
	t.Helper()
	r, err := h.store.Report(context.Background(), id)
	if err != nil {
		t.Fatalf("Report(%s): %v", id, err)
	}
	dec, err := report.Decode(r.Bytes)
	if err != nil {
		t.Fatalf("Decode(report of %s): %v", id, err)
	}
	if got := report.SHA256(r.Bytes); got != r.SHA256 {
		t.Errorf("stored sha256 = %s, want sha256 of the bytes %s", r.SHA256, got)
	}
	return r, dec
}

// suppression is an unsuppressed warn finding's suppression.
func unpinnedSuppression() registry.Suppression {
	return registry.Suppression{Code: "unpinned", Path: "mcp.args[1]", Reason: registry.ReasonAcceptedRisk, Note: "the package is pinned by the lockfile of the host"}
}

// wantErr checks err against a sentinel (nil means success).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("%s: got error %v, want success", what, err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%s: got error %v, want one matching %v", what, err, want)
	}
}

// fieldPaths returns the field paths of a validation error.
func fieldPaths(err error) []string {
	var ve *registry.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	out := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		out[i] = f.Path
	}
	return out
}

func errorsIsConflict(err error) bool { return errors.Is(err, registry.ErrConflict) }

func errorsIsNotFound(err error) bool { return errors.Is(err, registry.ErrNotFound) }

func errorsIsUnauthenticated(err error) bool { return errors.Is(err, registry.ErrUnauthenticated) }

// wiringOf returns the wiring digest of a TOML manifest.
func wiringOf(t testing.TB, manifest []byte) string {
	t.Helper()
	m, err := addon.ParseTOML(manifest)
	if err != nil {
		t.Fatalf("ParseTOML: %v", err)
	}
	return m.Wiring().SHA256()
}

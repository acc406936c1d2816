package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/readcache"
	"github.com/registryd/registryd/workflow"
)

// readCounter counts the store reads behind badges and lists, and passes
// the store's change tracker on, so that the API still keeps answers.
type readCounter struct {
	storage.Reader
	changes       *readcache.Tracker
	addon, addons atomic.Int64
}

func (c *readCounter) Changes() *readcache.Tracker { return c.changes }

func (c *readCounter) Addon(ctx context.Context, name string) (registry.Addon, error) {
	c.addon.Add(1)
	return c.Reader.Addon(ctx, name)
}

func (c *readCounter) Addons(ctx context.Context, f storage.AddonFilter, p storage.Page) ([]registry.Addon, string, error) {
	c.addons.Add(1)
	return c.Reader.Addons(ctx, f, p)
}

// untracked hides the store's change tracker: an API over it keeps
// nothing and answers every request from the database.
type untracked struct{ storage.Reader }

// hotReads are the requests answered from memory: reports, badges in
// both forms with a style and a label, and pages of the registry.
var hotReads = []string{
	"/v1/addons/weather/report",
	"/v1/addons/weather/versions/1.0.0/report",
	"/v1/addons/weather/badge.svg",
	"/v1/addons/weather/badge.svg?style=flat-square&label=Trust",
	"/v1/addons/weather/badge.json",
	"/v1/addons/weather/badge.json?label=Trust",
	"/v1/addons?limit=30",
	"/v1/addons?limit=1",
	"/v1/addons?limit=30&verdict=review",
	"/v1/addons?limit=30&tier=verified",
}

// snapshot reads every hot read from base: status, ETag, Link and body.
func snapshot(t *testing.T, e *env, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range hotReads {
		res, err := e.client.Get(base + p)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		out[p] = fmt.Sprintf("%d %s %s\n%s", res.StatusCode, res.Header.Get("ETag"), res.Header.Get("Link"), body)
	}
	return out
}

// TestHotReadsFresh holds every answer kept in memory to what the database
// says: after each change (a suppression, a grant and a revocation of
// verified, a new version, a re-assessment, a failed change, a removal),
// the very next read of each report, badge and page through the caching
// API is byte for byte what an API keeping nothing serves, and the change
// did change what is served.
func TestHotReadsFresh(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		var counter *readCounter
		e := newEnv(t, b, func(d *api.Deps) {
			counter = &readCounter{Reader: d.Reader, changes: d.Reader.(interface{ Changes() *readcache.Tracker }).Changes()}
			d.Reader = counter
		})
		plain := httptest.NewServer(api.New(api.Deps{Reader: untracked{e.store}, Workflow: e.wf}))
		t.Cleanup(plain.Close)
		e.publish(t, npxManifest("weather", "1.0.0"))
		e.publish(t, manifest("another", "1.0.0"))
		ctx := context.Background()
		maint := workflow.Actor{Name: "carol", Role: registry.RoleMaintainer}

		var finding struct{ Code, Path string }
		steps := []struct {
			name    string
			change  func(t *testing.T)
			changed []string // the reads the change must change
		}{
			{"suppression", func(t *testing.T) {
				rep := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).json(t)
				f := rep["findings"].([]any)[0].(map[string]any)
				finding.Code, finding.Path = f["code"].(string), f["path"].(string)
				r := e.do(t, req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json",
					body: jsonBody(map[string]any{"code": finding.Code, "path": finding.Path, "reason": "mitigated"})})
				if r.status != http.StatusCreated {
					t.Fatalf("suppress = %d\n%s", r.status, r.body)
				}
			}, []string{"/v1/addons/weather/report", "/v1/addons/weather/badge.json", "/v1/addons?limit=30", "/v1/addons?limit=30&verdict=review"}},
			{"verified", func(t *testing.T) { e.verifyAddon(t, "weather") },
				[]string{"/v1/addons/weather/report", "/v1/addons/weather/badge.svg?style=flat-square&label=Trust", "/v1/addons/weather/badge.json", "/v1/addons?limit=30&tier=verified"}},
			{"verified revoked", func(t *testing.T) {
				if r := putVerified(e, t, e.maintainer, false, "changed our mind"); r.status != http.StatusOK {
					t.Fatalf("revoke = %d\n%s", r.status, r.body)
				}
			}, []string{"/v1/addons/weather/report", "/v1/addons/weather/badge.json?label=Trust", "/v1/addons?limit=30&tier=verified"}},
			{"new version", func(t *testing.T) { e.publish(t, manifest("weather", "1.1.0")) },
				[]string{"/v1/addons/weather/report", "/v1/addons?limit=30"}},
			{"ruleset changed", func(t *testing.T) {
				// What a new ruleset leaves: reports rendered by another
				// one (here, other bytes from an old ruleset).
				for _, id := range submissionsOf(t, e, "weather") {
					rerenderAs(t, e.store, id)
				}
			}, []string{"/v1/addons/weather/report", "/v1/addons/weather/versions/1.0.0/report"}},
			{"re-assessed", func(t *testing.T) {
				if n, err := e.wf.ReassessAll(ctx, 10, nil); err != nil || n == 0 {
					t.Fatalf("ReassessAll = %d, %v; want the stale reports rendered", n, err)
				}
			}, []string{"/v1/addons/weather/report", "/v1/addons/weather/versions/1.0.0/report"}},
			{"failed change", func(t *testing.T) {
				err := e.store.InTx(ctx, func(tx storage.Tx) error {
					a, err := tx.Addon(ctx, "weather")
					if err != nil {
						return err
					}
					a.Removed, a.LatestVerdict = true, registry.VerdictFail
					if err := tx.PutAddon(ctx, a); err != nil {
						return err
					}
					return errRolledBack
				})
				if err != errRolledBack {
					t.Fatalf("InTx = %v, want the rollback", err)
				}
			}, nil},
			{"removed", func(t *testing.T) {
				if err := e.wf.Remove(ctx, maint, "weather", "gone"); err != nil {
					t.Fatalf("Remove: %v", err)
				}
			}, []string{"/v1/addons/weather/badge.svg", "/v1/addons/weather/badge.json", "/v1/addons?limit=30", "/v1/addons?limit=1"}},
		}
		for _, st := range steps {
			before := warm(t, e, counter)
			st.change(t)
			got, want := snapshot(t, e, e.srv.URL), snapshot(t, e, plain.URL)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("after %s the API serves from memory what the database no longer says (-database +served):\n%s", st.name, diff)
			}
			for _, p := range st.changed {
				if before[p] == got[p] {
					t.Errorf("after %s, %s is unchanged: the step tests nothing there", st.name, p)
				}
			}
		}
	})
}

var errRolledBack = fmt.Errorf("rolled back on purpose")

// warm reads every hot read until badges and pages are served without a
// store read (the tracker is on once the store hears of every change:
// PostgreSQL's listener connects in the background), and returns what
// was served.
func warm(t *testing.T, e *env, c *readCounter) map[string]string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		snapshot(t, e, e.srv.URL)
		a0, l0 := c.addon.Load(), c.addons.Load()
		s := snapshot(t, e, e.srv.URL)
		if c.addon.Load() == a0 && c.addons.Load() == l0 {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatal("badges and pages are still read from the store after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// submissionsOf returns the IDs of name's submissions.
func submissionsOf(t *testing.T, e *env, name string) []string {
	t.Helper()
	subs, _, err := e.store.Submissions(context.Background(), storage.SubmissionFilter{Addon: name}, storage.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(subs))
	for i, s := range subs {
		ids[i] = s.ID
	}
	return ids
}

// rerenderAs stores the report of a submission as an old ruleset rendered
// it, as a ruleset change leaves it.
func rerenderAs(t *testing.T, s storage.Store, id string) {
	t.Helper()
	ctx := context.Background()
	rep, err := s.Report(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	err = s.InTx(ctx, func(tx storage.Tx) error {
		body := strings.Replace(string(rep.Bytes), `"ruleset":"`+rep.Ruleset+`"`, `"ruleset":"0-old"`, 1)
		sum := sha256Sum([]byte(body))
		rep.Bytes, rep.SHA256, rep.Ruleset = []byte(body), fmt.Sprintf("%x", sum), "0-old"
		return tx.PutReport(ctx, rep, nil)
	})
	if err != nil {
		t.Fatalf("store a stale report: %v", err)
	}
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/internal/fixture"
)

// npxManifest is a manifest whose audit finds one warn finding: an
// unpinned package runner at mcp.args[1].
func npxManifest(name, version string) string {
	return `[addon]
name = "` + name + `"
version = "` + version + `"
description = "Runs a package through npx."
author = "Test Author"
license = "MIT"

[mcp]
command = "npx"
args = ["-y", "some-pkg"]
`
}

func putVerified(e *env, t *testing.T, token string, verified bool, reason string) resp {
	t.Helper()
	return e.do(t, req{method: "PUT", path: "/v1/addons/" + "weather" + "/verified", token: token, ctype: "application/json",
		body: jsonBody(map[string]any{"verified": verified, "reason": reason})})
}

func TestVerification(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, manifest("weather", "1.0.0"))
		before := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})

		first := putVerified(e, t, e.maintainer, true, "audited the source")
		if first.status != http.StatusAccepted {
			t.Fatalf("first grant = %d, want 202\n%s", first.status, first.body)
		}
		fj := first.json(t)
		if fj["status"] != "pending" || fj["approval"].(map[string]any)["maintainer"] != "carol" {
			t.Errorf("first grant = %v, want pending approval by carol", fj)
		}
		if a := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t); a["pending_verification"] == nil {
			t.Errorf("pending_verification is null after the first grant")
		}
		// The same maintainer again, twice at once: each a precise 409,
		// nothing granted.
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { wantProblem(t, putVerified(e, t, e.maintainer, true, "again"), 409, "conflict") })
		}
		wg.Wait()
		wantProblem(t, putVerified(e, t, e.maintainer, true, "again"), 409, "conflict")
		if tier := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t)["addon"].(map[string]any)["tier"]; tier != "community" {
			t.Errorf("tier after one maintainer = %v, want community", tier)
		}

		second := putVerified(e, t, e.maintainer2, true, "agreed")
		if second.status != http.StatusOK {
			t.Fatalf("second grant = %d, want 200\n%s", second.status, second.body)
		}
		sj := second.json(t)
		if sj["status"] != "granted" || sj["addon"].(map[string]any)["tier"] != "verified" {
			t.Errorf("second grant = %v, want granted, tier verified", sj)
		}
		after := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})
		if after.header.Get("ETag") == before.header.Get("ETag") {
			t.Errorf("report ETag unchanged by the tier change")
		}
		if tier := after.json(t)["tier"]; tier != "verified" {
			t.Errorf("report tier = %v, want verified", tier)
		}
		if got := e.do(t, req{method: "GET", path: "/v1/addons?tier=verified"}); !cmp.Equal(addonsOf(t, got, "name"), []string{"weather"}) {
			t.Errorf("?tier=verified = %s", got.body)
		}

		// Revoking takes one maintainer and is immediate.
		rv := putVerified(e, t, e.maintainer, false, "maintainer left")
		if rv.status != http.StatusOK || rv.json(t)["status"] != "revoked" {
			t.Fatalf("revoke = %d %s", rv.status, rv.body)
		}
		if tier := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).json(t)["tier"]; tier != "community" {
			t.Errorf("report tier after revoke = %v, want community", tier)
		}

		// The audit log has every action, newest first, for maintainers.
		log := e.do(t, req{method: "GET", path: "/v1/audit-log", token: e.admin})
		if log.status != 200 {
			t.Fatalf("audit log = %d", log.status)
		}
		var entries []string
		for _, it := range log.json(t)["items"].([]any) {
			m := it.(map[string]any)
			entries = append(entries, m["actor"].(string)+" "+m["action"].(string))
		}
		if len(entries) < 4 || !strings.HasPrefix(entries[0], "carol ") || !strings.Contains(strings.Join(entries, ","), "dave ") {
			t.Errorf("audit log = %v, want carol's revoke first and dave's grant in it", entries)
		}
		wantProblem(t, e.do(t, req{method: "GET", path: "/v1/audit-log"}), 401, "unauthenticated")
	})
}

func TestVerificationNeedsCleanLatestAndSuppressions(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, npxManifest("weather", "1.0.0"))
		rep := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})
		var r struct {
			Verdict  string `json:"verdict"`
			Findings []struct {
				Level, Code, Path string
				Suppressed        *struct{ Reason string } `json:"suppressed"`
			} `json:"findings"`
		}
		if err := json.Unmarshal(rep.body, &r); err != nil || len(r.Findings) == 0 {
			t.Fatalf("report %s: %v, want a finding", rep.body, err)
		}
		f := r.Findings[0]
		if f.Level != "warn" || r.Verdict != "review" {
			t.Fatalf("finding %+v verdict %s, want a warn finding and review", f, r.Verdict)
		}

		p := wantProblem(t, putVerified(e, t, e.maintainer, true, "looks fine"), 409, "conflict")
		if !strings.Contains(p.Detail, f.Code) && !strings.Contains(p.Detail, "warn") {
			t.Errorf("409 detail %q does not say why", p.Detail)
		}

		// Suppress it: the finding stays, marked, and no longer counts.
		sr := e.do(t, req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json",
			body: jsonBody(map[string]any{"code": f.Code, "path": f.Path, "reason": "mitigated", "note": "pinned by the lockfile", "expires_at": "2027-01-01T00:00:00Z"})})
		if sr.status != http.StatusCreated {
			t.Fatalf("suppress = %d\n%s", sr.status, sr.body)
		}
		sp := sr.json(t)["suppression"].(map[string]any)
		if sp["author"] != "carol" || sp["reason"] != "mitigated" || sp["expires_at"] != "2027-01-01T00:00:00Z" {
			t.Errorf("suppression = %v", sp)
		}
		if loc := sr.header.Get("Location"); !strings.HasSuffix(loc, "/v1/addons/weather/suppressions/"+sp["id"].(string)) {
			t.Errorf("Location = %q", loc)
		}
		wantProblem(t, e.do(t, req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer2, ctype: "application/json",
			body: jsonBody(map[string]any{"code": f.Code, "path": f.Path, "reason": "false_positive"})}), 409, "conflict")

		rep2 := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})
		if err := json.Unmarshal(rep2.body, &r); err != nil {
			t.Fatal(err)
		}
		if r.Verdict != "pass" || len(r.Findings) != 1 || r.Findings[0].Suppressed == nil || r.Findings[0].Suppressed.Reason != "mitigated" {
			t.Errorf("report after suppression = %s, want verdict pass and the finding marked suppressed (mitigated)", rep2.body)
		}
		if a := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t); len(a["suppressions"].([]any)) != 1 {
			t.Errorf("addon suppressions = %v, want 1", a["suppressions"])
		}

		// Now two maintainers can grant verified.
		if got := putVerified(e, t, e.maintainer, true, "mitigated").status; got != http.StatusAccepted {
			t.Errorf("first grant after suppression = %d, want 202", got)
		}
		if got := putVerified(e, t, e.admin, true, "agreed").status; got != http.StatusOK {
			t.Errorf("second grant after suppression = %d, want 200", got)
		}

		// Removing the suppression re-renders: the finding counts again.
		del := e.do(t, req{method: "DELETE", path: "/v1/addons/weather/suppressions/" + sp["id"].(string), token: e.maintainer})
		if del.status != http.StatusNoContent || len(del.body) != 0 {
			t.Fatalf("unsuppress = %d %s, want 204 and no body", del.status, del.body)
		}
		wantProblem(t, e.do(t, req{method: "DELETE", path: "/v1/addons/weather/suppressions/" + sp["id"].(string), token: e.maintainer}), 404, "not-found")
		r.Findings = nil
		if err := json.Unmarshal(e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).body, &r); err != nil {
			t.Fatal(err)
		}
		if r.Verdict != "review" || r.Findings[0].Suppressed != nil {
			t.Errorf("report after unsuppress: verdict %s, suppressed %v; want review and not suppressed", r.Verdict, r.Findings[0].Suppressed)
		}
	})
}

func TestReportCaching(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		id := e.publish(t, manifest("weather", "1.0.0"))
		for _, path := range []string{"/v1/addons/weather/report", "/v1/addons/weather/versions/1.0.0/report", "/v1/submissions/" + id + "/report"} {
			t.Run(path, func(t *testing.T) {
				token := ""
				if strings.HasPrefix(path, "/v1/submissions") {
					token = e.maintainer
				}
				get := e.do(t, req{method: "GET", path: path, token: token})
				etag := get.header.Get("ETag")
				sum := fmt.Sprintf(`"sha256-%x"`, sha256Sum(get.body))
				if get.status != 200 || etag != sum {
					t.Fatalf("GET = %d ETag %q, want 200 and %s", get.status, etag, sum)
				}
				if ct := get.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				if cc := get.header.Get("Cache-Control"); !strings.Contains(cc, "no-cache") {
					t.Errorf("Cache-Control = %q, want revalidation (no-cache)", cc)
				}
				for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
					nm := e.do(t, req{method: "GET", path: path, token: token, header: map[string]string{"If-None-Match": inm}})
					if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
						t.Errorf("If-None-Match %s = %d (%d bytes, ETag %q), want 304, empty, same ETag", inm, nm.status, len(nm.body), nm.header.Get("ETag"))
					}
				}
				stale := e.do(t, req{method: "GET", path: path, token: token, header: map[string]string{"If-None-Match": `"sha256-00"`}})
				if stale.status != 200 || !bytes.Equal(stale.body, get.body) {
					t.Errorf("stale If-None-Match = %d, want 200 with the bytes", stale.status)
				}
				head := e.do(t, req{method: "HEAD", path: path, token: token})
				if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag || head.header.Get("Content-Length") != fmt.Sprint(len(get.body)) {
					t.Errorf("HEAD = %d, %d bytes, ETag %q, Content-Length %q", head.status, len(head.body), head.header.Get("ETag"), head.header.Get("Content-Length"))
				}
			})
		}
	})
}

func TestConcurrentDecisions(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		// The same name@version submitted concurrently with different bytes.
		const n = 6
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				m := manifest("weather", "1.0.0", fmt.Sprintf(`env = { RUN = "%d" }`, i))
				r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte(m)})
				if r.status != http.StatusCreated {
					t.Errorf("concurrent submit %d = %d\n%s", i, r.status, r.body)
					return
				}
				ids[i] = submissionID(t, r.json(t))
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		// Two maintainers approve all at once: exactly one version is published.
		statuses := make([]int, 2*n)
		for i := range 2 * n {
			wg.Go(func() {
				tok := e.maintainer
				if i%2 == 1 {
					tok = e.maintainer2
				}
				r := e.do(t, req{method: "POST", path: "/v1/submissions/" + ids[i/2] + "/approve", token: tok, ctype: "application/json", body: []byte(`{}`)})
				statuses[i] = r.status
				if r.status != 200 {
					wantProblem(t, r, 409, "conflict")
				}
			})
		}
		wg.Wait()
		wins := 0
		for _, s := range statuses {
			if s == 200 {
				wins++
			}
		}
		if wins != 1 {
			t.Errorf("approvals that won = %d (%v), want exactly 1", wins, statuses)
		}
		vs := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions"}).json(t)
		if items := vs["items"].([]any); len(items) != 1 {
			t.Errorf("published versions = %d, want 1", len(items))
		}
	})
}

func TestPagination(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		want := []string{}
		for i := range 5 {
			name := fmt.Sprintf("addon-%d", i)
			e.publish(t, manifest(name, "1.0.0"))
			want = append(want, name)
		}
		var got []string
		path := "/v1/addons?limit=2"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatalf("more pages than addons")
			}
			r := e.do(t, req{method: "GET", path: path})
			var l struct {
				Items []struct{ Name string }
				Next  *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(r.body, &l); err != nil {
				t.Fatal(err)
			}
			if len(l.Items) > 2 {
				t.Errorf("page of %d items, want at most 2", len(l.Items))
			}
			for _, it := range l.Items {
				got = append(got, it.Name)
			}
			if l.Next == nil {
				break
			}
			path = "/v1/addons?limit=2&cursor=" + *l.Next
		}
		sortStrings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("addons over all pages (-want +got):\n%s", diff)
		}
		// An empty result is [], never null.
		r := e.do(t, req{method: "GET", path: "/v1/addons?q=zzz-nothing"})
		if !bytes.Contains(r.body, []byte(`"items":[]`)) || !bytes.Contains(r.body, []byte(`"next_cursor":null`)) {
			t.Errorf("empty list = %s, want items [] and next_cursor null", r.body)
		}
		// Searching, filtering and updated_since.
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/addons?q=ADDON-3"}), "name"); !cmp.Equal(got, []string{"addon-3"}) {
			t.Errorf("?q=ADDON-3 = %v", got)
		}
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/addons?verdict=fail"}), "name"); len(got) != 0 {
			t.Errorf("?verdict=fail = %v, want none", got)
		}
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/addons?updated_since=2100-01-01T00:00:00Z"}), "name"); len(got) != 0 {
			t.Errorf("?updated_since=2100 = %v, want none", got)
		}
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/addons?updated_since=2000-01-01T00:00:00Z&include_removed=true"}), "name"); len(got) != 5 {
			t.Errorf("?updated_since=2000 = %v, want all 5", got)
		}
	})
}

func TestOperations(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		var ready error
		var mu sync.Mutex
		e := newEnv(t, b, func(d *api.Deps) {
			d.Ready = func(context.Context) error { mu.Lock(); defer mu.Unlock(); return ready }
		})
		if r := e.do(t, req{method: "GET", path: "/healthz"}); r.status != 200 {
			t.Errorf("healthz = %d", r.status)
		}
		if r := e.do(t, req{method: "GET", path: "/readyz"}); r.status != 200 {
			t.Errorf("readyz = %d", r.status)
		}
		mu.Lock()
		ready = errUnready
		mu.Unlock()
		p := wantProblem(t, e.do(t, req{method: "GET", path: "/readyz"}), 503, "unavailable")
		if strings.Contains(p.Detail, "hunter2") || strings.Contains(p.Detail, "10.0.0.5") {
			t.Errorf("503 detail leaks the internal error: %q", p.Detail)
		}

		doc := e.do(t, req{method: "GET", path: "/openapi.json"})
		if doc.status != 200 || !bytes.Equal(doc.body, api.OpenAPI) {
			t.Errorf("GET /openapi.json = %d, want the embedded document", doc.status)
		}
		if r := e.do(t, req{method: "HEAD", path: "/openapi.json"}); r.status != 200 || len(r.body) != 0 || r.header.Get("Content-Length") != fmt.Sprint(len(api.OpenAPI)) {
			t.Errorf("HEAD /openapi.json = %d, %d bytes, Content-Length %q", r.status, len(r.body), r.header.Get("Content-Length"))
		}
		if r := e.do(t, req{method: "GET", path: "/openapi.json", header: map[string]string{"If-None-Match": doc.header.Get("ETag")}}); r.status != 304 {
			t.Errorf("openapi.json revalidation = %d, want 304", r.status)
		}

		rules := e.do(t, req{method: "GET", path: "/v1/rules"}).json(t)
		rs := rules["rules"].([]any)
		if rules["ruleset"] == "" || len(rs) == 0 {
			t.Fatalf("rules = %v", rules)
		}
		for _, r := range rs {
			m := r.(map[string]any)
			if m["code"] == "" || m["description"] == "" || m["remedy"] == "" {
				t.Errorf("rule %v lacks a code, description or remedy", m)
			}
		}
		// Every rule the audit applies is listed, with its fix text, under
		// the ruleset that reports carry.
		if rules["ruleset"] != assess.Ruleset {
			t.Errorf("rules ruleset = %v, want %s", rules["ruleset"], assess.Ruleset)
		}
		var served, applied []string
		for _, r := range rs {
			m := r.(map[string]any)
			served = append(served, fmt.Sprint(m["code"], " ", m["level"], " ", m["blocking"], ": ", m["remedy"]))
		}
		for _, r := range assess.Rules() {
			applied = append(applied, fmt.Sprint(r.Code, " ", r.Level, " ", r.Blocking, ": ", r.Remedy))
		}
		if diff := cmp.Diff(applied, served); diff != "" {
			t.Errorf("GET /v1/rules (-assess.Rules +served):\n%s", diff)
		}

		// Request ids: a safe one is echoed, anything else replaced.
		for _, tc := range []struct{ sent, want string }{{"abc-123.X_y", "abc-123.X_y"}, {"bad id", ""}, {strings.Repeat("a", 65), ""}, {"<script>", ""}} {
			r := e.do(t, req{method: "GET", path: "/v1/addons/nope", header: map[string]string{"X-Request-Id": tc.sent}})
			got := r.header.Get("X-Request-Id")
			if tc.want != "" && got != tc.want || tc.want == "" && (got == tc.sent || got == "") {
				t.Errorf("X-Request-Id sent %q, got %q", tc.sent, got)
			}
			if p := r.problem(t); p.RequestID != got {
				t.Errorf("problem request_id %q, header %q", p.RequestID, got)
			}
		}
	})
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, manifest("weather", "1.0.0"))
		e.store.Close()
		for _, path := range []string{"/v1/addons", "/v1/addons/weather/report"} {
			r := e.do(t, req{method: "GET", path: path})
			p := wantProblem(t, r, 500, "internal")
			if strings.Contains(strings.ToLower(p.Detail), "sql") || strings.Contains(p.Detail, "closed") {
				t.Errorf("500 detail leaks: %q", p.Detail)
			}
		}
	})
}

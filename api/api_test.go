package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

// storeWords are the words of a store or driver error that must not reach
// a problem's detail.
var storeWords = regexp.MustCompile(`\b(sqlite|postgres|pgx|sql:)`)

func wantProblem(t *testing.T, r resp, status int, slug string) api.Problem {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d\n%s", r.status, status, r.body)
	}
	p := r.problem(t)
	if p.Type != api.ProblemTypePrefix+slug {
		t.Errorf("type = %q, want %q", p.Type, api.ProblemTypePrefix+slug)
	}
	if p.Status != status {
		t.Errorf("problem status = %d, want %d", p.Status, status)
	}
	// Only at the start of a word: a detail may quote a random ID such as
	// sub_…wwpgxyy…, which is not the store speaking.
	if m := storeWords.FindString(strings.ToLower(p.Detail)); m != "" {
		t.Errorf("detail %q names the store (%s)", p.Detail, m)
	}
	if p.RequestID == "" || p.RequestID != r.header.Get(api.RequestIDHeader) {
		t.Errorf("request_id = %q, header %q: want equal and non-empty", p.RequestID, r.header.Get(api.RequestIDHeader))
	}
	return p
}

func TestSubmitAndReview(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		m := manifest("weather", "1.0.0")

		created := e.submit(t, e.submitter, m, http.StatusCreated)
		id := submissionID(t, created)
		sub := created["submission"].(map[string]any)
		if sub["status"] != "pending" || sub["addon"] != "weather" || sub["version"] != "1.0.0" || sub["submitter"] != "alice" {
			t.Errorf("submission = %v, want pending weather@1.0.0 by alice", sub)
		}
		rep := created["report"].(map[string]any)
		if rep["schema"] != "registryd.report/v2" || rep["tier"] != "community" {
			t.Errorf("report = %v, want schema registryd.report/v2, tier community", rep)
		}

		// The submission's report is its stored bytes, the same as in the 201.
		got := e.do(t, req{method: "GET", path: "/v1/submissions/" + id + "/report", token: e.submitter})
		if got.status != http.StatusOK {
			t.Fatalf("GET report = %d\n%s", got.status, got.body)
		}
		var embedded struct {
			Report json.RawMessage `json:"report"`
		}
		json.Unmarshal(jsonBody(created), &embedded)
		if !json.Valid(got.body) || compactJSON(t, got.body) != compactJSON(t, embedded.Report) {
			t.Errorf("report bytes differ from the 201's report:\n%s\n%s", got.body, embedded.Report)
		}

		// The owner and the maintainers see it; another submitter gets 404.
		for _, tc := range []struct {
			name, token string
			want        int
		}{
			{"owner", e.submitter, 200}, {"maintainer", e.maintainer, 200}, {"admin", e.admin, 200}, {"other submitter", e.submitter2, 404},
		} {
			t.Run("visibility/"+tc.name, func(t *testing.T) {
				for _, p := range []string{"/v1/submissions/" + id, "/v1/submissions/" + id + "/report"} {
					r := e.do(t, req{method: "GET", path: p, token: tc.token})
					if r.status != tc.want {
						t.Errorf("GET %s as %s = %d, want %d", p, tc.name, r.status, tc.want)
					}
					if tc.want == 404 {
						wantProblem(t, r, 404, "not-found")
					}
				}
			})
		}
		detail := e.do(t, req{method: "GET", path: "/v1/submissions/" + id, token: e.maintainer}).json(t)
		if fs, ok := detail["findings"].([]any); !ok {
			t.Errorf("findings = %v, want a list", detail["findings"])
		} else if want := len(rep["findings"].([]any)); len(fs) != want {
			t.Errorf("len(findings) = %d, want %d as in the report", len(fs), want)
		}

		// The queue: a submitter sees only its own.
		e.submit(t, e.submitter2, manifest("other", "0.1.0"), http.StatusCreated)
		for _, tc := range []struct {
			name, token, query string
			want               []string
		}{
			{"maintainer all", e.maintainer, "", []string{"other", "weather"}},
			{"alice own", e.submitter, "", []string{"weather"}},
			{"bob own", e.submitter2, "", []string{"other"}},
			{"filter addon", e.maintainer, "?addon=weather", []string{"weather"}},
			{"filter status", e.maintainer, "?status=approved", nil},
			{"filter source", e.maintainer, "?source=rest&status=pending", []string{"other", "weather"}},
			{"filter verdict", e.maintainer, "?verdict=fail", nil},
		} {
			t.Run("queue/"+tc.name, func(t *testing.T) {
				r := e.do(t, req{method: "GET", path: "/v1/submissions" + tc.query, token: tc.token})
				if r.status != 200 {
					t.Fatalf("status %d\n%s", r.status, r.body)
				}
				if got := addonsOf(t, r, "addon"); !cmp.Equal(got, tc.want) {
					t.Errorf("addons = %v, want %v", got, tc.want)
				}
			})
		}

		// Decisions: a submitter may not; a maintainer approves once.
		wantProblem(t, e.do(t, req{method: "POST", path: "/v1/submissions/" + id + "/approve", token: e.submitter, ctype: "application/json", body: []byte(`{}`)}), 403, "forbidden")
		approved := e.approve(t, e.maintainer, id, 200).json(t)["submission"].(map[string]any)
		if approved["status"] != "approved" || approved["decided_by"] != "carol" || approved["decision_reason"] != "reviewed" {
			t.Errorf("approved = %v", approved)
		}
		p := wantProblem(t, e.approve(t, e.maintainer2, id, 409), 409, "conflict")
		if p.Detail == "" {
			t.Errorf("409 without a detail")
		}
		wantProblem(t, e.do(t, req{method: "POST", path: "/v1/submissions/" + id + "/reject", token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"late"}`)}), 409, "conflict")

		// Reject with a reason decides for good.
		other := e.do(t, req{method: "GET", path: "/v1/submissions?addon=other", token: e.maintainer}).json(t)["items"].([]any)[0].(map[string]any)["id"].(string)
		rj := e.do(t, req{method: "POST", path: "/v1/submissions/" + other + "/reject", token: e.maintainer2, ctype: "application/json", body: []byte(`{"reason":"duplicates weather"}`)})
		if rj.status != 200 || rj.json(t)["submission"].(map[string]any)["status"] != "rejected" {
			t.Fatalf("reject = %d %s", rj.status, rj.body)
		}
		e.approve(t, e.maintainer, other, 409)
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/submissions?status=rejected", token: e.maintainer}), "addon"); !cmp.Equal(got, []string{"other"}) {
			t.Errorf("?status=rejected = %v, want [other]", got)
		}

		// Published: the registry lists it and serves its report.
		list := e.do(t, req{method: "GET", path: "/v1/addons"})
		if got := addonsOf(t, list, "name"); !cmp.Equal(got, []string{"weather"}) {
			t.Errorf("GET /v1/addons names = %v, want [weather]", got)
		}
		one := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t)
		if a := one["addon"].(map[string]any); a["latest_version"] != "1.0.0" || a["tier"] != "community" {
			t.Errorf("addon = %v", a)
		}
		vs := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions"}).json(t)
		if items := vs["items"].([]any); len(items) != 1 || items[0].(map[string]any)["version"] != "1.0.0" {
			t.Errorf("versions = %v", vs)
		}
		latest := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})
		pinned := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions/1.0.0/report"})
		if !bytes.Equal(latest.body, got.body) || !bytes.Equal(pinned.body, got.body) {
			t.Errorf("published report bytes differ from the submission's")
		}

		// Resubmitting the published bytes answers 200 with the published
		// submission; other bytes for the same version are a conflict.
		again := e.submit(t, e.submitter2, m, http.StatusOK)
		if submissionID(t, again) != id {
			t.Errorf("resubmission id = %s, want the published %s", submissionID(t, again), id)
		}
		r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte(manifest("weather", "1.0.0", `env = { LOG = "1" }`))})
		wantProblem(t, r, 409, "conflict")
		after := e.do(t, req{method: "GET", path: "/v1/submissions?addon=weather", token: e.maintainer})
		if n := len(after.json(t)["items"].([]any)); n != 1 {
			t.Errorf("weather submissions after the refused ones = %d, want 1 (nothing stored)", n)
		}

	})
}

func TestSubmitJSONForm(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		doc := `{"addon":{"name":"jsonform","version":"2.0.0","description":"Submitted as JSON.","author":"A","license":"MIT"},` +
			`"mcp":{"command":"jsonform-server","args":["--stdio"]}}`
		r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.maintainer, ctype: "application/json; charset=utf-8", body: []byte(doc)})
		if r.status != http.StatusCreated {
			t.Fatalf("POST JSON form = %d\n%s", r.status, r.body)
		}
		m := r.json(t)
		sub := m["submission"].(map[string]any)
		if sub["format"] != "json" || sub["addon"] != "jsonform" || sub["submitter"] != "carol" {
			t.Errorf("submission = %v, want format json, addon jsonform, submitter carol", sub)
		}
		if loc := r.header.Get("Location"); loc != "/v1/submissions/"+sub["id"].(string) {
			t.Errorf("Location = %q", loc)
		}
	})
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact: %v", err)
	}
	return buf.String()
}

// addonsOf returns field of every item of a list response, sorted as
// served... then sorted for comparison.
func addonsOf(t *testing.T, r resp, field string) []string {
	t.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("decode list: %v\n%s", err, r.body)
	}
	if l.Items == nil {
		t.Fatalf("items is null or missing: %s", r.body)
	}
	var out []string
	for _, it := range l.Items {
		out = append(out, it[field].(string))
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var _ = sync.WaitGroup{}
var _ = context.Background
var _ = registry.ErrNotFound

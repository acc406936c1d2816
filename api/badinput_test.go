package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
)

// TestBadInput sends every kind of bad request and checks the precise
// problem each one gets, and that nothing it carried is echoed unsafely.
func TestBadInput(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b, func(d *api.Deps) { d.MaxBodyBytes = 64 << 10 })
		e.publish(t, manifest("weather", "1.0.0"))
		pending := submissionID(t, e.submit(t, e.submitter, manifest("weather", "1.1.0"), http.StatusCreated))
		approve := "/v1/submissions/" + pending + "/approve"
		reject := "/v1/submissions/" + pending + "/reject"
		huge := bytes.Repeat([]byte("# padding\n"), 7000)
		hostile := "\u202egnp.exe\x1b[31m<script>"

		tests := []struct {
			name       string
			q          req
			wantStatus int
			wantSlug   string
			wantFields []api.ProblemField // nil: not checked
		}{
			// Submissions.
			{"toml syntax", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte("[addon\nname=")}, 422, "validation", nil},
			{"unknown manifest key", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte(manifest("x", "1.0.0", `comand = "x"`))}, 422, "validation", nil},
			{"json syntax", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/json", body: []byte(`{"addon": `)}, 422, "validation", nil},
			{"json unknown field", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/json", body: []byte(`{"name":"x","version":"1.0.0","bogus":1}`)}, 422, "validation", nil},
			{"invalid utf-8 manifest", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte("[addon]\nname = \"a\xff\"\n")}, 422, "validation", []api.ProblemField{{Message: "the manifest is not valid UTF-8"}}},
			{"empty manifest", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte{}}, 400, "malformed-body", nil},
			{"wrong content type", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "text/plain", body: []byte("x")}, 415, "unsupported-media-type", nil},
			{"no content type", req{method: "POST", path: "/v1/submissions", token: e.submitter, body: []byte("x")}, 415, "unsupported-media-type", nil},
			{"latin-1 charset", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml; charset=iso-8859-1", body: []byte("x")}, 415, "unsupported-media-type", nil},
			{"over the body limit", req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: huge}, 413, "too-large", nil},
			{"anonymous submit", req{method: "POST", path: "/v1/submissions", ctype: "application/toml", body: []byte(manifest("x", "1.0.0"))}, 401, "unauthenticated", nil},
			{"unknown token", req{method: "POST", path: "/v1/submissions", token: "rgd_nope", ctype: "application/toml", body: []byte(manifest("x", "1.0.0"))}, 401, "unauthenticated", nil},
			{"revoked token", req{method: "POST", path: "/v1/submissions", token: e.revoked, ctype: "application/toml", body: []byte(manifest("x", "1.0.0"))}, 401, "unauthenticated", nil},
			{"basic auth", req{method: "GET", path: "/v1/addons", header: map[string]string{"Authorization": "Basic YTpi"}}, 401, "unauthenticated", nil},
			{"revoked token on a public route", req{method: "GET", path: "/v1/addons", token: e.revoked}, 401, "unauthenticated", nil},

			// The queue.
			{"bad status filter", req{method: "GET", path: "/v1/submissions?status=done", token: e.maintainer}, 400, "bad-request", []api.ProblemField{{Path: "status", Message: "must be pending, approved or rejected"}}},
			{"bad verdict filter", req{method: "GET", path: "/v1/submissions?verdict=ok", token: e.maintainer}, 400, "bad-request", nil},
			{"bad source filter", req{method: "GET", path: "/v1/submissions?source=ftp", token: e.maintainer}, 400, "bad-request", nil},
			{"unknown query parameter", req{method: "GET", path: "/v1/submissions?verdit=fail", token: e.maintainer}, 400, "bad-request", []api.ProblemField{{Path: "verdit", Message: "unknown query parameter"}}},
			{"hostile query parameter", req{method: "GET", path: "/v1/addons?%E2%80%AEx=1", token: e.maintainer}, 400, "bad-request", []api.ProblemField{{Message: "unknown query parameter"}}},
			{"repeated parameter", req{method: "GET", path: "/v1/addons?tier=verified&tier=community"}, 400, "bad-request", nil},
			{"malformed cursor", req{method: "GET", path: "/v1/submissions?cursor=%00%01", token: e.maintainer}, 400, "bad-request", []api.ProblemField{{Path: "cursor", Message: "is not a cursor this server returned"}}},
			{"forged cursor", req{method: "GET", path: "/v1/addons?cursor=Zm9yZ2Vk"}, 400, "bad-request", []api.ProblemField{{Path: "cursor", Message: "is not a cursor this server returned"}}},
			{"limit zero", req{method: "GET", path: "/v1/addons?limit=0"}, 400, "bad-request", nil},
			{"limit too big", req{method: "GET", path: "/v1/addons?limit=201"}, 400, "bad-request", nil},
			{"limit not a number", req{method: "GET", path: "/v1/addons?limit=ten"}, 400, "bad-request", nil},
			{"submitter lists audit log", req{method: "GET", path: "/v1/audit-log", token: e.submitter}, 403, "forbidden", nil},
			{"anonymous queue", req{method: "GET", path: "/v1/submissions"}, 401, "unauthenticated", nil},

			// Ids.
			{"malformed submission id", req{method: "GET", path: "/v1/submissions/" + "a%20b", token: e.maintainer}, 400, "bad-request", []api.ProblemField{{Path: "id", Message: "must be 1 to 64 characters of letters, digits, '_' and '-'"}}},
			{"overlong submission id", req{method: "GET", path: "/v1/submissions/" + strings.Repeat("a", 65), token: e.maintainer}, 400, "bad-request", nil},
			{"unknown submission", req{method: "GET", path: "/v1/submissions/sub_nope", token: e.maintainer}, 404, "not-found", nil},
			{"unknown submission report", req{method: "GET", path: "/v1/submissions/sub_nope/report", token: e.maintainer}, 404, "not-found", nil},

			// Decisions.
			{"submitter approves", req{method: "POST", path: approve, token: e.submitter, ctype: "application/json", body: []byte(`{"reason":"x"}`)}, 403, "forbidden", nil},
			{"approve unknown", req{method: "POST", path: "/v1/submissions/sub_nope/approve", token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"x"}`)}, 404, "not-found", nil},
			{"approve malformed id", req{method: "POST", path: "/v1/submissions/%E2%80%AE/approve", token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"x"}`)}, 400, "bad-request", nil},
			{"approve form body", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/x-www-form-urlencoded", body: []byte(`reason=x`)}, 415, "unsupported-media-type", nil},
			{"approve unknown field", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"x","force":true}`)}, 422, "validation", []api.ProblemField{{Path: "force", Message: "unknown field"}}},
			{"approve hostile unknown field", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: jsonBody(map[string]int{hostile: 1})}, 422, "validation", []api.ProblemField{{Message: "unknown field"}}},
			{"approve trailing data", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"x"} {}`)}, 400, "malformed-body", nil},
			{"approve not json", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`reason: x`)}, 400, "malformed-body", nil},
			{"approve empty body", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(``)}, 400, "malformed-body", nil},
			{"approve array body", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`[]`)}, 422, "validation", nil},
			{"approve reason not a string", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":5}`)}, 422, "validation", []api.ProblemField{{Path: "reason", Message: "must be a JSON string"}}},
			{"approve invalid utf-8", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte("{\"reason\":\"\xff\"}")}, 400, "malformed-body", nil},
			{"approve bidi reason", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: jsonBody(map[string]string{"reason": hostile})}, 422, "validation", []api.ProblemField{{Path: "reason", Message: "must not contain control, bidirectional or invisible characters"}}},
			{"approve overlong reason", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: jsonBody(map[string]string{"reason": strings.Repeat("x", 1001)})}, 422, "validation", nil},
			{"approve body over limit", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: jsonBody(map[string]string{"reason": strings.Repeat("x", 70<<10)})}, 413, "too-large", nil},
			{"reject without reason", req{method: "POST", path: reject, token: e.maintainer, ctype: "application/json", body: []byte(`{}`)}, 422, "validation", []api.ProblemField{{Path: "reason", Message: "must not be empty"}}},
			{"reject blank reason", req{method: "POST", path: reject, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"   "}`)}, 422, "validation", nil},

			// The registry.
			{"unknown addon", req{method: "GET", path: "/v1/addons/nope"}, 404, "not-found", nil},
			{"malformed addon name", req{method: "GET", path: "/v1/addons/Bad_Name"}, 400, "bad-request", nil},
			{"addon name with dash edge", req{method: "GET", path: "/v1/addons/-x"}, 400, "bad-request", nil},
			{"unknown addon versions", req{method: "GET", path: "/v1/addons/nope/versions"}, 404, "not-found", nil},
			{"unknown addon report", req{method: "GET", path: "/v1/addons/nope/report"}, 404, "not-found", nil},
			{"unknown version report", req{method: "GET", path: "/v1/addons/weather/versions/9.9.9/report"}, 404, "not-found", nil},
			{"unpublished version report", req{method: "GET", path: "/v1/addons/weather/versions/1.1.0/report"}, 404, "not-found", nil},
			{"malformed version", req{method: "GET", path: "/v1/addons/weather/versions/1.0%20.0/report"}, 400, "bad-request", nil},
			{"bad tier filter", req{method: "GET", path: "/v1/addons?tier=gold"}, 400, "bad-request", nil},
			{"bad updated_since", req{method: "GET", path: "/v1/addons?updated_since=yesterday"}, 400, "bad-request", nil},
			{"bad include_removed", req{method: "GET", path: "/v1/addons?include_removed=yes"}, 400, "bad-request", nil},
			{"overlong search", req{method: "GET", path: "/v1/addons?q=" + strings.Repeat("a", 101)}, 400, "bad-request", nil},
			{"invalid utf-8 search", req{method: "GET", path: "/v1/addons?q=%FF%FE"}, 400, "bad-request", nil},
			{"overlong token", req{method: "GET", path: "/v1/addons", token: strings.Repeat("t", 300)}, 401, "unauthenticated", nil},
			{"empty bearer", req{method: "GET", path: "/v1/addons", header: map[string]string{"Authorization": "Bearer "}}, 401, "unauthenticated", nil},
			{"control character search", req{method: "GET", path: "/v1/addons?q=%1B%5B31m"}, 400, "bad-request", nil},

			// Verification and suppressions.
			{"submitter verifies", req{method: "PUT", path: "/v1/addons/weather/verified", token: e.submitter, ctype: "application/json", body: []byte(`{"verified":true,"reason":"x"}`)}, 403, "forbidden", nil},
			{"verify missing verified", req{method: "PUT", path: "/v1/addons/weather/verified", token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"x"}`)}, 422, "validation", []api.ProblemField{{Path: "verified", Message: "is required: true grants, false revokes"}}},
			{"verify missing reason", req{method: "PUT", path: "/v1/addons/weather/verified", token: e.maintainer, ctype: "application/json", body: []byte(`{"verified":true}`)}, 422, "validation", []api.ProblemField{{Path: "reason", Message: "must not be empty"}}},
			{"verify string flag", req{method: "PUT", path: "/v1/addons/weather/verified", token: e.maintainer, ctype: "application/json", body: []byte(`{"verified":"yes","reason":"x"}`)}, 422, "validation", nil},
			{"verify unknown addon", req{method: "PUT", path: "/v1/addons/nope/verified", token: e.maintainer, ctype: "application/json", body: []byte(`{"verified":true,"reason":"x"}`)}, 404, "not-found", nil},
			{"suppress bad reason", req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json", body: []byte(`{"code":"unpinned","path":"mcp","reason":"because"}`)}, 422, "validation", []api.ProblemField{{Path: "reason", Message: "must be one of false_positive, mitigated, not_applicable, accepted_risk"}}},
			{"suppress bad code", req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json", body: []byte(`{"code":"Rm -rf","reason":"mitigated"}`)}, 422, "validation", nil},
			{"suppress unknown code", req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json", body: []byte(`{"code":"no_such_rule","reason":"mitigated"}`)}, 422, "validation", nil},
			{"suppress bad expiry", req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json", body: []byte(`{"code":"unpinned","reason":"mitigated","expires_at":"soon"}`)}, 422, "validation", []api.ProblemField{{Path: "expires_at", Message: "must be an RFC 3339 time such as 2026-01-02T15:04:05Z"}}},
			{"suppress unknown addon", req{method: "POST", path: "/v1/addons/nope/suppressions", token: e.maintainer, ctype: "application/json", body: []byte(`{"code":"unpinned","reason":"mitigated"}`)}, 404, "not-found", nil},
			{"submitter suppresses", req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.submitter, ctype: "application/json", body: []byte(`{"code":"unpinned","reason":"mitigated"}`)}, 403, "forbidden", nil},
			{"unsuppress unknown", req{method: "DELETE", path: "/v1/addons/weather/suppressions/sup_nope", token: e.maintainer}, 404, "not-found", nil},
			{"unsuppress malformed id", req{method: "DELETE", path: "/v1/addons/weather/suppressions/a.b", token: e.maintainer}, 400, "bad-request", nil},

			// Routing.
			{"unknown route", req{method: "GET", path: "/v1/nope", undocumented: true}, 404, "not-found", nil},
			{"wrong method", req{method: "DELETE", path: "/v1/addons", undocumented: true}, 405, "method-not-allowed", nil},
			{"bad badge style", req{method: "GET", path: "/v1/addons/weather/badge.svg?style=3d"}, 400, "bad-request", []api.ProblemField{{Path: "style", Message: "must be flat or flat-square"}}},
			{"hostile badge label", req{method: "GET", path: "/v1/addons/weather/badge.svg?label=%E2%80%AEx"}, 400, "bad-request", nil},
			{"malformed badge name", req{method: "GET", path: "/v1/addons/BAD/badge.json"}, 400, "bad-request", nil},
			{"newline in badge label", req{method: "GET", path: "/v1/addons/weather/badge.svg?label=a%0Ab"}, 400, "bad-request", nil},

			// Strict requests: nothing the client sent is dropped or
			// overwritten without a word.
			{"semicolon in query", req{method: "GET", path: "/v1/addons?limit=1;tier=verified"}, 400, "bad-request",
				[]api.ProblemField{{Path: "limit", Message: "contains ';': separate query parameters with '&' and escape a literal ';' as %3B"}}},
			{"semicolon in a key", req{method: "GET", path: "/v1/addons?tier;x=1"}, 400, "bad-request", nil},
			{"semicolon on a report", req{method: "GET", path: "/v1/addons/weather/report?x=1;y=2"}, 400, "bad-request", nil},
			{"semicolon on an unknown route", req{method: "GET", path: "/v1/nope?a;b", undocumented: true}, 400, "bad-request", nil},
			{"bad percent escape", req{method: "GET", path: "/v1/addons?q=%zz"}, 400, "bad-request", []api.ProblemField{{Path: "q", Message: "is not valid percent-encoding"}}},
			{"approve duplicate key", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"fine","reason":"` + hostile + `"}`)}, 400, "malformed-body",
				[]api.ProblemField{{Path: "reason", Message: "the body gives a key more than once"}}},
			{"verify duplicate key", req{method: "PUT", path: "/v1/addons/weather/verified", token: e.maintainer, ctype: "application/json", body: []byte(`{"verified":false,"reason":"x","verified":true}`)}, 400, "malformed-body", nil},
			{"approve key in another case", req{method: "POST", path: approve, token: e.maintainer, ctype: "application/json", body: []byte(`{"Reason":"x"}`)}, 422, "validation", []api.ProblemField{{Path: "Reason", Message: "unknown field"}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, tt.q)
				p := wantProblem(t, r, tt.wantStatus, tt.wantSlug)
				if tt.wantFields != nil {
					if diff := cmp.Diff(tt.wantFields, p.Errors); diff != "" {
						t.Errorf("errors (-want +got):\n%s", diff)
					}
				}
				if tt.wantSlug == "validation" && len(p.Errors) == 0 && p.Detail == "" {
					t.Errorf("a validation problem names no field and has no detail")
				}
				for _, bad := range []string{"\u202e", "\x1b", "<script>", "\xff"} {
					if bytes.Contains(r.body, []byte(bad)) {
						t.Errorf("body echoes %q: %s", bad, r.body)
					}
				}
				if tt.wantStatus == 405 && r.header.Get("Allow") != "GET, OPTIONS" {
					t.Errorf("Allow = %q, want GET, OPTIONS", r.header.Get("Allow"))
				}
				if tt.wantStatus == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("WWW-Authenticate = %q, want Bearer …", r.header.Get("WWW-Authenticate"))
				}
			})
		}

		// Nothing partial: the refused requests left the store as it was.
		queue := e.do(t, req{method: "GET", path: "/v1/submissions", token: e.maintainer})
		if got := addonsOf(t, queue, "addon"); !cmp.Equal(got, []string{"weather", "weather"}) {
			t.Errorf("submissions after bad input = %v, want the two made in setup", got)
		}
		if r := e.do(t, req{method: "GET", path: "/v1/submissions/" + pending, token: e.maintainer}); r.json(t)["submission"].(map[string]any)["status"] != "pending" {
			t.Errorf("pending submission changed by refused decisions: %s", r.body)
		}
		one := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t)
		if n := len(one["suppressions"].([]any)); n != 0 {
			t.Errorf("suppressions after refused requests = %d, want 0", n)
		}
		if one["pending_verification"] != nil {
			t.Errorf("pending_verification = %v after refused requests, want null", one["pending_verification"])
		}
	})
}

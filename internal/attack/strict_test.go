package attack

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
)

// The strict-request and safe-text attacks: parameters the server would
// drop without a word, keys it would overwrite, listings it would give
// away, characters it would echo, and the same fault answered differently
// by different parts of the server.

// strictProblem is the part of an RFC 9457 problem these tests read.
type strictProblem struct {
	Type      string `json:"type"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"errors"`
}

// readProblem decodes r as a problem, failing the test when it is not one.
func readProblem(t *testing.T, what string, r Response) strictProblem {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("%s: Content-Type %q, want application/problem+json: %s", what, ct, r.Body)
	}
	var p strictProblem
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("%s: not a problem: %v: %s", what, err, r.Body)
	}
	if p.Status != r.Status || p.RequestID == "" || p.RequestID != r.Header.Get("X-Request-Id") {
		t.Errorf("%s: problem status %d request id %q, answer %d %q", what, p.Status, p.RequestID, r.Status, r.Header.Get("X-Request-Id"))
	}
	return p
}

// slug is the problem type after its prefix.
func (p strictProblem) slug() string { return strings.TrimPrefix(p.Type, "urn:registryd:problem:") }

// startWithWebhook starts a server that takes GitHub deliveries signed with
// hookSecret. Its GitHub API is unreachable: the deliveries these tests
// send are refused before any job would call it.
func startWithWebhook(t *testing.T, st Store) *Server { return Start(t, st, withWebhook(nil)) }

// signedRequest is a GitHub delivery of body as event, signed with
// hookSecret.
func signedRequest(event, id string, body []byte) Request {
	return Request{Method: "POST", Path: "/v1/webhooks/github", ContentType: "application/json", Body: strings.NewReader(string(body)),
		Header: http.Header{
			"X-Github-Event":      {event},
			"X-Github-Delivery":   {id},
			"X-Hub-Signature-256": {signature(body, hookSecret)},
		}}
}

// submitStrict submits manifest as token and returns the submission id.
func submitStrict(t *testing.T, s *Server, token, manifest string) string {
	t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/v1/submissions", Token: token, ContentType: "application/toml", Body: strings.NewReader(manifest)})
	if r.Status != http.StatusCreated {
		t.Fatalf("submit: status %d: %s", r.Status, r.Body)
	}
	var out struct {
		Submission struct {
			ID string `json:"id"`
		} `json:"submission"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || out.Submission.ID == "" {
		t.Fatalf("submit: no id in %s (%v)", r.Body, err)
	}
	return out.Submission.ID
}

// TestQuerySemicolonRefused: a `;` in a query string, which Go's URL parser
// no longer takes for a separator and drops with its parameter, is 400
// naming the parameter on every kind of route (API reads, maintainers'
// routes, the webhook, the pages, static files), never an answer to a
// request the client did not make.
func TestQuerySemicolonRefused(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := startWithWebhook(t, st)
		maint := s.Token("mia", "maintainer")
		sam := s.Token("sam", "submitter")
		submitStrict(t, s, sam, cleanManifest)
		tests := []struct {
			name, method, path, token string
			wantPath                  string // the parameter the problem names
		}{
			{"list, filter hidden behind limit", "GET", "/v1/addons?limit=1;tier=verified", "", "limit"},
			{"search", "GET", "/v1/addons?q=clean;drop", "", "q"},
			{"submissions", "GET", "/v1/submissions?status=pending;x=1", sam, "status"},
			{"audit log", "GET", "/v1/audit-log?limit=5;cursor=x", maint, "limit"},
			{"deliveries", "GET", "/v1/webhooks/deliveries?limit=1;x", maint, "limit"},
			{"rules", "GET", "/v1/rules?a;b", "", "a"},
			{"badge", "GET", "/v1/addons/clean-tool/badge.svg?style=flat;label=x", "", "style"},
			{"webhook", "POST", "/v1/webhooks/github?x=1;y=2", "", "x"},
			{"registry page", "GET", "/?q=clean;verdict=fail", "", "q"},
			{"static file", "GET", "/static/style.css?v=1;2", "", "v"},
			{"bad percent escape", "GET", "/v1/addons?q=%zz", "", "q"},
		}
		for _, tc := range tests {
			r := s.Do(Request{Method: tc.method, Path: tc.path, Token: tc.token})
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s: %s %s: status %d, want 400: %s", tc.name, tc.method, tc.path, r.Status, r.Body)
				continue
			}
			p := readProblem(t, tc.name, r)
			if p.slug() != "bad-request" || len(p.Errors) == 0 || p.Errors[0].Path != tc.wantPath {
				t.Errorf("%s: problem %s %+v, want bad-request naming %q", tc.name, p.slug(), p.Errors, tc.wantPath)
			}
		}
		// An escaped ';' is data, and still answers.
		if r := s.Do(Request{Path: "/v1/addons?q=clean%3Btool"}); r.Status != http.StatusOK {
			t.Errorf("escaped ';': status %d, want 200: %s", r.Status, r.Body)
		}
	})
}

// TestDuplicateJSONKeysRefused: a JSON body that gives a key twice is 400,
// in the API and in a correctly signed webhook delivery alike. Nothing is
// decided on either value: the submission stays pending, no delivery is
// recorded.
func TestDuplicateJSONKeysRefused(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := startWithWebhook(t, st)
		sam := s.Token("sam", "submitter")
		mia := s.Token("mia", "maintainer")
		id := submitStrict(t, s, sam, cleanManifest)

		for _, tc := range []struct{ name, method, path, body, wantPath string }{
			{"approve, the reason given twice", "POST", "/v1/submissions/" + id + "/approve", `{"reason":"checked","reason":"\u202e"}`, "reason"},
			{"reject, the reason given twice", "POST", "/v1/submissions/" + id + "/reject", `{"reason":"no","reason":"yes"}`, "reason"},
			{"verify, the flag given twice", "PUT", "/v1/addons/clean-tool/verified", `{"verified":false,"reason":"r","verified":true}`, "verified"},
			{"suppress, the code given twice", "POST", "/v1/addons/clean-tool/suppressions", `{"code":"unpinned","reason":"mitigated","code":"literal_secret"}`, "code"},
		} {
			r := s.Do(Request{Method: tc.method, Path: tc.path, Token: mia, ContentType: "application/json", Body: strings.NewReader(tc.body)})
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s: status %d, want 400: %s", tc.name, r.Status, r.Body)
				continue
			}
			if p := readProblem(t, tc.name, r); p.slug() != "malformed-body" || len(p.Errors) == 0 || p.Errors[0].Path != tc.wantPath {
				t.Errorf("%s: problem %s %+v, want malformed-body naming %q", tc.name, p.slug(), p.Errors, tc.wantPath)
			}
		}
		r := s.Do(Request{Path: "/v1/submissions/" + id, Token: mia})
		if !strings.Contains(string(r.Body), `"status":"pending"`) {
			t.Errorf("the submission changed after refused decisions: %s", r.Body)
		}

		ping := []byte(`{"zen":"Keep it logically awesome.","hook_id":1,"zen":"x","repository":{"full_name":"o/r"}}`)
		d := s.Do(signedRequest("ping", "9a8b7c6d-0000-4000-8000-000000000001", ping))
		if d.Status != http.StatusBadRequest {
			t.Fatalf("signed delivery with a duplicate key: status %d, want 400: %s", d.Status, d.Body)
		}
		if p := readProblem(t, "webhook", d); p.slug() != "malformed-body" || len(p.Errors) == 0 || p.Errors[0].Path != "payload" {
			t.Errorf("webhook: problem %s %+v, want malformed-body naming payload", p.slug(), p.Errors)
		}
		list := s.Do(Request{Path: "/v1/webhooks/deliveries", Token: mia})
		if !strings.Contains(string(list.Body), `"items":[]`) {
			t.Errorf("a refused delivery was recorded: %s", list.Body)
		}
	})
}

// TestStaticNeverLists: /static/ serves its files and never a directory
// listing; the directory is the not-found page.
func TestStaticNeverLists(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := Start(t, st, nil)
		for _, path := range []string{"/static/", "/static", "/static/./", "/static/style.css/"} {
			r := s.Do(Request{Path: path})
			if r.Status != http.StatusNotFound && !(r.Status >= 300 && r.Status < 400) {
				t.Errorf("GET %s: status %d, want 404", path, r.Status)
			}
			if strings.Contains(string(r.Body), `<a href="style.css">`) {
				t.Errorf("GET %s lists the directory:\n%s", path, r.Body)
			}
		}
		if r := s.Do(Request{Path: "/static/"}); r.Status != http.StatusNotFound {
			t.Errorf("GET /static/: status %d, want 404", r.Status)
		}
		if r := s.Do(Request{Path: "/static/style.css"}); r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Content-Type"), "text/css") {
			t.Errorf("GET /static/style.css: status %d, Content-Type %q, want 200 text/css", r.Status, r.Header.Get("Content-Type"))
		}
	})
}

// TestHostileTextEchoedNowhere: characters that attack a terminal or hide
// text — the soft hyphen and private-use characters that parts of registryd
// once let through, bidi overrides, line separators, escapes — are refused
// wherever they are sent, the refusal names the code point, and no answer,
// page or badge carries them raw.
func TestHostileTextEchoedNowhere(t *testing.T) {
	hostile := []string{"\u00ad", "\ue0b0", "\u202e", "\u2028", "\u200b", "\x1b", "\U000e0041"}
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := startWithWebhook(t, st)
		sam := s.Token("sam", "submitter")
		mia := s.Token("mia", "maintainer")
		id := submitStrict(t, s, sam, cleanManifest)
		var answers []Response

		for i, h := range hostile {
			esc := strings.Trim(jsonString(h), `"`)
			manifest := strings.Replace(cleanManifest, `description = "Reads files."`, `description = "Reads`+tomlEscape(h)+` files."`, 1)
			manifest = strings.Replace(manifest, `name = "clean-tool"`, `name = "hostile-`+string(rune('a'+i))+`"`, 1)
			r := s.Do(Request{Method: "POST", Path: "/v1/submissions", Token: sam, ContentType: "application/toml", Body: strings.NewReader(manifest)})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("manifest with %q: status %d, want 422: %s", h, r.Status, r.Body)
			} else if p := readProblem(t, "manifest", r); len(p.Errors) == 0 || !strings.Contains(p.Errors[0].Message, "U+") {
				t.Errorf("manifest with %q: errors %+v, want the code point named", h, p.Errors)
			}
			answers = append(answers, r)

			r = s.Do(Request{Method: "POST", Path: "/v1/submissions/" + id + "/reject", Token: mia, ContentType: "application/json",
				Body: strings.NewReader(`{"reason":"bad ` + esc + ` idea"}`)})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("reason with %q: status %d, want 422: %s", h, r.Status, r.Body)
			}
			answers = append(answers, r)
			answers = append(answers,
				s.Do(Request{Path: "/v1/addons?q=" + urlEscape("a"+h)}),
				s.Do(Request{Path: "/?q=" + urlEscape("a"+h)}),
				s.Do(Request{Path: "/v1/addons/clean-tool/badge.svg?label=" + urlEscape("x"+h)}),
				s.Do(Request{Method: "POST", Path: "/v1/submissions/" + id + "/approve", Token: mia, ContentType: "application/json",
					Body: strings.NewReader(`{"reason":"ok","` + esc + `":1}`)}),
			)
		}
		for i, r := range answers {
			for _, h := range hostile {
				if strings.Contains(string(r.Body), h) {
					t.Errorf("answer %d (status %d) carries %q raw: %s", i, r.Status, h, r.Body)
				}
			}
		}
	})
}

// TestSameErrorSameStatus: a fault gets the same status and problem type
// from the API and from the GitHub webhook: a refused field is 422
// validation, a body that is not JSON 400 malformed-body, a body over the
// limit 413.
func TestSameErrorSameStatus(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := startWithWebhook(t, st)
		sam := s.Token("sam", "submitter")
		mia := s.Token("mia", "maintainer")
		id := submitStrict(t, s, sam, cleanManifest)

		badSHA := []byte(`{"action":"opened","repository":{"full_name":"o/r","default_branch":"main"},` +
			`"pull_request":{"number":1,"head":{"sha":"not-a-sha","ref":"f"},"base":{"ref":"main"}}}`)
		tests := []struct {
			fault     string
			api, hook Request
			status    int
			slug      string
		}{
			{"a refused field",
				Request{Method: "POST", Path: "/v1/submissions/" + id + "/reject", Token: mia, ContentType: "application/json", Body: strings.NewReader(`{"reason":""}`)},
				signedRequest("pull_request", "9a8b7c6d-0000-4000-8000-000000000002", badSHA),
				http.StatusUnprocessableEntity, "validation"},
			{"a body that is not JSON",
				Request{Method: "POST", Path: "/v1/submissions/" + id + "/approve", Token: mia, ContentType: "application/json", Body: strings.NewReader(`{"reason":`)},
				signedRequest("pull_request", "9a8b7c6d-0000-4000-8000-000000000003", []byte(`{"action":`)),
				http.StatusBadRequest, "malformed-body"},
			{"a query string with ';'",
				Request{Path: "/v1/addons?a;b"},
				func() Request {
					d := signedRequest("ping", "9a8b7c6d-0000-4000-8000-000000000004", []byte(`{"zen":"z","hook_id":1}`))
					d.Path += "?a;b"
					return d
				}(),
				http.StatusBadRequest, "bad-request"},
		}
		for _, tc := range tests {
			a, h := s.Do(tc.api), s.Do(tc.hook)
			pa, ph := readProblem(t, tc.fault+" (api)", a), readProblem(t, tc.fault+" (webhook)", h)
			if a.Status != tc.status || h.Status != tc.status || pa.slug() != tc.slug || ph.slug() != tc.slug {
				t.Errorf("%s: api %d %s, webhook %d %s, want both %d %s", tc.fault, a.Status, pa.slug(), h.Status, ph.slug(), tc.status, tc.slug)
			}
		}
	})
}

// jsonString is s as a JSON string literal, with every non-ASCII character
// escaped (\uXXXX), as a hostile client would send it.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f && r != '"' && r != '\\':
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			b.WriteString(`\u` + hex4(0xd800+(r>>10)) + `\u` + hex4(0xdc00+(r&0x3ff)))
		default:
			b.WriteString(`\u` + hex4(r))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlEscape writes every character of s as a TOML \UXXXXXXXX escape.
func tomlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(`\U0` + hex4(r >> 16)[1:] + hex4(r&0xffff))
	}
	return b.String()
}

func hex4(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

// urlEscape percent-encodes every byte of s outside unreserved ASCII.
func urlEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

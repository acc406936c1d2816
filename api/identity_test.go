package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

func TestApproveFailingVerdictNeedsOverride(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		id := submissionID(t, e.submit(t, e.submitter, fixture.FailingManifest("risky", "1.0.0"), http.StatusCreated))
		path := "/v1/submissions/" + id + "/approve"

		r := e.do(t, req{method: "POST", path: path, token: e.maintainer, ctype: "application/json", body: []byte(`{"reason":"looks fine"}`)})
		p := wantProblem(t, r, http.StatusConflict, "conflict")
		var codes []string
		for _, f := range p.Blocking {
			codes = append(codes, f.Code+"@"+f.Path)
			if f.Level != "danger" || f.Line != 7 || f.Message == "" {
				t.Errorf("blocking finding %+v: want danger at line 7 with a message", f)
			}
		}
		if diff := cmp.Diff([]string{"fetch_exec@mcp.args[1]", "pipe_to_shell@mcp.args[1]", "shell_exec@mcp.args[1]"}, codes); diff != "" {
			t.Errorf("blocking (-want +got):\n%s", diff)
		}
		if !strings.Contains(p.Detail, "blocks publication") || !strings.Contains(p.Detail, "pipe_to_shell at mcp.args[1]") {
			t.Errorf("detail %q does not name the findings", p.Detail)
		}

		r = e.do(t, req{method: "POST", path: path, token: e.maintainer, ctype: "application/json", body: []byte(`{"override":true}`)})
		p = wantProblem(t, r, http.StatusUnprocessableEntity, "validation")
		if len(p.Errors) != 1 || p.Errors[0].Path != "reason" {
			t.Errorf("errors = %+v, want one for reason", p.Errors)
		}
		// Rejection takes no override.
		r = e.do(t, req{method: "POST", path: "/v1/submissions/" + id + "/reject", token: e.maintainer, ctype: "application/json",
			body: []byte(`{"reason":"no","override":true}`)})
		p = wantProblem(t, r, http.StatusUnprocessableEntity, "validation")
		if len(p.Errors) != 1 || p.Errors[0].Path != "override" {
			t.Errorf("reject with override: errors = %+v, want one for override", p.Errors)
		}

		r = e.do(t, req{method: "POST", path: path, token: e.maintainer, ctype: "application/json",
			body: []byte(`{"override":true,"reason":"our own installer, checked by hand"}`)})
		if r.status != http.StatusOK {
			t.Fatalf("approve with override = %d\n%s", r.status, r.body)
		}
		log := e.do(t, req{method: "GET", path: "/v1/audit-log", token: e.maintainer})
		var entries struct {
			Items []struct {
				Action string          `json:"action"`
				Actor  string          `json:"actor"`
				Reason string          `json:"reason"`
				Detail json.RawMessage `json:"detail"`
			} `json:"items"`
		}
		if err := json.Unmarshal(log.body, &entries); err != nil || len(entries.Items) == 0 {
			t.Fatalf("audit log %s: %v", log.body, err)
		}
		top := entries.Items[0]
		if top.Action != "submission.approve" || top.Actor != "carol" || top.Reason != "our own installer, checked by hand" ||
			!strings.Contains(string(top.Detail), `"override":true`) || !strings.Contains(string(top.Detail), `"pipe_to_shell"`) {
			t.Errorf("audit entry = %+v %s", top, top.Detail)
		}
	})
}

func TestFourEyes(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		// carol's second token, under another spelling of her name.
		second, _, err := e.wf.CreateToken(context.Background(), "CAROL", registry.RoleMaintainer)
		if err != nil {
			t.Fatal(err)
		}
		id := submissionID(t, e.submit(t, e.maintainer, manifest("self", "1.0.0"), http.StatusCreated))
		for _, tok := range []string{e.maintainer, second} {
			r := e.do(t, req{method: "POST", path: "/v1/submissions/" + id + "/approve", token: tok, ctype: "application/json", body: []byte(`{}`)})
			p := wantProblem(t, r, http.StatusForbidden, "forbidden")
			if !strings.Contains(p.Detail, "cannot approve their own") {
				t.Errorf("detail %q does not say why", p.Detail)
			}
		}
		e.approve(t, e.maintainer2, id, http.StatusOK)
	})
}

func TestVersionMustBeSemVer(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		for _, tt := range []struct {
			name, manifest string
			line           int
		}{
			{"missing", "[addon]\nname = \"nover\"\n\n[mcp]\ncommand = \"x\"\n", 1},
			{"traversal", manifest("trav", "../../../v1/audit-log?x="), 4},
		} {
			r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte(tt.manifest)})
			p := wantProblem(t, r, http.StatusUnprocessableEntity, "validation")
			if len(p.Errors) != 1 || p.Errors[0].Path != "addon.version" || p.Errors[0].Line != tt.line {
				t.Errorf("%s: errors = %+v, want addon.version at line %d", tt.name, p.Errors, tt.line)
			}
		}

		e.publish(t, manifest("meta", "1.0.0+a"))
		r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml",
			body: []byte(manifest("meta", "1.0.0+b", `env = { X = "1" }`))})
		p := wantProblem(t, r, http.StatusConflict, "conflict")
		if !strings.Contains(p.Detail, `already published as "1.0.0+a"`) {
			t.Errorf("detail %q does not name the published version", p.Detail)
		}
	})
}

// TestLinksRoundTrip: every link the API writes for a version whose text
// holds SemVer's '+' and '-' leads back to that version.
func TestLinksRoundTrip(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b, func(d *api.Deps) { d.PublicURL = "https://registry.example/mirror/" })
		versions := []string{"1.0.0-rc.1+build.7", "1.0.0+exp.sha.5114f85", "2.0.0-x-y-z.--"}
		for _, v := range versions {
			m := manifest("plus-minus", v)
			r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/toml", body: []byte(m)})
			if r.status != http.StatusCreated {
				t.Fatalf("submit %s = %d\n%s", v, r.status, r.body)
			}
			sub := r.json(t)["submission"].(map[string]any)
			id := sub["id"].(string)
			follow(t, e, r.header.Get("Location"), http.StatusOK, e.submitter)
			follow(t, e, sub["report_url"].(string), http.StatusOK, e.submitter)
			e.approve(t, e.maintainer, id, http.StatusOK)
		}
		r := e.do(t, req{method: "GET", path: "/v1/addons/plus-minus/versions"})
		var list struct {
			Items []struct {
				Version   string `json:"version"`
				ReportURL string `json:"report_url"`
			} `json:"items"`
		}
		if err := json.Unmarshal(r.body, &list); err != nil || len(list.Items) != len(versions) {
			t.Fatalf("versions %s: %v", r.body, err)
		}
		for _, it := range list.Items {
			body := follow(t, e, it.ReportURL, http.StatusOK, "")
			var rep struct {
				Addon struct {
					Version string `json:"version"`
				} `json:"addon"`
			}
			if err := json.Unmarshal(body, &rep); err != nil || rep.Addon.Version != it.Version {
				t.Errorf("%s leads to the report of %q (%v), want %q", it.ReportURL, rep.Addon.Version, err, it.Version)
			}
		}
		a := e.do(t, req{method: "GET", path: "/v1/addons/plus-minus"}).json(t)["addon"].(map[string]any)
		follow(t, e, a["report_url"].(string), http.StatusOK, "")
		follow(t, e, a["badge_url"].(string), http.StatusOK, "")

		// A version stored before versions were held to SemVer still gets a
		// link that stays one path segment: it cannot lead to the audit
		// log, and the API refuses the segment rather than serving another
		// resource.
		const legacy = "../../../v1/audit-log?x="
		ctx := context.Background()
		err := e.store.InTx(ctx, func(tx storage.Tx) error {
			sub := registry.Submission{ID: "sub_legacy", Addon: "plus-minus", Version: legacy, Manifest: []byte("x"), ManifestSHA256: "00",
				Format: "toml", Source: registry.SourceREST, Status: registry.StatusApproved, Verdict: registry.VerdictPass}
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
			return tx.CreateVersion(ctx, registry.Version{Addon: "plus-minus", Version: legacy, SubmissionID: sub.ID})
		})
		if err != nil {
			t.Fatal(err)
		}
		r = e.do(t, req{method: "GET", path: "/v1/addons/plus-minus/versions"})
		if err := json.Unmarshal(r.body, &list); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, it := range list.Items {
			if it.Version != legacy {
				continue
			}
			found = true
			u, err := url.Parse(it.ReportURL)
			if err != nil || u.RawQuery != "" || u.Fragment != "" {
				t.Fatalf("legacy link %q: %v", it.ReportURL, err)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			if len(segs) != 8 || segs[6] != "..%2F..%2F..%2Fv1%2Faudit-log%3Fx=" || segs[7] != "report" {
				t.Errorf("legacy link %q does not keep the version in one segment", it.ReportURL)
			}
			// The contract checker matches routes on the decoded path,
			// where this segment looks like several: only the problem
			// body is checked against the document.
			wantProblem(t, e.do(t, req{method: "GET", path: strings.TrimPrefix(it.ReportURL, "https://registry.example/mirror"), undocumented: true}),
				http.StatusBadRequest, "bad-request")
		}
		if !found {
			t.Errorf("the legacy version is not listed: %s", r.body)
		}
	})
}

// follow requests link (which must start with the public URL) on the test
// server and returns the body.
func follow(t *testing.T, e *env, link string, want int, token string) []byte {
	t.Helper()
	const public = "https://registry.example/mirror"
	if !strings.HasPrefix(link, public+"/v1/") {
		t.Fatalf("link %q is not under %s/v1/", link, public)
	}
	u, err := url.Parse(link)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		t.Fatalf("link %q: %v (query %q, fragment %q)", link, err, u.RawQuery, u.Fragment)
	}
	r := e.do(t, req{method: "GET", path: strings.TrimPrefix(link, public), token: token})
	if r.status != want {
		t.Fatalf("GET %s = %d, want %d\n%s", link, r.status, want, r.body)
	}
	return r.body
}

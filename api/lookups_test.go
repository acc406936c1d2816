package api_test

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/transparency"
)

// TestManifestLookup checks GET …/versions/{version}/manifest: the bytes
// exactly as submitted (TOML and JSON), their media type, their sha256 as
// the strong ETag and the 304 that follows from it, and 404/400 for what is
// not a published version.
func TestManifestLookup(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		// Comments, blank lines and key order are the author's: the bytes
		// served are the bytes submitted, not a re-encoding.
		toml := "# hand-written\n\n" + manifest("weather", "1.0.0") + "\n# end\n"
		e.publish(t, toml)
		doc := `{"addon":{"name":"jsonform","version":"2.0.0","description":"Submitted as JSON.","author":"A","license":"MIT"},` +
			`"mcp":{"command":"jsonform-server","args":["--stdio"]}}`
		r := e.do(t, req{method: "POST", path: "/v1/submissions", token: e.submitter, ctype: "application/json", body: []byte(doc)})
		if r.status != http.StatusCreated {
			t.Fatalf("POST JSON form = %d\n%s", r.status, r.body)
		}
		e.approve(t, e.maintainer, submissionID(t, r.json(t)), http.StatusOK)
		// A pending submission's manifest is not published.
		e.submit(t, e.submitter, manifest("weather", "1.1.0"), http.StatusCreated)

		for _, tc := range []struct {
			path, body, ctype string
		}{
			{"/v1/addons/weather/versions/1.0.0/manifest", toml, api.MediaTOML},
			{"/v1/addons/jsonform/versions/2.0.0/manifest", doc, api.MediaJSON},
		} {
			sum := sha256Sum([]byte(tc.body))
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			got := e.do(t, req{method: "GET", path: tc.path})
			if got.status != http.StatusOK {
				t.Fatalf("GET %s = %d\n%s", tc.path, got.status, got.body)
			}
			if !bytes.Equal(got.body, []byte(tc.body)) {
				t.Errorf("GET %s body differs from the submitted bytes:\n got %q\nwant %q", tc.path, got.body, tc.body)
			}
			if ct := got.header.Get("Content-Type"); ct != tc.ctype {
				t.Errorf("GET %s Content-Type = %q, want %q", tc.path, ct, tc.ctype)
			}
			if et := got.header.Get("ETag"); et != etag {
				t.Errorf("GET %s ETag = %q, want %q", tc.path, et, etag)
			}
			head := e.do(t, req{method: "HEAD", path: tc.path})
			if head.status != http.StatusOK || head.header.Get("ETag") != etag || len(head.body) != 0 {
				t.Errorf("HEAD %s = %d, ETag %q, %d bytes; want 200, %s, none", tc.path, head.status, head.header.Get("ETag"), len(head.body), etag)
			}
			nm := e.do(t, req{method: "GET", path: tc.path, header: map[string]string{"If-None-Match": etag}})
			if nm.status != http.StatusNotModified || nm.header.Get("ETag") != etag {
				t.Errorf("GET %s If-None-Match = %d, ETag %q; want 304, %s", tc.path, nm.status, nm.header.Get("ETag"), etag)
			}
			stale := e.do(t, req{method: "GET", path: tc.path, header: map[string]string{"If-None-Match": `"0000"`}})
			if stale.status != http.StatusOK {
				t.Errorf("GET %s with another ETag = %d, want 200", tc.path, stale.status)
			}
		}

		// The report's manifest_sha256 is the manifest's ETag.
		rep := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions/1.0.0/report"}).json(t)
		man := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions/1.0.0/manifest"})
		if want := `"` + rep["manifest_sha256"].(string) + `"`; man.header.Get("ETag") != want {
			t.Errorf("manifest ETag %q, report's manifest_sha256 %s", man.header.Get("ETag"), want)
		}

		for _, tc := range []struct {
			path   string
			status int
			slug   string
		}{
			{"/v1/addons/weather/versions/1.1.0/manifest", 404, "not-found"}, // pending
			{"/v1/addons/weather/versions/9.9.9/manifest", 404, "not-found"},
			{"/v1/addons/nope/versions/1.0.0/manifest", 404, "not-found"},
			{"/v1/addons/weather/versions/1.0.0+other/manifest", 404, "not-found"},
			{"/v1/addons/weather/versions/%E2%80%AE1/manifest", 400, "bad-request"},
			{"/v1/addons/Weather!/versions/1.0.0/manifest", 400, "bad-request"},
		} {
			wantProblem(t, e.do(t, req{method: "GET", path: tc.path}), tc.status, tc.slug)
		}
	})
}

// TestReportByManifest checks GET /v1/reports/sha256/{hex} and the
// report.dsse and proof beside it: the report, envelope and proof of the
// published version made from those bytes, byte for byte and ETag for ETag
// what the version's own paths serve; 404 for the bytes of a
// submission that is not published and for bytes never seen; 400 for a
// digest that is not 64 lowercase hex digits.
func TestReportByManifest(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		published := manifest("weather", "1.0.0")
		e.publish(t, published)
		later := manifest("weather", "2.0.0", `env = { LOG_LEVEL = "debug" }`)
		e.publish(t, later)
		pending := manifest("weather", "3.0.0")
		e.submit(t, e.submitter, pending, http.StatusCreated)
		digest := func(s string) string {
			sum := sha256Sum([]byte(s))
			return hex.EncodeToString(sum[:])
		}

		for _, tc := range []struct{ manifest, version string }{{published, "1.0.0"}, {later, "2.0.0"}} {
			path := "/v1/reports/sha256/" + digest(tc.manifest)
			byName := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions/" + tc.version + "/report"})
			got := e.do(t, req{method: "GET", path: path})
			if got.status != http.StatusOK {
				t.Fatalf("GET %s = %d\n%s", path, got.status, got.body)
			}
			if !bytes.Equal(got.body, byName.body) {
				t.Errorf("GET %s differs from weather@%s's report:\n%s\n%s", path, tc.version, got.body, byName.body)
			}
			etag := byName.header.Get("ETag")
			if diff := cmp.Diff([]string{etag, "application/json"}, []string{got.header.Get("ETag"), got.header.Get("Content-Type")}); diff != "" {
				t.Errorf("GET %s ETag, Content-Type (-want +got):\n%s", path, diff)
			}
			if rep := got.json(t); rep["manifest_sha256"] != digest(tc.manifest) {
				t.Errorf("GET %s: manifest_sha256 = %v", path, rep["manifest_sha256"])
			}
			nm := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}})
			if nm.status != http.StatusNotModified {
				t.Errorf("GET %s If-None-Match = %d, want 304", path, nm.status)
			}
			head := e.do(t, req{method: "HEAD", path: path})
			if head.status != http.StatusOK || head.header.Get("ETag") != etag {
				t.Errorf("HEAD %s = %d, ETag %q; want 200, %s", path, head.status, head.header.Get("ETag"), etag)
			}

			// Beside it, the version's own envelope and proof.
			version := "/v1/addons/weather/versions/" + tc.version
			for _, sub := range []struct{ suffix, ctype string }{
				{"/report.dsse", transparency.EnvelopeMediaType}, {"/proof", "application/json"},
			} {
				got, want := e.wantCacheable(t, path+sub.suffix, sub.ctype), e.wantCacheable(t, version+sub.suffix, sub.ctype)
				if !bytes.Equal(got, want) {
					t.Errorf("GET %s%s differs from %s%s:\n%s\n%s", path, sub.suffix, version, sub.suffix, got, want)
				}
			}
			keys := e.keysOf(t)
			if payload, _, err := transparency.OpenEnvelope(e.do(t, req{method: "GET", path: path + "/report.dsse"}).body, keys...); err != nil || !bytes.Equal(payload, byName.body) {
				t.Errorf("GET %s/report.dsse: %v; payload\n%s\nwant the report\n%s", path, err, payload, byName.body)
			}
		}

		for _, tc := range []struct {
			name, hex string
			status    int
			slug      string
		}{
			{"pending", digest(pending), 404, "not-found"},
			{"never submitted", digest("nothing"), 404, "not-found"},
			{"upper case", strings.ToUpper(digest(published)), 400, "bad-request"},
			{"short", digest(published)[:63], 400, "bad-request"},
			{"long", digest(published) + "0", 400, "bad-request"},
			{"not hex", strings.Repeat("g", 64), 400, "bad-request"},
			{"prefixed", "sha256:" + digest(published)[7:], 400, "bad-request"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, suffix := range []string{"", "/report.dsse", "/proof"} {
					p := wantProblem(t, e.do(t, req{method: "GET", path: "/v1/reports/sha256/" + tc.hex + suffix}), tc.status, tc.slug)
					if tc.status == 400 && (len(p.Errors) != 1 || p.Errors[0].Path != "sha256") {
						t.Errorf("%s: errors = %+v, want one naming sha256", suffix, p.Errors)
					}
				}
			})
		}
		wantProblem(t, e.do(t, req{method: "GET", path: "/v1/reports/sha256/" + digest(published) + "?x=1"}), 400, "bad-request")
	})
}

package api_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/mcpfixture"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// mcpUpstream serves the recorded MCP Registry's full list.
func mcpUpstream(t *testing.T) string {
	t.Helper()
	list := mcpfixture.Recorded(t, "list-limit100")
	srv := newRecordedServer(t, list.Body)
	return srv
}

func newRecordedServer(t *testing.T, body []byte) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v0.1/servers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// pinnedNPX is a manifest of addon name run by npx at an exact version,
// which has a server.json form.
func pinnedNPX(name, version string) string {
	return `[addon]
name = "` + name + `"
version = "` + version + `"
description = "Runs a pinned package."

[mcp]
command = "npx"
args = ["-y", "pinned-pkg@` + version + `"]

[mcp.env]
PINNED_TOKEN = "do-not-serve-me"
`
}

// importRecorded imports the recorded MCP Registry into e's store and
// approves what it imported, oldest upstream version first.
func importRecorded(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	im := &mcpimport.Importer{Client: &mcpimport.Client{BaseURL: mcpUpstream(t)}, Workflow: e.wf, Marks: e.store}
	sum, err := im.Run(ctx, mcpimport.Options{})
	if err != nil || sum.Created != 3 {
		t.Fatalf("import: %+v, %v", sum.Progress, err)
	}
	subs, _, err := e.store.Submissions(ctx, storage.SubmissionFilter{Source: registry.SourceMCPRegistry}, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"1.7.2", "1.0.6", "1.7.3"}
	for _, v := range order {
		for _, s := range subs {
			if s.Upstream.Version == v {
				if _, err := e.wf.Approve(ctx, workflow.Actor{Name: "carol", Role: registry.RoleMaintainer}, s.ID, "curated"); err != nil {
					t.Fatalf("approve %s: %v", s.ID, err)
				}
			}
		}
	}
}

type mcpList struct {
	Servers  []mcpEntry `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

type mcpEntry struct {
	Server json.RawMessage `json:"server"`
	Meta   struct {
		Official map[string]any `json:"io.modelcontextprotocol.registry/official"`
		Curation map[string]any `json:"dev.registryd/curation"`
	} `json:"_meta"`
}

// kept is what of a server.json registryd keeps: every field of the
// recorded documents but the ones docs/interop.md lists as lost
// (repository, icons, packages registryd does not wire, the runtime hint
// of a PyPI package, the descriptions and flags of variables).
type kept struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     string `json:"version"`
	Package     struct {
		RegistryType string `json:"registryType"`
		Identifier   string `json:"identifier"`
		Version      string `json:"version"`
		Transport    struct {
			Type string `json:"type"`
		} `json:"transport"`
		Env []string
	}
}

func keptOf(t *testing.T, raw json.RawMessage) kept {
	t.Helper()
	var doc struct {
		kept
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string `json:"identifier"`
			Version      string `json:"version"`
			Transport    struct {
				Type string `json:"type"`
			} `json:"transport"`
			EnvironmentVariables []struct {
				Name string `json:"name"`
			} `json:"environmentVariables"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	k := doc.kept
	if len(doc.Packages) > 0 {
		p := doc.Packages[0]
		k.Package.RegistryType, k.Package.Identifier, k.Package.Version, k.Package.Transport = p.RegistryType, p.Identifier, p.Version, p.Transport
		for _, e := range p.EnvironmentVariables {
			k.Package.Env = append(k.Package.Env, e.Name)
		}
	}
	return k
}

// wiredByRegistryd drops from a recorded list what registryd cannot wire
// (the nuget server): docs/interop.md says so.
func wiredByRegistryd(t *testing.T, l mcpList) map[string]mcpEntry {
	t.Helper()
	out := map[string]mcpEntry{}
	for _, e := range l.Servers {
		k := keptOf(t, e.Server)
		if k.Package.RegistryType == "nuget" {
			continue
		}
		out[k.Name+"@"+k.Version] = e
	}
	return out
}

func decodeList(t *testing.T, b []byte) mcpList {
	t.Helper()
	var l mcpList
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("decode list: %v\n%s", err, b)
	}
	return l
}

// compareEntries compares registryd's answer with the recorded one field by
// field, for every field registryd keeps.
func compareEntries(t *testing.T, what string, want, got mcpEntry) {
	t.Helper()
	w, g := keptOf(t, want.Server), keptOf(t, got.Server)
	if w.Package.RegistryType == "oci" {
		w.Package.Version = "" // the tag is in the identifier
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s: server.json (-recorded +registryd):\n%s", what, diff)
	}
	for _, k := range []string{"status", "isLatest"} {
		if want.Meta.Official[k] != got.Meta.Official[k] {
			t.Errorf("%s: _meta official %s = %v, recorded %v", what, k, got.Meta.Official[k], want.Meta.Official[k])
		}
	}
	mcpfixture.Validate(t, got.Server)
	c := got.Meta.Curation
	if c["verdict"] == nil || c["tier"] != "community" || c["reportSha256"] == nil || c["source"] != "mcp-registry" {
		t.Errorf("%s: curation = %v", what, c)
	}
	if sr, _ := c["signedReport"].(map[string]any); sr == nil || sr["url"] != c["reportUrl"].(string)+".dsse" {
		t.Errorf("%s: curation signedReport = %v, want the report's URL with .dsse", what, c["signedReport"])
	}
}

// TestMCPRegistryAnswers imports the recorded MCP Registry, publishes it,
// and asks registryd every request the recording holds: the answers have
// the recorded shapes and, field by field, the recorded values for what
// registryd keeps.
func TestMCPRegistryAnswers(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		importRecorded(t, e)
		const airtable = "io.github.domdomegg/airtable-mcp-server"
		esc := url.PathEscape(airtable)
		if !strings.Contains(esc, "%2F") {
			t.Fatalf("PathEscape(%q) = %q", airtable, esc)
		}

		lists := []struct{ recorded, path string }{
			{"list-limit100", "/v0.1/servers?limit=100"},
			{"list-search", "/v0.1/servers?search=airtable"},
			{"list-version-latest", "/v0.1/servers?version=latest"},
			{"list-updated-since", "/v0.1/servers?updated_since=2026-01-01T00:00:00Z"},
			{"server-versions", "/v0.1/servers/" + esc + "/versions"},
		}
		for _, l := range lists {
			rec := mcpfixture.Recorded(t, l.recorded)
			r := e.do(t, req{method: "GET", path: l.path})
			if r.status != rec.Status || r.header.Get("Content-Type") != rec.Header.Get("Content-Type") {
				t.Fatalf("%s: %d %s, recorded %d %s\n%s", l.path, r.status, r.header.Get("Content-Type"), rec.Status, rec.Header.Get("Content-Type"), r.body)
			}
			want, got := decodeList(t, rec.Body), decodeList(t, r.body)
			wantByKey := wiredByRegistryd(t, want)
			if got.Metadata.Count != len(wantByKey) || len(got.Servers) != len(wantByKey) || got.Metadata.NextCursor != "" {
				t.Errorf("%s: %d servers (count %d, next %q), want the %d recorded ones registryd wires", l.path, len(got.Servers), got.Metadata.Count, got.Metadata.NextCursor, len(wantByKey))
			}
			var order, wantOrder []string
			for _, g := range got.Servers {
				k := keptOf(t, g.Server)
				order = append(order, k.Name+"@"+k.Version)
				w, ok := wantByKey[k.Name+"@"+k.Version]
				if !ok {
					t.Errorf("%s: %s@%s is not in the recording", l.path, k.Name, k.Version)
					continue
				}
				compareEntries(t, l.path, w, g)
			}
			for _, w := range want.Servers {
				if k := keptOf(t, w.Server); k.Package.RegistryType != "nuget" {
					wantOrder = append(wantOrder, k.Name+"@"+k.Version)
				}
			}
			if l.recorded == "server-versions" || l.recorded == "list-limit100" {
				if diff := cmp.Diff(wantOrder, order); diff != "" {
					t.Errorf("%s: order (-recorded +registryd):\n%s", l.path, diff)
				}
			}
		}

		for _, one := range []struct{ recorded, path string }{
			{"server-latest", "/v0.1/servers/" + esc + "/versions/latest"},
			{"server-version", "/v0.1/servers/" + esc + "/versions/1.7.3"},
		} {
			rec := mcpfixture.Recorded(t, one.recorded)
			r := e.do(t, req{method: "GET", path: one.path})
			if r.status != rec.Status {
				t.Fatalf("%s: %d\n%s", one.path, r.status, r.body)
			}
			var want, got mcpEntry
			json.Unmarshal(rec.Body, &want)
			json.Unmarshal(r.body, &got)
			compareEntries(t, one.path, want, got)
		}

		// Pagination, as recorded with limit=2: two, then the rest.
		r := e.do(t, req{method: "GET", path: "/v0.1/servers?limit=2"})
		first := decodeList(t, r.body)
		if len(first.Servers) != 2 || first.Metadata.Count != 2 || first.Metadata.NextCursor == "" {
			t.Fatalf("limit=2: %s", r.body)
		}
		r = e.do(t, req{method: "GET", path: "/v0.1/servers?limit=2&cursor=" + url.QueryEscape(first.Metadata.NextCursor)})
		second := decodeList(t, r.body)
		if len(second.Servers) != 1 || second.Metadata.NextCursor != "" {
			t.Errorf("second page: %s", r.body)
		}

		// The errors are the recorded ones, byte for byte.
		for _, bad := range []struct{ recorded, path string }{
			{"not-found", "/v0.1/servers/" + url.PathEscape("io.github.nobody/nothing") + "/versions"},
			{"not-found", "/v0.1/servers/" + esc + "/versions/9.9.9"},
			{"not-found", "/v0.1/servers/" + url.PathEscape("io.github.domdomegg/time-mcp-nuget") + "/versions/latest"},
			{"bad-limit", "/v0.1/servers?limit=0"},
		} {
			rec := mcpfixture.Recorded(t, bad.recorded)
			r := e.do(t, req{method: "GET", path: bad.path})
			if r.status != rec.Status || r.header.Get("Content-Type") != rec.Header.Get("Content-Type") || string(r.body) != string(rec.Body) {
				t.Errorf("%s: %d %s %s\nrecorded %d %s %s", bad.path, r.status, r.header.Get("Content-Type"), r.body, rec.Status, rec.Header.Get("Content-Type"), rec.Body)
			}
		}
		for _, path := range []string{"/v0.1/servers?limit=101", "/v0.1/servers?limit=x", "/v0.1/servers?updated_since=yesterday",
			"/v0.1/servers?include_deleted=maybe", "/v0.1/servers?cursor=nonsense", "/v0.1/servers?colour=red", "/v0.1/servers?search=%1B%5B2J"} {
			r := e.do(t, req{method: "GET", path: path})
			if r.status != http.StatusUnprocessableEntity || strings.Contains(string(r.body), "\x1b") {
				t.Errorf("%s: %d %s, want 422", path, r.status, r.body)
			}
		}
	})
}

// TestMCPRegistryCaching: the answers carry a strong ETag over their bytes
// and a revalidation with it is a 304; a change of the curation (verified)
// changes the bytes and the ETag.
func TestMCPRegistryCaching(t *testing.T) {
	e := newEnv(t, fixture.SQLite)
	e.publish(t, pinnedNPX("weather", "1.0.0"))
	path := "/v0.1/servers/" + url.PathEscape("dev.registryd/weather") + "/versions/latest"
	r := e.do(t, req{method: "GET", path: path})
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	etag := r.header.Get("ETag")
	sum := sha256Sum(r.body)
	if strings.Contains(string(r.body), "do-not-serve-me") {
		t.Errorf("the answer carries an environment variable's value: %s", r.body)
	}
	if etag != `"sha256-`+hex.EncodeToString(sum[:])+`"` {
		t.Errorf("ETag %q is not the sha256 of the body", etag)
	}
	var got mcpEntry
	json.Unmarshal(r.body, &got)
	mcpfixture.Validate(t, got.Server)
	if got.Meta.Curation["source"] != "rest" || got.Meta.Curation["tier"] != "community" {
		t.Errorf("curation = %v", got.Meta.Curation)
	}
	again := e.do(t, req{method: "GET", path: path})
	if string(again.body) != string(r.body) {
		t.Errorf("the same state gave other bytes:\n%s\n%s", r.body, again.body)
	}
	nm := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}})
	if nm.status != http.StatusNotModified || len(nm.body) != 0 {
		t.Errorf("revalidation: %d %q, want 304", nm.status, nm.body)
	}
	putVerified(e, t, e.maintainer, true, "known")
	putVerified(e, t, e.maintainer2, true, "agreed")
	changed := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}})
	if changed.status != 200 || changed.header.Get("ETag") == etag {
		t.Fatalf("after verification: %d, ETag %q (was %q)", changed.status, changed.header.Get("ETag"), etag)
	}
	json.Unmarshal(changed.body, &got)
	if got.Meta.Curation["tier"] != "verified" {
		t.Errorf("tier after two maintainers verified: %v", got.Meta.Curation["tier"])
	}
	// An addon whose wiring has no server.json form is not served.
	e.publish(t, manifest("local-binary", "1.0.0"))
	if r := e.do(t, req{method: "GET", path: "/v0.1/servers/" + url.PathEscape("dev.registryd/local-binary") + "/versions"}); r.status != 404 {
		t.Errorf("an addon without a server.json form: %d %s, want 404", r.status, r.body)
	}
	l := decodeList(t, e.do(t, req{method: "GET", path: "/v0.1/servers"}).body)
	if l.Metadata.Count != 1 {
		t.Errorf("list: %d servers, want only the one with a server.json form", l.Metadata.Count)
	}
}

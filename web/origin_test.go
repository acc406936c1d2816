package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

// TestOrigin: the addon page and the review queue say where a submission
// came from, with an escaped link to the upstream where there is a safe
// one.
func TestOrigin(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	imp := workflow.Actor{Name: "import:registry.example"}
	manifest := func(name string) []byte {
		return []byte(`{"addon":{"name":"` + name + `","version":"1.7.3","description":"Imported."},"mcp":{"command":"npx","args":["-y","airtable-mcp-server@1.7.3"]}}`)
	}
	res, err := e.svc.Import(ctx, imp, registry.SourceMCPRegistry, []workflow.ImportItem{
		{Manifest: manifest("airtable-abc"), Upstream: registry.UpstreamOrigin{URL: "https://registry.example/", Name: "io.github.x/airtable", Version: "1.7.3"}},
		{Manifest: manifest("hostile-abc"), Upstream: registry.UpstreamOrigin{URL: "javascript:alert(1)", Name: "io.github.x/<b>hostile</b>", Version: "1.7.3"}},
	})
	if err != nil || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if _, err := e.svc.Import(ctx, imp, registry.SourceLeanCtx, []workflow.ImportItem{
		{Manifest: manifest("zep"), Upstream: registry.UpstreamOrigin{URL: "leanctx-addon-registry.json", Name: "zep", Version: ""}},
	}); err != nil {
		t.Fatal(err)
	}
	e.submit(cleanManifest)
	if _, err := e.svc.Approve(ctx, workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}, res[0].Submission.ID, "ok"); err != nil {
		t.Fatal(err)
	}

	p := e.browser().get("/addons/airtable-abc")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	want := `Source: MCP Registry import · <a href="https://registry.example/v0.1/servers/io.github.x%2Fairtable/versions/1.7.3" rel="nofollow noopener noreferrer">io.github.x/airtable 1.7.3</a>`
	if !strings.Contains(p.body, want) {
		t.Errorf("addon page lacks %s", want)
	}

	b := e.browser()
	b.signIn("alice")
	q := b.get("/review?status=all")
	for _, want := range []string{
		`MCP Registry import <a href="https://registry.example/v0.1/servers/io.github.x%2Fairtable/versions/1.7.3" rel="nofollow noopener noreferrer">upstream</a>`,
		`<td data-label="Source">lean-ctx file</td>`,
		`<td data-label="Source">REST</td>`,
	} {
		if !strings.Contains(q.body, want) {
			t.Errorf("review queue lacks %s", want)
		}
	}
	if strings.Contains(q.body, "javascript:") || strings.Contains(q.body, "<b>hostile") {
		t.Errorf("the review queue links or echoes a hostile upstream")
	}
}

package leanctx_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/leanctx"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

var (
	importer = workflow.Actor{Name: "import:leanctx"}
	alice    = workflow.Actor{Name: "alice", TokenID: "tok_a", Role: registry.RoleMaintainer, Principal: "prn_a"}
	bob      = workflow.Actor{Name: "bob", TokenID: "tok_b", Role: registry.RoleMaintainer, Principal: "prn_b"}
)

// TestRoundTrip imports lean-ctx's registry file, publishes every entry,
// and exports the registry: the file comes back as it was, field for
// field. Two maintainers verifying one addon make it the one verified
// entry.
func TestRoundTrip(t *testing.T) {
	orig := sharedtest.File(t, "corpus", "leanctx-addon-registry.json")
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		ctx := context.Background()
		st := b.Open(t)
		wf := workflow.New(st, workflow.Options{})
		sum, err := leanctx.Import(ctx, wf, importer, orig, "leanctx-addon-registry.json")
		if err != nil {
			t.Fatal(err)
		}
		if sum.Entries != 21 || sum.Created != 21 || len(sum.Skips) != 0 {
			t.Fatalf("import: %+v", sum)
		}
		again, err := leanctx.Import(ctx, wf, importer, orig, "leanctx-addon-registry.json")
		if err != nil || again.Created != 0 || again.Existing != 21 {
			t.Errorf("second import: %+v, %v; want nothing new", again, err)
		}
		subs, _, err := st.Submissions(ctx, storage.SubmissionFilter{Source: registry.SourceLeanCtx}, storage.Page{Limit: 100})
		if err != nil || len(subs) != 21 {
			t.Fatalf("%d submissions, %v", len(subs), err)
		}
		for _, s := range subs {
			if s.Upstream == nil || s.Upstream.URL != "leanctx-addon-registry.json" || s.Upstream.Name != s.Addon {
				t.Errorf("submission %s: upstream %+v", s.ID, s.Upstream)
			}
			var err error
			if s.Verdict == registry.VerdictFail {
				_, err = wf.ApproveOverride(ctx, alice, s.ID, "listed by lean-ctx")
			} else {
				_, err = wf.Approve(ctx, alice, s.ID, "listed by lean-ctx")
			}
			if err != nil {
				t.Fatalf("approve %s: %v", s.Addon, err)
			}
		}
		out, err := leanctx.Export(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(decode(t, orig), decode(t, out)); diff != "" {
			t.Errorf("export after import (-lean-ctx +registryd):\n%s", diff)
		}

		for _, m := range []workflow.Actor{alice, bob} {
			if _, err := wf.SetVerified(ctx, m, "serena", true, "read the source"); err != nil {
				t.Fatal(err)
			}
		}
		out, err = leanctx.Export(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range decode(t, out)["addons"].([]any) {
			a := e.(map[string]any)["addon"].(map[string]any)
			if want := a["name"] == "serena"; a["verified"] != want {
				t.Errorf("%s: verified = %v, want %v", a["name"], a["verified"], want)
			}
		}
	})
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestImportRefusals: an entry registryd refuses is skipped and reported,
// the others are imported; a file that is not a registry file is refused
// whole.
func TestImportRefusals(t *testing.T) {
	st := fixture.SQLite.Open(t)
	wf := workflow.New(st, workflow.Options{})
	file := []byte(`{"$schema":"x","registry_version":1,"addons":[
{"addon":{"name":"fine","version":"1.0.0"},"mcp":{"command":"npx","args":["-y","fine@1.0.0"]}},
{"addon":{"name":"Not A Slug","version":"1.0.0"}},
{"addon":{"name":"hostile","description":"\u001b[2J"}}
]}`)
	sum, err := leanctx.Import(context.Background(), wf, importer, file, "file.json")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Created != 1 || len(sum.Skips) != 2 || sum.Skips[0].Entry != 1 || sum.Skips[1].Entry != 2 {
		t.Errorf("import: %+v", sum)
	}
	for _, s := range sum.Skips {
		for _, r := range s.Reason {
			if r < 0x20 {
				t.Errorf("reason echoes a control character: %q", s.Reason)
			}
		}
	}
	for _, bad := range []string{`[]`, `{"registry_version":2,"addons":[]}`, `{"registry_version":1,"addons":[],"extra":1}`} {
		if _, err := leanctx.Import(context.Background(), wf, importer, []byte(bad), "file.json"); err == nil {
			t.Errorf("Import(%s) succeeded, want an error", bad)
		}
	}
}

package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// importer is who runs the imports of the tests.
var importer = workflow.Actor{Name: "import:registry.example"}

// npxManifest is the JSON form of an imported manifest.
func npxManifest(name, version string) []byte {
	return fmt.Appendf(nil, `{"addon":{"name":%q,"version":%q,"description":"Imported."},"mcp":{"command":"npx","args":["-y","pkg@%s"]}}`, name, version, version)
}

func upstream(name, version string) registry.UpstreamOrigin {
	return registry.UpstreamOrigin{URL: "https://registry.example", Name: name, Version: version}
}

func TestImport(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		// A REST addon holds the name "taken".
		h.publish(t, fixture.Clean("taken", "1.0.0"))
		items := []workflow.ImportItem{
			{Manifest: npxManifest("one-abc", "1.0.0"), Upstream: upstream("io.x/one", "1.0.0")},
			{Manifest: npxManifest("one-abc", "1.1.0"), Upstream: upstream("io.x/one", "1.1.0")},
			{Manifest: []byte(`{"addon":{"name":"Bad Name"}}`), Upstream: upstream("io.x/bad", "1.0.0")},
			{Manifest: npxManifest("one-abc", "2.0.0"), Upstream: upstream("io.x/other", "2.0.0")},
			{Manifest: npxManifest("taken", "2.0.0"), Upstream: upstream("io.x/taken", "2.0.0")},
			{Manifest: npxManifest("two-abc", "1.0.0"), Upstream: upstream("io.x/two\x1b[2J", "1.0.0")},
		}
		res, err := h.svc.Import(ctx, importer, registry.SourceMCPRegistry, items)
		if err != nil {
			t.Fatal(err)
		}
		for i, wantCreated := range []bool{true, true, false, false, false, false} {
			if res[i].Created != wantCreated {
				t.Errorf("item %d: Created = %v (err %v), want %v", i, res[i].Created, res[i].Err, wantCreated)
			}
		}
		if !errors.Is(res[2].Err, registry.ErrInvalid) {
			t.Errorf("bad manifest: err = %v, want a validation error", res[2].Err)
		}
		if !errors.Is(res[3].Err, registry.ErrConflict) {
			t.Errorf("addon bound to another upstream server: err = %v, want a conflict", res[3].Err)
		}
		if !errors.Is(res[4].Err, registry.ErrConflict) {
			t.Errorf("addon published by REST: err = %v, want a conflict", res[4].Err)
		}
		if !errors.Is(res[5].Err, registry.ErrInvalid) {
			t.Errorf("upstream name with a control character: err = %v, want a validation error", res[5].Err)
		}
		sub, err := h.store.Submission(ctx, res[0].Submission.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Source != registry.SourceMCPRegistry || sub.Upstream == nil || *sub.Upstream != upstream("io.x/one", "1.0.0") ||
			sub.Status != registry.StatusPending || sub.Submitter != importer.Name || sub.Verdict == "" {
			t.Errorf("imported submission = %+v", sub)
		}
		if _, err := h.store.Report(ctx, sub.ID); err != nil {
			t.Errorf("no report for the imported submission: %v", err)
		}
		if b, err := h.store.UpstreamBinding(ctx, "io.x/one"); err != nil || b.Addon != "one-abc" {
			t.Errorf("binding = %+v, %v", b, err)
		}
		log, _, err := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		imports := 0
		for _, e := range log {
			if e.Action == "submission.import" {
				imports++
			}
		}
		if imports != 2 {
			t.Errorf("%d submission.import entries in the audit log, want 2", imports)
		}

		// The same upstream versions again create nothing, whatever became
		// of their submissions.
		if _, err := h.svc.Reject(ctx, alice, res[1].Submission.ID, "not now"); err != nil {
			t.Fatal(err)
		}
		again, err := h.svc.Import(ctx, importer, registry.SourceMCPRegistry, items[:2])
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range again {
			if r.Created || r.Err != nil || r.Submission.ID != res[i].Submission.ID {
				t.Errorf("second import of item %d = %+v, want submission %s again", i, r, res[i].Submission.ID)
			}
		}
		all, _, err := h.store.Submissions(ctx, storage.SubmissionFilter{Source: registry.SourceMCPRegistry}, storage.Page{})
		if err != nil || len(all) != 2 {
			t.Errorf("%d imported submissions after two imports, want 2 (%v)", len(all), err)
		}
		// Approving an imported submission publishes it as any other.
		if _, err := h.svc.Approve(ctx, alice, res[0].Submission.ID, "checked"); err != nil {
			t.Errorf("approve the import: %v", err)
		}
	})
}

func TestImportLeanCtx(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		up := registry.UpstreamOrigin{URL: "registry.json", Name: "zep", Version: ""}
		first := []workflow.ImportItem{{Manifest: npxManifest("zep", "0.0.0"), Upstream: up}}
		res, err := h.svc.Import(ctx, importer, registry.SourceLeanCtx, first)
		if err != nil || !res[0].Created {
			t.Fatalf("first import = %+v, %v", res, err)
		}
		res2, err := h.svc.Import(ctx, importer, registry.SourceLeanCtx, first)
		if err != nil || res2[0].Created || res2[0].Submission.ID != res[0].Submission.ID {
			t.Errorf("same entry again = %+v, %v; want the first submission", res2, err)
		}
		// The entry changed without a new version: a new submission.
		changed := []workflow.ImportItem{{Manifest: []byte(`{"addon":{"name":"zep","version":"0.0.0","description":"Changed."}}`), Upstream: up}}
		res3, err := h.svc.Import(ctx, importer, registry.SourceLeanCtx, changed)
		if err != nil || !res3[0].Created {
			t.Errorf("changed entry = %+v, %v; want a new submission", res3, err)
		}
		if _, err := h.svc.Import(ctx, importer, registry.SourceREST, first); !errors.Is(err, registry.ErrInvalid) {
			t.Errorf("Import(rest) = %v, want ErrInvalid", err)
		}
		if _, err := h.svc.Import(ctx, workflow.Actor{}, registry.SourceLeanCtx, first); !errors.Is(err, registry.ErrUnauthenticated) {
			t.Errorf("Import without an actor = %v, want ErrUnauthenticated", err)
		}
	})
}

func TestRecordSync(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		const url = "https://registry.example"
		t1 := time.Date(2026, 5, 1, 0, 0, 0, 123456789, time.UTC)
		for _, mark := range []time.Time{t1, t1.Add(-time.Hour)} {
			if err := h.svc.RecordSync(ctx, url, mark); err != nil {
				t.Fatal(err)
			}
		}
		got, err := h.store.UpstreamSync(ctx, url)
		if err != nil || !got.HighWater.Equal(t1.Truncate(time.Microsecond)) {
			t.Errorf("high-water mark = %v, %v; want %v (an older mark does not move it back)", got.HighWater, err, t1)
		}
	})
}

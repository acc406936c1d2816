package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// testUpstreamSubmissions: an imported submission keeps its upstream
// origin, is found by it, and an MCP Registry server version is imported at
// most once.
func testUpstreamSubmissions(t *testing.T, s storage.Store) {
	ctx := context.Background()
	imp := submission("sub_imp", "airtable-x", "1.7.3", 1)
	imp.Source, imp.SubmitterToken, imp.SubmitterPrincipal = registry.SourceMCPRegistry, "", ""
	imp.Upstream = &registry.UpstreamOrigin{URL: "https://registry.example", Name: "io.github.x/airtable", Version: "1.7.3"}
	lean := submission("sub_lean", "zep", "0.0.0", 2)
	lean.Source, lean.SubmitterToken, lean.SubmitterPrincipal = registry.SourceLeanCtx, "", ""
	lean.Upstream = &registry.UpstreamOrigin{URL: "registry.json", Name: "zep", Version: ""}
	rest := submission("sub_rest", "plain", "1.0.0", 3)
	inTx(t, s, func(tx storage.Tx) error {
		for _, sub := range []registry.Submission{imp, lean, rest} {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range []registry.Submission{imp, lean, rest} {
		got, err := s.Submission(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(normSubmission(want), got, opts); diff != "" {
			t.Errorf("Submission(%s) (-want +got):\n%s", want.ID, diff)
		}
	}
	inTx(t, s, func(tx storage.Tx) error {
		got, err := tx.SubmissionsByUpstream(ctx, registry.SourceMCPRegistry, "io.github.x/airtable", "1.7.3")
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].ID != "sub_imp" {
			t.Errorf("SubmissionsByUpstream(airtable 1.7.3) = %v, want sub_imp", got)
		}
		got, err = tx.SubmissionsByUpstream(ctx, registry.SourceLeanCtx, "zep", "")
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].ID != "sub_lean" {
			t.Errorf("SubmissionsByUpstream(zep) = %v, want sub_lean", got)
		}
		got, err = tx.SubmissionsByUpstream(ctx, registry.SourceMCPRegistry, "io.github.x/airtable", "1.7.2")
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("SubmissionsByUpstream(other version) = %v, %v; want an empty list", got, err)
		}
		return nil
	})
	// The same MCP Registry server version a second time conflicts.
	twin := imp
	twin.ID = "sub_twin"
	err := s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, twin) })
	wantErr(t, "CreateSubmission(same upstream version)", err, registry.ErrConflict)
	// A lean-ctx entry may be submitted again (it has no immutable versions).
	again := lean
	again.ID = "sub_lean2"
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, again) })
}

// testUpstreamBindings: an addon is bound to one upstream name and an
// upstream name to one addon.
func testUpstreamBindings(t *testing.T, s storage.Store) {
	ctx := context.Background()
	b := registry.UpstreamBinding{Addon: "x-airtable-abc", Source: registry.SourceMCPRegistry, Name: "io.github.x/airtable", CreatedAt: at(1)}
	inTx(t, s, func(tx storage.Tx) error { return tx.BindUpstream(ctx, b) })
	want := b
	want.CreatedAt = stored(b.CreatedAt)
	if got, err := s.UpstreamBinding(ctx, b.Name); err != nil || !cmp.Equal(want, got) {
		t.Errorf("UpstreamBinding = %+v, %v; want %+v", got, err, want)
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, q := range []struct {
			addon, name string
			want        int
		}{{b.Addon, "io.github.x/other", 1}, {"other", b.Name, 1}, {b.Addon, b.Name, 1}, {"other", "io.github.x/other", 0}} {
			got, err := tx.UpstreamBindings(ctx, q.addon, q.name)
			if err != nil || len(got) != q.want || (q.want == 1 && !cmp.Equal(want, got[0])) {
				t.Errorf("UpstreamBindings(%s, %s) = %+v, %v; want %d", q.addon, q.name, got, err, q.want)
			}
		}
		return nil
	})
	_, err := s.UpstreamBinding(ctx, "io.github.x/other")
	wantErr(t, "UpstreamBinding(unbound)", err, registry.ErrNotFound)
	for _, dup := range []registry.UpstreamBinding{
		{Addon: b.Addon, Source: registry.SourceMCPRegistry, Name: "io.github.x/other", CreatedAt: at(2)},
		{Addon: "other", Source: registry.SourceMCPRegistry, Name: b.Name, CreatedAt: at(2)},
	} {
		err := s.InTx(ctx, func(tx storage.Tx) error { return tx.BindUpstream(ctx, dup) })
		wantErr(t, fmt.Sprintf("BindUpstream(%s, %s)", dup.Addon, dup.Name), err, registry.ErrConflict)
	}
}

// testUpstreamSync: the high-water mark is absent, then kept and replaced.
func testUpstreamSync(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const url = "https://registry.example"
	_, err := s.UpstreamSync(ctx, url)
	wantErr(t, "UpstreamSync(never)", err, registry.ErrNotFound)
	for i, mark := range []int{5, 9} {
		inTx(t, s, func(tx storage.Tx) error {
			return tx.PutUpstreamSync(ctx, registry.UpstreamSync{URL: url, HighWater: at(mark), UpdatedAt: at(10 + i)})
		})
		got, err := s.UpstreamSync(ctx, url)
		want := registry.UpstreamSync{URL: url, HighWater: stored(at(mark)), UpdatedAt: stored(at(10 + i))}
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("UpstreamSync after put %d = %+v, %v; want %+v", i, got, err, want)
		}
	}
}

// testPublishedServers: every published version with its addon, submission,
// report and binding, filtered and paged.
func testPublishedServers(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for i, name := range []string{"alpha", "beta", "gone"} {
			a := addon(name, i)
			a.LatestVersion = "1.1.0"
			if name == "beta" {
				a.Description = "reads AIRTABLE bases"
				a.UpdatedAt = at(30)
			}
			if name == "gone" {
				a.Removed, a.RemovedAt = true, ptr(at(5))
			}
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
			for j, v := range []string{"1.0.0", "1.1.0"} {
				id := fmt.Sprintf("sub_%s_%d", name, j)
				if err := tx.CreateSubmission(ctx, submission(id, name, v, i*2+j)); err != nil {
					return err
				}
				if err := tx.PutReport(ctx, report(id, "r1", `{"id":"`+id+`"}`), nil); err != nil {
					return err
				}
				if err := tx.CreateVersion(ctx, registry.Version{Addon: name, Version: v, SubmissionID: id, PublishedAt: at(i*2 + j), PublishedBy: "carol"}); err != nil {
					return err
				}
			}
		}
		return tx.BindUpstream(ctx, registry.UpstreamBinding{Addon: "alpha", Source: registry.SourceMCPRegistry, Name: "io.github.someone/alpha-server", CreatedAt: at(1)})
	})
	keys := func(ps []storage.PublishedServer) []string {
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Version.Addon+"@"+p.Version.Version)
		}
		return out
	}
	tests := []struct {
		name string
		f    storage.ServerFilter
		want []string
	}{
		{"all", storage.ServerFilter{}, []string{"alpha@1.0.0", "alpha@1.1.0", "beta@1.0.0", "beta@1.1.0"}},
		{"removed too", storage.ServerFilter{IncludeRemoved: true}, []string{"alpha@1.0.0", "alpha@1.1.0", "beta@1.0.0", "beta@1.1.0", "gone@1.0.0", "gone@1.1.0"}},
		{"latest", storage.ServerFilter{Version: storage.LatestVersion}, []string{"alpha@1.1.0", "beta@1.1.0"}},
		{"one version, build metadata ignored", storage.ServerFilter{Version: "1.0.0+x"}, []string{"alpha@1.0.0", "beta@1.0.0"}},
		{"one addon", storage.ServerFilter{Addon: "beta"}, []string{"beta@1.0.0", "beta@1.1.0"}},
		{"search description", storage.ServerFilter{Query: "airtable"}, []string{"beta@1.0.0", "beta@1.1.0"}},
		{"search upstream name", storage.ServerFilter{Query: "SOMEONE/alpha"}, []string{"alpha@1.0.0", "alpha@1.1.0"}},
		{"search literal", storage.ServerFilter{Query: "%"}, []string{}},
		// beta's addon changed at 30; alpha@1.1.0 was published at 1.
		{"updated since", storage.ServerFilter{UpdatedSince: ptr(at(3))}, []string{"beta@1.0.0", "beta@1.1.0"}},
		{"updated since, published", storage.ServerFilter{UpdatedSince: ptr(at(1))}, []string{"alpha@1.1.0", "beta@1.0.0", "beta@1.1.0"}},
	}
	for _, tc := range tests {
		got, next, err := s.PublishedServers(ctx, tc.f, storage.Page{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, keys(got)); diff != "" || next != "" {
			t.Errorf("%s: (-want +got):\n%s (next %q)", tc.name, diff, next)
		}
	}

	var all []storage.PublishedServer
	cursor := ""
	for range 5 {
		page, next, err := s.PublishedServers(ctx, storage.ServerFilter{IncludeRemoved: true}, storage.Page{Cursor: cursor, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if got := len(all); got != 6 {
		t.Fatalf("paged through %d versions, want 6", got)
	}
	first := all[0]
	if first.Upstream != "io.github.someone/alpha-server" || all[2].Upstream != "" {
		t.Errorf("Upstream = %q, %q; want the binding of alpha only", first.Upstream, all[2].Upstream)
	}
	if first.Submission.ID != "sub_alpha_0" || first.Report.SubmissionID != "sub_alpha_0" || string(first.Report.Bytes) != `{"id":"sub_alpha_0"}` {
		t.Errorf("first = submission %q, report %q %q", first.Submission.ID, first.Report.SubmissionID, first.Report.Bytes)
	}
	wantSub := normSubmission(submission("sub_alpha_0", "alpha", "1.0.0", 0))
	if diff := cmp.Diff(wantSub, first.Submission, opts); diff != "" {
		t.Errorf("submission (-want +got):\n%s", diff)
	}
	wantAddon := addon("alpha", 0)
	wantAddon.LatestVersion = "1.1.0"
	if diff := cmp.Diff(normAddon(wantAddon), first.Addon, opts); diff != "" {
		t.Errorf("addon (-want +got):\n%s", diff)
	}
	if first.Version.WiringSHA256 != wantSub.WiringSHA256 || !first.Version.PublishedAt.Equal(stored(at(0))) {
		t.Errorf("version = %+v", first.Version)
	}
	_, _, err := s.PublishedServers(ctx, storage.ServerFilter{}, storage.Page{Cursor: "nonsense"})
	wantErr(t, "PublishedServers(bad cursor)", err, registry.ErrInvalid)
}

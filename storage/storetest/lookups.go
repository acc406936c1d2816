package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// testVersionByManifest checks the lookup by manifest digest: it finds
// the published version made from those bytes, in any addon, and nothing
// for the bytes of a pending or rejected submission or bytes never
// submitted.
func testVersionByManifest(t *testing.T, s storage.Store) {
	ctx := context.Background()
	subs := []registry.Submission{
		submission("sub_1", "alpha", "1.0.0", 1),
		submission("sub_2", "alpha", "2.0.0", 2),
		submission("sub_3", "beta", "1.0.0", 3),
		submission("sub_4", "alpha", "3.0.0", 4), // pending: not published
		submission("sub_5", "beta", "2.0.0", 5),  // rejected
	}
	subs[4].Status = registry.StatusRejected
	var want []registry.Version
	inTx(t, s, func(tx storage.Tx) error {
		for i, sub := range subs {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
			if i >= 3 {
				continue
			}
			v := registry.Version{Addon: sub.Addon, Version: sub.Version, SubmissionID: sub.ID, PublishedAt: at(i), PublishedBy: "carol"}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
			v.PublishedAt, v.WiringSHA256 = stored(v.PublishedAt), sub.WiringSHA256
			want = append(want, v)
		}
		return nil
	})
	for i, v := range want {
		got, err := s.VersionByManifest(ctx, subs[i].ManifestSHA256)
		if err != nil {
			t.Errorf("VersionByManifest(%s@%s's manifest): %v", v.Addon, v.Version, err)
			continue
		}
		if diff := cmp.Diff(v, got); diff != "" {
			t.Errorf("VersionByManifest(%s@%s's manifest) (-want +got):\n%s", v.Addon, v.Version, diff)
		}
	}
	for _, sha := range []string{subs[3].ManifestSHA256, subs[4].ManifestSHA256, wiring("never submitted"), ""} {
		_, err := s.VersionByManifest(ctx, sha)
		wantErr(t, "VersionByManifest("+sha+")", err, registry.ErrNotFound)
	}

	// Publishing the pending submission makes its bytes found.
	inTx(t, s, func(tx storage.Tx) error {
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "3.0.0", SubmissionID: "sub_4", PublishedAt: at(9)})
	})
	if got, err := s.VersionByManifest(ctx, subs[3].ManifestSHA256); err != nil || got.SubmissionID != "sub_4" || got.Version != "3.0.0" {
		t.Errorf("VersionByManifest(published 3.0.0) = %+v, %v; want alpha@3.0.0 from sub_4", got, err)
	}
}

package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
)

// TestClaimSkipsHeldRows: a claim for re-assessment never waits. Reports
// another re-assessing transaction holds are left out, and an addon a
// maintainer's decision holds is named busy, while both transactions are
// still open.
func TestClaimSkipsHeldRows(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := openURL(t, url, false)
	for _, a := range []string{"alpha", "beta", "gamma"} {
		publish(t, s, a, `{}`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	release := make(chan struct{})
	held := make(chan error, 2)
	holders := make(chan error, 2)
	go func() { // another replica's batch: alpha's report
		holders <- s.InTx(ctx, func(tx storage.Tx) error {
			b, err := tx.ClaimStaleReports(ctx, "r2", storage.Cursor{}, 1, false)
			if err == nil && (len(b.Reports) != 1 || b.Reports[0].Submission.ID != "sub_alpha") {
				t.Errorf("first claim = %v, want sub_alpha", claimed(b))
			}
			held <- err
			<-release
			return nil
		})
	}()
	go func() { // a maintainer's decision on gamma
		holders <- s.InTx(ctx, func(tx storage.Tx) error {
			_, err := tx.Addon(ctx, "gamma")
			held <- err
			<-release
			return nil
		})
	}()
	for range 2 {
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}

	var b storage.StaleBatch
	err := s.InTx(ctx, func(tx storage.Tx) error {
		var err error
		b, err = tx.ClaimStaleReports(ctx, "r2", storage.Cursor{}, 10, false)
		return err
	})
	close(release)
	if err != nil {
		t.Fatalf("claim while others hold rows: %v (a claim must not wait)", err)
	}
	for range 2 {
		if err := <-holders; err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"sub_beta", "sub_gamma"}, claimed(b)); diff != "" {
		t.Errorf("claimed (-want +got):\n%s", diff)
	}
	if _, ok := b.Addons["beta"]; !ok || len(b.Addons) != 1 {
		t.Errorf("Addons = %v, want beta alone", b.Addons)
	}
	if diff := cmp.Diff(map[string]bool{"gamma": true}, b.Busy); diff != "" {
		t.Errorf("Busy (-want +got):\n%s", diff)
	}
}

func claimed(b storage.StaleBatch) []string {
	out := []string{}
	for _, r := range b.Reports {
		out = append(out, r.Submission.ID)
	}
	return out
}

// TestMarkStaleKeepsCaches: marking every report stale changes no report,
// so it notifies no replica's report cache. Notifications arrive in commit
// order on one connection, so once a later change to beta has reached the
// other replica, alpha's entry would be gone had the marking notified.
func TestMarkStaleKeepsCaches(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openURL(t, url, false), openURL(t, url, false)
	publish(t, a, "alpha", `{"v":1}`)
	publish(t, a, "beta", `{"v":1}`)
	deadline := time.Now().Add(10 * time.Second)
	for !postgres.Cached(b, "alpha", "") || !postgres.Cached(b, "beta", "") {
		if time.Now().After(deadline) {
			t.Fatal("b never cached the reports: its listener did not start")
		}
		eventually(t, b, "alpha", `{"v":1}`)
		eventually(t, b, "beta", `{"v":1}`)
		time.Sleep(20 * time.Millisecond)
	}
	ctx := context.Background()
	err := a.InTx(ctx, func(tx storage.Tx) error {
		n, err := tx.MarkReportsStale(ctx)
		if err == nil && n != 2 {
			t.Errorf("MarkReportsStale = %d, want 2", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rerender(t, a, "beta", `{"v":2}`)
	eventually(t, b, "beta", `{"v":2}`)
	if !postgres.Cached(b, "alpha", "") {
		t.Errorf("marking reports stale dropped alpha's cached report on another replica")
	}
}

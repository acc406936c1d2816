package postgres_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
)

func openURL(t *testing.T, url string, skipMigrate bool) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: url, MaxConns: 4, SkipMigrate: skipMigrate})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func reportOf(id, body string) registry.Report {
	sum := sha256.Sum256([]byte(body))
	return registry.Report{SubmissionID: id, Bytes: []byte(body), SHA256: hex.EncodeToString(sum[:]), Ruleset: "r1"}
}

// publish stores addon@1.0.0 with a report saying body, through s.
func publish(t *testing.T, s storage.Store, addon, body string) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	id := "sub_" + addon
	manifest := []byte(fmt.Sprintf("[addon]\nname = %q\nversion = \"1.0.0\"\n", addon))
	sum := sha256.Sum256(manifest)
	err := s.InTx(ctx, func(tx storage.Tx) error {
		sub := registry.Submission{ID: id, Addon: addon, Version: "1.0.0", Manifest: manifest, ManifestSHA256: hex.EncodeToString(sum[:]),
			Format: "toml", Source: registry.SourceREST, Submitter: "alice", Status: registry.StatusApproved,
			Verdict: registry.VerdictPass, CreatedAt: now, UpdatedAt: now}
		if err := tx.CreateSubmission(ctx, sub); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, reportOf(id, body), nil); err != nil {
			return err
		}
		if err := tx.CreateVersion(ctx, registry.Version{Addon: addon, Version: "1.0.0", SubmissionID: id, PublishedAt: now}); err != nil {
			return err
		}
		return tx.PutAddon(ctx, registry.Addon{Name: addon, LatestVersion: "1.0.0", LatestVerdict: registry.VerdictPass, CreatedAt: now, UpdatedAt: now})
	})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
}

func rerender(t *testing.T, s storage.Store, addon, body string) {
	t.Helper()
	ctx := context.Background()
	if err := s.InTx(ctx, func(tx storage.Tx) error { return tx.PutReport(ctx, reportOf("sub_"+addon, body), nil) }); err != nil {
		t.Fatalf("rerender: %v", err)
	}
}

// eventually polls until the report s serves for addon says want.
func eventually(t *testing.T, s storage.Store, addon, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, v := range []string{"", "1.0.0"} {
			r, err := s.PublishedReport(context.Background(), addon, v)
			if err != nil {
				t.Fatalf("PublishedReport: %v", err)
			}
			d, err := s.PublishedReportDigest(context.Background(), addon, v)
			if err != nil {
				t.Fatalf("PublishedReportDigest: %v", err)
			}
			if string(r.Bytes) == want && d == reportOf("", want).SHA256 {
				if v == "1.0.0" {
					return
				}
				continue
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 10s %s@%q still serves %q (digest %s), want %q", addon, v, r.Bytes, d, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Two replicas on one database: what one changes, the other serves once
// the change's notification arrives, and the one that changed it serves at
// once.
func TestReportCacheAcrossReplicas(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openURL(t, url, false), openURL(t, url, false)
	publish(t, a, "demo", `{"v":1}`)
	// b's listener connects in the background; once it listens, reads fill
	// the cache.
	deadline := time.Now().Add(10 * time.Second)
	for !postgres.Cached(b, "demo", "") || !postgres.Cached(a, "demo", "") {
		if time.Now().After(deadline) {
			t.Fatal("b never cached the report: its listener did not start")
		}
		eventually(t, b, "demo", `{"v":1}`)
		eventually(t, a, "demo", `{"v":1}`)
		time.Sleep(20 * time.Millisecond)
	}
	// Served from b's cache now; a change through a must reach it.
	rerender(t, a, "demo", `{"v":2}`)
	if r, err := a.PublishedReport(context.Background(), "demo", ""); err != nil || string(r.Bytes) != `{"v":2}` {
		t.Fatalf("the writing replica reads %q, %v: want its own write at once", r.Bytes, err)
	}
	eventually(t, b, "demo", `{"v":2}`)

	// A change made outside any store (raw SQL) is heard too.
	if _, err := a.Pool().Exec(context.Background(), `UPDATE reports SET bytes = $1, sha256 = $2 WHERE submission_id = 'sub_demo'`,
		[]byte(`{"v":3}`), reportOf("", `{"v":3}`).SHA256); err != nil {
		t.Fatal(err)
	}
	eventually(t, b, "demo", `{"v":3}`)
	eventually(t, a, "demo", `{"v":3}`)
}

// On a database without the notification triggers (a replica started with
// --skip-migrate before the migration ran) the cache stays off: every read
// goes to the database and sees changes at once.
func TestReportCacheOffWithoutTriggers(t *testing.T) {
	url := pgtest.NewDatabase(t)
	admin := openURL(t, url, false)
	for _, trg := range []string{"reports_notify ON reports", "addons_notify ON addons", "versions_notify ON versions"} {
		if _, err := admin.Pool().Exec(context.Background(), "DROP TRIGGER "+trg); err != nil {
			t.Fatal(err)
		}
	}
	b := openURL(t, url, true)
	publish(t, admin, "demo", `{"v":1}`)
	eventually(t, b, "demo", `{"v":1}`)
	time.Sleep(300 * time.Millisecond) // give the listener its chance to (wrongly) turn the cache on
	eventually(t, b, "demo", `{"v":1}`)
	if postgres.Cached(b, "demo", "") {
		t.Fatal("b caches reports although no trigger will tell it of changes")
	}
	for i := 2; i <= 4; i++ {
		body := fmt.Sprintf(`{"v":%d}`, i)
		rerender(t, admin, "demo", body)
		// No notification will ever come: the very next read must be fresh.
		if r, err := b.PublishedReport(context.Background(), "demo", ""); err != nil || string(r.Bytes) != body {
			t.Fatalf("without triggers b reads %q, %v; want %q at once", r.Bytes, err, body)
		}
	}
}

// Two replicas on one database: a lock one holds keeps the other out until
// it is released, and a replica waiting for it takes it then.
func TestLockAcrossReplicas(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openURL(t, url, false), openURL(t, url, false)
	ctx := context.Background()
	_, unlock, err := a.Lock(ctx, "pull:o/r#1")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, u, err := b.Lock(short, "pull:o/r#1"); err == nil {
		u()
		t.Fatal("b took a lock a holds")
	}
	if _, u, err := b.Lock(ctx, "pull:o/r#2"); err != nil {
		t.Fatalf("b could not take another key: %v", err)
	} else {
		u()
	}
	got := make(chan error, 1)
	go func() {
		_, u, err := b.Lock(ctx, "pull:o/r#1")
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("b waiting for the lock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b did not take the lock within 10s of a releasing it")
	}
}

// TestLogAcrossReplicas: three stores on one database (replicas sharing a
// key) append to one log at once without a gap or a fork.
func TestLogAcrossReplicas(t *testing.T) {
	k, err := storage.Ephemeral()
	if err != nil {
		t.Fatal(err)
	}
	url := pgtest.NewDatabase(t)
	var stores []storage.Store
	for range 3 {
		s, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: url, MaxConns: 4, Signing: storage.Signing{Signers: []*transparency.Signer{k}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	storetest.LogAcrossStores(t, stores...)
}

// The same as for every store: two handles, each serving the other's
// commits once heard of, and its own at once.
func TestCacheAcrossHandles(t *testing.T) {
	url := pgtest.NewDatabase(t)
	storetest.CacheAcrossHandles(t, openURL(t, url, false), openURL(t, url, false))
}

// Two replicas hear of each other's log appends and checkpoints (migration
// 00020's notifications), which change every inclusion proof.
func TestLogChangesAcrossReplicas(t *testing.T) {
	cfg, skew := skewedSigning(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	storetest.LogChangesAcrossHandles(t, open(), open(), func(d time.Duration) { skew.Add(int64(d)) })
}

// On a database not yet migrated to 00020 (a replica started with
// --skip-migrate) the log's changes are not heard: reports are kept, no
// stamp over the log is ever valid.
func TestLogUnheardWithoutTrigger(t *testing.T) {
	url := pgtest.NewDatabase(t)
	admin := openURL(t, url, false)
	if _, err := admin.Pool().Exec(context.Background(), "DROP TRIGGER log_head_notify ON log_head"); err != nil {
		t.Fatal(err)
	}
	b := openURL(t, url, true)
	publish(t, admin, "demo", `{"v":1}`)
	deadline := time.Now().Add(10 * time.Second)
	for !postgres.Cached(b, "demo", "") {
		if time.Now().After(deadline) {
			t.Fatal("b never cached the report: its listener did not start")
		}
		eventually(t, b, "demo", `{"v":1}`)
		time.Sleep(20 * time.Millisecond)
	}
	if c := b.Changes(); c.Valid(c.WithLog(c.Addon("demo"))) {
		t.Fatal("b keeps proofs although no trigger will tell it of the log's changes")
	}
}

// A report's envelope signed again (SignEnvelopes, after a key rotation)
// notifies its addon: a replica serves the new envelope once it has heard.
func TestEnvelopeResignedAcrossReplicas(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := openURL(t, url, false), openURL(t, url, false)
	publish(t, a, "demo", `{"v":1}`)
	ctx := context.Background()
	// Once b listens, what it reads is kept.
	deadline := time.Now().Add(10 * time.Second)
	for !b.Changes().On() {
		if time.Now().After(deadline) {
			t.Fatal("b's listener did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, v := range []string{"", "1.0.0"} {
		if _, err := b.PublishedEnvelope(ctx, "demo", v); err != nil {
			t.Fatal(err)
		}
	}
	// Only the envelope's columns change, as SignEnvelopes changes them.
	const resigned = `[{"keyid":"k2","sig":"c2ln"}]`
	if _, err := a.Pool().Exec(ctx, `UPDATE reports SET signatures = $1, envelope_keys = 'k2' WHERE submission_id = 'sub_demo'`,
		resigned); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		e, err := b.PublishedEnvelope(ctx, "demo", "")
		if err != nil {
			t.Fatal(err)
		}
		d, err := b.PublishedEnvelopeDigest(ctx, "demo", "1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(e.Bytes)
		if strings.HasSuffix(string(e.Bytes), `,"signatures":`+resigned+`}`) && e.SHA256 == hex.EncodeToString(sum[:]) && d == e.SHA256 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s b still serves the envelope %s (digest %s)", e.Bytes, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// skewedSigning returns the configuration of replicas of one new database
// that sign with one ephemeral key, on a clock that runs ahead by what is
// added to skew (nanoseconds).
func skewedSigning(t *testing.T) (storage.Config, *atomic.Int64) {
	t.Helper()
	k, err := storage.Ephemeral()
	if err != nil {
		t.Fatal(err)
	}
	skew := new(atomic.Int64)
	return storage.Config{DatabaseURL: pgtest.NewDatabase(t), MaxConns: 4, Signing: storage.Signing{Signers: []*transparency.Signer{k},
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}}, skew
}

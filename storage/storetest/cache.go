package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/readcache"
)

// reportCache is what a store that keeps published reports in memory
// tells of its lookups.
type reportCache interface {
	ReportCacheLookups() (hits, misses uint64)
}

func cacheReport(id, body string) registry.Report {
	sum := sha256.Sum256([]byte(body))
	return registry.Report{SubmissionID: id, Bytes: []byte(body), SHA256: hex.EncodeToString(sum[:]), Ruleset: "r1"}
}

// warmReports reads addon's published reports (latest and each version)
// until a read is answered from memory, so that the next change must
// invalidate what is kept. It fails when the store never answers from
// memory: the test would then prove nothing about the cache.
func warmReports(t *testing.T, s storage.Store, addon string, versions ...string) {
	t.Helper()
	rc, ok := s.(reportCache)
	if !ok {
		t.Fatalf("%T keeps no report cache", s)
	}
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for _, v := range append([]string{""}, versions...) {
		for {
			if _, err := s.PublishedReport(ctx, addon, v); err != nil {
				t.Fatalf("PublishedReport(%s@%q): %v", addon, v, err)
			}
			h0, _ := rc.ReportCacheLookups()
			if _, err := s.PublishedReport(ctx, addon, v); err != nil {
				t.Fatalf("PublishedReport(%s@%q): %v", addon, v, err)
			}
			if h1, _ := rc.ReportCacheLookups(); h1 > h0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s@%q was never answered from memory", addon, v)
			}
			time.Sleep(10 * time.Millisecond) // PostgreSQL's listener connects in the background
		}
	}
}

// wantReport checks, on the very next reads, what the store serves for
// addon@version: the bytes and the digest of body.
func wantReport(t *testing.T, s storage.Store, step, addon, version, body string) {
	t.Helper()
	ctx := context.Background()
	want := cacheReport("", body)
	d, err := s.PublishedReportDigest(ctx, addon, version)
	if err != nil {
		t.Fatalf("%s: PublishedReportDigest(%s@%q): %v", step, addon, version, err)
	}
	if d != want.SHA256 {
		t.Errorf("%s: digest of %s@%q is stale: got %s, want %s's", step, addon, version, d, body)
	}
	r, err := s.PublishedReport(ctx, addon, version)
	if err != nil {
		t.Fatalf("%s: PublishedReport(%s@%q): %v", step, addon, version, err)
	}
	if string(r.Bytes) != body || r.SHA256 != want.SHA256 {
		t.Errorf("%s: %s@%q serves %s (digest %s), want %s", step, addon, version, r.Bytes, r.SHA256, body)
	}
	// The signed envelope is of the same report.
	ed, err := s.PublishedEnvelopeDigest(ctx, addon, version)
	if err != nil {
		t.Fatalf("%s: PublishedEnvelopeDigest(%s@%q): %v", step, addon, version, err)
	}
	e, err := s.PublishedEnvelope(ctx, addon, version)
	if err != nil {
		t.Fatalf("%s: PublishedEnvelope(%s@%q): %v", step, addon, version, err)
	}
	var env struct {
		Payload []byte `json:"payload"`
	}
	if err := json.Unmarshal(e.Bytes, &env); err != nil {
		t.Fatalf("%s: envelope of %s@%q: %v", step, addon, version, err)
	}
	if string(env.Payload) != body || ed != e.SHA256 {
		t.Errorf("%s: envelope of %s@%q signs %s (digest %s, read alone %s), want %s", step, addon, version, env.Payload, e.SHA256, ed, body)
	}
}

var errRollback = errors.New("roll back")

// testReadCacheFresh holds the published reads to what the last committed
// transaction left: a store answering them from memory must serve each
// change on the very next read, and nothing a rolled-back transaction
// wrote.
func testReadCacheFresh(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		sub := submission("sub_1", "alpha", "1.0.0", 0)
		sub.Status = registry.StatusApproved
		if err := tx.CreateSubmission(ctx, sub); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, cacheReport("sub_1", `{"v":1}`), nil); err != nil {
			return err
		}
		if err := tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "1.0.0", SubmissionID: "sub_1", PublishedAt: at(1)}); err != nil {
			return err
		}
		return tx.PutAddon(ctx, registry.Addon{Name: "alpha", LatestVersion: "1.0.0", LatestVerdict: registry.VerdictPass, CreatedAt: at(1), UpdatedAt: at(1)})
	})
	wantReport(t, s, "published", "alpha", "", `{"v":1}`)

	steps := []struct {
		name string
		// change makes the change; a non-nil error is the transaction's
		// and means it rolled back.
		change func(tx storage.Tx) error
		// want is what each version serves afterwards ("" for latest).
		want map[string]string
	}{
		{"re-rendered", func(tx storage.Tx) error {
			return tx.PutReport(ctx, cacheReport("sub_1", `{"v":2}`), nil)
		}, map[string]string{"": `{"v":2}`, "1.0.0": `{"v":2}`}},
		{"new version published", func(tx storage.Tx) error {
			sub := submission("sub_2", "alpha", "2.0.0", 2)
			sub.Status = registry.StatusApproved
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, cacheReport("sub_2", `{"v":3}`), nil); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "2.0.0", SubmissionID: "sub_2", PublishedAt: at(3)}); err != nil {
				return err
			}
			return tx.PutAddon(ctx, registry.Addon{Name: "alpha", LatestVersion: "2.0.0", LatestVerdict: registry.VerdictPass, CreatedAt: at(1), UpdatedAt: at(3)})
		}, map[string]string{"": `{"v":3}`, "1.0.0": `{"v":2}`, "2.0.0": `{"v":3}`}},
		{"rolled back", func(tx storage.Tx) error {
			if err := tx.PutReport(ctx, cacheReport("sub_2", `{"rolled back":1}`), nil); err != nil {
				return err
			}
			if err := tx.PutAddon(ctx, registry.Addon{Name: "alpha", LatestVersion: "1.0.0", LatestVerdict: registry.VerdictFail, CreatedAt: at(1), UpdatedAt: at(4)}); err != nil {
				return err
			}
			return errRollback
		}, map[string]string{"": `{"v":3}`, "1.0.0": `{"v":2}`, "2.0.0": `{"v":3}`}},
		{"committed after a rollback", func(tx storage.Tx) error {
			return tx.PutReport(ctx, cacheReport("sub_2", `{"v":4}`), nil)
		}, map[string]string{"": `{"v":4}`, "1.0.0": `{"v":2}`, "2.0.0": `{"v":4}`}},
		{"latest moved back", func(tx storage.Tx) error {
			return tx.PutAddon(ctx, registry.Addon{Name: "alpha", LatestVersion: "1.0.0", LatestVerdict: registry.VerdictPass, CreatedAt: at(1), UpdatedAt: at(5)})
		}, map[string]string{"": `{"v":2}`, "1.0.0": `{"v":2}`, "2.0.0": `{"v":4}`}},
	}
	for _, st := range steps {
		// Every version the previous step left is in memory when the
		// change commits.
		var published []string
		for v := range st.want {
			if _, err := s.PublishedReportDigest(ctx, "alpha", v); err == nil && v != "" {
				published = append(published, v)
			}
		}
		warmReports(t, s, "alpha", published...)
		err := s.InTx(ctx, st.change)
		if err != nil && !errors.Is(err, errRollback) {
			t.Fatalf("%s: InTx: %v", st.name, err)
		}
		for v, body := range st.want {
			wantReport(t, s, st.name, "alpha", v, body)
		}
	}

	// A read of a version that is not published is not found, and stays
	// so only until it is published.
	if _, err := s.PublishedReport(ctx, "alpha", "3.0.0"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("unpublished version: got %v, want ErrNotFound", err)
	}
	inTx(t, s, func(tx storage.Tx) error {
		sub := submission("sub_3", "alpha", "3.0.0", 6)
		sub.Status = registry.StatusApproved
		if err := tx.CreateSubmission(ctx, sub); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, cacheReport("sub_3", `{"v":5}`), nil); err != nil {
			return err
		}
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "3.0.0", SubmissionID: "sub_3", PublishedAt: at(6)})
	})
	wantReport(t, s, "published after a miss", "alpha", "3.0.0", `{"v":5}`)
}

// eventuallyReport polls until s serves body for addon@version (digest and
// bytes), failing after 10 s.
func eventuallyReport(t *testing.T, s storage.Store, addon, version, body string) {
	t.Helper()
	ctx := context.Background()
	want := cacheReport("", body).SHA256
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := s.PublishedReportDigest(ctx, addon, version)
		if err != nil {
			t.Fatalf("PublishedReportDigest(%s@%q): %v", addon, version, err)
		}
		r, err := s.PublishedReport(ctx, addon, version)
		if err != nil {
			t.Fatalf("PublishedReport(%s@%q): %v", addon, version, err)
		}
		if d == want && string(r.Bytes) == body {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s %s@%q still serves %s (digest %s), want %s", addon, version, r.Bytes, d, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// CacheAcrossHandles checks two handles on one database (two replicas, or
// two processes on one SQLite file): what one changes, it serves at once,
// and the other serves once it has heard of the change, however much each
// kept in memory before.
func CacheAcrossHandles(t *testing.T, a, b storage.Store) {
	ctx := context.Background()
	put := func(s storage.Store, body string, first bool) {
		t.Helper()
		inTx(t, s, func(tx storage.Tx) error {
			if first {
				sub := submission("sub_1", "alpha", "1.0.0", 0)
				sub.Status = registry.StatusApproved
				if err := tx.CreateSubmission(ctx, sub); err != nil {
					return err
				}
			}
			if err := tx.PutReport(ctx, cacheReport("sub_1", body), nil); err != nil {
				return err
			}
			if !first {
				return nil
			}
			if err := tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "1.0.0", SubmissionID: "sub_1", PublishedAt: at(1)}); err != nil {
				return err
			}
			return tx.PutAddon(ctx, registry.Addon{Name: "alpha", LatestVersion: "1.0.0", LatestVerdict: registry.VerdictPass, CreatedAt: at(1), UpdatedAt: at(1)})
		})
	}
	put(a, `{"v":1}`, true)
	eventuallyReport(t, b, "alpha", "", `{"v":1}`)
	for i, w := range []struct{ writer, other storage.Store }{{a, b}, {b, a}, {a, b}} {
		warmReports(t, w.writer, "alpha", "1.0.0")
		warmReports(t, w.other, "alpha", "1.0.0")
		body := `{"v":` + string(rune('2'+i)) + `}`
		put(w.writer, body, false)
		wantReport(t, w.writer, "the writer", "alpha", "", body)
		wantReport(t, w.writer, "the writer", "alpha", "1.0.0", body)
		eventuallyReport(t, w.other, "alpha", "", body)
		eventuallyReport(t, w.other, "alpha", "1.0.0", body)
	}
}

// changeTracker is a store that tells of its changes (sqlstore.Store).
type changeTracker interface {
	Changes() *readcache.Tracker
}

// LogChangesAcrossHandles checks that each of two handles on one database
// hears of the log's changes made through the other — an append for
// another addon, a checkpoint signed again — so that an inclusion proof
// kept against a stamp taken WithLog is served no longer; and that the
// handle that made the change drops it at once. The database must hold
// nothing yet; skew moves the clock both stores sign with.
func LogChangesAcrossHandles(t *testing.T, a, b storage.Store, skew func(time.Duration)) {
	ctx := context.Background()
	ta, ok := a.(changeTracker)
	tb, ok2 := b.(changeTracker)
	if !ok || !ok2 {
		t.Fatalf("%T keeps no read cache", a)
	}
	// publish appends the log's size-th leaf and waits for the checkpoint
	// that covers it, which the store signs after the commit: a signature
	// still to come would otherwise land inside the next change, under its
	// skewed clock, and make that change's own refresh find nothing stale.
	publish := func(s storage.Store, name string, size uint64) {
		t.Helper()
		inTx(t, s, func(tx storage.Tx) error {
			if err := tx.PutAddon(ctx, addon(name, 0)); err != nil {
				return err
			}
			_, err := publishOne(ctx, tx, name, 0)
			return err
		})
		WaitCheckpoint(t, s, size)
	}
	publish(a, "alpha", 1)
	// stamp waits until a stamp over alpha and the log taken on s is
	// valid (PostgreSQL's listener connects in the background).
	stamp := func(s changeTracker) readcache.Stamp {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			st := s.Changes().WithLog(s.Changes().Addon("alpha"))
			if s.Changes().Valid(st) {
				return st
			}
			if time.Now().After(deadline) {
				t.Fatal("no stamp over the log is valid after 10 s: the store does not hear of the log's changes")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	changes := []struct {
		name   string
		writer storage.Store
		change func(s storage.Store)
	}{
		{"another addon appended through a", a, func(s storage.Store) { publish(s, "beta", 2) }},
		{"another addon appended through b", b, func(s storage.Store) { publish(s, "gamma", 3) }},
		{"checkpoint signed again through b", b, func(s storage.Store) {
			skew(2 * time.Second)
			if signed, err := s.RefreshCheckpoint(ctx, time.Second); err != nil || !signed {
				t.Fatalf("RefreshCheckpoint = %v, %v; want a new checkpoint", signed, err)
			}
		}},
		{"checkpoint signed again through a", a, func(s storage.Store) {
			skew(2 * time.Second)
			if signed, err := s.RefreshCheckpoint(ctx, time.Second); err != nil || !signed {
				t.Fatalf("RefreshCheckpoint = %v, %v; want a new checkpoint", signed, err)
			}
		}},
	}
	for _, c := range changes {
		sa, sb := stamp(ta), stamp(tb)
		c.change(c.writer)
		writer, other, mine, theirs := ta, tb, sa, sb
		if c.writer == b {
			writer, other, mine, theirs = tb, ta, sb, sa
		}
		if writer.Changes().Valid(mine) {
			t.Errorf("%s: the writer still serves what it kept before", c.name)
		}
		deadline := time.Now().Add(10 * time.Second)
		for other.Changes().Valid(theirs) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: after 10 s the other handle still serves what it kept before", c.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

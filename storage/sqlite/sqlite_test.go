package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
)

var (
	templateOnce sync.Once
	templateFile string
	templateErr  error
)

// migratedFile returns a database file migrated once per test binary;
// tests copy it rather than migrate from scratch (River's migrations are
// slow under -race).
func migratedFile(t *testing.T) string {
	t.Helper()
	templateOnce.Do(func() {
		dir, err := os.MkdirTemp("", "registryd-sqlite-template-")
		if err != nil {
			templateErr = err
			return
		}
		templateErr = sqlite.Migrate(context.Background(), storage.Config{DataDir: dir})
		templateFile = filepath.Join(dir, storage.SQLiteFile)
	})
	if templateErr != nil {
		t.Fatalf("migrate template: %v", templateErr)
	}
	return templateFile
}

func open(t *testing.T) *sqlite.Store {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(migratedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, storage.SQLiteFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return openDir(t, dir)
}

// openDir opens the database in dir, closed when t ends.
func openDir(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMain(m *testing.M) {
	code := m.Run()
	if templateFile != "" {
		os.RemoveAll(filepath.Dir(templateFile))
	}
	os.Exit(code)
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return open(t) })
}

func TestOpenCreatesDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, storage.SQLiteFile)); err != nil {
		t.Errorf("database file not created: %v", err)
	}
}

func TestMigratedFalseBeforeMigrate(t *testing.T) {
	ctx := context.Background()
	cfg := storage.Config{DataDir: t.TempDir(), SkipMigrate: true}
	s, err := sqlite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); ok || err != nil {
		t.Errorf("Migrated() before migrating = %v, %v; want false, nil", ok, err)
	}
	if err := sqlite.Migrate(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Migrated(ctx); !ok || err != nil {
		t.Errorf("Migrated() after Migrate = %v, %v; want true, nil", ok, err)
	}
	// Migrating again is a no-op.
	if err := sqlite.Migrate(ctx, cfg); err != nil {
		t.Errorf("second Migrate: %v", err)
	}
}

func TestOpenUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(context.Background(), storage.Config{DataDir: file}); err == nil {
		t.Error("Open with DataDir naming a file succeeded, want an error")
	}
}

// TestDecidersAcrossStores opens the same file twice, as two processes
// would, and races deciders through both: the IMMEDIATE transactions (and
// InTx's retry when the file stays busy) let exactly one see it pending.
func TestDecidersAcrossStores(t *testing.T) {
	ctx := context.Background()
	cfg := storage.Config{DataDir: t.TempDir()}
	var stores []*sqlite.Store
	for range 2 {
		s, err := sqlite.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	err := stores[0].InTx(ctx, func(tx storage.Tx) error {
		return tx.CreateSubmission(ctx, registry.Submission{ID: "sub_1", Addon: "x", Version: "1", Format: "toml",
			Source: registry.SourceREST, Status: registry.StatusPending})
	})
	if err != nil {
		t.Fatal(err)
	}
	const perStore = 4
	var wg sync.WaitGroup
	var runs atomic.Int32
	errs := make(chan error, 2*perStore)
	start := make(chan struct{})
	for i := range 2 * perStore {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- stores[i%2].InTx(ctx, func(tx storage.Tx) error {
				runs.Add(1)
				sub, err := tx.Submission(ctx, "sub_1")
				if err != nil || sub.Status != registry.StatusPending {
					return err
				}
				time.Sleep(10 * time.Millisecond)
				sub.Status = registry.StatusApproved
				if err := tx.UpdateSubmission(ctx, sub); err != nil {
					return err
				}
				return tx.AppendAudit(ctx, registry.AuditEntry{ID: fmt.Sprintf("aud_%d", i), Actor: "m", Action: "submission.approve"})
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("decider: %v", err)
		}
	}
	log, _, err := stores[1].AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 {
		t.Errorf("%d deciders committed a decision, want exactly 1", len(log))
	}
	// Transactions that take the write lock at BEGIN wait for it there;
	// none has to be run again after failing to upgrade a read lock.
	if got := runs.Load(); got != 2*perStore {
		t.Errorf("fn ran %d times, want %d (no retries)", got, 2*perStore)
	}
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, openBench)
}

func TestOpenRefusesQuestionMark(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?mode=ro")
	_, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Errorf("Open(DataDir with '?') = %v, want an error naming the data directory", err)
	}
}

func TestDataDirWithSpacesAndHash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data #1")
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, storage.SQLiteFile)); err != nil {
		t.Errorf("database not at %s: %v", dir, err)
	}
}

func TestPragmas(t *testing.T) {
	s := open(t)
	tests := []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
	}
	for _, tc := range tests {
		var got string
		if err := s.DB().QueryRowContext(context.Background(), "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %q, want %q", tc.pragma, got, tc.want)
		}
	}
}

// TestPendingOfAddonPlan checks the plan of the review queue's busiest
// filter, an addon's pending submissions oldest first (a resubmission's
// twin lookup): it must reach that addon's pending rows through
// submissions_addon_status, in order, without a sort, however many pending
// submissions other addons have and whether or not the planner has
// statistics.
func TestPendingOfAddonPlan(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	const query = `EXPLAIN QUERY PLAN SELECT * FROM submissions
		WHERE status = ?1 AND addon = ?2 ORDER BY created_at, id LIMIT ?3`
	plan := func(t *testing.T) string {
		t.Helper()
		rows, err := s.DB().QueryContext(ctx, query, "pending", "a", 201)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(steps, "; ")
	}
	check := func(t *testing.T) {
		t.Helper()
		got := plan(t)
		const want = "SEARCH submissions USING INDEX submissions_addon_status (addon=? AND status=?)"
		if !strings.Contains(got, want) {
			t.Errorf("plan = %q, want it to contain %q", got, want)
		}
		if strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("plan = %q sorts; want rows read in order from the index", got)
		}
	}
	t.Run("empty", check)

	// Many pending submissions spread over few addons, some decided.
	err := s.InTx(ctx, func(tx storage.Tx) error {
		for i := range 2000 {
			st := registry.StatusPending
			if i%10 == 0 {
				st = registry.StatusApproved
			}
			err := tx.CreateSubmission(ctx, registry.Submission{ID: fmt.Sprintf("sub_%04d", i),
				Addon: fmt.Sprintf("addon-%d", i%20), Version: "1", Format: "toml", Source: registry.SourceREST,
				Status: st, CreatedAt: time.Unix(int64(i), 0)})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("populated", check)
	if _, err := s.DB().ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	t.Run("analyzed", check)
}

// BenchmarkLog: go test ./storage/sqlite -run '^$' -bench Log -benchtime 100x
func BenchmarkLog(b *testing.B) {
	storetest.BenchLog(b, openBench)
}

// TestLogAcrossStores: two stores on one file (two processes, as far as
// SQLite knows) append to one log at once without a gap or a fork.
func TestLogAcrossStores(t *testing.T) {
	k, err := storage.Ephemeral()
	if err != nil {
		t.Fatal(err)
	}
	cfg := storage.Config{DataDir: t.TempDir(), Signing: storage.Signing{Signers: []*transparency.Signer{k}}}
	var stores []storage.Store
	for range 2 {
		s, err := sqlite.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	storetest.LogAcrossStores(t, stores...)
}

// TestSignEnvelopesAfterRotation: a store opened with another key on the
// same file signs every envelope again with it.
func TestSignEnvelopesAfterRotation(t *testing.T) {
	dir := t.TempDir()
	var stores []storage.Store
	for range 2 {
		k, err := storage.Ephemeral()
		if err != nil {
			t.Fatal(err)
		}
		s, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir, Signing: storage.Signing{Signers: []*transparency.Signer{k}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	storetest.SignEnvelopesAfterRotation(t, stores[0], stores[1])
}

// BenchmarkCheckpointDelay: go test ./storage/sqlite -run '^$' -bench CheckpointDelay -benchtime 50x
func BenchmarkCheckpointDelay(b *testing.B) {
	storetest.BenchCheckpointDelay(b, openBench)
}

// openBench opens a fresh store in a temporary directory for a benchmark
// and closes it when the benchmark ends.
func openBench(b *testing.B) storage.Store {
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

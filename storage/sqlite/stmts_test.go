package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlstore"
)

func openPlain(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO kv VALUES ('a', '1'), ('b', '2')`); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	db := openPlain(t)
	const (
		one     = `SELECT v FROM kv WHERE k = ?1`
		all     = `SELECT k FROM kv ORDER BY k`
		broken  = `SELECT v FROM no_such_table WHERE k = ?1`
		missing = `SELECT v FROM later WHERE k = ?1`
	)
	c := newStmtCache(ctx, db, []string{one, missing})
	if got := c.len(); got != 1 {
		t.Fatalf("after warming with one good and one unpreparable query: %d cached, want 1", got)
	}

	tests := []struct {
		name    string
		query   string
		arg     []any
		want    string
		wantErr bool
		cached  int // statements cached after the call
	}{
		{"warm query", one, []any{"a"}, "1", false, 1},
		{"same text again", one, []any{"b"}, "2", false, 1},
		{"new text prepared on first use", all, nil, "a", false, 2},
		{"and reused", all, nil, "a", false, 2},
		{"an invalid query reports its error and is not cached", broken, []any{"a"}, "", true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			err := c.QueryRowContext(ctx, tc.query, tc.arg...).Scan(&got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("QueryRowContext(%q) error = %v, want error %v", tc.query, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("QueryRowContext(%q) = %q, want %q", tc.query, got, tc.want)
			}
			if n := c.len(); n != tc.cached {
				t.Errorf("%d statements cached, want %d", n, tc.cached)
			}
		})
	}

	t.Run("a table created later is found", func(t *testing.T) {
		if _, err := db.Exec(`CREATE TABLE later (k TEXT PRIMARY KEY, v TEXT NOT NULL); INSERT INTO later VALUES ('x', 'y')`); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := c.QueryRowContext(ctx, missing, "x").Scan(&got); err != nil || got != "y" {
			t.Errorf("QueryRowContext(later) = %q, %v; want y", got, err)
		}
	})

	t.Run("rows", func(t *testing.T) {
		rows, err := c.QueryContext(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(keys) != "[a b]" {
			t.Errorf("QueryContext(all) = %v, want [a b]", keys)
		}
	})

	t.Run("closed", func(t *testing.T) {
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if n := c.len(); n != 0 {
			t.Errorf("%d statements cached after Close, want 0", n)
		}
		// After Close the cache prepares nothing more; queries still run
		// while the pool is open.
		var got string
		if err := c.QueryRowContext(ctx, one, "a").Scan(&got); err != nil || got != "1" {
			t.Errorf("QueryRowContext after Close = %q, %v; want 1", got, err)
		}
		if n := c.len(); n != 0 {
			t.Errorf("%d statements cached by a query after Close, want 0", n)
		}
	})
}

func TestStmtCacheBound(t *testing.T) {
	ctx := context.Background()
	c := newStmtCache(ctx, openPlain(t), nil)
	defer c.Close()
	for i := range maxCachedStmts + 10 {
		var got int
		// Distinct texts: a constant folded into each.
		if err := c.QueryRowContext(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&got); err != nil || got != i {
			t.Fatalf("SELECT %d = %d, %v", i, got, err)
		}
	}
	if n := c.len(); n != maxCachedStmts {
		t.Errorf("%d statements cached, want the bound %d", n, maxCachedStmts)
	}
}

func TestStmtCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	db := openPlain(t)
	db.SetMaxOpenConns(4)
	c := newStmtCache(ctx, db, nil)
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			var v string
			k := []string{"a", "b"}[i%2]
			// Two texts raced by many goroutines: each is cached once.
			q := []string{`SELECT v FROM kv WHERE k = ?1`, `SELECT v FROM kv WHERE k = ?1 AND 1`}[i%4/2]
			if err := c.QueryRowContext(ctx, q, k).Scan(&v); err != nil {
				errs <- err
				return
			}
			if want := map[string]string{"a": "1", "b": "2"}[k]; v != want {
				errs <- fmt.Errorf("k=%s: got %q, want %q", k, v, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := c.len(); n != 2 {
		t.Errorf("%d statements cached, want 2", n)
	}
}

// TestStoreReadsThroughPreparedStatements checks that the store's reads go
// through the cache: the hot queries are prepared at Open, and a read
// outside them adds its text once.
func TestStoreReadsThroughPreparedStatements(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := s.stmts.len(), len(sqlstore.HotQueries); got != want {
		t.Fatalf("after Open: %d statements prepared, want the %d hot queries", got, want)
	}
	hot := []struct {
		name string
		call func() error
	}{
		{"PublishedReport", func() error { _, err := s.PublishedReport(ctx, "a", ""); return err }},
		{"PublishedReport@version", func() error { _, err := s.PublishedReport(ctx, "a", "1"); return err }},
		{"PublishedReportDigest", func() error { _, err := s.PublishedReportDigest(ctx, "a", ""); return err }},
		{"PublishedReportDigest@version", func() error { _, err := s.PublishedReportDigest(ctx, "a", "1"); return err }},
		{"Report", func() error { _, err := s.Report(ctx, "sub_x"); return err }},
		{"Addon", func() error { _, err := s.Addon(ctx, "a"); return err }},
		{"Submission", func() error { _, err := s.Submission(ctx, "sub_x"); return err }},
		{"TokenByHash", func() error { _, err := s.TokenByHash(ctx, []byte{1}); return err }},
	}
	for _, tc := range hot {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, registry.ErrNotFound) {
				t.Errorf("%s on an empty store: %v, want ErrNotFound", tc.name, err)
			}
			if got, want := s.stmts.len(), len(sqlstore.HotQueries); got != want {
				t.Errorf("%d statements cached, want still %d", got, want)
			}
		})
	}
	for range 2 {
		if _, _, err := s.Submissions(ctx, storage.SubmissionFilter{Addon: "a", Status: registry.StatusPending}, storage.Page{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := s.stmts.len(), len(sqlstore.HotQueries)+1; got != want {
		t.Errorf("after two identical Submissions calls: %d statements cached, want %d", got, want)
	}
}

// TestTransactionsLearnStatements checks the writer's cache: a
// transaction's statements run unprepared the first time, are prepared once
// it is over, and later transactions reuse them, committing and rolling
// back as before.
func TestTransactionsLearnStatements(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.wstmts.len(); n != 0 {
		t.Fatalf("writer cache holds %d statements after Open, want 0", n)
	}
	create := func(id string) func(storage.Tx) error {
		return func(tx storage.Tx) error {
			if _, err := tx.Submission(ctx, id); !errors.Is(err, registry.ErrNotFound) {
				return fmt.Errorf("Submission(%s) before creating it: %v, want ErrNotFound", id, err)
			}
			return tx.CreateSubmission(ctx, registry.Submission{ID: id, Addon: "a", Version: "1", Format: "toml",
				Source: registry.SourceREST, Status: registry.StatusPending})
		}
	}
	errRollback := errors.New("roll back")
	steps := []struct {
		name    string
		fn      func(storage.Tx) error
		wantErr error
		cached  int
	}{
		{"first transaction learns its two statements", create("sub_1"), nil, 2},
		{"the same statements again", create("sub_2"), nil, 2},
		{"a rolled-back transaction", func(tx storage.Tx) error {
			if err := create("sub_3")(tx); err != nil {
				return err
			}
			return errRollback
		}, errRollback, 2},
		{"a conflict through a cached statement", func(tx storage.Tx) error {
			return tx.CreateSubmission(ctx, registry.Submission{ID: "sub_1", Addon: "a", Version: "1", Format: "toml",
				Source: registry.SourceREST, Status: registry.StatusPending})
		}, registry.ErrConflict, 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			err := s.InTx(ctx, st.fn)
			if st.wantErr == nil && err != nil || st.wantErr != nil && !errors.Is(err, st.wantErr) {
				t.Fatalf("InTx = %v, want %v", err, st.wantErr)
			}
			if n := s.wstmts.len(); n != st.cached {
				t.Errorf("writer cache holds %d statements, want %d", n, st.cached)
			}
		})
	}
	for id, want := range map[string]bool{"sub_1": true, "sub_2": true, "sub_3": false} {
		_, err := s.Submission(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("Submission(%s) exists = %v (%v), want %v", id, got, err, want)
		}
	}
}

package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/storetest"
)

func open(t *testing.T) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: pgtest.NewDatabase(t), MaxConns: 8})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return open(t) })
}

func TestAuditLogAppendOnly(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	err := s.InTx(ctx, func(tx storage.Tx) error {
		return tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_1", Actor: "carol", Action: "addon.verify.grant"})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE audit_log SET actor = 'mallory'",
		"DELETE FROM audit_log",
		"TRUNCATE audit_log",
	} {
		t.Run(stmt, func(t *testing.T) {
			_, err := s.Pool().Exec(ctx, stmt)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: got %v, want a PostgreSQL error", stmt, err)
			}
		})
	}
	log, _, err := s.AuditLog(ctx, storage.Page{})
	if err != nil || len(log) != 1 || log[0].Actor != "carol" {
		t.Errorf("audit log after refused changes = %+v, %v; want the one entry unchanged", log, err)
	}
}

// TestConcurrentMigrate starts several migrators on one empty database at
// once, as replicas starting together do: all must succeed.
func TestConcurrentMigrate(t *testing.T) {
	ctx := context.Background()
	admin := pgtest.AdminURL(t)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("registryd_migrate_%d", pgconnPID(conn))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u := strings.Replace(admin, "/postgres?", "/"+name+"?", 1)
	if u == admin {
		u = strings.TrimSuffix(admin, "/postgres") + "/" + name
	}

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = postgres.Migrate(ctx, storage.Config{DatabaseURL: u, MaxConns: 2})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrator %d: %v", i, err)
		}
	}
	s, err := postgres.Open(ctx, storage.Config{DatabaseURL: u, SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); !ok || err != nil {
		t.Errorf("Migrated() = %v, %v; want true", ok, err)
	}
}

func pgconnPID(c *pgx.Conn) uint32 { return c.PgConn().PID() }

func TestMigratedFalseOnEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	admin := pgtest.AdminURL(t)
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("registryd_empty_%d", pgconnPID(conn))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u := strings.Replace(admin, "/postgres?", "/"+name+"?", 1)
	s, err := postgres.Open(ctx, storage.Config{DatabaseURL: u, SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); ok || err != nil {
		t.Errorf("Migrated() on an empty database = %v, %v; want false, nil", ok, err)
	}
}

func TestOpenBadURL(t *testing.T) {
	tests := []string{
		"postgres://user:s3cret@[::1:5432/db", // malformed host
		"postgres://user:s3cret@127.0.0.1:1/db?connect_timeout=1",
	}
	for _, u := range tests {
		_, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: u})
		if err == nil {
			t.Errorf("Open(%q) succeeded, want an error", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open error echoes the password: %v", err)
		}
	}
}

// Package pgtest gives tests a fresh, migrated PostgreSQL database.
//
// A server is found once per test binary, in this order:
//
//  1. REGISTRYD_TEST_DATABASE_URL (a postgres:// URL of a role that may
//     create databases);
//  2. a Docker daemon, through testcontainers-go's postgres module;
//  3. PostgreSQL server binaries on this machine (`pg_config --bindir`,
//     /usr/lib/postgresql/*/bin, or initdb and postgres on PATH), started as
//     a throwaway cluster in a temporary directory on a free port. When the
//     tests run as root the cluster runs as the "postgres" user, because
//     initdb refuses root.
//
// With none of these, tests skip with a message saying how to provide one,
// unless REGISTRYD_TEST_REQUIRE_POSTGRES=1, and then they fail.
//
// The schema is migrated once into a template database named after the
// migrations' digest; every NewDatabase call clones it (CREATE DATABASE …
// TEMPLATE …) under a unique name and drops the clone when the test ends,
// so tests may run in parallel and leave nothing behind.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
)

// Environment variables read by this package.
const (
	EnvURL     = "REGISTRYD_TEST_DATABASE_URL"
	EnvRequire = "REGISTRYD_TEST_REQUIRE_POSTGRES"
)

// howTo is the advice given when no server can be found.
const howTo = "no PostgreSQL server for tests: set " + EnvURL +
	"=postgres://user@host:5432/postgres (a role that may CREATE DATABASE), " +
	"or start a Docker daemon, or install the PostgreSQL server binaries (initdb, postgres)"

type server struct {
	adminURL string // database "postgres" on the found server
	template string // migrated template database
	how      string // which way it was found, for logs
	err      error  // set when no server could be provided
	skip     bool   // err means "none available", not "broken"
}

var (
	mu    sync.Mutex
	found *server
	// cloneMu serializes CREATE DATABASE … TEMPLATE within this process:
	// PostgreSQL refuses to copy a template another session is copying
	// from on some versions.
	cloneMu sync.Mutex
)

// NewDatabase returns the URL of a new database migrated to the current
// schema (ours and River's), dropped when t ends. It skips t when no server
// is available (or fails it when REGISTRYD_TEST_REQUIRE_POSTGRES=1), and
// fails t on any other error.
func NewDatabase(t testing.TB) string {
	t.Helper()
	s := serverFor(t)
	return create(t, s, s.template)
}

// NewEmptyDatabase is NewDatabase without the schema: for tests of
// migrating itself.
func NewEmptyDatabase(t testing.TB) string {
	t.Helper()
	return create(t, serverFor(t), "")
}

func create(t testing.TB, s *server, template string) string {
	t.Helper()
	name, err := createDatabase(s, template)
	if err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return dropWhenDone(t, s, name)
}

// createDatabase creates a database with a new name, a copy of template
// unless it is "", and returns its name.
func createDatabase(s *server, template string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	name := "registryd_test_" + randomHex(8)
	conn, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		return "", fmt.Errorf("connect to %s server: %w", s.how, err)
	}
	defer conn.Close(ctx)
	stmt := "CREATE DATABASE " + ident(name)
	if template != "" {
		stmt += " TEMPLATE " + ident(template)
	}
	cloneMu.Lock()
	_, err = conn.Exec(ctx, stmt)
	cloneMu.Unlock()
	return name, err
}

// dropWhenDone drops the database name when t ends and returns its URL.
func dropWhenDone(t testing.TB, s *server, name string) string {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, s.adminURL)
		if err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	u, err := withDatabase(s.adminURL, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// CopyDatabase returns the URL of a new database that is a copy of the
// database at u (made by NewDatabase), dropped when t ends: a backup, for
// tests that restore one. Nothing may be connected to u while it copies.
func CopyDatabase(t testing.TB, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil || len(p.Path) < 2 {
		t.Fatalf("pgtest: copy: %q is not a database URL", u)
	}
	s := serverFor(t)
	// The sessions of whoever used the database end a moment after they
	// disconnect, and until then PostgreSQL refuses to copy it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		name, err := createDatabase(s, p.Path[1:])
		if err == nil {
			return dropWhenDone(t, s, name)
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55006" || time.Now().After(deadline) {
			t.Fatalf("pgtest: copy the database: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// AdminURL returns the URL of the found server's "postgres" database, for
// tests that manage databases themselves; it skips or fails t like
// NewDatabase.
func AdminURL(t testing.TB) string {
	t.Helper()
	return serverFor(t).adminURL
}

func serverFor(t testing.TB) *server {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if found == nil {
		found = find()
	}
	s := found
	if s.err != nil {
		if s.skip && os.Getenv(EnvRequire) != "1" {
			t.Skip(s.err.Error())
		}
		t.Fatalf("pgtest: %v", s.err)
	}
	return s
}

// source is one way of getting a server: start returns the URL of its
// "postgres" database, or an error saying why this way is unavailable.
type source struct {
	name  string
	start func(context.Context) (string, error)
}

func find() *server {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return findWith(ctx, os.Getenv(EnvURL), []source{
		{"docker", startContainer},
		{"local binaries", startCluster},
	}, ensureTemplate)
}

// findWith tries envURL, else each source in order, and prepares the
// template on the first server that starts. A set but unusable envURL is an
// error, never a fallback; no source at all is a skip.
func findWith(ctx context.Context, envURL string, sources []source, prepare func(context.Context, string) (string, error)) *server {
	var reasons []string
	try := func(src source) *server {
		u, err := src.start(ctx)
		if err != nil {
			reasons = append(reasons, src.name+": "+err.Error())
			return nil
		}
		tpl, err := prepare(ctx, u)
		if err != nil {
			return &server{how: src.name, err: fmt.Errorf("%s server: %w", src.name, err)}
		}
		return &server{adminURL: u, template: tpl, how: src.name}
	}
	if envURL != "" {
		if s := try(source{EnvURL, func(context.Context) (string, error) { return envURL, nil }}); s != nil {
			return s
		}
		return &server{err: errors.New(strings.Join(reasons, "; "))}
	}
	for _, src := range sources {
		if s := try(src); s != nil {
			return s
		}
	}
	return &server{err: fmt.Errorf("%s (%s)", howTo, strings.Join(reasons, "; ")), skip: true}
}

// templateName names the template after everything that shapes the schema,
// so a changed migration gets a new template and an unchanged one is reused
// across runs.
func templateName() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.Postgres(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.Postgres(), p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	m, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return "", err
	}
	for _, v := range m.AllVersions() {
		fmt.Fprintf(h, "river\x00%d\x00%s\x00", v.Version, v.SQLUp)
	}
	return "registryd_tpl_" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// templateLockKey serializes template creation across test binaries that
// share one server.
const templateLockKey int64 = 0x7067746573740001

func ensureTemplate(ctx context.Context, adminURL string) (string, error) {
	name, err := templateName()
	if err != nil {
		return "", fmt.Errorf("digest migrations: %w", err)
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLockKey)

	var isTemplate bool
	err = conn.QueryRow(ctx, "SELECT datistemplate FROM pg_database WHERE datname = $1", name).Scan(&isTemplate)
	switch {
	case err == nil && isTemplate:
		return name, nil
	case err == nil:
		// Left half-made by a run that died: start over.
		if _, err := conn.Exec(ctx, "DROP DATABASE "+ident(name)+" WITH (FORCE)"); err != nil {
			return "", fmt.Errorf("drop stale template: %w", err)
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return "", fmt.Errorf("look up template: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident(name)); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	u, err := withDatabase(adminURL, name)
	if err != nil {
		return "", err
	}
	if err := postgres.Migrate(ctx, storage.Config{DatabaseURL: u, MaxConns: 2}); err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+ident(name)+" WITH IS_TEMPLATE true"); err != nil {
		return "", fmt.Errorf("mark template: %w", err)
	}
	return name, nil
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// withDatabase returns u with its database replaced by name.
func withDatabase(u, name string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "postgres" && p.Scheme != "postgresql") {
		return "", errors.New("the server address must be a postgres:// URL")
	}
	p.Path = "/" + name
	return p.String(), nil
}

package backend_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

func TestSelect(t *testing.T) {
	tests := []struct {
		url  string
		want backend.Kind
		err  bool
	}{
		{"", backend.SQLite, false},
		{"postgres://u@h/db", backend.Postgres, false},
		{"postgresql://u@h/db", backend.Postgres, false},
		{"POSTGRES://u@h/db", backend.Postgres, false},
		{"mysql://u:secret@h/db", "", true},
		{"sqlite:///tmp/x.db", "", true},
		{"host=localhost user=postgres", "", true},
		{"postgres:/missing-slash", "", true},
		{"\x1b[31mpostgres://", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			got, err := backend.Select(storage.Config{DatabaseURL: tc.url})
			if tc.err {
				if !errors.Is(err, backend.ErrUnsupportedURL) {
					t.Fatalf("Select(%q) error = %v, want ErrUnsupportedURL", tc.url, err)
				}
				if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\x1b") {
					t.Errorf("error echoes the URL: %q", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Select(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
			}
		})
	}
}

func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	cfg := storage.Config{DataDir: dir}
	if err := backend.Migrate(ctx, cfg); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s, err := backend.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); !ok || err != nil {
		t.Errorf("Migrated() = %v, %v; want true", ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, storage.SQLiteFile)); err != nil {
		t.Errorf("no database file under DataDir: %v", err)
	}
}

func TestOpenPostgres(t *testing.T) {
	ctx := context.Background()
	cfg := storage.Config{DatabaseURL: pgtest.NewDatabase(t)}
	if err := backend.Migrate(ctx, cfg); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s, err := backend.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); !ok || err != nil {
		t.Errorf("Migrated() = %v, %v; want true", ok, err)
	}
}

func TestOpenRefusesOtherURLs(t *testing.T) {
	_, err := backend.Open(context.Background(), storage.Config{DatabaseURL: "mysql://x"})
	if !errors.Is(err, backend.ErrUnsupportedURL) {
		t.Errorf("Open(mysql://) = %v, want ErrUnsupportedURL", err)
	}
	err = backend.Migrate(context.Background(), storage.Config{DatabaseURL: "mysql://x"})
	if !errors.Is(err, backend.ErrUnsupportedURL) {
		t.Errorf("Migrate(mysql://) = %v, want ErrUnsupportedURL", err)
	}
}

package loadtest

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/registryd/registryd/internal/pgtest"
)

func TestBackendTitles(t *testing.T) {
	b := &Backends{db: "scale"}
	for _, c := range []struct {
		title string
		want  bool
	}{
		{"postgres: 15/main: postgres scale 127.0.0.1(52814) idle\x00\x00", true},
		{"postgres: postgres scale [local] SELECT", true},
		{"postgres: 15/main: app scale 10.0.0.7(40000) idle in transaction", true},
		{"postgres: 15/main: postgres scale2 127.0.0.1(52814) idle", false},
		{"postgres: 15/main: autovacuum worker scale", false},
		{"postgres: 15/main: walwriter", false},
		{"/usr/lib/postgresql/15/bin/postgres\x00-D\x00/var/lib/postgresql/15/main", false},
		{"registryd\x00serve\x00--database-url\x00postgres://h/scale", false},
	} {
		if got := b.serves(c.title); got != c.want {
			t.Errorf("serves(%q) = %v, want %v", c.title, got, c.want)
		}
	}
	for _, url := range []string{"postgres://h:5432/?sslmode=disable", "postgres://h", "%zz"} {
		if _, err := NewBackends(url); err == nil {
			t.Errorf("NewBackends(%q) accepted a URL that names no database", url)
		}
	}
}

// TestBackendsFindAConnection checks that a connection's backend is found
// by its process title, where the server runs on this machine.
func TestBackendsFindAConnection(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	b, err := NewBackends(url)
	if err != nil {
		t.Fatal(err)
	}
	// In a container (or on another machine) the backend's process id is
	// not this machine's, or not visible: there is nothing to read.
	if title, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err != nil || !b.serves(string(title)) {
		t.Skip("the PostgreSQL server's backends are not visible as this machine's processes (another machine or a container): their CPU time cannot be read here")
	}
	m, err := b.CPU()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m[pid]; !ok {
		t.Errorf("backend %d of the connection not among %v", pid, m)
	}
}

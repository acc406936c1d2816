package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Cluster is a PostgreSQL server of one test's own, started from the
// server binaries on this machine, which the test may stop and start
// again: for tests of what the server's clients do while it is away. It
// never touches a shared server. Its methods are safe for concurrent use.
type Cluster struct {
	// URL is the address of the cluster's "postgres" database.
	URL string

	bin, dir string
	port     int
	cred     *syscall.Credential

	mu      sync.Mutex
	running *exec.Cmd
	exited  chan struct{}
	tpl     string
}

// NewCluster initializes and starts a cluster in a temporary directory, on
// a free loopback port, stopped and removed when t ends. Without PostgreSQL
// server binaries (initdb, postgres) it skips t saying so, or fails t when
// REGISTRYD_TEST_REQUIRE_POSTGRES=1; any other failure fails t.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := binDir(); err != nil {
		msg := "a test of its own PostgreSQL server needs the server binaries (initdb, postgres): " + err.Error()
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin, dir, cred, err := initCluster(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("pgtest: %v", err)
	}
	c := &Cluster{URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
		bin: bin, dir: dir, port: port, cred: cred}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: stop the cluster: %v", err)
		}
		os.RemoveAll(dir)
	})
	if err := c.Start(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return c
}

// Start starts the server when it is stopped and returns once it accepts
// connections (at most 30 s); it is a no-op while it runs.
func (c *Cluster) Start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running != nil {
		return nil
	}
	cmd := exec.Command(filepath.Join(c.bin, "postgres"), serverArgs(c.dir, c.port)...)
	cmd.Dir = c.dir
	// The kernel stops the server if the test binary dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGTERM, Setpgid: true}
	logPath := filepath.Join(c.dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c.running, c.exited = cmd, exited
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := waitAccepting(ctx, c.URL); err != nil {
		return fmt.Errorf("postgres did not start (log in %s): %w", logPath, err)
	}
	return nil
}

// Stop shuts the server down as an operator's restart does (a fast
// shutdown: open transactions are rolled back, sessions closed) and returns
// once it has exited; it is a no-op while it is stopped.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		return nil
	}
	if err := c.running.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-c.exited:
	case <-time.After(60 * time.Second):
		c.running.Process.Kill()
		<-c.exited
		return errors.New("postgres did not stop within 60s of a fast shutdown; killed")
	}
	c.running = nil
	return nil
}

// NewDatabase returns the URL of a new database on c migrated to the
// current schema, dropped when t ends (the cluster must then be running).
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	c.mu.Lock()
	tpl := c.tpl
	c.mu.Unlock()
	if tpl == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var err error
		if tpl, err = ensureTemplate(ctx, c.URL); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		c.mu.Lock()
		c.tpl = tpl
		c.mu.Unlock()
	}
	return create(t, &server{adminURL: c.URL, template: tpl, how: "own cluster"}, tpl)
}

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

func TestServeHTTPShutdown(t *testing.T) {
	tests := []struct {
		name     string
		release  bool          // the in-flight request is allowed to finish
		timeout  time.Duration // the shutdown bound
		wantDone bool          // the client gets the whole response
	}{
		{"in-flight request finishes", true, 30 * time.Second, true},
		{"stuck request is cut at the bound", false, 50 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			entered, release := make(chan struct{}), make(chan struct{})
			srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				select {
				case <-release:
					io.WriteString(w, "done")
				case <-r.Context().Done():
				}
			})}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- serveHTTP(ctx, srv, ln, tt.timeout, slog.New(slog.DiscardHandler)) }()

			type result struct {
				body string
				err  error
			}
			got := make(chan result, 1)
			go func() {
				resp, err := http.Get("http://" + ln.Addr().String() + "/")
				if err != nil {
					got <- result{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				got <- result{string(b), err}
			}()
			<-entered
			cancel()
			// The listener closes at once: a new connection is refused
			// while the request is still in flight.
			deadline := time.Now().Add(10 * time.Second)
			for {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					break
				}
				c.Close()
				if time.Now().After(deadline) {
					t.Fatal("the listener still accepts connections after shutdown began")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if tt.release {
				close(release)
			}
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("serveHTTP = %v, want nil", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("serveHTTP did not return")
			}
			r := <-got
			if done := r.err == nil && r.body == "done"; done != tt.wantDone {
				t.Errorf("in-flight request: body %q, err %v; want complete = %v", r.body, r.err, tt.wantDone)
			}
			if !tt.release {
				close(release)
			}
		})
	}
}

func TestServeHTTPListenerFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // Serve fails at once
	err = serveHTTP(context.Background(), &http.Server{ReadHeaderTimeout: time.Second}, ln, time.Second, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Error("serveHTTP on a closed listener succeeded, want an error")
	}
}

func TestReadiness(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := backend.Open(ctx, storage.Config{DataDir: dir, SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	ready := readiness(st)
	if err := ready(ctx); err == nil || !strings.Contains(err.Error(), "registryd migrate") {
		t.Errorf("ready before migrating = %v; want an error that says to run registryd migrate", err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"migrate", "--data-dir", dir}, envOf(nil), nil, &out, io.Discard); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "migrations applied") {
		t.Errorf("migrate printed %q", out.String())
	}
	if err := ready(ctx); err != nil {
		t.Errorf("ready after migrating = %v, want nil", err)
	}
	st.Close()
	if err := ready(ctx); err == nil {
		t.Error("ready on a closed store = nil, want an error")
	}
}

func TestMigrateRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
	}{
		{"mysql", nil, map[string]string{"REGISTRYD_DATABASE_URL": "mysql://root:hunter2@db/x"}, 2},
		{"stray argument", []string{"up"}, nil, 2},
		{"unknown flag", []string{"--force"}, nil, 2},
		{"unreachable postgres", []string{"--database-url", "postgres://u:hunter2@127.0.0.1:1/db?connect_timeout=2"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), append([]string{"migrate"}, tt.args...), envOf(tt.env), nil, io.Discard, &stderr)
			if got := exitCode(err); got != tt.code {
				t.Errorf("exit code = %d (%v), want %d", got, err, tt.code)
			}
			if strings.Contains(stderr.String(), "hunter2") {
				t.Errorf("stderr shows the database password: %s", stderr.String())
			}
		})
	}
}

func TestServeRefusesBadConfigBeforeOpening(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--data-dir", dir, "--addr", "nowhere"}, envOf(nil), nil, io.Discard, &stderr)
	if exitCode(err) != 2 || !strings.Contains(stderr.String(), "REGISTRYD_ADDR") {
		t.Errorf("serve with a bad address = %v, stderr %q; want exit 2 naming REGISTRYD_ADDR", err, stderr.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory was created (%v) although the config was refused", err)
	}
}

// TestSignals builds the real binary, starts it and stops it with SIGTERM
// and SIGINT: it must stop cleanly with exit status 0.
func TestSignals(t *testing.T) {
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "REGISTRYD_DATA_DIR="+t.TempDir(), "REGISTRYD_DATABASE_URL=")
			sink := &logSink{url: make(chan string, 1)}
			cmd.Stderr = sink
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case u := <-sink.url:
				resp, err := http.Get(u + "/readyz")
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Errorf("GET /readyz = %v, %v", resp, err)
				}
				if resp != nil {
					resp.Body.Close()
				}
			case err := <-exited:
				t.Fatalf("registryd exited before listening: %v\n%s", err, sink.String())
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("registryd did not listen:\n%s", sink.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("registryd exited with %v after %s\n%s", err, sig, sink.String())
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("registryd did not stop after %s", sig)
			}
			if !strings.Contains(sink.String(), "stopped") {
				t.Errorf("log lacks the clean stop:\n%s", sink.String())
			}
		})
	}
}

func TestHealthcheck(t *testing.T) {
	srv := startServer(t, envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()}))
	addr := strings.TrimPrefix(srv.url, "http://")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
	}{
		{"ready", nil, map[string]string{"REGISTRYD_ADDR": addr}, 0},
		{"alive", []string{"--addr", addr, "--path", "/healthz"}, nil, 0},
		{"unspecified host asks loopback", []string{"--addr", "0.0.0.0:" + addr[strings.LastIndex(addr, ":")+1:]}, nil, 0},
		{"nobody listening", []string{"--addr", closedAddr}, nil, 1},
		{"other path", []string{"--addr", addr, "--path", "/v1/addons"}, nil, 2},
		{"bad address", []string{"--addr", "nowhere"}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			err := run(context.Background(), append([]string{"healthcheck"}, tt.args...), envOf(tt.env), nil, &stdout, io.Discard)
			if got := exitCode(err); got != tt.code {
				t.Errorf("exit code = %d (%v), want %d", got, err, tt.code)
			}
			if tt.code == 0 && strings.TrimSpace(stdout.String()) != "ok" {
				t.Errorf("stdout = %q, want ok", stdout.String())
			}
		})
	}
	srv.stop()
	if err := run(context.Background(), []string{"healthcheck", "--addr", addr}, envOf(nil), nil, io.Discard, io.Discard); err == nil {
		t.Error("healthcheck succeeded after the server stopped")
	}
}

// Package attack is registryd's security suite: each test is one class of
// attack, made against the real binary over real HTTP, on each store.
// docs/security.md lists the classes, the threat model, and the test that
// covers each.
//
// The binary is built once per test run (TestMain). Each test starts its own
// `registryd serve` on a fresh database and port 0 with Start, makes API
// tokens with the real `registryd token create`, and talks to it with a
// plain HTTP client. Nothing here reaches into the server's packages: what
// an attacker can do is what this package can do.
package attack

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
)

// binary is the path of the registryd binary TestMain built, or "" when the
// suite runs with -short.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	if !testing.Short() {
		dir, err := os.MkdirTemp("", "registryd-attack")
		if err != nil {
			fmt.Fprintln(os.Stderr, "attack:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		binary = filepath.Join(dir, "registryd")
		build := exec.Command("go", "build", "-o", binary, "github.com/registryd/registryd/cmd/registryd")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "attack: go build: %v\n%s", err, out)
			return 1
		}
	}
	return m.Run()
}

// consulted makes sure consultSources runs once, inside the tests: go test
// records the files a test opens only once m.Run has begun.
var consulted = sync.OnceValue(consultSources)

// consultSources opens every file of the module that goes into the binary.
// The suite builds the binary with `go build` instead of linking the
// server's packages, so without this `go test` would not know that a change
// to the server changes this package's result, and would replay a cached
// pass: go test's cache key includes the files a test opens.
func consultSources() error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("module root not found from the test's directory: %w", err)
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "data":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		return f.Close()
	})
}

// Store is one of registryd's databases; its Env points a new server at a
// fresh, empty database of its kind.
type Store = fixture.Backend

// Server is one running `registryd serve` process.
type Server struct {
	// URL is the base URL it listens on, such as http://127.0.0.1:43121.
	URL string
	// Env is the environment it was started with (beyond the process's
	// own), so that other commands such as `token create` reach the same
	// database.
	Env map[string]string

	t   *testing.T
	cmd *exec.Cmd
	log *logSink
}

// Settings are extra REGISTRYD_* variables for Start.
type Settings map[string]string

// Start starts registryd serve on a fresh database of st, on a free port of
// 127.0.0.1, and stops it (SIGKILL) when the test ends. The rate limit is
// off unless settings set REGISTRYD_RATE_LIMIT. It skips under -short.
func Start(t *testing.T, st Store, settings Settings) *Server {
	t.Helper()
	if binary == "" {
		t.Skip("the security suite builds and runs the registryd binary; skipped with -short")
	}
	if err := consulted(); err != nil {
		t.Fatalf("read the module's sources: %v", err)
	}
	env := st.Env(t)
	env["REGISTRYD_RATE_LIMIT"] = "0"
	env["REGISTRYD_LOG_LEVEL"] = "info"
	for k, v := range settings {
		env[k] = v
	}
	s := &Server{Env: env, t: t, log: &logSink{listening: make(chan string, 1)}}
	s.cmd = exec.Command(binary, "serve", "--addr", "127.0.0.1:0")
	s.cmd.Env = s.environ()
	s.cmd.Stderr = s.log
	s.cmd.Stdout = s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start registryd: %v", err)
	}
	exited := make(chan struct{})
	go func() { s.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("registryd log:\n%s", s.Log())
		}
	})
	select {
	case u := <-s.log.listening:
		s.URL = u
	case <-exited:
		t.Fatalf("registryd exited before it listened:\n%s", s.Log())
	case <-time.After(90 * time.Second):
		t.Fatalf("registryd did not listen within 90s:\n%s", s.Log())
	}
	return s
}

// environ is the process environment for the binary: this process's,
// without any REGISTRYD_ setting of the developer's shell, plus s.Env.
func (s *Server) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REGISTRYD_") {
			out = append(out, kv)
		}
	}
	for k, v := range s.Env {
		out = append(out, k+"="+v)
	}
	return out
}

// Run runs `registryd ARGS…` against the server's database and returns its
// standard output, standard error and exit status.
func (s *Server) Run(args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Env = s.environ()
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		s.t.Fatalf("registryd %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), 0
}

// Token creates an API token with `registryd token create --name NAME
// --role ROLE [EXTRA…]` and returns its secret.
func (s *Server) Token(name, role string, extra ...string) string {
	s.t.Helper()
	args := append([]string{"token", "create", "--name", name, "--role", role}, extra...)
	out, errOut, code := s.Run(args...)
	secret := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(secret, "rgd_") {
		s.t.Fatalf("registryd %s: exit %d\nstdout: %q\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return secret
}

// PID is the server's process ID.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// RSS returns the server's resident set size in bytes, read from
// /proc/PID/status; it skips the test where /proc is not available.
func (s *Server) RSS() int64 {
	s.t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.PID()))
	if err != nil {
		s.t.Skipf("cannot read the server's memory use: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(rest)
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil || len(fields) != 2 || fields[1] != "kB" {
				s.t.Fatalf("unexpected VmRSS line %q", sc.Text())
			}
			return kb * 1024
		}
	}
	s.t.Fatalf("no VmRSS in /proc/%d/status", s.PID())
	return 0
}

// Log returns everything the server has written so far.
func (s *Server) Log() string { return s.log.String() }

// Request is one HTTP request to a Server.
type Request struct {
	Method      string
	Path        string // with its query string
	Token       string // sent as a bearer token when not ""
	ContentType string
	Body        io.Reader
	Header      http.Header
}

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends r and reads the whole answer. A transport error fails the test.
func (s *Server) Do(r Request) Response {
	s.t.Helper()
	resp, err := s.Send(context.Background(), r)
	if err != nil {
		s.t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	return resp
}

// Send is Do returning the transport error instead of failing, for tests
// that expect the server to cut a connection.
func (s *Server) Send(ctx context.Context, r Request) (Response, error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+r.Path, r.Body)
	if err != nil {
		return Response{}, err
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

var listening = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// logSink keeps the server's output and reports the address it listens on.
type logSink struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	listening chan string
	sent      bool
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.sent {
		if m := listening.FindSubmatch(l.buf.Bytes()); m != nil {
			l.sent = true
			l.listening <- string(m[1])
		}
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

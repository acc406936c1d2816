package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// binDir finds a directory holding initdb and postgres.
func binDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); has(d) {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Highest major version first.
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if d := filepath.Dir(p); has(d) {
			return d, nil
		}
	}
	return "", errors.New("no initdb and postgres binaries found")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// credential returns who the cluster runs as: the current user, or the
// "postgres" user when running as root (initdb and postgres refuse root).
func credential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, errors.New(`running as root and no "postgres" user to run the cluster as`)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, 0, 0, errors.New(`the "postgres" user has a non-numeric uid or gid`)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// initCluster finds the binaries and initializes a cluster in a new
// temporary directory, owned by the user the server will run as. It returns
// the binaries' directory, the cluster's directory (its data directory is
// "data" inside) and the credential to run the server with.
func initCluster(ctx context.Context) (bin, dir string, cred *syscall.Credential, err error) {
	bin, err = binDir()
	if err != nil {
		return "", "", nil, err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return "", "", nil, err
	}
	dir, err = os.MkdirTemp("", "registryd-pgtest-")
	if err != nil {
		return "", "", nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", "", nil, fmt.Errorf("chown cluster dir: %w", err)
		}
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}
	return bin, dir, cred, nil
}

// serverArgs are the postgres arguments of a throwaway cluster in dir
// listening on port: loopback only, durability traded for speed (a test
// cluster never outlives a crash of the machine).
func serverArgs(dir string, port int) []string {
	return []string{"-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200"}
}

// waitAccepting polls u until the server accepts a connection, up to 30s.
func waitAccepting(ctx context.Context, u string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, u)
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startCluster initializes and starts a throwaway cluster in a temporary
// directory and returns the URL of its "postgres" database. The server runs
// under a small shell that stops it and removes the directory when the
// test binary exits (the kernel sends it SIGTERM when its parent dies).
func startCluster(ctx context.Context) (string, error) {
	bin, dir, cred, err := initCluster(ctx)
	if err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	// The shell forwards a stop to postgres as a fast shutdown, waits for
	// it, then removes the cluster's directory.
	const script = `"$0" "$@" & pid=$!
trap 'kill -INT $pid' INT TERM HUP
wait $pid; wait $pid
rm -rf "$PGTEST_DIR"`
	srv := exec.Command("/bin/sh", append([]string{"-c", script, filepath.Join(bin, "postgres")}, serverArgs(dir, port)...)...)
	srv.Env = append(os.Environ(), "PGTEST_DIR="+dir)
	srv.Dir = dir
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGTERM, Setpgid: true}
	logPath := filepath.Join(dir, "postgres.log")
	if logf, err := os.Create(logPath); err == nil {
		srv.Stdout, srv.Stderr = logf, logf
		defer logf.Close()
	}
	if err := srv.Start(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("start postgres: %w", err)
	}
	go srv.Wait() // reap it if it exits early
	u := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	if err := waitAccepting(ctx, u); err != nil {
		_ = srv.Process.Signal(syscall.SIGTERM)
		return "", fmt.Errorf("postgres did not start (log in %s): %w", logPath, err)
	}
	return u, nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

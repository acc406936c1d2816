package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ProcessCPU reads a process's user and system CPU time so far from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s, which Linux
// fixes for user space). ok is false where /proc cannot be read (another
// system, or a process that has gone).
func ProcessCPU(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// Backends reads the CPU time of the PostgreSQL server processes serving
// one database, from /proc. It works when the server runs on this machine,
// visible to this process (not in a container or elsewhere).
type Backends struct {
	conn *pgx.Conn
	db   string
}

// NewBackends connects to url for the look-ups; the connection's own
// backend is left out of the sums. Close releases it.
func NewBackends(ctx context.Context, url string) (*Backends, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect for backend look-ups: %w", err)
	}
	return &Backends{conn: conn, db: conn.Config().Database}, nil
}

// Close closes the look-up connection.
func (b *Backends) Close(ctx context.Context) error { return b.conn.Close(ctx) }

// CPU returns the CPU time so far of each client backend serving the
// database (not autovacuum's workers, whose rounds would be counted against
// whatever request ran meanwhile), by process id; an error when they cannot be listed or one cannot be read.
func (b *Backends) CPU(ctx context.Context) (map[int]time.Duration, error) {
	rows, err := b.conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, b.db)
	if err != nil {
		return nil, fmt.Errorf("list backends: %w", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("list backends: %w", err)
	}
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		d, ok := ProcessCPU(int(pid))
		if !ok {
			return nil, fmt.Errorf("read the CPU time of backend %d from /proc", pid)
		}
		out[int(pid)] = d
	}
	return out, nil
}

// Spent returns the CPU time the backends used between two readings of
// CPU: the growth of those present in both, and all of those that appeared.
func Spent(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, a := range after {
		d += a - before[pid]
	}
	return d
}

package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"time"
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

// Backends reads the CPU time of the PostgreSQL client backends serving one
// database, found by their process titles in /proc ("postgres: [cluster:]
// user database host(port) activity", which PostgreSQL keeps by default). It
// works when the server runs on this machine, visible to this process (not
// in a container or elsewhere), and needs no connection of its own.
type Backends struct {
	db string
}

// NewBackends returns the look-up for the database that url names.
func NewBackends(url string) (*Backends, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, errors.New("is not a URL") // its text may hold a password: not repeated
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.ContainsAny(db, "/ ") {
		return nil, errors.New("names no database")
	}
	return &Backends{db: db}, nil
}

// CPU returns the CPU time so far of each client backend serving the
// database (not autovacuum's workers, whose rounds would be counted against
// whatever request ran meanwhile), by process id; an error when /proc
// cannot be read.
func (b *Backends) CPU() (map[int]time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	out := map[int]time.Duration{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		title, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !b.serves(string(title)) {
			continue // gone, not ours, or not a backend of the database
		}
		if d, ok := ProcessCPU(pid); ok {
			out[pid] = d
		}
	}
	return out, nil
}

// serves reports whether a process title is that of a client backend of
// b's database: its user, then the database, then the client's address
// ("host(port)" or "[local]").
func (b *Backends) serves(title string) bool {
	rest, ok := strings.CutPrefix(strings.TrimRight(title, "\x00 "), "postgres: ")
	if !ok {
		return false
	}
	f := strings.Fields(strings.ReplaceAll(rest, "\x00", " "))
	if len(f) > 0 && strings.HasSuffix(f[0], ":") { // cluster_name
		f = f[1:]
	}
	return len(f) >= 3 && f[1] == b.db && (f[2] == "[local]" || strings.HasSuffix(f[2], ")"))
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

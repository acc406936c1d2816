package workflow_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

// BenchmarkSubmit measures one REST submission end to end: parse, audit,
// render and one transaction storing submission, report and findings, for
// a new addon each time.
func BenchmarkSubmit(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			h := newHarness(b, be)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m := warned(fmt.Sprintf("bench-%d", i), "1.0.0")
				if _, _, _, err := h.svc.Submit(ctx, sam, m, workflow.FormatTOML, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAuthenticate measures the check every authenticated request
// makes: hash the secret, one indexed lookup.
func BenchmarkAuthenticate(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			h := newHarness(b, be)
			ctx := context.Background()
			secret, _, err := h.svc.CreateToken(ctx, "bench", registry.RoleSubmitter)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := h.svc.Authenticate(ctx, secret); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPublish measures a maintainer's direct publication end to end:
// parse, audit, render, and the one transaction that stores the
// submission, its report and findings, the version, the addon and the
// audit entry — and, since the transparency log, signs the report's
// envelope and appends its leaf; the store's checkpoint signer signs the
// grown tree after the commit, at most every 200 ms, in this process, so
// its CPU time counts here too. Run it on a build without the log for the
// ratio (docs/benchmarks.md).
//
// Besides wall time it reports CPU time per publication, which the load of
// a shared machine disturbs far less: cpu-ns/op is this process's (user and
// system, every thread: on SQLite the whole publication; user-ns/op and
// sys-ns/op its two parts), and on
// PostgreSQL db-cpu-ns/op is that of the server processes serving the
// test's database (read from /proc; absent where it cannot be read).
func BenchmarkPublish(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			cfg := be.Config(b)
			st := fixture.Open(b, cfg)
			c := &clock{now: start}
			h := &harness{store: st, clock: c, svc: workflow.New(st, workflow.Options{Now: c.Now, NewID: (&ids{}).New})}
			ctx := context.Background()
			// One publication first, so that the pool's connections exist.
			if _, _, err := h.svc.Publish(ctx, alice, warned("bench-warm", "1.0.0"), workflow.FormatTOML, nil); err != nil {
				b.Fatal(err)
			}
			db := serverCPU(b, cfg.DatabaseURL)
			b.ReportAllocs()
			u0, s0 := processCPU()
			db0 := db()
			n := 0
			for i := 0; b.Loop(); i++ {
				m := warned(fmt.Sprintf("bench-%d", i), "1.0.0")
				if _, _, err := h.svc.Publish(ctx, alice, m, workflow.FormatTOML, nil); err != nil {
					b.Fatal(err)
				}
				n++
			}
			u1, s1 := processCPU()
			b.ReportMetric(float64(u1-u0+s1-s0)/float64(n), "cpu-ns/op")
			b.ReportMetric(float64(u1-u0)/float64(n), "user-ns/op")
			b.ReportMetric(float64(s1-s0)/float64(n), "sys-ns/op")
			if d := db() - db0; d > 0 {
				b.ReportMetric(float64(d)/float64(n), "db-cpu-ns/op")
			}
		})
	}
}

// processCPU is the user and the system time of this process so far.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// serverCPU returns a function reading the CPU time the PostgreSQL server
// processes connected to url's database have used so far, summed from
// /proc/PID/stat; one returning 0 for SQLite or where /proc cannot be read.
// Each call lists the processes again, so that a connection the pool opens
// during the run (a second one, when the store's checkpoint signer takes
// one while a publication holds the other) counts too, all its time within
// the run.
func serverCPU(b *testing.B, url string) func() time.Duration {
	none := func() time.Duration { return 0 }
	if url == "" {
		return none
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(ctx) })
	return func() time.Duration {
		rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
		if err != nil {
			b.Fatal(err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			b.Fatal(err)
		}
		var sum time.Duration
		for _, pid := range pids {
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return 0
			}
			// Fields 14 and 15 (utime, stime, in clock ticks) follow the
			// command's closing parenthesis.
			f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
			for _, s := range f[11:13] {
				t, _ := strconv.ParseInt(s, 10, 64)
				sum += time.Duration(t) * (time.Second / 100)
			}
		}
		return sum
	}
}

//go:build unix

package report_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used so far, in user and system
// mode, over all its threads (the garbage collector's included).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAuditVsDecodeCPU is BenchmarkAuditVsDecode measured in CPU time
// rather than wall time: each iteration decodes every input, then audits
// every input, and the process's CPU time of each phase is summed. On a
// machine shared with other work, wall time counts the time slices others
// take; CPU time counts only this process's work, so the ratio moves far
// less between runs.
func BenchmarkAuditVsDecodeCPU(b *testing.B) {
	measure := func(b *testing.B, inputs [][]byte) {
		var decode, audit time.Duration
		for b.Loop() {
			t0 := cpuTime(b)
			for _, data := range inputs {
				decodeOnce(b, data)
			}
			t1 := cpuTime(b)
			for _, data := range inputs {
				auditOnce(b, data)
			}
			t2 := cpuTime(b)
			decode += t1 - t0
			audit += t2 - t1
		}
		if decode > 0 {
			b.ReportMetric(float64(audit)/float64(decode), "audit/decode")
		}
	}
	b.Run("typical", func(b *testing.B) {
		in := typical(b)
		inputs := make([][]byte, 1000) // enough work per phase for the clock's resolution
		for i := range inputs {
			inputs[i] = in
		}
		measure(b, inputs)
	})
	b.Run("corpus", func(b *testing.B) { measure(b, corpusManifests(b)) })
}

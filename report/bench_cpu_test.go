//go:build unix

package report_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
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

// BenchmarkAuditStagesCPU says where the audit's CPU time goes beyond the
// decode: each iteration runs every stage over every input in turn (the
// baseline decode, the decode into an empty interface as addon.ParseTOML
// does it, addon.ParseTOML, assess.Audit, report.Build), and reports each
// stage's CPU time relative to the baseline decode's.
func BenchmarkAuditStagesCPU(b *testing.B) {
	measure := func(b *testing.B, inputs [][]byte) {
		ms := make([]*addon.Manifest, len(inputs))
		rs := make([]assess.Result, len(inputs))
		var decode, decodeAny, parse, audit, build time.Duration
		for b.Loop() {
			t0 := cpuTime(b)
			for _, data := range inputs {
				decodeOnce(b, data)
			}
			t1 := cpuTime(b)
			for _, data := range inputs {
				var v any
				if _, err := toml.Decode(string(data), &v); err != nil {
					b.Fatal(err)
				}
			}
			t2 := cpuTime(b)
			for i, data := range inputs {
				m, err := addon.ParseTOML(data)
				if err != nil {
					b.Fatal(err)
				}
				ms[i] = m
			}
			t3 := cpuTime(b)
			for i, m := range ms {
				rs[i] = assess.Audit(m)
			}
			t4 := cpuTime(b)
			for i, data := range inputs {
				if _, _, err := report.Build(report.Input{Manifest: data, Parsed: ms[i], Result: rs[i], Tier: registry.TierCommunity}); err != nil {
					b.Fatal(err)
				}
			}
			t5 := cpuTime(b)
			decode += t1 - t0
			decodeAny += t2 - t1
			parse += t3 - t2
			audit += t4 - t3
			build += t5 - t4
		}
		if decode > 0 {
			d := float64(decode)
			b.ReportMetric(float64(decodeAny)/d, "decode-any/decode")
			b.ReportMetric(float64(parse-decodeAny)/d, "parse-beyond-decode/decode")
			b.ReportMetric(float64(audit)/d, "rules/decode")
			b.ReportMetric(float64(build)/d, "build/decode")
		}
	}
	b.Run("typical", func(b *testing.B) {
		in := typical(b)
		inputs := make([][]byte, 1000)
		for i := range inputs {
			inputs[i] = in
		}
		measure(b, inputs)
	})
	b.Run("corpus", func(b *testing.B) { measure(b, corpusManifests(b)) })
}

// BenchmarkAuditPrefixesCPU measures the audit's stages the way the server
// runs them, one manifest at a time, by growing prefixes of the audit: the
// decode into an empty interface alone, addon.ParseTOML, ParseTOML and the
// rules, and the whole audit, each in its own sub-benchmark, each reported
// against the baseline decode as BenchmarkAuditVsDecodeCPU reports the
// whole. A stage's share is the difference between two prefixes.
// BenchmarkAuditStagesCPU runs each stage over every input before the next
// and keeps every parsed manifest alive, which changes how often the
// collector runs and what the processor's caches hold: its shares add up to
// less than the whole.
func BenchmarkAuditPrefixesCPU(b *testing.B) {
	prefixes := []struct {
		name string
		run  func(b *testing.B, data []byte)
	}{
		{"decode-any", func(b *testing.B, data []byte) {
			var v any
			if _, err := toml.Decode(string(data), &v); err != nil {
				b.Fatal(err)
			}
		}},
		{"parse", func(b *testing.B, data []byte) {
			if _, err := addon.ParseTOML(data); err != nil {
				b.Fatal(err)
			}
		}},
		{"parse+rules", func(b *testing.B, data []byte) {
			m, err := addon.ParseTOML(data)
			if err != nil {
				b.Fatal(err)
			}
			assess.Audit(m)
		}},
		{"audit", auditOnce},
	}
	inputs := corpusManifests(b)
	for _, p := range prefixes {
		b.Run(p.name, func(b *testing.B) {
			var decode, prefix time.Duration
			for b.Loop() {
				t0 := cpuTime(b)
				for _, data := range inputs {
					decodeOnce(b, data)
				}
				t1 := cpuTime(b)
				for _, data := range inputs {
					p.run(b, data)
				}
				t2 := cpuTime(b)
				decode += t1 - t0
				prefix += t2 - t1
			}
			if decode > 0 {
				b.ReportMetric(float64(prefix)/float64(decode), "prefix/decode")
			}
		})
	}
}

package report_test

import (
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

func BenchmarkStagesTmp(b *testing.B) {
	run := func(b *testing.B, inputs [][]byte) {
		ms := make([]*addon.Manifest, len(inputs))
		rs := make([]assess.Result, len(inputs))
		var t [6]time.Duration
		for b.Loop() {
			c0 := cpuTime(b)
			for _, d := range inputs {
				decodeOnce(b, d)
			}
			c1 := cpuTime(b)
			for _, d := range inputs {
				var v any
				toml.Decode(string(d), &v)
			}
			c2 := cpuTime(b)
			for i, d := range inputs {
				ms[i], _ = addon.ParseTOML(d)
			}
			c3 := cpuTime(b)
			for i := range inputs {
				rs[i] = assess.Audit(ms[i])
			}
			c4 := cpuTime(b)
			for i, d := range inputs {
				report.Build(report.Input{Manifest: d, Parsed: ms[i], Result: rs[i], Tier: registry.TierCommunity})
			}
			c5 := cpuTime(b)
			t[0] += c1 - c0
			t[1] += c2 - c1
			t[2] += c3 - c2
			t[3] += c4 - c3
			t[4] += c5 - c4
		}
		d := float64(t[0])
		b.ReportMetric(float64(t[1])/d, "decodeAny/decode")
		b.ReportMetric(float64(t[2])/d, "parse/decode")
		b.ReportMetric(float64(t[3])/d, "audit/decode")
		b.ReportMetric(float64(t[4])/d, "build/decode")
		b.ReportMetric(float64(t[2]+t[3]+t[4])/d, "all/decode")
	}
	b.Run("typical", func(b *testing.B) {
		in := typical(b)
		inputs := make([][]byte, 1000)
		for i := range inputs {
			inputs[i] = in
		}
		run(b, inputs)
	})
	b.Run("corpus", func(b *testing.B) { run(b, corpusManifests(b)) })
}

func BenchmarkBuildOnlyTmp(b *testing.B) {
	inputs := corpusManifests(b)
	ms := make([]*addon.Manifest, len(inputs))
	rs := make([]assess.Result, len(inputs))
	for i, d := range inputs {
		ms[i], _ = addon.ParseTOML(d)
		rs[i] = assess.Audit(ms[i])
	}
	b.ReportAllocs()
	c0 := cpuTime(b)
	defer func() { b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N)/1e6, "cpu-ms/op") }()
	for b.Loop() {
		for i, d := range inputs {
			report.Build(report.Input{Manifest: d, Parsed: ms[i], Result: rs[i], Tier: registry.TierCommunity})
		}
	}
}

func BenchmarkParseOnlyTmp(b *testing.B) {
	inputs := corpusManifests(b)
	b.ReportAllocs()
	c0 := cpuTime(b)
	defer func() { b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N)/1e6, "cpu-ms/op") }()
	for b.Loop() {
		for _, d := range inputs {
			addon.ParseTOML(d)
		}
	}
}

func BenchmarkAssessOnlyTmp(b *testing.B) {
	inputs := corpusManifests(b)
	ms := make([]*addon.Manifest, len(inputs))
	for i, d := range inputs {
		ms[i], _ = addon.ParseTOML(d)
	}
	b.ReportAllocs()
	c0 := cpuTime(b)
	defer func() { b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N)/1e6, "cpu-ms/op") }()
	for b.Loop() {
		for i := range inputs {
			assess.Audit(ms[i])
		}
	}
}

package report_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/internal/corpus"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

// auditOnce is what the registry does with a submission: strict parse, every
// rule, canonical report.
func auditOnce(b *testing.B, data []byte) {
	m, err := addon.ParseTOML(data)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := report.Build(report.Input{Manifest: data, Parsed: m, Result: assess.Audit(m), Tier: registry.TierCommunity}); err != nil {
		b.Fatal(err)
	}
}

// decodeOnce is the baseline: the TOML decode alone, into a generic map.
func decodeOnce(b *testing.B, data []byte) {
	var v map[string]any
	if _, err := toml.Decode(string(data), &v); err != nil {
		b.Fatal(err)
	}
}

func typical(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "bench", "typical.toml"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// corpusManifests returns the TOML of every corpus record the decoder
// accepts, or skips.
func corpusManifests(b *testing.B) [][]byte {
	dir, err := corpus.Locate(os.Getenv, filepath.Join("..", ".."))
	if err != nil {
		b.Skipf("skipping: %v", err)
	}
	recs, err := corpus.LoadFile(filepath.Join(dir, corpus.FileName))
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	for _, r := range recs {
		m, err := r.Manifest()
		if err != nil {
			continue
		}
		if _, err := addon.ParseTOML(m); err != nil {
			continue
		}
		out = append(out, m)
	}
	return out
}

// BenchmarkAudit is parse + all rules + report encoding. Compare each
// sub-benchmark with the same one of BenchmarkDecodeOnly.
func BenchmarkAudit(b *testing.B) {
	b.Run("typical", func(b *testing.B) {
		data := typical(b)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			auditOnce(b, data)
		}
	})
	b.Run("corpus", func(b *testing.B) {
		ms := corpusManifests(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range ms {
				auditOnce(b, m)
			}
		}
	})
}

// BenchmarkDecodeOnly is the TOML decode of the same bytes with
// BurntSushi/toml into map[string]any: the floor the audit is measured
// against.
func BenchmarkDecodeOnly(b *testing.B) {
	b.Run("typical", func(b *testing.B) {
		data := typical(b)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			decodeOnce(b, data)
		}
	})
	b.Run("corpus", func(b *testing.B) {
		ms := corpusManifests(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range ms {
				decodeOnce(b, m)
			}
		}
	})
}

// BenchmarkAuditVsDecode interleaves the two measurements, one decode and
// one audit of the same bytes per iteration, and reports their ratio as
// audit/decode. On a loaded machine the separate benchmarks drift apart as
// the load changes between them; the interleaved ratio does not.
func BenchmarkAuditVsDecode(b *testing.B) {
	measure := func(b *testing.B, inputs [][]byte) {
		var decode, audit time.Duration
		for b.Loop() {
			for _, data := range inputs {
				t0 := time.Now()
				decodeOnce(b, data)
				t1 := time.Now()
				auditOnce(b, data)
				t2 := time.Now()
				decode += t1.Sub(t0)
				audit += t2.Sub(t1)
			}
		}
		if decode > 0 {
			b.ReportMetric(float64(audit)/float64(decode), "audit/decode")
			b.ReportMetric(float64(audit.Nanoseconds())/float64(b.N*len(inputs)), "audit-ns/manifest")
			b.ReportMetric(float64(decode.Nanoseconds())/float64(b.N*len(inputs)), "decode-ns/manifest")
		}
	}
	b.Run("typical", func(b *testing.B) { measure(b, [][]byte{typical(b)}) })
	b.Run("corpus", func(b *testing.B) { measure(b, corpusManifests(b)) })
}

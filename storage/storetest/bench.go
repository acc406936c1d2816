package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// OpenBench opens a fresh, migrated, empty store for b and closes it when
// b ends.
type OpenBench func(b *testing.B) storage.Store

// Bench runs the store benchmarks: the install clients' hot path
// (PublishedReport), a submission read, a page of addons and the write
// transaction of one ingest.
func Bench(b *testing.B, open OpenBench) {
	ctx := context.Background()
	b.Run("PublishedReport", func(b *testing.B) {
		s := open(b)
		seedPublished(b, s, 50)
		b.ReportAllocs()
		b.ResetTimer()
		var i atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := i.Add(1) % 50
				if _, err := s.PublishedReport(ctx, fmt.Sprintf("addon-%02d", n), ""); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("PublishedEnvelope", func(b *testing.B) {
		s := open(b)
		seedPublished(b, s, 50)
		b.ReportAllocs()
		b.ResetTimer()
		var i atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := i.Add(1) % 50
				if _, err := s.PublishedEnvelope(ctx, fmt.Sprintf("addon-%02d", n), "1.0.0"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("InclusionProof", func(b *testing.B) {
		s := open(b)
		seedPublished(b, s, 50)
		b.ReportAllocs()
		b.ResetTimer()
		var i atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := i.Add(1) % 50
				if _, err := s.InclusionProof(ctx, fmt.Sprintf("addon-%02d", n), "1.0.0"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("Submission", func(b *testing.B) {
		s := open(b)
		seedPublished(b, s, 50)
		b.ReportAllocs()
		b.ResetTimer()
		var i atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Submission(ctx, fmt.Sprintf("sub_%02d", i.Add(1)%50)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("AddonsPage", func(b *testing.B) {
		s := open(b)
		seedPublished(b, s, 50)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			page, _, err := s.Addons(ctx, storage.AddonFilter{}, storage.Page{Limit: 50})
			if err != nil || len(page) != 50 {
				b.Fatalf("Addons: %d, %v", len(page), err)
			}
		}
	})
	b.Run("IngestTx", func(b *testing.B) {
		s := open(b)
		body := reportBody(4096)
		b.ReportAllocs()
		b.ResetTimer()
		var i atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := i.Add(1)
				id := fmt.Sprintf("sub_bench_%d", n)
				err := s.InTx(ctx, func(tx storage.Tx) error {
					if err := tx.CreateSubmission(ctx, submission(id, "bench", fmt.Sprint(n), 0)); err != nil {
						return err
					}
					if err := tx.PutReport(ctx, report(id, "rules", body), benchFindings(id)); err != nil {
						return err
					}
					return tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_" + id, At: at(0), Actor: "bench", Action: "submission.create"})
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchLog measures appending to the transparency log: each iteration is
// one transaction that renders again the reports of 1,000 published
// versions (new bytes), so each signs 1,000 envelopes and appends 1,000
// leaves with one head update (the store signs a checkpoint after it), as
// a batch of the re-assessment does. Unpublished is the same transaction
// over 1,000 pending submissions, which are neither signed nor logged: the
// cost of the rest of the work. Run with -benchtime 100x for 100,000
// leaves.
func BenchLog(b *testing.B, open OpenBench) {
	const batch = 1000
	ctx := context.Background()
	body := reportBody(4096)
	for _, published := range []bool{true, false} {
		name := "Published"
		if !published {
			name = "Unpublished"
		}
		b.Run(name, func(b *testing.B) {
			s := open(b)
			err := s.InTx(ctx, func(tx storage.Tx) error {
				if err := tx.PutAddon(ctx, addon("bench", 0)); err != nil {
					return err
				}
				for i := range batch {
					id := fmt.Sprintf("sub_log_%d", i)
					if err := tx.CreateSubmission(ctx, submission(id, "bench", fmt.Sprintf("1.0.%d", i), 0)); err != nil {
						return err
					}
					if err := tx.PutReport(ctx, report(id, "rules", body), nil); err != nil {
						return err
					}
					if published {
						if err := tx.CreateVersion(ctx, registry.Version{Addon: "bench", Version: fmt.Sprintf("1.0.%d", i), SubmissionID: id, PublishedAt: at(i)}); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				err := s.InTx(ctx, func(tx storage.Tx) error {
					for i := range batch {
						id := fmt.Sprintf("sub_log_%d", i)
						if err := tx.PutReport(ctx, report(id, "rules", body+fmt.Sprint(n)), nil); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "reports/s")
			if published {
				if cp := WaitCheckpoint(b, s, uint64((b.N+1)*batch)); cp.Size != uint64((b.N+1)*batch) {
					b.Fatalf("log size %d; want %d", cp.Size, (b.N+1)*batch)
				}
			}
		})
	}
}

// BenchCheckpointDelay measures how soon after a publication's commit a
// signed checkpoint covers it (the promise is SignedWithin): each
// iteration publishes one version and polls the checkpoint every 100 µs
// until it holds the new leaf. Idle publishes after a pause longer than
// the signer's gap between two signatures; Burst publishes one after
// another, so that most land inside that gap. It reports the median, the
// 99th percentile and the largest delay in milliseconds.
func BenchCheckpointDelay(b *testing.B, open OpenBench) {
	ctx := context.Background()
	for _, pause := range []time.Duration{300 * time.Millisecond, 0} {
		name := "Idle"
		if pause == 0 {
			name = "Burst"
		}
		b.Run(name, func(b *testing.B) {
			s := open(b)
			if err := s.InTx(ctx, func(tx storage.Tx) error { return tx.PutAddon(ctx, addon("delay", 0)) }); err != nil {
				b.Fatal(err)
			}
			var delays []time.Duration
			for i := 0; b.Loop(); i++ {
				if pause > 0 {
					b.StopTimer()
					time.Sleep(pause)
					b.StartTimer()
				}
				if err := s.InTx(ctx, func(tx storage.Tx) error {
					_, err := publishOne(ctx, tx, "delay", i)
					return err
				}); err != nil {
					b.Fatal(err)
				}
				committed := time.Now()
				if _, err := waitCheckpointEvery(s, uint64(i+1), 10*SignedWithin, 100*time.Microsecond); err != nil {
					b.Fatal(err)
				}
				delays = append(delays, time.Since(committed))
			}
			slices.Sort(delays)
			ms := func(q float64) float64 {
				return float64(delays[int(q*float64(len(delays)-1))]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			b.ReportMetric(ms(1), "max-ms")
		})
	}
}

func reportBody(n int) string {
	return `{"pad":"` + strings.Repeat("x", n) + `"}`
}

func benchFindings(id string) []registry.StoredFinding {
	out := make([]registry.StoredFinding, 5)
	for i := range out {
		out[i] = registry.StoredFinding{SubmissionID: id, Finding: registry.Finding{
			Level: registry.LevelWarn, Code: "unpinned", Message: "the package is not pinned", Path: fmt.Sprintf("mcp.args[%d]", i)}}
	}
	return out
}

// seedPublished publishes n addons, each with one version and a 4 KiB
// report.
func seedPublished(b *testing.B, s storage.Store, n int) {
	b.Helper()
	ctx := context.Background()
	body := reportBody(4096)
	err := s.InTx(ctx, func(tx storage.Tx) error {
		for i := range n {
			name, id := fmt.Sprintf("addon-%02d", i), fmt.Sprintf("sub_%02d", i)
			if err := tx.CreateSubmission(ctx, submission(id, name, "1.0.0", i)); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, report(id, "rules", body), benchFindings(id)); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, registry.Version{Addon: name, Version: "1.0.0", SubmissionID: id, PublishedAt: at(i)}); err != nil {
				return err
			}
			if err := tx.PutAddon(ctx, addon(name, i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
}

package workflow_test

import (
	"context"
	"fmt"
	"testing"

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
// envelope, appends its leaf and signs the new checkpoint. Run it on a
// build before the log for the ratio (docs/benchmarks.md).
func BenchmarkPublish(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			h := newHarness(b, be)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m := warned(fmt.Sprintf("bench-%d", i), "1.0.0")
				if _, _, err := h.svc.Publish(ctx, alice, m, workflow.FormatTOML, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package client_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/client"
	"github.com/registryd/registryd/client/internal/testregistry"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

func TestParsePolicy(t *testing.T) {
	for _, p := range client.Policies {
		got, err := client.ParsePolicy(string(p))
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %q, %v", p, got, err)
		}
	}
	if got, err := client.ParsePolicy(""); err != nil || got != client.BlockFail {
		t.Errorf(`ParsePolicy("") = %q, %v; want block_fail`, got, err)
	}
	for _, s := range []string{"Open", "block-fail", "none", "verified_only ", "\x1b[31m"} {
		if _, err := client.ParsePolicy(s); err == nil {
			t.Errorf("ParsePolicy(%q) succeeded", s)
		}
	}
}

func TestDecide(t *testing.T) {
	info := report.Finding{Level: registry.LevelInfo, Code: "child_env", Message: "passes LOG_LEVEL", Path: "mcp.env"}
	risky := report.Finding{Level: registry.LevelDanger, Code: "persistence", Message: "writes a login script", Path: "mcp.args[0]"}
	suppressed := risky
	suppressed.Suppressed = &report.Suppressed{Reason: registry.SuppressionReason("not_applicable")}
	blocking := report.Finding{Level: registry.LevelDanger, Code: "fetch_exec", Message: "pipes\x1b[2J curl into sh", Path: "mcp.args[1]", Blocking: true}
	const (
		infoLine     = "info child_env at mcp.env: passes LOG_LEVEL"
		riskyLine    = "danger persistence at mcp.args[0]: writes a login script"
		blockingLine = "danger fetch_exec at mcp.args[1] (blocking): pipes?[2J curl into sh"
	)
	removed := testregistry.Report("a", "1.0.0", nil, registry.TierVerified, registry.VerdictFail)
	removed.Removed = true
	tests := []struct {
		name    string
		report  *report.Report
		allowed map[client.Policy]bool
		reasons []string
	}{
		{"verified pass", testregistry.Report("a", "1.0.0", nil, registry.TierVerified, registry.VerdictPass, info),
			map[client.Policy]bool{client.Open: true, client.BlockFail: true, client.BlockRisky: true, client.VerifiedOnly: true},
			[]string{infoLine}},
		{"community pass", testregistry.Report("a", "1.0.0", nil, registry.TierCommunity, registry.VerdictPass),
			map[client.Policy]bool{client.Open: true, client.BlockFail: true, client.BlockRisky: true}, nil},
		{"verified review with a danger finding", testregistry.Report("a", "1.0.0", nil, registry.TierVerified, registry.VerdictReview, risky),
			map[client.Policy]bool{client.Open: true, client.BlockFail: true, client.VerifiedOnly: true}, []string{riskyLine}},
		{"a suppressed danger finding", testregistry.Report("a", "1.0.0", nil, registry.TierVerified, registry.VerdictPass, suppressed),
			map[client.Policy]bool{client.Open: true, client.BlockFail: true, client.BlockRisky: true, client.VerifiedOnly: true}, nil},
		{"verified fail", testregistry.Report("a", "1.0.0", nil, registry.TierVerified, registry.VerdictFail, blocking),
			map[client.Policy]bool{client.Open: true}, []string{"the verdict is fail", blockingLine}},
		{"removed", removed, map[client.Policy]bool{client.Open: true},
			[]string{"the addon was removed from the registry", "the verdict is fail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range client.Policies {
				d := p.Decide(tt.report)
				want := tt.reasons
				if p == client.VerifiedOnly && tt.report.Tier != registry.TierVerified {
					want = append(append([]string{}, "the tier is community, not verified"), want...)
				}
				if d.Allowed != tt.allowed[p] || d.Policy != p {
					t.Errorf("%s: allowed = %v, want %v", p, d.Allowed, tt.allowed[p])
				}
				if diff := cmp.Diff(want, d.Reasons); diff != "" {
					t.Errorf("%s: reasons (-want +got):\n%s", p, diff)
				}
			}
		})
	}
	if d := client.Policy("lenient").Decide(tests[0].report); d.Allowed {
		t.Errorf("an unknown policy allowed a report")
	}
}

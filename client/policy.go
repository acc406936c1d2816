package client

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/safetext"
)

// Policy is an install policy: what a verified report must say for an addon
// to be installed. The policies, from the most lenient to the strictest:
//
//   - Open allows every verified report and lists its findings.
//   - BlockFail (the default) denies a report whose verdict is fail.
//   - BlockRisky denies a fail verdict and any danger finding that counts
//     (a finding a maintainer suppressed does not count).
//   - VerifiedOnly denies a fail verdict and anything whose tier is not
//     verified.
//
// A report of a removed addon has a fail verdict, so every policy but Open
// denies it. No policy allows what could not be verified: a failure to
// verify is an error of Client.Verify, never a Decision.
type Policy string

// The install policies.
const (
	Open         Policy = "open"
	BlockFail    Policy = "block_fail"
	BlockRisky   Policy = "block_risky"
	VerifiedOnly Policy = "verified_only"
)

// DefaultPolicy is the policy a client applies when it is given none.
const DefaultPolicy = BlockFail

// Policies lists every policy, the most lenient first.
var Policies = []Policy{Open, BlockFail, BlockRisky, VerifiedOnly}

// ParsePolicy returns the policy named s. The empty string is
// DefaultPolicy; any other unknown name is an error (which never echoes s).
func ParsePolicy(s string) (Policy, error) {
	if s == "" {
		return DefaultPolicy, nil
	}
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown policy: want one of open, block_fail, block_risky, verified_only")
}

// Decision is what a policy made of a report: whether to install, and why.
// Reasons has one entry per reason, each one line of safe text: for a
// denial, every rule of the policy the report breaks; for an allowed
// report, the findings that count (and, under Open, that the addon was
// removed or failed).
type Decision struct {
	Allowed bool
	Policy  Policy
	Reasons []string
}

// Decide applies p to a verified report r. It is a pure function of its
// arguments, and safe for concurrent use. An invalid p denies everything.
func (p Policy) Decide(r *report.Report) Decision {
	d := Decision{Allowed: true, Policy: p}
	deny := func(reason string) {
		d.Allowed = false
		d.Reasons = append(d.Reasons, reason)
	}
	var fail, danger, unverified bool
	switch p {
	case Open:
	case BlockFail:
		fail = true
	case BlockRisky:
		fail, danger = true, true
	case VerifiedOnly:
		fail, unverified = true, true
	default:
		deny("unknown policy")
		return d
	}
	if r.Removed {
		record(&d, fail, "the addon was removed from the registry")
	}
	if r.Verdict == registry.VerdictFail {
		record(&d, fail, "the verdict is fail")
	}
	if r.Tier != registry.TierVerified && unverified {
		deny(fmt.Sprintf("the tier is %s, not verified", safe(string(r.Tier))))
	}
	for _, f := range r.Findings {
		if f.Suppressed != nil {
			continue
		}
		line := FindingLine(f)
		switch {
		case f.Level == registry.LevelDanger && danger:
			deny(line)
		case f.Blocking && fail:
			deny(line)
		default:
			d.Reasons = append(d.Reasons, line)
		}
	}
	return d
}

// record records a property of the report that a policy may deny on: a
// denial when deny is set, otherwise a reason that is only reported.
func record(d *Decision, deny bool, reason string) {
	if deny {
		d.Allowed = false
	}
	d.Reasons = append(d.Reasons, reason)
}

// FindingLine renders a finding as one line of safe text:
// "LEVEL CODE at PATH: MESSAGE". A report is verified before it is decided
// on, but what it says still came from the network: every character
// safetext does not let be shown becomes '?'.
func FindingLine(f report.Finding) string {
	s := f.Level.String() + " " + safe(f.Code)
	if f.Path != "" {
		s += " at " + safe(f.Path)
	}
	if f.Blocking {
		s += " (blocking)"
	}
	return s + ": " + safe(f.Message)
}

// safe makes text from a report fit for one line of a terminal.
func safe(s string) string { return safetext.TruncateRunes(safetext.Replace(s, 0, '?'), 300) }

// Checked is the outcome of Client.Check: the verified report (nil when
// the registry has none) and the policy's decision.
type Checked struct {
	Verified *Verified
	Decision Decision
}

// Check verifies the report ref names (Client.Verify) and decides on it
// under p. A report the registry does not have (ErrNotPublished) is not an
// error here: Open allows it and every other policy denies it, with the
// reason. Every other error of Verify is returned, and means "do not
// install"; an unknown p is an error before anything is fetched.
func (c *Client) Check(ctx context.Context, ref Ref, p Policy) (Checked, error) {
	if !slices.Contains(Policies, p) {
		return Checked{}, fmt.Errorf("policy %q: unknown", safe(string(p)))
	}
	v, err := c.Verify(ctx, ref)
	if errors.Is(err, ErrNotPublished) {
		reason := ref.String() + " is not published in the registry"
		return Checked{Decision: Decision{Allowed: p == Open, Policy: p, Reasons: []string{reason}}}, nil
	}
	if err != nil {
		return Checked{}, err
	}
	return Checked{Verified: v, Decision: p.Decide(v.Report)}, nil
}

// Package registry holds registryd's domain vocabulary: finding levels,
// verdicts, trust tiers, rules and the errors every layer speaks. It imports
// only the standard library so that every other package can depend on it.
package registry

import (
	"fmt"
)

// Level is the severity of a finding. The zero value is LevelNone, which no
// finding carries; it stands for "no finding" when a highest level is asked
// for. Levels order as None < Info < Warn < Danger.
type Level uint8

// The levels, lowest first.
const (
	LevelNone Level = iota
	LevelInfo
	LevelWarn
	LevelDanger
)

var levelNames = [...]string{"none", "info", "warn", "danger"}

// String returns the lower-case wire name of l ("none", "info", "warn",
// "danger").
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

// ParseLevel maps a wire name back to its Level. It returns an error for any
// other string.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return LevelNone, fmt.Errorf("unknown level %q", s)
}

// MarshalText encodes l as its wire name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText decodes a wire name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Finding is one observation the audit makes about a manifest.
//
// Path names the manifest field the finding is about in dotted form with
// indexes (`mcp.args[2]`, `mcp.env.NODE_OPTIONS`, `mcp`); it never contains a
// key that is unsafe to print. Message is registryd's own prose and never
// echoes an unsafe value.
type Finding struct {
	Level   Level
	Code    string
	Message string
	Path    string
}

// Rule describes one audit rule: the code its findings carry, their level,
// whether a finding makes the verdict fail, a one-line description and how
// an author fixes it.
type Rule struct {
	Code        string
	Level       Level
	Blocking    bool
	Description string
	Remedy      string
}

// Verdict is the outcome of an audit.
type Verdict string

// The verdicts.
const (
	// VerdictPass: no finding at warn or above.
	VerdictPass Verdict = "pass"
	// VerdictReview: a warn or danger finding that does not block.
	VerdictReview Verdict = "review"
	// VerdictFail: at least one blocking finding.
	VerdictFail Verdict = "fail"
)

// Valid reports whether v is one of the three verdicts.
func (v Verdict) Valid() bool {
	return v == VerdictPass || v == VerdictReview || v == VerdictFail
}

// Tier is an addon's trust tier. It is conferred by the registry (two
// maintainers granting `verified`), never claimed by a manifest.
type Tier string

// The tiers.
const (
	TierCommunity Tier = "community"
	TierVerified  Tier = "verified"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return t == TierCommunity || t == TierVerified }

// SuppressionReason is why a maintainer suppressed a finding.
type SuppressionReason string

// The suppression reasons.
const (
	ReasonFalsePositive SuppressionReason = "false_positive"
	ReasonMitigated     SuppressionReason = "mitigated"
	ReasonNotApplicable SuppressionReason = "not_applicable"
	ReasonAcceptedRisk  SuppressionReason = "accepted_risk"
)

// Valid reports whether r is a known reason.
func (r SuppressionReason) Valid() bool {
	switch r {
	case ReasonFalsePositive, ReasonMitigated, ReasonNotApplicable, ReasonAcceptedRisk:
		return true
	}
	return false
}

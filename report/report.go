// Package report turns an audit into registryd's risk report: canonical JSON
// (RFC 8785) that is byte-identical for the same manifest bytes, ruleset and
// registry state, on every run, replica and machine.
//
// The package is pure: no I/O, no clock, no environment. The registry state
// that a report depends on (the trust tier, whether the addon was removed,
// the maintainers' suppressions) is an explicit input.
package report

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
)

// Schema is the format version of the reports this package writes. Decode
// reads it and SchemaV1, and refuses any other value.
const Schema = "registryd.report/v2"

// SchemaV1 is the format before reports carried wiring_sha256. Its tier
// was the addon's, whatever the version's wiring; a v1 report decodes with
// an empty WiringSHA256.
const SchemaV1 = "registryd.report/v1"

// Report is the decoded form of a risk report. The JSON field names are the
// wire format; every list is present (never null) except Capabilities, which
// is null when the manifest declared no [capabilities] table.
type Report struct {
	Schema         string           `json:"schema"`
	Ruleset        string           `json:"ruleset"`
	Addon          Addon            `json:"addon"`
	ManifestSHA256 string           `json:"manifest_sha256"`
	Tier           registry.Tier    `json:"tier"`
	Removed        bool             `json:"removed"`
	Verdict        registry.Verdict `json:"verdict"`
	Risk           registry.Level   `json:"risk"`
	Counts         Counts           `json:"counts"`
	Transport      string           `json:"transport"`
	Findings       []Finding        `json:"findings"`
	Capabilities   *Capabilities    `json:"capabilities"`
	Inferred       Inferred         `json:"inferred"`
	// WiringSHA256 is the digest of the manifest's wiring
	// (addon.Wiring.SHA256): what the `verified` tier is bound to. Tier is
	// verified only when two maintainers verified this wiring.
	WiringSHA256 string `json:"wiring_sha256"`
}

// Addon identifies the manifest a report is about, as the manifest names it.
type Addon struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Counts is the number of counted (not suppressed) findings per level, plus
// the number of suppressed findings of any level.
type Counts struct {
	Info       int `json:"info"`
	Warn       int `json:"warn"`
	Danger     int `json:"danger"`
	Suppressed int `json:"suppressed"`
}

// Finding is one finding of the audit as the report carries it. Line is the
// 1-based line of Path in the submitted manifest, or 0 when unknown.
// Blocking is true when the finding's rule makes the verdict fail (a
// suppressed finding still says so, although it no longer counts).
// Suppressed is non-nil when a maintainer suppressed the finding.
type Finding struct {
	Level      registry.Level `json:"level"`
	Code       string         `json:"code"`
	Message    string         `json:"message"`
	Path       string         `json:"path"`
	Line       int            `json:"line"`
	Blocking   bool           `json:"blocking"`
	Suppressed *Suppressed    `json:"suppressed,omitempty"`
}

// Suppressed marks a finding that a maintainer suppressed, and why.
type Suppressed struct {
	Reason registry.SuppressionReason `json:"reason"`
}

// Capabilities is the declared [capabilities] table with every omitted field
// at its strictest value. Exec is "none", "full" or "allow"; ExecAllow lists
// the allowed binaries when Exec is "allow" and is empty otherwise. Env lists
// the host variable names passed through, in the manifest's order.
type Capabilities struct {
	Network    addon.NetworkAccess    `json:"network"`
	Filesystem addon.FilesystemAccess `json:"filesystem"`
	Env        []string               `json:"env"`
	Exec       addon.ExecMode         `json:"exec"`
	ExecAllow  []string               `json:"exec_allow"`
}

// Inferred is what the wiring was found to use, whatever it declares.
type Inferred struct {
	Network bool `json:"network"`
	Exec    bool `json:"exec"`
}

// Suppression is a maintainer's decision that findings with Code at Path do
// not count. An empty Path matches every path of Code. A suppression that
// matches no finding is ignored (the rules may have changed since it was
// made).
type Suppression struct {
	Code   string
	Path   string
	Reason registry.SuppressionReason
}

// Input is everything a report depends on. Manifest is the manifest exactly
// as submitted (its sha256 goes into the report); Parsed is its decoded form
// and Result the audit of Parsed. Tier, Removed and Suppressions are the
// registry's state for the addon; the manifest's own `verified` claim is never
// consulted. Tier is the tier of this manifest's wiring: the caller gives
// verified only when the registry's verification covers the wiring's digest.
type Input struct {
	Manifest     []byte
	Parsed       *addon.Manifest
	Result       assess.Result
	Tier         registry.Tier
	Removed      bool
	Suppressions []Suppression
}

// Build assembles the report for in and returns it twice: as a value, and
// as its canonical JSON bytes (RFC 8785, no trailing newline), which encode
// exactly that value (Decode of the bytes gives it back), so a caller that
// needs both never reads back what it just built. The same Input gives the
// same bytes on every call. The verdict is assess.Verdict over the counted (not suppressed)
// findings: fail when a counted finding's rule is blocking, else review when
// a counted finding is at warn or above, else pass. A removed addon's verdict
// is always fail, so that a client acting on the verdict alone never
// installs it.
//
// Build returns a *registry.ValidationError (matching registry.ErrInvalid)
// naming the field when Parsed is nil, the tier is unknown or a suppression
// has no code or an unknown reason. It is safe for concurrent use.
func Build(in Input) (*Report, []byte, error) {
	r, err := assemble(in, rulebook{verdict: assess.Verdict, blocking: blockingRule})
	if err != nil {
		return nil, nil, err
	}
	b, err := Encode(r)
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}

// Encode returns the canonical JSON bytes of r. Nil lists are written as [].
// It does not check r; use Build to make a report.
func Encode(r *Report) ([]byte, error) {
	if b, ok := appendCanonical(make([]byte, 0, encodedSizeHint(r)), r); ok {
		return b, nil
	}
	return encodeGeneral(r)
}

// encodedSizeHint is the length of r's canonical bytes when no string
// needs an escape (booleans counted as "false"), plus a little room for a
// few escapes: the capacity Encode starts with, so that a report is written
// into one allocation of about its own size.
func encodedSizeHint(r *Report) int {
	// The member names, punctuation and literals of a report without
	// capabilities or findings, all strings empty and counts left out.
	const fixed, slack = 290, 16
	n := fixed + slack + len(r.Addon.Name) + len(r.Addon.Version) + len(r.ManifestSHA256) +
		len(r.Risk.String()) + len(r.Ruleset) + len(r.Schema) + len(r.Tier) + len(r.Transport) +
		len(r.Verdict) + len(r.WiringSHA256) +
		digits(r.Counts.Danger) + digits(r.Counts.Info) + digits(r.Counts.Suppressed) + digits(r.Counts.Warn)
	if c := r.Capabilities; c != nil {
		// {"env":[],"exec":"","exec_allow":[],"filesystem":"","network":""} for null
		n += 65 - 4 + len(c.Exec) + len(c.Filesystem) + len(c.Network)
		for _, s := range c.Env {
			n += len(s) + 3
		}
		for _, s := range c.ExecAllow {
			n += len(s) + 3
		}
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		// {"blocking":false,"code":"","level":"","line":,"message":"","path":""} and a comma
		n += 70 + 1 + len(f.Code) + len(f.Level.String()) + digits(f.Line) + len(f.Message) + len(f.Path)
		if f.Suppressed != nil {
			// ,"suppressed":{"reason":""}
			n += 27 + len(f.Suppressed.Reason)
		}
	}
	return n
}

// digits is the length of n in decimal.
func digits(n int) int {
	d := 1
	if n < 0 {
		d++
	}
	for ; n >= 10 || n <= -10; n /= 10 {
		d++
	}
	return d
}

// encodeGeneral is Encode by way of encoding/json and jcs.Transform: slower,
// but correct for every Report. Encode uses it for the reports that
// appendCanonical refuses, and tests use it as the reference.
func encodeGeneral(r *Report) ([]byte, error) {
	c := *r
	if c.Findings == nil {
		c.Findings = []Finding{}
	}
	if c.Capabilities != nil {
		cp := *c.Capabilities
		if cp.Env == nil {
			cp.Env = []string{}
		}
		if cp.ExecAllow == nil {
			cp.ExecAllow = []string{}
		}
		c.Capabilities = &cp
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	out, err := jcs.Transform(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if err != nil {
		return nil, fmt.Errorf("canonicalize report: %w", err)
	}
	return out, nil
}

// SHA256 returns the lower-case hex sha256 of b.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	var out [sha256.Size * 2]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// digests returns the hex SHA-256 of the manifest's bytes and the
// manifest's wiring digest (addon.Manifest.WiringSHA256) as two halves of
// one string: one allocation for both.
func digests(manifest []byte, m *addon.Manifest) (manifestHex, wiringHex string) {
	const n = sha256.Size * 2
	sum, wiring := sha256.Sum256(manifest), m.WiringSum()
	var out [2 * n]byte
	putHex(out[:n], sum[:])
	putHex(out[n:], wiring[:])
	both := string(out[:])
	return both[:n], both[n:]
}

// putHex writes the lower-case hex digits of src into dst, as hex.Encode
// does, a byte's two digits at a time.
func putHex(dst, src []byte) {
	dst = dst[:2*len(src)]
	for i, b := range src {
		*(*[2]byte)(dst[2*i:]) = hexPairs[b]
	}
}

// hexPairs holds the two lower-case hex digits of every byte value.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789abcdef"
	for b := range t {
		t[b] = [2]byte{digits[b>>4], digits[b&0xf]}
	}
	return t
}()

// rulebook is what the report needs from the rules: the verdict over a set of
// counted findings (counted is nil when every finding counts, as for
// assess.Verdict) and whether a code blocks. Build uses assess's; tests
// use their own so that the report logic is tested on its own.
type rulebook struct {
	verdict  func(findings []registry.Finding, counted func(i int) bool) registry.Verdict
	blocking func(code string) bool
}

func blockingRule(code string) bool {
	r, ok := assess.RuleFor(code)
	return ok && r.Blocking
}

// assemble builds the report with the rules of rb.
func assemble(in Input, rb rulebook) (*Report, error) {
	var fields []registry.FieldError
	if in.Parsed == nil {
		fields = append(fields, registry.FieldError{Path: "parsed", Message: "the decoded manifest is missing"})
	}
	if !in.Tier.Valid() {
		fields = append(fields, registry.FieldError{Path: "tier", Message: `must be "community" or "verified"`})
	}
	for i, s := range in.Suppressions {
		if s.Code == "" {
			fields = append(fields, registry.FieldError{Path: fmt.Sprintf("suppressions[%d].code", i), Message: "must not be empty"})
		}
		if !s.Reason.Valid() {
			fields = append(fields, registry.FieldError{Path: fmt.Sprintf("suppressions[%d].reason", i), Message: "must be one of false_positive, mitigated, not_applicable, accepted_risk"})
		}
	}
	if len(fields) > 0 {
		return nil, &registry.ValidationError{Fields: fields}
	}

	m := in.Parsed
	r, findings := newReport(len(in.Result.Findings))
	manifestHex, wiringHex := digests(in.Manifest, m)
	*r = Report{
		Schema:         Schema,
		Ruleset:        assess.Ruleset,
		Addon:          Addon{Name: m.Addon.Name, Version: m.Addon.Version},
		ManifestSHA256: manifestHex,
		Tier:           in.Tier,
		Removed:        in.Removed,
		Transport:      transport(m),
		Findings:       findings,
		Capabilities:   capabilities(m.Capabilities),
		Inferred:       Inferred{Network: in.Result.Inferred.Network, Exec: in.Result.Inferred.Exec},
		WiringSHA256:   wiringHex,
	}
	// counted is needed only when a suppression can leave a finding
	// uncounted; without one, every finding counts (a nil counted).
	var counted []bool
	if len(in.Suppressions) > 0 {
		counted = make([]bool, len(in.Result.Findings))
	}
	for i, f := range in.Result.Findings {
		rf := Finding{
			Level:    f.Level,
			Code:     f.Code,
			Message:  f.Message,
			Path:     f.Path,
			Line:     m.Line(f.Path),
			Blocking: rb.blocking(f.Code),
		}
		if reason, ok := suppressedBy(in.Suppressions, f); ok {
			rf.Suppressed = &Suppressed{Reason: reason}
			r.Counts.Suppressed++
		} else {
			if counted != nil {
				counted[i] = true
			}
			switch f.Level {
			case registry.LevelInfo:
				r.Counts.Info++
			case registry.LevelWarn:
				r.Counts.Warn++
			case registry.LevelDanger:
				r.Counts.Danger++
			}
			r.Risk = max(r.Risk, f.Level)
		}
		r.Findings = append(r.Findings, rf)
	}
	// The audit promises this order; sorting again keeps the bytes stable
	// even for a Result that was assembled by hand.
	slices.SortStableFunc(r.Findings, compareFindings)

	if counted == nil {
		r.Verdict = rb.verdict(in.Result.Findings, nil)
	} else {
		r.Verdict = rb.verdict(in.Result.Findings, func(i int) bool { return counted[i] })
	}
	if in.Removed {
		r.Verdict = registry.VerdictFail
	}
	return r, nil
}

// newReport returns a zero report and an empty list with room for n
// findings, in one allocation of about their size when n is small: most
// reports carry one or two findings, some none, a few three or four. The
// list has no room beyond n, so that an append elsewhere copies.
func newReport(n int) (*Report, []Finding) {
	switch n {
	case 0:
		return new(Report), []Finding{}
	case 1:
		b := new(struct {
			r Report
			f [1]Finding
		})
		return &b.r, b.f[:0:1]
	case 2:
		b := new(struct {
			r Report
			f [2]Finding
		})
		return &b.r, b.f[:0:2]
	case 3:
		b := new(struct {
			r Report
			f [3]Finding
		})
		return &b.r, b.f[:0:3]
	case 4:
		b := new(struct {
			r Report
			f [4]Finding
		})
		return &b.r, b.f[:0:4]
	}
	return new(Report), make([]Finding, 0, n)
}

// compareFindings is the report's total order: level descending, then code,
// path, message, and finally the suppression (counted first) so that two
// findings equal in everything else still sort the same way.
func compareFindings(a, b Finding) int {
	if c := cmp.Compare(b.Level, a.Level); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	return cmp.Compare(reasonOf(a), reasonOf(b))
}

func reasonOf(f Finding) string {
	if f.Suppressed == nil {
		return ""
	}
	return string(f.Suppressed.Reason)
}

// suppressedBy returns the reason of the first suppression matching f.
func suppressedBy(ss []Suppression, f registry.Finding) (registry.SuppressionReason, bool) {
	for _, s := range ss {
		if s.Code == f.Code && (s.Path == "" || s.Path == f.Path) {
			return s.Reason, true
		}
	}
	return "", false
}

func transport(m *addon.Manifest) string {
	if !m.MCP.Declared {
		return ""
	}
	if m.MCP.Transport == "" {
		return string(addon.TransportStdio)
	}
	return string(m.MCP.Transport)
}

func capabilities(c *addon.Capabilities) *Capabilities {
	if c == nil {
		return nil
	}
	out := &Capabilities{
		Network:    cmp.Or(c.Network, addon.NetworkNone),
		Filesystem: cmp.Or(c.Filesystem, addon.FilesystemReadOnly),
		Env:        append([]string{}, c.Env...),
		Exec:       cmp.Or(c.Exec, addon.ExecNone),
		ExecAllow:  []string{},
	}
	if out.Exec == addon.ExecAllow {
		out.ExecAllow = append(out.ExecAllow, c.ExecAllow...)
	}
	return out
}

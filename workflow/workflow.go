// Package workflow is registryd's review workflow: every change to the
// registry's state goes through it. Each method runs in one storage
// transaction (storage.Store.InTx) and re-renders, in that same transaction,
// every stored report whose bytes the change affects, so that a report never
// disagrees with the registry state it was rendered for.
//
// Reads (lists, reports, the audit log) do not go through this package; they
// go straight to storage.Reader.
//
// A report's bytes depend only on the manifest, the ruleset and the
// registry's state for the addon (tier, active suppressions, removed). Two
// things change them without a request, and the server runs both in the
// background (cmd/registryd serve):
//
//   - a new ruleset: Reassess, called in a loop at start-up, renders every
//     report an older ruleset made again, one batch per transaction;
//   - time: a suppression with an expiry stops applying when it passes.
//     ExpireSuppressions, called once a minute, deletes expired suppressions
//     and renders their addons' reports again, so a stored report shows an
//     expired suppression for at most that long.
package workflow

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
)

// Actor is who acts: the principal holding an API token (its name and ID),
// the token's ID and its role; or a GitHub login, with no principal ID, for
// webhook-driven work. The principal identifies the person: tokens of one
// principal are one maintainer for the two-maintainer rule of SetVerified
// and one submitter for the four eyes of Approve. Where an actor or a
// record has no principal ID, its name stands for the principal of the same
// PrincipalKey (so a GitHub login "Alice" is the principal alice).
type Actor struct {
	Name      string
	TokenID   string
	Role      registry.Role
	Principal string // principal ID; "" for a GitHub login or the service
}

// Format is the syntax of a submitted manifest.
type Format string

// The manifest formats.
const (
	FormatTOML Format = "toml"
	FormatJSON Format = "json"
)

// SystemActor is the name under which the service records the changes it
// makes on its own, such as the expiry of a suppression.
const SystemActor = "registryd"

// Bounds of the free text a maintainer writes.
const (
	// MaxReasonBytes bounds a decision's reason.
	MaxReasonBytes = 1000
	// MaxNoteBytes bounds a suppression's note.
	MaxNoteBytes = 2000
	// MaxTokenNameBytes bounds an API token's name.
	MaxTokenNameBytes = 64
)

// Options configures a Service. Zero fields take defaults: the wall clock,
// random IDs and a logger that discards.
type Options struct {
	// Now returns the current time. Times are stored in UTC at microsecond
	// precision, which both databases keep exactly.
	Now func() time.Time
	// NewID returns a new unique ID that starts with prefix and "_", such as
	// "sub_…". Tests inject a deterministic one.
	NewID func(prefix string) string
	// Logger receives the service's own events (background work).
	Logger *slog.Logger
}

// Service runs the workflow over a store. It is safe for concurrent use; two
// Services over one database (two replicas) are safe too, because every
// decision is taken in a transaction that locks what it reads.
type Service struct {
	store storage.Store
	now   func() time.Time
	newID func(prefix string) string
	log   *slog.Logger

	// unrenderable holds the submissions whose manifest no longer decodes
	// under the current rules, so that Reassess does not retry them in a
	// loop. It is per process and only ever grows by what the database
	// holds.
	mu           sync.Mutex
	unrenderable map[string]bool
}

// New returns a Service over store.
func New(store storage.Store, opts Options) *Service {
	s := &Service{store: store, now: opts.Now, newID: opts.NewID, log: opts.Logger, unrenderable: map[string]bool{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = RandomID
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// RandomID returns prefix, "_" and 26 characters of lower-case base32 drawn
// from 128 random bits. It is the default ID generator.
func RandomID(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return prefix + "_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// clock returns the current time as it is stored.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// parse decodes manifest bytes in format f.
func parse(b []byte, f Format) (*addon.Manifest, error) {
	switch f {
	case FormatTOML:
		return addon.ParseTOML(b)
	case FormatJSON:
		return addon.ParseJSON(b)
	}
	return nil, &registry.ValidationError{Fields: []registry.FieldError{{Path: "format", Message: `must be "toml" or "json"`}}}
}

// state is the registry's record of one addon as far as its reports depend
// on it.
type state struct {
	addon        registry.Addon
	exists       bool
	suppressions []registry.Suppression // all, active or not
}

// active returns the suppressions in force at now, in the report's terms.
func (st state) active(now time.Time) []report.Suppression {
	out := make([]report.Suppression, 0, len(st.suppressions))
	for _, sp := range st.suppressions {
		if sp.Active(now) {
			out = append(out, report.Suppression{Code: sp.Code, Path: sp.Path, Reason: sp.Reason})
		}
	}
	return out
}

// loadState reads an addon's state in tx. An addon that was never published
// has the zero state (community, not removed, nothing suppressed). An addon
// recorded before wiring digests existed gets them on the way (see
// upgradeWiring), stored in tx.
func loadState(ctx context.Context, tx storage.Tx, name string) (state, error) {
	a, err := tx.Addon(ctx, name)
	if errors.Is(err, registry.ErrNotFound) {
		return state{}, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("load addon %q: %w", name, err)
	}
	sps, err := tx.Suppressions(ctx, name)
	if err != nil {
		return state{}, fmt.Errorf("load suppressions of %q: %w", name, err)
	}
	st := state{addon: a, exists: true, suppressions: sps}
	if err := upgradeWiring(ctx, tx, &st); err != nil {
		return state{}, err
	}
	return st, nil
}

// rendered is a report rendered for one manifest and one registry state.
type rendered struct {
	parsed *addon.Manifest
	bytes  []byte
	sha    string
	report *report.Report
	wiring string // the manifest's wiring digest
}

// stored returns r as it is stored for submission id.
func (r rendered) stored(id string) (registry.Report, []registry.StoredFinding) {
	fs := make([]registry.StoredFinding, len(r.report.Findings))
	for i, f := range r.report.Findings {
		fs[i] = registry.StoredFinding{
			SubmissionID: id,
			Finding:      registry.Finding{Level: f.Level, Code: f.Code, Message: f.Message, Path: f.Path},
			Line:         f.Line,
			Suppressed:   f.Suppressed != nil,
		}
	}
	return registry.Report{SubmissionID: id, Bytes: r.bytes, SHA256: r.sha, Ruleset: r.report.Ruleset}, fs
}

// unsuppressed returns the first counted finding at warn or above.
func (r rendered) unsuppressed() (report.Finding, bool) {
	for _, f := range r.report.Findings {
		if f.Suppressed == nil && f.Level >= registry.LevelWarn {
			return f, true
		}
	}
	return report.Finding{}, false
}

// blocking returns, when r's verdict is fail, a *registry.BlockedError
// naming r's blocking findings that no suppression covers; else nil.
func (r rendered) blocking() *registry.BlockedError {
	if r.report.Verdict != registry.VerdictFail {
		return nil
	}
	e := &registry.BlockedError{}
	for _, f := range r.report.Findings {
		if f.Blocking && f.Suppressed == nil {
			e.Findings = append(e.Findings, registry.StoredFinding{
				Finding: registry.Finding{Level: f.Level, Code: f.Code, Message: f.Message, Path: f.Path},
				Line:    f.Line,
			})
		}
	}
	return e
}

// renderParsed renders the report of an already decoded manifest, with
// the tier of its wiring.
func renderParsed(b []byte, m *addon.Manifest, st state, now time.Time) (rendered, error) {
	wiring := m.WiringSHA256()
	rep, out, err := report.Build(report.Input{
		Manifest:     b,
		Parsed:       m,
		Result:       assess.Audit(m),
		Tier:         st.tierFor(wiring),
		Removed:      st.exists && st.addon.Removed,
		Suppressions: st.active(now),
	})
	if err != nil {
		return rendered{}, fmt.Errorf("build report: %w", err)
	}
	return rendered{parsed: m, bytes: out, sha: report.SHA256(out), report: rep, wiring: wiring}, nil
}

// render decodes and audits a stored manifest and renders its report.
func render(b []byte, f Format, st state, now time.Time) (rendered, error) {
	m, err := parse(b, f)
	if err != nil {
		return rendered{}, err
	}
	return renderParsed(b, m, st, now)
}

// rerender renders sub's report again for st and stores it, with the
// submission's verdict, risk and wiring digest when they changed (a
// submission stored before wiring digests existed gets its own here). It
// returns the new rendering and the submission as stored.
func rerender(ctx context.Context, tx storage.Tx, sub registry.Submission, st state, now time.Time) (rendered, registry.Submission, error) {
	r, err := render(sub.Manifest, Format(sub.Format), st, now)
	if err != nil {
		return rendered{}, sub, fmt.Errorf("render submission %s: %w", sub.ID, err)
	}
	rep, fs := r.stored(sub.ID)
	if err := tx.PutReport(ctx, rep, fs); err != nil {
		return rendered{}, sub, fmt.Errorf("store report of %s: %w", sub.ID, err)
	}
	if sub.Verdict != r.report.Verdict || sub.Risk != r.report.Risk || sub.WiringSHA256 != r.wiring {
		sub.Verdict, sub.Risk, sub.WiringSHA256, sub.UpdatedAt = r.report.Verdict, r.report.Risk, r.wiring, now
		if err := tx.UpdateSubmission(ctx, sub); err != nil {
			return rendered{}, sub, fmt.Errorf("update submission %s: %w", sub.ID, err)
		}
	}
	return r, sub, nil
}

// rerenderAddon re-renders every report of an addon for st and keeps the
// addon's latest verdict in step. It returns the addon as stored.
func rerenderAddon(ctx context.Context, tx storage.Tx, st state, now time.Time) (registry.Addon, error) {
	a := st.addon
	subs, err := tx.SubmissionsOfAddon(ctx, a.Name)
	if err != nil {
		return a, fmt.Errorf("list submissions of %q: %w", a.Name, err)
	}
	latest := ""
	if a.LatestVersion != "" {
		v, err := tx.Version(ctx, a.Name, a.LatestVersion)
		if err != nil {
			return a, fmt.Errorf("load %s@%s: %w", a.Name, a.LatestVersion, err)
		}
		latest = v.SubmissionID
	}
	for _, sub := range subs {
		// Each submission is locked before its report, and the
		// submissions in the order they were made: the order in which a
		// re-assessment claims them (storage.Tx.ClaimStaleReports), so
		// that a re-assessment waiting for this addon's reports and this
		// transaction never wait for each other.
		sub, err := tx.Submission(ctx, sub.ID)
		if err != nil {
			return a, fmt.Errorf("lock submission of %q: %w", a.Name, err)
		}
		r, _, err := rerender(ctx, tx, sub, st, now)
		if err != nil {
			return a, err
		}
		if sub.ID == latest {
			a.LatestVerdict = r.report.Verdict
		}
	}
	return a, nil
}

// audit appends one entry to the audit log.
func (s *Service) audit(ctx context.Context, tx storage.Tx, now time.Time, actor, action, target, reason, detail string) error {
	e := registry.AuditEntry{ID: s.newID("aud"), At: now, Actor: actor, Action: action, Target: target, Reason: reason, Detail: detail}
	if err := tx.AppendAudit(ctx, e); err != nil {
		return fmt.Errorf("append audit entry: %w", err)
	}
	return nil
}

// conflict returns an error matching registry.ErrConflict with a message
// safe to show to the caller.
func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", registry.ErrConflict, fmt.Sprintf(format, args...))
}

// requireRole checks that a is an identified actor with at least role min.
func requireRole(a Actor, min registry.Role) error {
	if a.Name == "" {
		return fmt.Errorf("%w: no actor", registry.ErrUnauthenticated)
	}
	if !a.Role.AtLeast(min) {
		return fmt.Errorf("%w: this needs the %s role", registry.ErrForbidden, min)
	}
	return nil
}

package workflow_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// memStore is a temporary in-memory storage.Store: one lock held for the
// length of a transaction, which works on a copy that replaces the state on
// commit.
type memStore struct {
	mu sync.Mutex
	st *memState
}

type memState struct {
	subs     map[string]registry.Submission
	order    []string
	reports  map[string]registry.Report
	findings map[string][]registry.StoredFinding
	addons   map[string]registry.Addon
	versions map[string]registry.Version // name@version
	sups     map[string]registry.Suppression
	approval map[string]registry.VerifyApproval
	audit    []registry.AuditEntry
	tokens   map[string]registry.Token
}

func newMemStore() *memStore {
	return &memStore{st: &memState{
		subs: map[string]registry.Submission{}, reports: map[string]registry.Report{}, findings: map[string][]registry.StoredFinding{},
		addons: map[string]registry.Addon{}, versions: map[string]registry.Version{}, sups: map[string]registry.Suppression{},
		approval: map[string]registry.VerifyApproval{}, tokens: map[string]registry.Token{},
	}}
}

func (s *memState) clone() *memState {
	return &memState{
		subs: maps.Clone(s.subs), order: slices.Clone(s.order), reports: maps.Clone(s.reports), findings: maps.Clone(s.findings),
		addons: maps.Clone(s.addons), versions: maps.Clone(s.versions), sups: maps.Clone(s.sups),
		approval: maps.Clone(s.approval), audit: slices.Clone(s.audit), tokens: maps.Clone(s.tokens),
	}
}

func notFound(what string) error { return fmt.Errorf("%s: %w", what, registry.ErrNotFound) }

func (m *memStore) read() *memState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

func (m *memStore) InTx(ctx context.Context, fn func(storage.Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx := &memTx{s: m.st.clone()}
	if err := fn(tx); err != nil {
		return err
	}
	m.st = tx.s
	return nil
}
func (m *memStore) Ping(context.Context) error             { return nil }
func (m *memStore) Migrated(context.Context) (bool, error) { return true, nil }
func (m *memStore) StartJobs(context.Context, *river.Workers) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}
func (m *memStore) Close() error { return nil }

func (m *memStore) Submission(_ context.Context, id string) (registry.Submission, error) {
	return (&memTx{s: m.read()}).Submission(context.Background(), id)
}
func (m *memStore) Submissions(_ context.Context, f storage.SubmissionFilter, _ storage.Page) ([]registry.Submission, string, error) {
	st := m.read()
	out := []registry.Submission{}
	for _, id := range st.order {
		s := st.subs[id]
		if (f.Status == "" || s.Status == f.Status) && (f.Addon == "" || s.Addon == f.Addon) {
			out = append(out, s)
		}
	}
	return out, "", nil
}
func (m *memStore) Report(_ context.Context, id string) (registry.Report, error) {
	r, ok := m.read().reports[id]
	if !ok {
		return r, notFound("report")
	}
	return r, nil
}
func (m *memStore) Findings(_ context.Context, id string) ([]registry.StoredFinding, error) {
	return slices.Clone(m.read().findings[id]), nil
}
func (m *memStore) Addon(_ context.Context, name string) (registry.Addon, error) {
	return (&memTx{s: m.read()}).Addon(context.Background(), name)
}
func (m *memStore) Addons(_ context.Context, f storage.AddonFilter, _ storage.Page) ([]registry.Addon, string, error) {
	st := m.read()
	out := []registry.Addon{}
	for _, k := range slices.Sorted(maps.Keys(st.addons)) {
		if a := st.addons[k]; f.IncludeRemoved || !a.Removed {
			out = append(out, a)
		}
	}
	return out, "", nil
}
func (m *memStore) Versions(_ context.Context, addon string, _ storage.Page) ([]registry.Version, string, error) {
	out := []registry.Version{}
	for _, v := range m.read().versions {
		if v.Addon == addon {
			out = append(out, v)
		}
	}
	return out, "", nil
}
func (m *memStore) PublishedReport(_ context.Context, addon, version string) (registry.Report, error) {
	st := m.read()
	if version == "" {
		a, ok := st.addons[addon]
		if !ok {
			return registry.Report{}, notFound("addon")
		}
		version = a.LatestVersion
	}
	v, ok := st.versions[addon+"@"+version]
	if !ok {
		return registry.Report{}, notFound("version")
	}
	return st.reports[v.SubmissionID], nil
}
func (m *memStore) Suppressions(_ context.Context, addon string) ([]registry.Suppression, error) {
	return (&memTx{s: m.read()}).Suppressions(context.Background(), addon)
}
func (m *memStore) VerifyApproval(_ context.Context, addon string) (registry.VerifyApproval, error) {
	return (&memTx{s: m.read()}).VerifyApproval(context.Background(), addon)
}
func (m *memStore) AuditLog(context.Context, storage.Page) ([]registry.AuditEntry, string, error) {
	out := slices.Clone(m.read().audit)
	slices.Reverse(out)
	return out, "", nil
}
func (m *memStore) TokenByHash(_ context.Context, hash []byte) (registry.Token, error) {
	for _, t := range m.read().tokens {
		if bytes.Equal(t.Hash, hash) {
			return t, nil
		}
	}
	return registry.Token{}, notFound("token")
}
func (m *memStore) Tokens(context.Context) ([]registry.Token, error) {
	st := m.read()
	out := []registry.Token{}
	for _, k := range slices.Sorted(maps.Keys(st.tokens)) {
		out = append(out, st.tokens[k])
	}
	return out, nil
}
func (m *memStore) Delivery(context.Context, string) (registry.Delivery, error) {
	return registry.Delivery{}, notFound("delivery")
}
func (m *memStore) Deliveries(context.Context, storage.Page) ([]registry.Delivery, string, error) {
	return []registry.Delivery{}, "", nil
}

type memTx struct{ s *memState }

func (t *memTx) Submission(_ context.Context, id string) (registry.Submission, error) {
	s, ok := t.s.subs[id]
	if !ok {
		return s, notFound("submission")
	}
	return s, nil
}
func (t *memTx) SubmissionsOfAddon(_ context.Context, addon string) ([]registry.Submission, error) {
	var out []registry.Submission
	for _, id := range t.s.order {
		if s := t.s.subs[id]; s.Addon == addon {
			out = append(out, s)
		}
	}
	return out, nil
}
func (t *memTx) Addon(_ context.Context, name string) (registry.Addon, error) {
	a, ok := t.s.addons[name]
	if !ok {
		return a, notFound("addon")
	}
	return a, nil
}
func (t *memTx) Version(_ context.Context, addon, version string) (registry.Version, error) {
	v, ok := t.s.versions[addon+"@"+version]
	if !ok {
		return v, notFound("version")
	}
	return v, nil
}
func (t *memTx) Suppressions(_ context.Context, addon string) ([]registry.Suppression, error) {
	out := []registry.Suppression{}
	for _, k := range slices.Sorted(maps.Keys(t.s.sups)) {
		if sp := t.s.sups[k]; sp.Addon == addon {
			out = append(out, sp)
		}
	}
	return out, nil
}
func (t *memTx) VerifyApproval(_ context.Context, addon string) (registry.VerifyApproval, error) {
	a, ok := t.s.approval[addon]
	if !ok {
		return a, notFound("approval")
	}
	return a, nil
}
func (t *memTx) StaleReports(_ context.Context, ruleset string, limit int) ([]string, error) {
	var out []string
	for _, id := range t.s.order {
		if r, ok := t.s.reports[id]; ok && r.Ruleset != ruleset && len(out) < limit {
			out = append(out, id)
		}
	}
	return out, nil
}
func (t *memTx) CreateSubmission(_ context.Context, s registry.Submission) error {
	if _, ok := t.s.subs[s.ID]; ok {
		return registry.ErrConflict
	}
	t.s.subs[s.ID] = s
	t.s.order = append(t.s.order, s.ID)
	return nil
}
func (t *memTx) UpdateSubmission(_ context.Context, s registry.Submission) error {
	if _, ok := t.s.subs[s.ID]; !ok {
		return notFound("submission")
	}
	t.s.subs[s.ID] = s
	return nil
}
func (t *memTx) PutReport(_ context.Context, r registry.Report, fs []registry.StoredFinding) error {
	t.s.reports[r.SubmissionID] = r
	t.s.findings[r.SubmissionID] = fs
	return nil
}
func (t *memTx) PutAddon(_ context.Context, a registry.Addon) error {
	t.s.addons[a.Name] = a
	return nil
}
func (t *memTx) CreateVersion(_ context.Context, v registry.Version) error {
	k := v.Addon + "@" + v.Version
	if _, ok := t.s.versions[k]; ok {
		return registry.ErrConflict
	}
	t.s.versions[k] = v
	return nil
}
func (t *memTx) PutVerifyApproval(_ context.Context, a registry.VerifyApproval) error {
	t.s.approval[a.Addon] = a
	return nil
}
func (t *memTx) DeleteVerifyApproval(_ context.Context, addon string) error {
	delete(t.s.approval, addon)
	return nil
}
func (t *memTx) CreateSuppression(_ context.Context, s registry.Suppression) error {
	for _, o := range t.s.sups {
		if o.Addon == s.Addon && o.Code == s.Code && o.Path == s.Path {
			return registry.ErrConflict
		}
	}
	t.s.sups[s.ID] = s
	return nil
}
func (t *memTx) DeleteSuppression(_ context.Context, addon, id string) (registry.Suppression, error) {
	s, ok := t.s.sups[id]
	if !ok || s.Addon != addon {
		return s, notFound("suppression")
	}
	delete(t.s.sups, id)
	return s, nil
}
func (t *memTx) AppendAudit(_ context.Context, e registry.AuditEntry) error {
	t.s.audit = append(t.s.audit, e)
	return nil
}
func (t *memTx) CreateToken(_ context.Context, tok registry.Token) error {
	t.s.tokens[tok.ID] = tok
	return nil
}
func (t *memTx) RevokeToken(_ context.Context, id string, at time.Time) error {
	tok, ok := t.s.tokens[id]
	if !ok {
		return notFound("token")
	}
	tok.RevokedAt = &at
	t.s.tokens[id] = tok
	return nil
}
func (t *memTx) CreateDelivery(context.Context, registry.Delivery) (bool, error) { return true, nil }
func (t *memTx) UpdateDelivery(context.Context, registry.Delivery) error         { return nil }
func (t *memTx) InsertJob(context.Context, river.JobArgs, *river.InsertOpts) error {
	return nil
}

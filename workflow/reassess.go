package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// Reassess renders again, in one transaction, the first batch of stale
// reports: those made by a ruleset other than assess.Ruleset, or marked by
// MarkAllStale, in the order their submissions were made. It returns how
// many it rendered. See ReassessAll, which walks every stale report.
func (s *Service) Reassess(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("reassess: batch must be positive, got %d", batch)
	}
	res, err := s.reassessBatch(ctx, storage.Cursor{}, batch, false)
	return res.rendered, err
}

// ReassessAll renders again every stale report (see Reassess), batch
// reports per transaction, with each addon's current state, and returns how
// many it rendered. progress, when non-nil, is told how many reports each
// batch rendered once that batch has committed. It stops early with ctx's
// error when ctx is done.
//
// Each batch is claimed, read in a few queries, rendered (the audit is
// pure) and written in a few statements, then committed on its own, so
// reads keep working and a crash loses at most one batch of work, which
// the next run redoes. It is safe to run on several replicas at once, and
// they share the work: passes claim only reports no other transaction
// holds, without waiting (storage.Tx.ClaimStaleReports), so each report is
// rendered once. Other transactions may hold a stale report without
// rendering it (a replica signing envelopes, a decision on another
// version of its addon) or roll back, so a pass can leave stale reports
// behind its cursor: passes repeat while they render something, and then
// one more pass waits for each stale report still held, until its holder
// ends, and renders those left stale. A report whose addon another
// transaction holds (a maintainer's decision in progress) is left for a
// further pass.
//
// A report made by a later ruleset (a newer server of a rolling deploy) is
// left alone. A stored manifest that no longer decodes under the current
// rules is logged, left with its old report and skipped for the life of
// the Service.
func (s *Service) ReassessAll(ctx context.Context, batch int, progress func(n int)) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("reassess: batch must be positive, got %d", batch)
	}
	total := 0
	wait := false // whether this pass waits for the reports others hold
	for {
		var after storage.Cursor
		rendered, busy := 0, 0
		for {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			res, err := s.reassessBatch(ctx, after, batch, wait)
			total += res.rendered
			rendered += res.rendered
			busy += res.busy
			if progress != nil && res.rendered > 0 {
				progress(res.rendered)
			}
			if err != nil {
				return total, err
			}
			if res.claimed < batch {
				break
			}
			after = res.next
		}
		switch {
		case busy > 0:
			// Decisions hold some addons: give them a moment, then pass
			// again without waiting, as at the start.
			wait = false
			select {
			case <-ctx.Done():
				return total, ctx.Err()
			case <-time.After(busyPause):
			}
		case wait:
			// A waiting pass went over every stale report: none is left
			// that this Service can render.
			return total, nil
		case rendered == 0:
			wait = true
		}
	}
}

// busyPause is how long ReassessAll waits before another pass when a pass
// left reports because another transaction held their addon.
const busyPause = 50 * time.Millisecond

// MarkAllStale marks every stored report stale, so that the next
// ReassessAll (on any replica) renders it again whatever ruleset made it,
// and returns how many it marked. Marking changes no report's bytes.
func (s *Service) MarkAllStale(ctx context.Context) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		var err error
		n, err = tx.MarkReportsStale(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("mark reports stale: %w", err)
	}
	return n, nil
}

// StaleCount returns how many stored reports are stale: an upper bound of
// what ReassessAll will render (reports of a later ruleset and manifests
// that no longer decode are counted but not rendered).
func (s *Service) StaleCount(ctx context.Context) (int, error) {
	n, err := s.store.CountStaleReports(ctx, assess.Ruleset)
	if err != nil {
		return 0, fmt.Errorf("count stale reports: %w", err)
	}
	return n, nil
}

// batchResult is what one reassessment transaction did.
type batchResult struct {
	claimed  int // stale reports claimed; fewer than asked when none follow
	rendered int
	busy     int // reports left because another transaction held their addon
	next     storage.Cursor
}

// reassessBatch claims up to batch stale reports after the cursor after,
// renders them and stores them, in one transaction: a handful of queries
// and statements whatever the batch's size.
func (s *Service) reassessBatch(ctx context.Context, after storage.Cursor, batch int, wait bool) (batchResult, error) {
	now := s.clock()
	var (
		res    batchResult
		failed map[string]error
	)
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		res, failed = batchResult{}, map[string]error{}
		b, err := tx.ClaimStaleReports(ctx, assess.Ruleset, after, batch, wait)
		if err != nil {
			return fmt.Errorf("claim stale reports: %w", err)
		}
		res.claimed, res.next = len(b.Reports), b.Next
		var (
			states   = map[string]state{}
			reports  = make([]storage.ReportWrite, 0, len(b.Reports))
			verdicts []storage.VerdictWrite
			latest   = map[string]registry.Verdict{} // addons whose latest verdict moved
		)
		for _, sr := range b.Reports {
			sub := sr.Submission
			// During a rolling deploy an older server must not undo what a
			// newer one rendered.
			if laterRuleset(sr.Ruleset, assess.Ruleset) || s.isUnrenderable(sub.ID) {
				continue
			}
			if b.Busy[sub.Addon] {
				res.busy++
				continue
			}
			st, ok := states[sub.Addon]
			if !ok {
				if a, exists := b.Addons[sub.Addon]; exists {
					st = state{addon: a, exists: true, suppressions: b.Suppressions[sub.Addon]}
					if err := upgradeWiring(ctx, tx, &st); err != nil {
						return err
					}
				}
				states[sub.Addon] = st
			}
			r, err := render(sub.Manifest, Format(sub.Format), st, now)
			if errors.Is(err, registry.ErrInvalid) {
				failed[sub.ID] = err
				continue
			}
			if err != nil {
				return fmt.Errorf("render submission %s: %w", sub.ID, err)
			}
			rep, fs := r.stored(sub.ID)
			reports = append(reports, storage.ReportWrite{Report: rep, Findings: fs})
			if sub.Verdict != r.report.Verdict || sub.Risk != r.report.Risk || sub.WiringSHA256 != r.wiring {
				verdicts = append(verdicts, storage.VerdictWrite{ID: sub.ID, Verdict: r.report.Verdict, Risk: r.report.Risk, Wiring: r.wiring})
			}
			if st.exists && st.addon.LatestVersion == sub.Version && sub.Status == registry.StatusApproved &&
				st.addon.LatestVerdict != r.report.Verdict {
				latest[sub.Addon] = r.report.Verdict
			}
		}
		if err := tx.PutReports(ctx, reports); err != nil {
			return fmt.Errorf("store reports: %w", err)
		}
		if err := tx.SetVerdicts(ctx, now, verdicts); err != nil {
			return fmt.Errorf("store verdicts: %w", err)
		}
		if err := tx.SetLatestVerdicts(ctx, latest); err != nil {
			return fmt.Errorf("store latest verdicts: %w", err)
		}
		res.rendered = len(reports)
		return nil
	})
	if err != nil {
		return batchResult{}, fmt.Errorf("reassess: %w", err)
	}
	if len(failed) > 0 {
		s.mu.Lock()
		for id, ferr := range failed {
			s.unrenderable[id] = true
			s.log.Error("stored manifest no longer decodes; its report keeps the old ruleset", "submission", id, "err", ferr)
		}
		s.mu.Unlock()
	}
	return res, nil
}

// laterRuleset reports whether ruleset a is a later version than b. Ruleset
// versions are dotted numbers (2026.11.0); one that is not is never later.
func laterRuleset(a, b string) bool {
	va, errA := addon.ParseSemVer(a)
	vb, errB := addon.ParseSemVer(b)
	return errA == nil && errB == nil && va.Compare(vb) > 0
}

func (s *Service) isUnrenderable(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unrenderable[id]
}

// ExpireSuppressions finds the suppressions whose expiry has passed, deletes
// them and renders the reports of their addons again, one addon per
// transaction, each step audit-logged under SystemActor. It returns the
// number of suppressions it expired. Until it runs, an expired suppression
// no longer applies to newly rendered reports but stored reports still show
// it, so the server calls it periodically (see cmd/registryd serve). It is
// safe to run on several replicas at once: a suppression expired by another
// one is skipped.
func (s *Service) ExpireSuppressions(ctx context.Context) (int, error) {
	now := s.clock()
	names, err := s.store.AddonsWithExpiredSuppressions(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("expire suppressions: %w", err)
	}
	total := 0
	for _, name := range names {
		n, err := s.expireIn(ctx, name, now)
		if err != nil {
			return total, fmt.Errorf("expire suppressions of %q: %w", name, err)
		}
		total += n
	}
	return total, nil
}

func (s *Service) expireIn(ctx context.Context, name string, now time.Time) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		n = 0
		st, err := loadState(ctx, tx, name)
		if err != nil || !st.exists {
			return err
		}
		var kept []registry.Suppression
		for _, sp := range st.suppressions {
			if sp.Active(now) {
				kept = append(kept, sp)
				continue
			}
			_, err := tx.DeleteSuppression(ctx, name, sp.ID)
			if errors.Is(err, registry.ErrNotFound) {
				continue // another replica expired it first
			}
			if err != nil {
				return fmt.Errorf("delete suppression %s: %w", sp.ID, err)
			}
			if err := s.audit(ctx, tx, now, SystemActor, "suppression.expire", "addon/"+name, "", suppressionDetail(sp)); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return nil
		}
		st.suppressions = kept
		_, err = s.storeAddon(ctx, tx, st, now)
		return err
	})
	return n, err
}

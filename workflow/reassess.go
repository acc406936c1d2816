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

// Reassess renders again, in one transaction, up to batch stored reports
// whose ruleset is not assess.Ruleset, with their addons' current state, and
// returns how many it rendered. A report made by a later ruleset (a newer
// server of a rolling deploy) is left alone. Call it in a loop until it returns 0 (see
// ReassessAll): each batch commits on its own, so reads keep working and a
// crash loses at most one batch of work, which the next run redoes.
//
// A stored manifest that no longer decodes under the current rules is
// logged, left with its old report and skipped for the life of the Service.
// Reassess is safe to run on several replicas at once: both render the
// same bytes.
func (s *Service) Reassess(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("reassess: batch must be positive, got %d", batch)
	}
	now := s.clock()
	var (
		done   int
		failed map[string]error
	)
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		done, failed = 0, map[string]error{}
		s.mu.Lock()
		skip := len(s.unrenderable)
		s.mu.Unlock()
		ids, err := tx.StaleReports(ctx, assess.Ruleset, batch+skip)
		if err != nil {
			return fmt.Errorf("list stale reports: %w", err)
		}
		states := map[string]state{}
		latest := map[string]registry.Addon{} // addons whose latest verdict may move
		for _, id := range ids {
			if done == batch {
				break
			}
			if s.isUnrenderable(id) {
				continue
			}
			// During a rolling deploy an older server must not undo what a
			// newer one rendered.
			if cur, err := s.store.Report(ctx, id); err == nil && laterRuleset(cur.Ruleset, assess.Ruleset) {
				continue
			}
			sub, err := tx.Submission(ctx, id)
			if err != nil {
				return fmt.Errorf("load submission %s: %w", id, err)
			}
			st, ok := states[sub.Addon]
			if !ok {
				if st, err = loadState(ctx, tx, sub.Addon); err != nil {
					return err
				}
				states[sub.Addon] = st
			}
			r, _, err := rerender(ctx, tx, sub, st, now)
			if errors.Is(err, registry.ErrInvalid) {
				failed[id] = err
				continue
			}
			if err != nil {
				return err
			}
			done++
			if st.exists && st.addon.LatestVersion == sub.Version && sub.Status == registry.StatusApproved {
				a := latest[sub.Addon]
				if a.Name == "" {
					a = st.addon
				}
				a.LatestVerdict = r.report.Verdict
				latest[sub.Addon] = a
			}
		}
		for _, a := range latest {
			if err := tx.PutAddon(ctx, a); err != nil {
				return fmt.Errorf("store addon %q: %w", a.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reassess: %w", err)
	}
	if len(failed) > 0 {
		s.mu.Lock()
		for id, ferr := range failed {
			s.unrenderable[id] = true
			s.log.Error("stored manifest no longer decodes; its report keeps the old ruleset", "submission", id, "err", ferr)
		}
		s.mu.Unlock()
	}
	return done, nil
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

// ReassessAll calls Reassess with batch until a call renders nothing, and
// returns the total. It stops early with ctx's error when ctx is done.
// progress, when non-nil, is told how many reports each batch rendered,
// once that batch has committed.
func (s *Service) ReassessAll(ctx context.Context, batch int, progress func(n int)) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := s.Reassess(ctx, batch)
		total += n
		if progress != nil && n > 0 {
			progress(n)
		}
		if err != nil || n == 0 {
			return total, err
		}
	}
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
	var names []string
	page := storage.Page{Limit: storage.MaxLimit}
	for {
		addons, next, err := s.store.Addons(ctx, storage.AddonFilter{IncludeRemoved: true}, page)
		if err != nil {
			return 0, fmt.Errorf("expire suppressions: list addons: %w", err)
		}
		for _, a := range addons {
			sps, err := s.store.Suppressions(ctx, a.Name)
			if err != nil {
				return 0, fmt.Errorf("expire suppressions: list suppressions of %q: %w", a.Name, err)
			}
			for _, sp := range sps {
				if !sp.Active(now) {
					names = append(names, a.Name)
					break
				}
			}
		}
		if next == "" {
			break
		}
		page.Cursor = next
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

package workflow

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/storage"
)

// BackfillSearch gives the addons stored before migration 00009 the
// keywords and categories of their latest published manifest, which that
// SQL migration could not read, so that the search finds them by keyword
// before their next version. Migration 00016 lists the addons that may
// lack them; each transaction claims batch of those names, reads each
// addon's latest manifest, writes its keywords and categories (and with
// them its search text) where it has none, and takes the names off the
// list. It returns how many addons it changed.
//
// Running it again is harmless: once the list is empty it reads one empty
// batch. Replicas running it at once share the list (ClaimSearchBackfill
// skips the names another transaction holds). A manifest that no longer
// parses under the current rules leaves its addon as it was, and is
// logged.
func (s *Service) BackfillSearch(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("backfill search: batch must be positive, got %d", batch)
	}
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		var claimed, changed int
		err := s.store.InTx(ctx, func(tx storage.Tx) error {
			claimed, changed = 0, 0
			b, err := tx.ClaimSearchBackfill(ctx, batch)
			if err != nil {
				return err
			}
			claimed = len(b.Names)
			for _, x := range b.Addons {
				a := x.Addon
				if len(a.Keywords) > 0 || len(a.Categories) > 0 || len(x.Manifest) == 0 {
					continue
				}
				m, err := parse(x.Manifest, Format(x.Format))
				if err != nil {
					s.log.Warn("search backfill: the latest manifest no longer parses; the addon keeps no keywords",
						"addon", a.Name, "version", a.LatestVersion, "err", err)
					continue
				}
				if len(m.Addon.Keywords) == 0 && len(m.Addon.Categories) == 0 {
					continue
				}
				a.Keywords, a.Categories = m.Addon.Keywords, m.Addon.Categories
				if err := tx.PutAddon(ctx, a); err != nil {
					return fmt.Errorf("store addon %q: %w", a.Name, err)
				}
				changed++
			}
			return tx.DoneSearchBackfill(ctx, b.Names)
		})
		if err != nil {
			return total, fmt.Errorf("backfill search: %w", err)
		}
		total += changed
		if claimed < batch {
			return total, nil
		}
	}
}

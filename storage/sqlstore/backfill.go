package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/storage"
)

// ClaimSearchBackfill claims up to limit names of addon_search_backfill
// (migration 00016) in name order, skipping on PostgreSQL those another
// transaction holds, and reads their addons, locked, each with the manifest
// and format of its latest published version.
func (t *tx) ClaimSearchBackfill(ctx context.Context, limit int) (storage.SearchBackfill, error) {
	b := storage.SearchBackfill{Names: []string{}, Addons: []storage.BackfillAddon{}}
	if limit <= 0 {
		return b, nil
	}
	var err error
	b.Names, err = list(t.reader, ctx, "claim the search backfill", func(row Row) (string, error) {
		var n string
		return n, row.Scan(&n)
	}, `SELECT name FROM addon_search_backfill ORDER BY name LIMIT $1`+t.d.Claim("", false), limit)
	if err != nil || len(b.Names) == 0 {
		return b, err
	}
	latest := func(col string) string {
		return `(SELECT s.` + col + ` FROM versions v JOIN submissions s ON s.id = v.submission_id
			WHERE v.addon = addons.name AND v.version = addons.latest_version)`
	}
	b.Addons, err = list(t.reader, ctx, "read the addons of the search backfill", func(row Row) (storage.BackfillAddon, error) {
		var x storage.BackfillAddon
		var format *string
		dst, finish := t.addonFields(&x.Addon)
		if err := row.Scan(append(dst, &x.Manifest, &format)...); err != nil {
			return x, err
		}
		finish()
		if format != nil {
			x.Format = *format
		}
		return x, nil
	}, `SELECT `+addonCols+`, `+latest("manifest")+`, `+latest("format")+` FROM addons WHERE `+
		t.d.AnyOf("name", "$1")+` ORDER BY name`+t.d.ForUpdate(), t.d.List(b.Names))
	return b, err
}

// DoneSearchBackfill deletes names from addon_search_backfill.
func (t *tx) DoneSearchBackfill(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	if _, err := t.c.Exec(ctx, `DELETE FROM addon_search_backfill WHERE `+t.d.AnyOf("name", "$1"), t.d.List(names)); err != nil {
		return t.err(fmt.Sprintf("finish the search backfill of %d addons", len(names)), err)
	}
	return nil
}

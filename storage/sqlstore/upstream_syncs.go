package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// UpstreamSync returns the high-water mark of the upstream registry at url,
// or an error wrapping registry.ErrNotFound before its first import.
func (r reader) UpstreamSync(ctx context.Context, url string) (registry.UpstreamSync, error) {
	var s registry.UpstreamSync
	err := r.c.QueryRow(ctx, `SELECT url, high_water, updated_at FROM upstream_syncs WHERE url = $1`, url).
		Scan(&s.URL, r.d.ScanTime(&s.HighWater), r.d.ScanTime(&s.UpdatedAt))
	if err != nil {
		return s, r.err(fmt.Sprintf("sync state of %q", url), err)
	}
	return s, nil
}

// PutUpstreamSync inserts or replaces the high-water mark of s.URL.
func (t *tx) PutUpstreamSync(ctx context.Context, s registry.UpstreamSync) error {
	_, err := t.c.Exec(ctx, `INSERT INTO upstream_syncs (url, high_water, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (url) DO UPDATE SET high_water = excluded.high_water, updated_at = excluded.updated_at`,
		s.URL, t.d.Time(s.HighWater), t.d.Time(s.UpdatedAt))
	if err != nil {
		return t.err(fmt.Sprintf("put sync state of %q", s.URL), err)
	}
	return nil
}

package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/registryd/registryd/registry"
)

const suppressionCols = `id, addon, code, path, reason, note, author, expires_at, created_at`

func (r reader) scanSuppression(row Row) (registry.Suppression, error) {
	var s registry.Suppression
	var reason string
	err := row.Scan(&s.ID, &s.Addon, &s.Code, &s.Path, &reason, &s.Note, &s.Author,
		r.d.ScanNullTime(&s.ExpiresAt), r.d.ScanTime(&s.CreatedAt))
	s.Reason = registry.SuppressionReason(reason)
	return s, err
}

// Suppressions returns every suppression of addon, expired ones included,
// ordered by code, path and ID.
func (r reader) Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error) {
	return list(r, ctx, fmt.Sprintf("suppressions of %q", addon), r.scanSuppression,
		`SELECT `+suppressionCols+` FROM suppressions WHERE addon = $1 ORDER BY code, path, id`, addon)
}

// AddonsWithExpiredSuppressions returns the addons, in name order, with a
// suppression that has expired by now.
func (r reader) AddonsWithExpiredSuppressions(ctx context.Context, now time.Time) ([]string, error) {
	return list(r, ctx, "addons with expired suppressions", func(row Row) (string, error) {
		var name string
		return name, row.Scan(&name)
	}, `SELECT addon FROM suppressions WHERE expires_at IS NOT NULL AND expires_at <= $1 GROUP BY addon ORDER BY `+r.d.Bytewise("addon"), r.d.Time(now))
}

// CreateSuppression inserts s; registry.ErrConflict when the addon has one
// for the same code and path, or the ID exists.
func (t *tx) CreateSuppression(ctx context.Context, s registry.Suppression) error {
	_, err := t.c.Exec(ctx, `INSERT INTO suppressions (`+suppressionCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		s.ID, s.Addon, s.Code, s.Path, string(s.Reason), s.Note, s.Author, nullTime(t.d, s.ExpiresAt), t.d.Time(s.CreatedAt))
	if err != nil {
		return t.err(fmt.Sprintf("create suppression of %q", s.Addon), err)
	}
	return nil
}

// DeleteSuppression removes the suppression id of addon and returns it;
// registry.ErrNotFound if the addon has no such suppression.
func (t *tx) DeleteSuppression(ctx context.Context, addon, id string) (registry.Suppression, error) {
	s, err := t.scanSuppression(t.c.QueryRow(ctx, `DELETE FROM suppressions WHERE addon = $1 AND id = $2
		RETURNING `+suppressionCols, addon, id))
	if err != nil {
		return s, t.err(fmt.Sprintf("delete suppression %q of %q", id, addon), err)
	}
	return s, nil
}

package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// VerifyApproval returns the pending verify approval of addon, or an error
// wrapping registry.ErrNotFound. Inside a transaction it locks the row
// until commit.
func (r reader) VerifyApproval(ctx context.Context, addon string) (registry.VerifyApproval, error) {
	var v registry.VerifyApproval
	err := r.c.QueryRow(ctx, `SELECT addon, maintainer, reason, at, wiring_sha256, principal FROM verify_approvals WHERE addon = $1`+r.lock,
		addon).Scan(&v.Addon, &v.Maintainer, &v.Reason, r.d.ScanTime(&v.At), &v.WiringSHA256, &v.Principal)
	if err != nil {
		return v, r.err(fmt.Sprintf("verify approval of %q", addon), err)
	}
	return v, nil
}

// PutVerifyApproval records or replaces the pending approval of a.Addon.
func (t *tx) PutVerifyApproval(ctx context.Context, a registry.VerifyApproval) error {
	_, err := t.c.Exec(ctx, `INSERT INTO verify_approvals (addon, maintainer, reason, at, wiring_sha256, principal)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (addon) DO UPDATE SET maintainer = excluded.maintainer, reason = excluded.reason, at = excluded.at,
			wiring_sha256 = excluded.wiring_sha256, principal = excluded.principal`,
		a.Addon, a.Maintainer, a.Reason, t.d.Time(a.At), a.WiringSHA256, a.Principal)
	if err != nil {
		return t.err(fmt.Sprintf("put verify approval of %q", a.Addon), err)
	}
	return nil
}

// DeleteVerifyApproval removes the pending approval of addon; removing none
// is not an error.
func (t *tx) DeleteVerifyApproval(ctx context.Context, addon string) error {
	if _, err := t.c.Exec(ctx, `DELETE FROM verify_approvals WHERE addon = $1`, addon); err != nil {
		return t.err(fmt.Sprintf("delete verify approval of %q", addon), err)
	}
	return nil
}

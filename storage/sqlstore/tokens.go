package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/registryd/registryd/registry"
)

// tokenSelect reads tokens with their principal's ID and name. The join is
// an outer one because SQLite's api_tokens.principal_id is no foreign key
// (migration 00005 could not add one); CreateToken checks the principal
// instead, on both databases.
const tokenSelect = `SELECT t.id, t.name, t.role, t.hash, t.created_at, t.revoked_at, t.expires_at, t.principal_id, COALESCE(p.name, '')
	FROM api_tokens t LEFT JOIN principals p ON p.id = t.principal_id`

const qTokenByHash = tokenSelect + ` WHERE t.hash = $1`

func (r reader) scanToken(row Row) (registry.Token, error) {
	var t registry.Token
	var role string
	err := row.Scan(&t.ID, &t.Name, &role, &t.Hash, r.d.ScanTime(&t.CreatedAt), r.d.ScanNullTime(&t.RevokedAt),
		r.d.ScanNullTime(&t.ExpiresAt), &t.Principal.ID, &t.Principal.Name)
	t.Role = registry.Role(role)
	return t, err
}

// TokenByHash returns the token whose secret hashes to hash, revoked,
// expired or not, or an error wrapping registry.ErrNotFound.
func (r reader) TokenByHash(ctx context.Context, hash []byte) (registry.Token, error) {
	t, err := r.scanToken(r.c.QueryRow(ctx, qTokenByHash, nonNilBytes(hash)))
	if err != nil {
		return t, r.err("token by hash", err)
	}
	return t, nil
}

// Tokens returns every token, oldest first.
func (r reader) Tokens(ctx context.Context) ([]registry.Token, error) {
	return list(r, ctx, "list tokens", r.scanToken, tokenSelect+` ORDER BY t.created_at, t.id`)
}

// CreateToken inserts k; registry.ErrConflict when its ID or hash exists,
// registry.ErrNotFound when its principal does not, registry.ErrInvalid
// when it has no ID or no principal.
func (t *tx) CreateToken(ctx context.Context, k registry.Token) error {
	if k.ID == "" {
		return fmt.Errorf("create token: %w", invalid("id", "is empty"))
	}
	if k.Principal.ID == "" {
		return fmt.Errorf("create token: %w", invalid("principal", "is empty"))
	}
	// PostgreSQL's foreign key would refuse a missing principal; SQLite's
	// schema has none to (migration 00005), so the rule is checked here.
	var one int
	if err := t.c.QueryRow(ctx, `SELECT 1 FROM principals WHERE id = $1`, k.Principal.ID).Scan(&one); err != nil {
		return t.err(fmt.Sprintf("create token %q: principal %q", k.ID, k.Principal.ID), err)
	}
	_, err := t.c.Exec(ctx, `INSERT INTO api_tokens (id, name, role, hash, created_at, revoked_at, expires_at, principal_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.ID, k.Name, string(k.Role), nonNilBytes(k.Hash), t.d.Time(k.CreatedAt), nullTime(t.d, k.RevokedAt), nullTime(t.d, k.ExpiresAt), k.Principal.ID)
	if err != nil {
		return t.err(fmt.Sprintf("create token %q", k.ID), err)
	}
	return nil
}

// RevokeToken marks the token revoked at at, keeping the first instant when
// already revoked; registry.ErrNotFound if absent.
func (t *tx) RevokeToken(ctx context.Context, id string, at time.Time) error {
	n, err := t.c.Exec(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, t.d.Time(at))
	if err != nil {
		return t.err(fmt.Sprintf("revoke token %q", id), err)
	}
	if n == 0 {
		return fmt.Errorf("revoke token %q: %w", id, registry.ErrNotFound)
	}
	return nil
}

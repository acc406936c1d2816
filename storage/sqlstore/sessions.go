package sqlstore

import (
	"context"
	"time"

	"github.com/registryd/registryd/registry"
)

// CreateSession stores se and drops the sessions that expired before it
// began, in one transaction; registry.ErrNotFound when its token does not
// exist.
func (s *Store) CreateSession(ctx context.Context, se registry.Session) error {
	return s.inTx(ctx, func(t *tx) error {
		if _, err := t.c.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, t.d.Time(se.CreatedAt)); err != nil {
			return t.err("drop expired sessions", err)
		}
		_, err := t.c.Exec(ctx,
			`INSERT INTO sessions (hash, token_id, name, role, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			nonNilBytes(se.Hash), se.TokenID, se.Name, string(se.Role), t.d.Time(se.CreatedAt), t.d.Time(se.ExpiresAt))
		if err != nil {
			return t.err("create session", err)
		}
		return nil
	})
}

// Session returns the live session with hash at now: not expired, and
// opened with a token that is neither revoked nor expired, with the token's
// principal.
// Otherwise the error wraps registry.ErrNotFound.
func (s *Store) Session(ctx context.Context, hash []byte, now time.Time) (registry.Session, error) {
	var se registry.Session
	var role string
	err := s.c.QueryRow(ctx, `
		SELECT s.hash, s.token_id, COALESCE(p.name, s.name), t.principal_id, s.role, s.created_at, s.expires_at
		FROM sessions s JOIN api_tokens t ON t.id = s.token_id LEFT JOIN principals p ON p.id = t.principal_id
		WHERE s.hash = $1 AND s.expires_at > $2 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`,
		nonNilBytes(hash), s.d.Time(now)).Scan(&se.Hash, &se.TokenID, &se.Name, &se.Principal, &role, s.d.ScanTime(&se.CreatedAt), s.d.ScanTime(&se.ExpiresAt))
	if err != nil {
		return registry.Session{}, s.err("session", err)
	}
	se.Role = registry.Role(role)
	return se, nil
}

// DeleteSession ends a session; ending one that does not exist is not an
// error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	return s.inTx(ctx, func(t *tx) error {
		if _, err := t.c.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, nonNilBytes(hash)); err != nil {
			return t.err("delete session", err)
		}
		return nil
	})
}

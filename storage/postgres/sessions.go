package postgres

import (
	"context"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

var _ storage.Sessions = (*Store)(nil)

// CreateSession stores s and drops sessions that expired before it began.
func (s *Store) CreateSession(ctx context.Context, se registry.Session) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, se.CreatedAt.UTC()); err != nil {
		return dbErr("drop expired sessions", err)
	}
	_, err := s.pool.Exec(ctx,
		`INSERT INTO sessions (hash, token_id, name, role, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		se.Hash, se.TokenID, se.Name, string(se.Role), se.CreatedAt.UTC(), se.ExpiresAt.UTC())
	if err != nil {
		return dbErr("create session", err)
	}
	return nil
}

// Session returns the live session with hash at now: not expired, and
// opened with a token that is not revoked, with the token's principal.
// Otherwise the error wraps registry.ErrNotFound.
func (s *Store) Session(ctx context.Context, hash []byte, now time.Time) (registry.Session, error) {
	var se registry.Session
	var role string
	err := s.pool.QueryRow(ctx, `
		SELECT s.hash, s.token_id, p.name, p.id, s.role, s.created_at, s.expires_at
		FROM sessions s JOIN api_tokens t ON t.id = s.token_id JOIN principals p ON p.id = t.principal_id
		WHERE s.hash = $1 AND s.expires_at > $2 AND t.revoked_at IS NULL`,
		hash, now.UTC()).Scan(&se.Hash, &se.TokenID, &se.Name, &se.Principal, &role, &se.CreatedAt, &se.ExpiresAt)
	if err != nil {
		return registry.Session{}, dbErr("session", err)
	}
	se.Role = registry.Role(role)
	se.CreatedAt, se.ExpiresAt = se.CreatedAt.UTC(), se.ExpiresAt.UTC()
	return se, nil
}

// DeleteSession ends a session; ending one that does not exist is not an
// error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hash); err != nil {
		return dbErr("delete session", err)
	}
	return nil
}

package sqlite

import (
	"context"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

var _ storage.Sessions = (*Store)(nil)

// CreateSession stores s and drops sessions that expired before it began.
func (s *Store) CreateSession(ctx context.Context, se registry.Session) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?1`, micros(se.CreatedAt)); err != nil {
		return dbErr("drop expired sessions", err)
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO sessions (hash, token_id, name, role, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
		nonNilBytes(se.Hash), se.TokenID, se.Name, string(se.Role), micros(se.CreatedAt), micros(se.ExpiresAt))
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
	var created, expires int64
	err := s.read.QueryRowContext(ctx, `
		SELECT s.hash, s.token_id, COALESCE(p.name, s.name), t.principal_id, s.role, s.created_at, s.expires_at
		FROM sessions s JOIN api_tokens t ON t.id = s.token_id LEFT JOIN principals p ON p.id = t.principal_id
		WHERE s.hash = ?1 AND s.expires_at > ?2 AND t.revoked_at IS NULL`,
		nonNilBytes(hash), micros(now)).Scan(&se.Hash, &se.TokenID, &se.Name, &se.Principal, &role, &created, &expires)
	if err != nil {
		return registry.Session{}, dbErr("session", err)
	}
	se.Role, se.CreatedAt, se.ExpiresAt = registry.Role(role), fromMicros(created), fromMicros(expires)
	return se, nil
}

// DeleteSession ends a session; ending one that does not exist is not an
// error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?1`, nonNilBytes(hash)); err != nil {
		return dbErr("delete session", err)
	}
	return nil
}

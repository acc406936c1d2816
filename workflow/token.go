package workflow

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// TokenPrefix starts every API token secret, so that a leaked token is easy
// to recognise (and to scan for).
const TokenPrefix = "rgd_"

// tokenSecretLen is the length of a secret: the prefix and 43 base64url
// characters of 256 random bits.
const tokenSecretLen = len(TokenPrefix) + 43

// CreateToken makes a new API token named name with role for the principal
// of the same name (CreateTokenFor with principal = name). Errors are
// CreateTokenFor's.
func (s *Service) CreateToken(ctx context.Context, name string, role registry.Role) (string, registry.Token, error) {
	return s.CreateTokenFor(ctx, name, name, role)
}

// CreateTokenFor makes a new API token named name with role, held by the
// principal named principal, and returns its secret, which exists only in
// this return value: the store keeps its SHA-256. The principal is the one
// whose name has the same PrincipalKey, created on first use: "Alice" and
// "alice" are one principal, whatever the token is called, and a principal
// may hold several tokens. Names are 1 to MaxTokenNameBytes bytes of
// letters, marks and digits of any script and _ - . @, stored in NFKC. The
// creation is audit-logged under SystemActor (tokens are made by the
// operator on the command line). Errors: a *registry.ValidationError naming
// the field.
func (s *Service) CreateTokenFor(ctx context.Context, principal, name string, role registry.Role) (string, registry.Token, error) {
	return s.IssueToken(ctx, NewToken{Principal: principal, Name: name, Role: role})
}

// MaxTokenTTL bounds how long a token may be made to live.
const MaxTokenTTL = 10 * 366 * 24 * time.Hour

// NewToken is what IssueToken makes a token of.
type NewToken struct {
	// Principal and Name are as for CreateTokenFor.
	Principal, Name string
	Role            registry.Role
	// TTL, when above zero, makes the token expire that long after its
	// creation (at most MaxTokenTTL); zero makes one that never expires.
	TTL time.Duration
}

// IssueToken makes the token nt describes, as CreateTokenFor does, and
// returns its secret and the stored token (with ExpiresAt when nt.TTL is
// set). From ExpiresAt on, Authenticate refuses the token and the browser
// sessions opened with it end. Errors: a *registry.ValidationError naming
// the field.
func (s *Service) IssueToken(ctx context.Context, nt NewToken) (string, registry.Token, error) {
	var fs fields
	principal, name, role := norm.NFKC.String(nt.Principal), norm.NFKC.String(nt.Name), nt.Role
	if principal != name {
		fs.principalName("principal", principal)
	}
	fs.principalName("name", name)
	if !role.Valid() {
		fs.add("role", "must be submitter, maintainer or admin")
	}
	if nt.TTL < 0 || nt.TTL > MaxTokenTTL {
		fs.add("expires", "must be a positive duration of at most ten years")
	}
	if err := fs.err(); err != nil {
		return "", registry.Token{}, err
	}
	var raw [32]byte
	rand.Read(raw[:])
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(secret))
	now := s.clock()
	var tok registry.Token
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		p, err := tx.EnsurePrincipal(ctx, registry.Principal{ID: s.newID("prn"), Name: principal, Key: PrincipalKey(principal), CreatedAt: now})
		if err != nil {
			return fmt.Errorf("store principal: %w", err)
		}
		tok = registry.Token{ID: s.newID("tok"), Name: name, Role: role, Hash: sum[:], Principal: registry.Principal{ID: p.ID, Name: p.Name}, CreatedAt: now}
		d := map[string]string{"name": name, "role": string(role), "principal": p.ID, "principal_name": p.Name}
		if nt.TTL > 0 {
			exp := now.Add(nt.TTL)
			tok.ExpiresAt = &exp
			d["expires_at"] = exp.UTC().Format(time.RFC3339)
		}
		if err := tx.CreateToken(ctx, tok); err != nil {
			return fmt.Errorf("store token: %w", err)
		}
		detail, _ := json.Marshal(d)
		return s.audit(ctx, tx, now, SystemActor, "token.create", "token/"+tok.ID, "", string(detail))
	})
	if err != nil {
		return "", registry.Token{}, fmt.Errorf("create token: %w", err)
	}
	return secret, tok, nil
}

// RevokeToken revokes the token with id at once: Authenticate refuses it
// from the moment the transaction commits. Revoking a revoked token again is
// not an error. It is audit-logged under SystemActor. Errors:
// registry.ErrNotFound for an unknown id.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	now := s.clock()
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.RevokeToken(ctx, id, now); err != nil {
			return err
		}
		return s.audit(ctx, tx, now, SystemActor, "token.revoke", "token/"+id, "", "")
	})
	if err != nil {
		return fmt.Errorf("revoke token %q: %w", id, err)
	}
	return nil
}

// Authenticate returns the actor a token secret (the value after "Bearer ")
// stands for: the token's principal (its name and ID), the token's ID and
// its role. It returns an error matching registry.ErrUnauthenticated for
// an empty, malformed, unknown, revoked or expired secret, and never says
// which.
func (s *Service) Authenticate(ctx context.Context, secret string) (Actor, error) {
	if len(secret) != tokenSecretLen || !strings.HasPrefix(secret, TokenPrefix) {
		return Actor{}, fmt.Errorf("%w: invalid token", registry.ErrUnauthenticated)
	}
	sum := sha256.Sum256([]byte(secret))
	tok, err := s.store.TokenByHash(ctx, sum[:])
	if errors.Is(err, registry.ErrNotFound) {
		return Actor{}, fmt.Errorf("%w: invalid token", registry.ErrUnauthenticated)
	}
	if err != nil {
		return Actor{}, fmt.Errorf("authenticate: %w", err)
	}
	if !tok.Live(s.clock()) {
		return Actor{}, fmt.Errorf("%w: invalid token", registry.ErrUnauthenticated)
	}
	name := tok.Principal.Name
	if name == "" {
		name = tok.Name
	}
	return Actor{Name: name, TokenID: tok.ID, Role: tok.Role, Principal: tok.Principal.ID}, nil
}

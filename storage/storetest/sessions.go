package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// SessionStore is a store that also keeps browser sessions.
type SessionStore interface {
	storage.Store
	storage.Sessions
}

// RunSessions runs the behaviour of storage.Sessions against stores made
// by newStore, each new and empty.
func RunSessions(t *testing.T, newStore func(t *testing.T) SessionStore) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	hash := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	setup := func(t *testing.T) (SessionStore, registry.Token) {
		s := newStore(t)
		p := registry.Principal{ID: "prn_alice", Name: "alice", Key: "alice", CreatedAt: t0}
		tok := registry.Token{ID: "tok_1", Name: "alice-laptop", Role: registry.RoleMaintainer, Hash: hash("secret"), Principal: p, CreatedAt: t0}
		if err := s.InTx(ctx, func(tx storage.Tx) error {
			if _, err := tx.EnsurePrincipal(ctx, p); err != nil {
				return err
			}
			return tx.CreateToken(ctx, tok)
		}); err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		return s, tok
	}

	t.Run("round trip and expiry", func(t *testing.T) {
		s, tok := setup(t)
		want := registry.Session{Hash: hash("a"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, want); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		// A session reads as its token's principal.
		want.Name, want.Principal = tok.Principal.Name, tok.Principal.ID
		got, err := s.Session(ctx, hash("a"), t0.Add(time.Minute))
		if err != nil {
			t.Fatalf("Session: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Session mismatch (-want +got):\n%s", diff)
		}
		if _, err := s.Session(ctx, hash("a"), t0.Add(time.Hour)); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Session at expiry: err %v, want ErrNotFound", err)
		}
		if _, err := s.Session(ctx, hash("other"), t0); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Session of unknown hash: err %v, want ErrNotFound", err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		s, tok := setup(t)
		se := registry.Session{Hash: hash("a"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSession(ctx, hash("a")); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		if _, err := s.Session(ctx, hash("a"), t0); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Session after delete: err %v, want ErrNotFound", err)
		}
		if err := s.DeleteSession(ctx, hash("never")); err != nil {
			t.Errorf("DeleteSession of unknown: %v", err)
		}
	})

	t.Run("revoked token ends its sessions", func(t *testing.T) {
		s, tok := setup(t)
		se := registry.Session{Hash: hash("a"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx storage.Tx) error { return tx.RevokeToken(ctx, tok.ID, t0) }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, hash("a"), t0); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Session after revocation: err %v, want ErrNotFound", err)
		}
	})

	t.Run("expired token ends its sessions", func(t *testing.T) {
		s := newStore(t)
		p := registry.Principal{ID: "prn_bob", Name: "bob", Key: "bob", CreatedAt: t0}
		exp := t0.Add(30 * time.Minute)
		tok := registry.Token{ID: "tok_2", Name: "bob", Role: registry.RoleMaintainer, Hash: hash("bob"), Principal: p, CreatedAt: t0, ExpiresAt: &exp}
		if err := s.InTx(ctx, func(tx storage.Tx) error {
			if _, err := tx.EnsurePrincipal(ctx, p); err != nil {
				return err
			}
			return tx.CreateToken(ctx, tok)
		}); err != nil {
			t.Fatal(err)
		}
		se := registry.Session{Hash: hash("b"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, hash("b"), exp.Add(-time.Microsecond)); err != nil {
			t.Errorf("Session before the token expires: %v", err)
		}
		if _, err := s.Session(ctx, hash("b"), exp); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("Session once the token expired: err %v, want ErrNotFound", err)
		}
	})

	t.Run("unknown token and duplicate hash", func(t *testing.T) {
		s, tok := setup(t)
		if err := s.CreateSession(ctx, registry.Session{Hash: hash("x"), TokenID: "tok_missing", Name: "x", Role: registry.RoleMaintainer, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("CreateSession for unknown token: err %v, want ErrNotFound", err)
		}
		se := registry.Session{Hash: hash("a"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, se); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, se); !errors.Is(err, registry.ErrConflict) {
			t.Errorf("CreateSession twice: err %v, want ErrConflict", err)
		}
	})

	t.Run("expired sessions are swept", func(t *testing.T) {
		s, tok := setup(t)
		old := registry.Session{Hash: hash("old"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: t0, ExpiresAt: t0.Add(time.Minute)}
		if err := s.CreateSession(ctx, old); err != nil {
			t.Fatal(err)
		}
		later := t0.Add(time.Hour)
		if err := s.CreateSession(ctx, registry.Session{Hash: hash("new"), TokenID: tok.ID, Name: tok.Name, Role: tok.Role, CreatedAt: later, ExpiresAt: later.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		// Even asked about a moment before its expiry, the old session is
		// gone: creating the new one swept it.
		if _, err := s.Session(ctx, hash("old"), t0); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("swept session still found: err %v", err)
		}
	})
}

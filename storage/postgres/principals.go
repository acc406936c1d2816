package postgres

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// EnsurePrincipal returns the principal whose key is p.Key, inserting p
// first when there is none. Of two transactions ensuring one key at once,
// the second waits for the first and then reads its principal.
// registry.ErrInvalid when p has no ID, name or key.
func (t *tx) EnsurePrincipal(ctx context.Context, p registry.Principal) (registry.Principal, error) {
	if p.ID == "" || p.Name == "" || p.Key == "" {
		return registry.Principal{}, fmt.Errorf("ensure principal: %w", invalid("principal", "needs an ID, a name and a key"))
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO principals (id, name, key, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key) DO NOTHING`, p.ID, p.Name, p.Key, ts(p.CreatedAt)); err != nil {
		return registry.Principal{}, dbErr(fmt.Sprintf("ensure principal %q", p.Key), err)
	}
	var out registry.Principal
	err := t.tx.QueryRow(ctx, `SELECT id, name, key, created_at FROM principals WHERE key = $1`, p.Key).
		Scan(&out.ID, &out.Name, &out.Key, &out.CreatedAt)
	if err != nil {
		return registry.Principal{}, dbErr(fmt.Sprintf("ensure principal %q", p.Key), err)
	}
	out.CreatedAt = out.CreatedAt.UTC()
	return out, nil
}

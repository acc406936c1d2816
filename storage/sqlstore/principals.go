package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// EnsurePrincipal returns the principal whose key is p.Key, inserting p
// first when there is none. Of two transactions ensuring one key at once,
// the second waits for the first (PostgreSQL's unique index; SQLite's write
// lock) and then reads its principal. registry.ErrInvalid when p has no ID,
// name or key.
func (t *tx) EnsurePrincipal(ctx context.Context, p registry.Principal) (registry.Principal, error) {
	if p.ID == "" || p.Name == "" || p.Key == "" {
		return registry.Principal{}, fmt.Errorf("ensure principal: %w", invalid("principal", "needs an ID, a name and a key"))
	}
	op := fmt.Sprintf("ensure principal %q", p.Key)
	if _, err := t.c.Exec(ctx, `INSERT INTO principals (id, name, key, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key) DO NOTHING`, p.ID, p.Name, p.Key, t.d.Time(p.CreatedAt)); err != nil {
		return registry.Principal{}, t.err(op, err)
	}
	var out registry.Principal
	err := t.c.QueryRow(ctx, `SELECT id, name, key, created_at FROM principals WHERE key = $1`, p.Key).
		Scan(&out.ID, &out.Name, &out.Key, t.d.ScanTime(&out.CreatedAt))
	if err != nil {
		return registry.Principal{}, t.err(op, err)
	}
	return out, nil
}

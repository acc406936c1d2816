package sqlite

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// EnsurePrincipal returns the principal whose key is p.Key, inserting p
// first when there is none. registry.ErrInvalid when p has no ID, name or
// key.
func (t *tx) EnsurePrincipal(ctx context.Context, p registry.Principal) (registry.Principal, error) {
	if p.ID == "" || p.Name == "" || p.Key == "" {
		return registry.Principal{}, fmt.Errorf("ensure principal: %w", invalid("principal", "needs an ID, a name and a key"))
	}
	if _, err := t.q.ExecContext(ctx, `INSERT INTO principals (id, name, key, created_at) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (key) DO NOTHING`, p.ID, p.Name, p.Key, micros(p.CreatedAt)); err != nil {
		return registry.Principal{}, dbErr(fmt.Sprintf("ensure principal %q", p.Key), err)
	}
	var out registry.Principal
	var created int64
	err := t.q.QueryRowContext(ctx, `SELECT id, name, key, created_at FROM principals WHERE key = ?1`, p.Key).
		Scan(&out.ID, &out.Name, &out.Key, &created)
	if err != nil {
		return registry.Principal{}, dbErr(fmt.Sprintf("ensure principal %q", p.Key), err)
	}
	out.CreatedAt = fromMicros(created)
	return out, nil
}

package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
)

const bindingCols = `addon, source, upstream_name, created_at`

func (r reader) scanBinding(row Row) (registry.UpstreamBinding, error) {
	var b registry.UpstreamBinding
	var source string
	err := row.Scan(&b.Addon, &source, &b.Name, r.d.ScanTime(&b.CreatedAt))
	b.Source = registry.Source(source)
	return b, err
}

// UpstreamBinding returns the binding of the upstream server called name,
// or an error wrapping registry.ErrNotFound. Inside a transaction it locks
// the row until commit.
func (r reader) UpstreamBinding(ctx context.Context, name string) (registry.UpstreamBinding, error) {
	b, err := r.scanBinding(r.c.QueryRow(ctx, `SELECT `+bindingCols+` FROM upstream_bindings WHERE upstream_name = $1`+r.lock, name))
	if err != nil {
		return b, r.err(fmt.Sprintf("binding of upstream %q", name), err)
	}
	return b, nil
}

// UpstreamBindings returns the bindings of addon and of the upstream
// server called name (none, one, or two), locking them until commit.
func (r reader) UpstreamBindings(ctx context.Context, addon, name string) ([]registry.UpstreamBinding, error) {
	return list(r, ctx, fmt.Sprintf("bindings of addon %q and upstream %q", addon, name), r.scanBinding,
		`SELECT `+bindingCols+` FROM upstream_bindings WHERE addon = $1 OR upstream_name = $2 ORDER BY addon`+r.lock, addon, name)
}

// BindUpstream records b; registry.ErrConflict when its addon or its
// upstream name is bound already.
func (t *tx) BindUpstream(ctx context.Context, b registry.UpstreamBinding) error {
	_, err := t.c.Exec(ctx, `INSERT INTO upstream_bindings (`+bindingCols+`) VALUES ($1, $2, $3, $4)`,
		b.Addon, string(b.Source), b.Name, t.d.Time(b.CreatedAt))
	if err != nil {
		return t.err(fmt.Sprintf("bind addon %q to upstream %q", b.Addon, b.Name), err)
	}
	return nil
}

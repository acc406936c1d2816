package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// AuditLog lists audit entries newest first (time, then ID), one page at a
// time.
func (r reader) AuditLog(ctx context.Context, p storage.Page) ([]registry.AuditEntry, string, error) {
	var a args
	where, err := r.cursorAfter(&a, nil, "at, id", "<", p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := p.Bounded()
	out, err := list(r, ctx, "audit log", func(row Row) (registry.AuditEntry, error) {
		var e registry.AuditEntry
		err := row.Scan(&e.ID, r.d.ScanTime(&e.At), &e.Actor, &e.Action, &e.Target, &e.Reason, &e.Detail)
		return e, err
	}, `SELECT id, at, actor, action, target, reason, detail FROM audit_log`+
		whereSQL(where)+` ORDER BY at DESC, id DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, limit, func(e registry.AuditEntry) storage.Cursor { return storage.Cursor{At: e.At, Key: e.ID} })
	return out, next, nil
}

// AppendAudit appends e; registry.ErrConflict if its ID exists,
// registry.ErrInvalid if it has none.
func (t *tx) AppendAudit(ctx context.Context, e registry.AuditEntry) error {
	if e.ID == "" {
		return fmt.Errorf("append audit: %w", invalid("id", "is empty"))
	}
	_, err := t.c.Exec(ctx, `INSERT INTO audit_log (id, at, actor, action, target, reason, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.ID, t.d.Time(e.At), e.Actor, e.Action, e.Target, e.Reason, e.Detail)
	if err != nil {
		return t.err(fmt.Sprintf("append audit %q", e.ID), err)
	}
	return nil
}

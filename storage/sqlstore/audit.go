package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// AuditLog lists the audit entries f matches newest first (time, then ID),
// one page at a time. Each filter has its index (actor, action, target;
// migration 00012), already in the list's order.
func (r reader) AuditLog(ctx context.Context, f storage.AuditFilter, p storage.Page) ([]registry.AuditEntry, string, error) {
	var a args
	var where []string
	if f.Actor != "" {
		where = append(where, "actor = "+a.add(f.Actor))
	}
	if f.Action != "" {
		where = append(where, "action = "+a.add(f.Action))
	}
	if f.Addon != "" {
		name := a.add(f.Addon)
		where = append(where, "(target = 'addon/' || "+name+
			" OR target IN (SELECT 'submission/' || id FROM submissions WHERE addon = "+name+"))")
	}
	where, err := r.cursorAfter(&a, where, "at, id", "<", p.Cursor)
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

// distinctSQL lists the distinct values of column col of the audit log
// in the column's index order by hopping from each value to the next
// through the index (a loose index scan): one index probe per distinct
// value, where SELECT DISTINCT would read every entry.
func distinctSQL(col string) string {
	return `WITH RECURSIVE v(x) AS (
		SELECT min(` + col + `) FROM audit_log
		UNION ALL
		SELECT (SELECT min(` + col + `) FROM audit_log WHERE ` + col + ` > v.x) FROM v WHERE v.x IS NOT NULL
	) SELECT x FROM v WHERE x IS NOT NULL`
}

var (
	qAuditActors  = distinctSQL("actor")
	qAuditActions = distinctSQL("action")
)

// AuditChoices returns the distinct actors and actions of the audit log,
// each in index order; empty, non-nil slices when the log is empty.
func (r reader) AuditChoices(ctx context.Context) (actors, actions []string, err error) {
	scan := func(row Row) (string, error) {
		var s string
		return s, row.Scan(&s)
	}
	if actors, err = list(r, ctx, "audit actors", scan, qAuditActors); err != nil {
		return nil, nil, err
	}
	if actions, err = list(r, ctx, "audit actions", scan, qAuditActions); err != nil {
		return nil, nil, err
	}
	return actors, actions, nil
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

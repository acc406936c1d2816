package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

const deliveryCols = `id, event, action, repo, payload, status, error, submissions, received_at, updated_at`

func (r reader) scanDelivery(row Row) (registry.Delivery, error) {
	var d registry.Delivery
	var status string
	err := row.Scan(&d.ID, &d.Event, &d.Action, &d.Repo, &d.Payload, &status, &d.Error, r.d.ScanList(&d.Submissions),
		r.d.ScanTime(&d.ReceivedAt), r.d.ScanTime(&d.UpdatedAt))
	d.Payload = nonNilBytes(d.Payload)
	d.Status = registry.DeliveryStatus(status)
	d.Submissions = nonNilStrings(d.Submissions)
	return d, err
}

// Delivery returns the webhook delivery with id, or an error wrapping
// registry.ErrNotFound.
func (r reader) Delivery(ctx context.Context, id string) (registry.Delivery, error) {
	d, err := r.scanDelivery(r.c.QueryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = $1`, id))
	if err != nil {
		return d, r.err(fmt.Sprintf("delivery %q", id), err)
	}
	return d, nil
}

// Deliveries lists webhook deliveries newest first (received_at, then ID),
// one page at a time.
func (r reader) Deliveries(ctx context.Context, p storage.Page) ([]registry.Delivery, string, error) {
	var a args
	where, err := r.cursorAfter(&a, nil, "received_at, id", "<", p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := p.Bounded()
	out, err := list(r, ctx, "list deliveries", r.scanDelivery, `SELECT `+deliveryCols+` FROM webhook_deliveries`+
		whereSQL(where)+` ORDER BY received_at DESC, id DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, limit, func(d registry.Delivery) storage.Cursor { return storage.Cursor{At: d.ReceivedAt, Key: d.ID} })
	return out, next, nil
}

// CreateDelivery records d and returns true, or returns false (and no error)
// when a delivery with d.ID exists.
func (t *tx) CreateDelivery(ctx context.Context, d registry.Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("create delivery: %w", invalid("id", "is empty"))
	}
	n, err := t.c.Exec(ctx, `INSERT INTO webhook_deliveries (`+deliveryCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
		d.ID, d.Event, d.Action, d.Repo, nonNilBytes(d.Payload), string(d.Status), d.Error,
		t.d.List(d.Submissions), t.d.Time(d.ReceivedAt), t.d.Time(d.UpdatedAt))
	if err != nil {
		return false, t.err(fmt.Sprintf("create delivery %q", d.ID), err)
	}
	return n == 1, nil
}

// UpdateDelivery writes d's status, error, submissions and UpdatedAt;
// registry.ErrNotFound if absent.
func (t *tx) UpdateDelivery(ctx context.Context, d registry.Delivery) error {
	n, err := t.c.Exec(ctx, `UPDATE webhook_deliveries SET status = $2, error = $3, submissions = $4, updated_at = $5
		WHERE id = $1`, d.ID, string(d.Status), d.Error, t.d.List(d.Submissions), t.d.Time(d.UpdatedAt))
	if err != nil {
		return t.err(fmt.Sprintf("update delivery %q", d.ID), err)
	}
	if n == 0 {
		return fmt.Errorf("update delivery %q: %w", d.ID, registry.ErrNotFound)
	}
	return nil
}

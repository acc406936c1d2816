package postgres

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/storage/readcache"
)

// notifyChannel is the channel migration 00004's triggers notify with an
// addon's name whenever something PublishedReport reads for it changes.
const notifyChannel = "registryd_reports"

// logChannel is the channel migration 00020's trigger notifies whenever
// what the transparency log's readers serve changes: since 00024, a
// checkpoint signed by any replica (an append alone changes no answer:
// the readers serve the signed checkpoint's tree).
const logChannel = "registryd_log"

var errNoTriggers = errors.New("the report notification triggers are missing (run registryd migrate)")

// listen keeps a connection LISTENing to notifyChannel until ctx ends, and
// tells changes of what the published reads return: every change to an
// addon's reports, versions or row notifies the channel at commit,
// whichever replica made it, and every checkpoint signed notifies
// logChannel. The tracker, and with it every answer kept in
// memory (sqlstore's report cache, the API's badges and lists), is on
// while the connection listens and off while it cannot, when every read
// goes to the database; the listener reconnects with a bounded backoff.
func listen(ctx context.Context, changes *readcache.Tracker, pool *pgxpool.Pool, log *slog.Logger) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := listenOnce(ctx, changes, pool)
		changes.Reset(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("read cache off: the notification listener failed; reports are read from the database until it reconnects", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func listenOnce(ctx context.Context, changes *readcache.Tracker, pool *pgxpool.Pool) error {
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel+"; LISTEN "+logChannel); err != nil {
		return err
	}
	// A database not yet migrated to 00004 (a replica started with
	// --skip-migrate) sends no notifications: caching there would serve
	// stale reports.
	var triggers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgname IN ('reports_notify', 'addons_notify', 'versions_notify') AND NOT tgisinternal`).Scan(&triggers); err != nil {
		return err
	}
	if triggers != 3 {
		return errNoTriggers
	}
	// Nor does one not yet migrated to 00020 tell of the log's changes:
	// there the reports are kept, the inclusion proofs not.
	var logTrigger bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'log_head_notify' AND NOT tgisinternal)`).Scan(&logTrigger); err != nil {
		return err
	}
	changes.HearLog(logTrigger)
	// Only now that every later change will be heard may answers be kept.
	changes.Reset(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Channel == logChannel {
			changes.LogChanged()
			continue
		}
		changes.Changed(n.Payload)
	}
}

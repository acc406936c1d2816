package mcpimport

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/registryd/registryd/jobs"
)

// SyncKind is the job kind of the scheduled sync with an upstream MCP
// Registry.
const SyncKind = "mcp_registry_sync"

// SyncTimeout bounds one scheduled sync; it stays below jobs.StuckAfter.
// What a sync that runs out of time imported stays, and the next one takes
// it as imported; the high-water mark moves only on a complete run.
const SyncTimeout = 5 * time.Minute

// MinSyncInterval is the shortest period a scheduled sync may take: an MCP
// Registry is a shared service, and asking it more often gains little.
const MinSyncInterval = time.Minute

// SyncHandler returns the periodic job that runs im every interval, asking
// the upstream only for what changed since the last complete run (the
// high-water mark kept in the database). Every server that runs workers on
// the database may register it: one of them enqueues each run, and runs
// never overlap (see jobs.Handler.Every). Each run is logged with what it
// did; a skipped document is logged and never fails the run.
func SyncHandler(im *Importer, interval time.Duration, log *slog.Logger) jobs.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return jobs.Handler{
		Kind:    SyncKind,
		Every:   interval,
		Timeout: SyncTimeout,
		Work: func(ctx context.Context, r jobs.Run) error {
			sum, err := im.Run(ctx, Options{})
			attrs := []any{"upstream", hostOf(im.Client.BaseURL), "read", sum.Seen, "created", sum.Created,
				"existing", sum.Existing, "skipped", sum.Skipped, "elapsed", sum.Elapsed.Round(time.Millisecond)}
			for _, s := range sum.Skips[:min(len(sum.Skips), maxSkipsLogged)] {
				log.Warn("upstream sync: skipped", "name", s.Name, "version", s.Version, "reason", s.Reason)
			}
			if err != nil {
				log.Error("upstream sync failed", append(attrs, "attempt", r.Attempt, "err", err)...)
				return fmt.Errorf("upstream sync: %w", err)
			}
			log.Info("upstream sync", attrs...)
			return nil
		},
	}
}

// maxSkipsLogged bounds the skipped documents one sync logs one by one.
const maxSkipsLogged = 20

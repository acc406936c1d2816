package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/metrics"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// githubIntake is the GitHub integration of a running server: the two
// handlers to mount and the job handler of its deliveries.
type githubIntake struct {
	webhook    http.Handler // nil when no webhook secret is configured
	deliveries http.Handler
	jobs       []jobs.Handler
}

// newGitHub builds the webhook receiver, the deliveries listing and the
// delivery worker's job handler from the configuration. Without a webhook
// secret the endpoint is not mounted and no delivery worker runs; the
// listing is served either way.
func newGitHub(cfg config, store storage.Store, svc *workflow.Service, log *slog.Logger, m *metrics.Registry) (githubIntake, error) {
	in := githubIntake{
		deliveries: ghingest.NewDeliveries(store, cfg.PublicURL, log),
	}
	if len(cfg.GitHub.WebhookSecrets) == 0 {
		log.Info("GitHub webhook disabled: REGISTRYD_GITHUB_WEBHOOK_SECRET is not set")
		return in, nil
	}
	rc, err := ghingest.NewReceiver(ghingest.ReceiverConfig{Secrets: cfg.GitHub.WebhookSecrets, Store: store, Logger: log,
		BodyBudget: cfg.GitHub.WebhookBodyBudget, Observe: m.WebhookDelivery})
	if err != nil {
		return in, err
	}
	gh, err := githubapi.New(githubapi.Config{Token: cfg.GitHub.Token, BaseURL: cfg.GitHub.APIURL, UserAgent: "registryd"})
	if err != nil {
		return in, err
	}
	wk, err := ghingest.NewWorker(ghingest.WorkerConfig{
		Store: store, Locker: store, Workflow: svc, GitHub: gh, ManifestGlob: cfg.GitHub.ManifestGlob,
		PublicURL: cfg.PublicURL, Logger: log,
	})
	if err != nil {
		return in, err
	}
	in.webhook, in.jobs = rc, []jobs.Handler{wk.Handler()}
	return in, nil
}

// upstreamSync returns the job handler of the scheduled sync with an
// upstream MCP Registry, or none when no upstream is configured.
func upstreamSync(cfg config, store storage.Store, svc *workflow.Service, log *slog.Logger) []jobs.Handler {
	if cfg.Upstream.URL == "" {
		return nil
	}
	im := &mcpimport.Importer{
		Client:   &mcpimport.Client{BaseURL: cfg.Upstream.URL, UserAgent: "registryd"},
		Workflow: svc, Marks: store,
	}
	log.Info("syncing with an upstream MCP Registry", "url", cfg.Upstream.URL, "every", cfg.Upstream.Interval)
	return []jobs.Handler{mcpimport.SyncHandler(im, cfg.Upstream.Interval, log)}
}

// startJobs starts the job workers of handlers on store, each observed by
// the metrics, and returns the function that stops them. The workers run
// on a context of their own: stop them (with the shutdown deadline) after
// the HTTP server, so that jobs in flight may finish; one that cannot is
// put back to run on the next start. With no handler nothing starts.
func startJobs(ctx context.Context, store storage.Store, m *metrics.Registry, handlers []jobs.Handler) (func(context.Context) error, error) {
	if len(handlers) == 0 {
		return func(context.Context) error { return nil }, nil
	}
	observed := make([]jobs.Handler, len(handlers))
	for i, h := range handlers {
		observed[i] = jobs.Observe(h, m.JobRun)
	}
	stop, err := store.StartJobs(context.WithoutCancel(ctx), observed...)
	if err != nil {
		return nil, fmt.Errorf("start the job workers: %w", err)
	}
	return stop, nil
}

// runWebhook is `registryd webhook retry DELIVERY_ID`: it queues a
// recorded delivery again, for a running server's workers to process.
func runWebhook(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		webhookUsage(e.stderr)
		return &exitError{code: 2}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		webhookUsage(e.stdout)
		return nil
	}
	if args[0] != "retry" {
		webhookUsage(e.stderr)
		return usageError("unknown webhook command %q", safeArg(args[0]))
	}
	var sc storage.Config
	var force bool
	fs := flag.NewFlagSet("registryd webhook retry", flag.ContinueOnError)
	fs.Usage = func() { webhookUsage(fs.Output()); fmt.Fprintln(fs.Output(), "\nFlags:"); fs.PrintDefaults() }
	storeSettings(fs, e.getenv, &sc)
	fs.BoolVar(&force, "force", false, "queue it even when it is recorded as queued or running (a server that died mid-job)")
	if err := parseFlags(fs, args[1:], e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() != 1 {
		return usageError("webhook retry takes one delivery ID (see GET /v1/webhooks/deliveries)")
	}
	id := fs.Arg(0)
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	d, err := ghingest.Retry(ctx, store, id, force, time.Now())
	switch {
	case errors.Is(err, registry.ErrInvalid):
		return usageError("%q is not a GitHub delivery ID", safeArg(id))
	case errors.Is(err, registry.ErrNotFound):
		return fmt.Errorf("no delivery with ID %q", safeArg(id))
	case errors.Is(err, ghingest.ErrInProgress):
		return fmt.Errorf("delivery %s is already queued or running; use --force if its server died", id)
	case errors.Is(err, ghingest.ErrNotActionable):
		return fmt.Errorf("delivery %s is an event registryd does not act on; nothing to run", id)
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "queued %s (%s %s of %s)\n", d.ID, d.Event, d.Action, d.Repo)
	return nil
}

func webhookUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  registryd webhook retry [--force] DELIVERY_ID")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "retry queues a recorded GitHub delivery again; a running `registryd serve`")
	fmt.Fprintln(w, "on the same database processes it. Running a delivery twice creates no")
	fmt.Fprintln(w, "duplicate submissions. Takes --database-url and --data-dir (env")
	fmt.Fprintln(w, "REGISTRYD_DATABASE_URL, REGISTRYD_DATA_DIR) like `registryd serve`.")
}

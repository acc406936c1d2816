package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/metrics"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/web"
	"github.com/registryd/registryd/workflow"
)

// Background work of the server.
const (
	// reassessBatch is how many reports one reassessment transaction
	// renders again after a ruleset change (and registryd reassess's
	// default): a few queries and statements each, whatever the number,
	// so large batches amortize them; docs/scale.md has the figures.
	reassessBatch = 1000
	// searchBackfillBatch is how many addons one transaction of the search
	// backfill reads.
	searchBackfillBatch = 500
	// signBatch is how many envelopes one signing transaction signs.
	signBatch = 1000
	// sweepInterval is how often expired suppressions are swept: a report
	// shows an expired suppression for at most this long.
	sweepInterval = time.Minute
)

// runServe is `registryd serve`: it opens the store (applying migrations
// unless told not to), serves the API until ctx is done, then shuts down
// gracefully: it stops accepting connections, lets in-flight requests
// finish within the shutdown timeout, stops the background work and closes
// the store.
func runServe(ctx context.Context, args []string, e env) error {
	cfg, err := loadServeConfig(args, e.getenv, e.stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel)
	build := buildinfo.Read()
	log.Info("starting registryd", "build", build, "config", cfg)
	clients, err := clientip.New(cfg.TrustedProxies, cfg.ForwardedHeader)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	m := metrics.New(build)

	cfg.Store.Logger = log
	if cfg.Store.Signing, err = signingOrEphemeral(cfg.Store.Signing.Signers, log.Warn); err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	log.Info("signing reports and checkpoints", "active_key", cfg.Store.Signing.Signers[0].Verifier().Text,
		"keys", len(cfg.Store.Signing.Signers), "log_origin", cfg.Store.Signing.Signers[0].Name())
	store, err := backend.Open(ctx, cfg.Store)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("close the store", "err", err)
		}
	}()

	watchStore(m, store)
	svc := workflow.New(store, workflow.Options{Logger: log})
	github, err := newGitHub(cfg, store, svc, log, m)
	if err != nil {
		return fmt.Errorf("GitHub integration: %w", err)
	}
	stopJobs, err := startJobs(ctx, store, m, append(github.jobs, upstreamSync(cfg, store, svc, log)...))
	if err != nil {
		return err
	}
	pages := web.New(web.Deps{
		Reader:       store,
		Workflow:     svc,
		Sessions:     store,
		Logger:       log,
		PublicURL:    cfg.PublicURL,
		VerifierKeys: verifierKeys(cfg.Store.Signing),
	})
	deps := api.Deps{
		Reader:             store,
		Workflow:           svc,
		Logger:             log,
		Ready:              readiness(store),
		RateLimit:          cfg.RateLimit,
		CacheableRateLimit: cfg.CacheableRateLimit,
		Clients:            clients,
		Build:              build,
		Metrics:            m,
		PublicURL:          cfg.PublicURL,
		Webhook:            github.webhook,
		Deliveries:         github.deliveries,
		Web:                pages,
	}
	if cfg.MetricsAddr == "" {
		deps.MetricsHandler = m.Handler()
	}
	handler := api.New(deps)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		stopJobs(context.WithoutCancel(ctx))
		return fmt.Errorf("listen: %w", err)
	}
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			stopJobs(context.WithoutCancel(ctx))
			return fmt.Errorf("listen for metrics: %w", err)
		}
		log.Info("metrics on http://" + mln.Addr().String() + "/metrics")
	}
	srv := api.NewHTTPServer(cfg.Addr, handler, log)
	log.Info("listening on http://" + ln.Addr().String())

	// Background work, and the metrics listener, which keeps answering
	// while the API drains.
	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var bg sync.WaitGroup
	if mln != nil {
		msrv := api.NewHTTPServer(cfg.MetricsAddr, metricsOnly(m.Handler()), log)
		bg.Go(func() {
			if err := serveHTTP(bgCtx, msrv, mln, cfg.ShutdownTimeout, log); err != nil {
				log.Error("metrics listener", "err", err)
			}
		})
	}
	bg.Go(func() { reassess(bgCtx, svc, log, m) })
	bg.Go(func() { backfillSearch(bgCtx, svc, log) })
	bg.Go(func() { sweep(bgCtx, svc, log, sweepInterval) })
	bg.Go(func() { signEnvelopes(bgCtx, store, log) })
	bg.Go(func() { refreshCheckpoint(bgCtx, store, log, cfg.CheckpointInterval) })

	serveErr := serveHTTP(ctx, srv, ln, cfg.ShutdownTimeout, log)
	jobsCtx, cancelJobs := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	if err := stopJobs(jobsCtx); err != nil {
		log.Warn("jobs did not stop cleanly; they run again at the next start", "err", err)
	}
	cancelJobs()
	stopBackground()
	bg.Wait()
	if serveErr != nil {
		return serveErr
	}
	log.Info("stopped")
	return nil
}

// serveHTTP serves on ln until ctx is done or the server fails, then shuts
// down gracefully: the listener closes at once, idle connections are
// closed, and requests in flight may finish within timeout, after which
// their connections are closed too.
func serveHTTP(ctx context.Context, srv *http.Server, ln net.Listener, timeout time.Duration, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "timeout", timeout)
	case serveErr = <-served:
		log.Error("server stopped", "err", serveErr)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("in-flight requests did not finish in time; closing their connections", "err", err)
		srv.Close()
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

// watchStore has the metrics read the store's pools, job queue and report
// cache at each scrape.
func watchStore(m *metrics.Registry, store storage.Store) {
	m.WatchPools(func() []metrics.Pool {
		ps := store.Pools()
		out := make([]metrics.Pool, len(ps))
		for i, p := range ps {
			out[i] = metrics.Pool{Name: p.Name, InUse: p.InUse, Idle: p.Idle, Max: p.Max}
		}
		return out
	})
	m.WatchQueue(store.JobDepth)
	if c, ok := store.(interface{ ReportCacheLookups() (hits, misses uint64) }); ok {
		m.WatchReportCache(c.ReportCacheLookups)
	}
}

// metricsOnly serves h at GET /metrics and nothing else, for the metrics
// listener.
func metricsOnly(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	return mux
}

// pinger is what readiness needs of the store.
type pinger interface {
	Ping(ctx context.Context) error
	Migrated(ctx context.Context) (bool, error)
}

// readiness returns the /readyz check: the database answers and every
// migration is applied.
func readiness(s pinger) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := s.Ping(ctx); err != nil {
			return fmt.Errorf("database: %w", err)
		}
		ok, err := s.Migrated(ctx)
		if err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
		if !ok {
			return errors.New("migrations are not applied; run `registryd migrate`")
		}
		return nil
	}
}

// reassess renders again, in batches, every report made by an older
// ruleset. Reads keep being served meanwhile: each batch is its own
// transaction, and the metrics count the reports as the batches commit.
func reassess(ctx context.Context, svc *workflow.Service, log *slog.Logger, m *metrics.Registry) {
	start := time.Now()
	m.Reassessing(true)
	defer m.Reassessing(false)
	n, err := svc.ReassessAll(ctx, reassessBatch, m.Reassessed)
	switch {
	case errors.Is(err, context.Canceled):
		log.Info("reassessment interrupted by shutdown", "reports", n)
	case err != nil:
		log.Error("reassessment failed; it resumes at the next start", "reports", n, "err", err)
	case n > 0:
		log.Info("reports reassessed under the current ruleset", "reports", n, "took", time.Since(start).Round(time.Millisecond))
	}
}

// backfillSearch gives the addons stored before migration 00009 the
// keywords and categories of their latest manifest (workflow.BackfillSearch);
// once done, it costs one query at each start.
func backfillSearch(ctx context.Context, svc *workflow.Service, log *slog.Logger) {
	n, err := svc.BackfillSearch(ctx, searchBackfillBatch)
	switch {
	case errors.Is(err, context.Canceled):
		log.Info("search backfill interrupted by shutdown; it resumes at the next start", "addons", n)
	case err != nil:
		log.Error("search backfill failed; it resumes at the next start", "addons", n, "err", err)
	case n > 0:
		log.Info("keywords and categories of addons stored before they were searchable added to the search", "addons", n)
	}
}

// sweep expires suppressions every interval (and once at start), so that a
// report stops showing a suppression at most one interval after it expired.
func sweep(ctx context.Context, svc *workflow.Service, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := svc.ExpireSuppressions(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("expire suppressions", "err", err)
		case n > 0:
			log.Info("suppressions expired and reports rendered again", "suppressions", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// signEnvelopes signs, in batches, the published reports whose envelope
// is missing (published before the log existed) or lacks a configured key
// (after a key rotation), logging those that have no leaf.
func signEnvelopes(ctx context.Context, store storage.Store, log *slog.Logger) {
	start := time.Now()
	n, err := store.SignEnvelopes(ctx, signBatch)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("sign envelopes; it resumes at the next start", "signed", n, "err", err)
		}
		return
	}
	if n > 0 {
		log.Info("report envelopes signed with the configured keys", "reports", n, "took", time.Since(start).Round(time.Millisecond))
	}
}

// refreshCheckpoint signs the log's checkpoint again whenever it is as old
// as interval (and at start, when it lacks a configured key), checking
// ten times an interval, so that clients can tell a live log from a frozen
// one. Every replica runs it; the first to notice signs.
func refreshCheckpoint(ctx context.Context, store storage.Store, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(max(interval/10, time.Second))
	defer t.Stop()
	for {
		if _, err := store.RefreshCheckpoint(ctx, interval); err != nil && ctx.Err() == nil {
			log.Error("refresh the log's checkpoint", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runHealthcheck is `registryd healthcheck`: it asks the server on this
// machine (REGISTRYD_ADDR, or --addr) whether it is ready and exits 0 when
// GET /readyz answers 200. Container images without a shell use it as their
// health check.
func runHealthcheck(ctx context.Context, args []string, e env) error {
	var addr, path string
	fs := flag.NewFlagSet("registryd healthcheck", flag.ContinueOnError)
	stringVar(fs, e.getenv, &addr, setting{"addr", "REGISTRYD_ADDR", "address the server listens on"}, defaultAddr)
	fs.StringVar(&path, "path", "/readyz", "path to ask: /readyz (database ready) or /healthz (process alive)")
	if err := parseFlags(fs, args, e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if err := checkAddr(addr); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("REGISTRYD_ADDR (--addr): %v", err)}
	}
	if path != "/readyz" && path != "/healthz" {
		return usageError("--path must be /readyz or /healthz")
	}
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not healthy: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not healthy: %s answered %d", path, resp.StatusCode)
	}
	fmt.Fprintln(e.stdout, "ok")
	return nil
}

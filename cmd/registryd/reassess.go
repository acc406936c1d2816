package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// runReassess is `registryd reassess [--all]`: it renders the stale reports
// again (those an older ruleset made, or all of them), on the machine that
// reaches the database, alongside running servers, which share the work
// when they re-assess at the same time.
func runReassess(ctx context.Context, args []string, e env) error {
	var (
		sc       storage.Config
		keyFiles string
		all      bool
		batch    int
	)
	fs := flag.NewFlagSet("registryd reassess", flag.ContinueOnError)
	fs.Usage = func() { reassessUsage(fs.Output()); fmt.Fprintln(fs.Output(), "\nFlags:"); fs.PrintDefaults() }
	storeSettings(fs, e.getenv, &sc)
	stringVar(fs, e.getenv, &keyFiles, signingSetting, "")
	fs.BoolVar(&all, "all", false, "render every report again, whatever ruleset made it")
	fs.IntVar(&batch, "batch", reassessBatch, fmt.Sprintf("reports per transaction (1 to %d)", maxReassessBatch))
	if err := parseFlags(fs, args, e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() != 0 {
		return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}
	if batch < 1 || batch > maxReassessBatch {
		return usageError("--batch: want 1 to %d, got %d", maxReassessBatch, batch)
	}
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}
	signers, err := loadSigners(keyFiles)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("%s (--%s): %v", signingSetting.env, signingSetting.flag, err)}
	}
	// Published versions' reports are signed as they are rendered: with
	// the registry's key, or loudly with an ephemeral one, as serve does.
	warn := slog.New(slog.NewTextHandler(e.stderr, nil)).Warn
	if sc.Signing, err = signingOrEphemeral(signers, warn); err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	wf := workflow.New(store, workflow.Options{})
	if all {
		n, err := wf.MarkAllStale(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "%d reports marked for re-rendering\n", n)
	}
	total, err := wf.StaleCount(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	pr := newProgress(e.stderr, total)
	// A plain line at least every tenth of the work.
	pr.every = max(1, min(progressEvery, total/10))
	done := 0
	n, err := wf.ReassessAll(ctx, batch, func(k int) {
		done += k
		rate, eta := rateETA(done, total, time.Since(start))
		pr.update(done, fmt.Sprintf("%d/%d reports (%.0f/s, ETA %s)", done, total, rate, eta))
	})
	pr.done()
	elapsed := time.Since(start)
	rate, _ := rateETA(n, n, elapsed)
	fmt.Fprintf(e.stdout, "%d reports re-assessed in %s (%.0f reports/s)\n", n, elapsed.Round(time.Millisecond), rate)
	return err
}

// maxReassessBatch bounds --batch: a transaction holds its batch's locks
// and memory until it commits.
const maxReassessBatch = 10000

func reassessUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: registryd reassess [--all] [--batch N]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Renders again, under this binary's ruleset, every report an older ruleset")
	fmt.Fprintln(w, "made (what `registryd serve` also does when it starts), or with --all every")
	fmt.Fprintln(w, "report. Reports of published versions are signed and logged as they are")
	fmt.Fprintln(w, "rendered, so give it the servers' signing key. Each batch commits on its")
	fmt.Fprintln(w, "own: servers keep serving, an interrupted run resumes where it stopped, and")
	fmt.Fprintln(w, "runs on several machines (or servers starting) share the work, each report")
	fmt.Fprintln(w, "rendered once. Progress goes to standard error (a bar with the rate and")
	fmt.Fprintln(w, "the time left on a terminal, plain lines otherwise); the count and the")
	fmt.Fprintln(w, "rate to standard output.")
}

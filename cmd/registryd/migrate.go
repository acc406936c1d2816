package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// runMigrate is `registryd migrate`: it applies the embedded migrations to
// the configured database, under the database's migration lock, gives the
// addons stored before migration 00009 their keywords in the search
// (workflow.BackfillSearch), and exits. Running it again is harmless.
func runMigrate(ctx context.Context, args []string, e env) error {
	var sc storage.Config
	fs := flag.NewFlagSet("registryd migrate", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: registryd migrate [flags]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Applies the database migrations and exits. `registryd serve` applies them")
		fmt.Fprintln(fs.Output(), "too unless started with --skip-migrate.")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Flags:")
		fs.PrintDefaults()
	}
	storeSettings(fs, e.getenv, &sc)
	if err := parseFlags(fs, args, e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := backend.Migrate(ctx, sc); err != nil {
		return fmt.Errorf("migrate %s: %w", describeStore(sc), err)
	}
	fmt.Fprintf(e.stdout, "migrations applied to %s\n", describeStore(sc))
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open %s: %w", describeStore(sc), err)
	}
	defer store.Close()
	n, err := workflow.New(store, workflow.Options{}).BackfillSearch(ctx, searchBackfillBatch)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintf(e.stdout, "keywords and categories of %d addons stored before they were searchable added to the search\n", n)
	}
	return nil
}

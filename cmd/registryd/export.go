package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/registryd/registryd/leanctx"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

// runExport is `registryd export --format leanctx`: the published addons
// as lean-ctx's registry file, on standard output or in --out.
func runExport(ctx context.Context, args []string, e env) error {
	var sc storage.Config
	var format, out string
	fs := flag.NewFlagSet("registryd export", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: registryd export --format leanctx [--out FILE]")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Writes the published addons (each at its latest version, removed ones left")
		fmt.Fprintln(fs.Output(), "out) as lean-ctx's registry file; verified is true only where two")
		fmt.Fprintln(fs.Output(), "maintainers verified. docs/interop.md has the mapping.")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Flags:")
		fs.PrintDefaults()
	}
	storeSettings(fs, e.getenv, &sc)
	fs.StringVar(&format, "format", "", "the format: leanctx")
	fs.StringVar(&out, "out", "", "the file to write (default: standard output)")
	if err := parseFlags(fs, args, e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}
	if format != "leanctx" {
		return usageError("export needs --format leanctx")
	}
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	b, err := leanctx.Export(ctx, store)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = e.stdout.Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", safeArg(out), err)
	}
	return nil
}

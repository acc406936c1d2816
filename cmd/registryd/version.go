package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/registryd/registryd/internal/buildinfo"
)

// runVersion is `registryd version` (and `registryd --version`): it prints
// which build this is, as the Go toolchain stamped it into the binary.
func runVersion(_ context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("registryd version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: registryd version")
		fmt.Fprintln(fs.Output())
		fmt.Fprintln(fs.Output(), "Prints the module version, the VCS revision and commit time the binary was")
		fmt.Fprintln(fs.Output(), "built from (unknown when built with -buildvcs=false or outside Git), and the")
		fmt.Fprintln(fs.Output(), "Go version. GET /healthz answers the same.")
	}
	if err := parseFlags(fs, args, e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}
	_, err := io.WriteString(e.stdout, buildinfo.Read().Lines())
	return err
}

// Command registryd is the server behind a curated registry of MCP addons:
// it audits addon manifests, keeps the review workflow and serves byte-stable
// risk reports and trust badges.
//
// Usage:
//
//	registryd <command> [flags]
//
// Run `registryd help` for the list of commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/registryd/registryd/safetext"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// env is everything a command may read from its process: arguments are
// passed separately, the environment through getenv, and the standard
// streams. Tests build one by hand.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand of registryd.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, e env) error
}

// commands is the table of subcommands. Each lives in its own file.
func commands() map[string]command {
	return map[string]command{
		"audit":       {"audit addon manifests and print their reports", runAudit},
		"check":       {"verify an addon's signed report and decide whether to install it", runCheck},
		"serve":       {"serve the registry's API, reports and badges", runServe},
		"migrate":     {"apply the database migrations and exit", runMigrate},
		"token":       {"create, list and revoke API tokens", runToken},
		"key":         {"generate the key that signs reports and the transparency log (key generate)", runKey},
		"healthcheck": {"ask the local server whether it is ready (for container health checks)", runHealthcheck},
		"webhook":     {"queue a recorded GitHub delivery again (webhook retry DELIVERY_ID)", runWebhook},
		"reassess":    {"render stale reports again under this ruleset (--all: every report)", runReassess},
		"import":      {"submit an upstream registry's servers for review (mcp-registry, leanctx)", runImport},
		"export":      {"write the published addons as lean-ctx's registry file (--format leanctx)", runExport},
		"version":     {"print the version, VCS revision and Go version of this build (also --version)", runVersion},
	}
}

// exitError carries a specific exit status out of run.
type exitError struct {
	code int
	err  error // nil when the message was already printed
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError reports a misuse of the command line (exit status 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// run is registryd without the process around it: tests call it directly.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	cmds := commands()
	switch {
	case len(args) == 0:
		printUsage(stderr, cmds)
		return &exitError{code: 2}
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		printUsage(stdout, cmds)
		return nil
	case args[0] == "--version" || args[0] == "-version":
		args[0] = "version"
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "registryd: unknown command %q\n\n", safeArg(args[0]))
		printUsage(stderr, cmds)
		return &exitError{code: 2}
	}
	err := c.run(ctx, args[1:], e)
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.err != nil {
			fmt.Fprintf(stderr, "registryd %s: %v\n", args[0], err)
		}
	}
	return err
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "registryd: the server behind a curated registry of MCP addons")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: registryd <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `registryd <command> --help` for a command's flags.")
}

// safeArg renders a command-line argument for an error message: every
// character safetext does not let be shown becomes '?', so that a hostile
// argument cannot drive the terminal, and it is cut to 64 characters.
func safeArg(s string) string { return safetext.TruncateRunes(safetext.Replace(s, 0, '?'), 64) }

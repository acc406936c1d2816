package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/leanctx"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// runImport is `registryd import mcp-registry|leanctx`: it reads an
// upstream registry into pending submissions, on the machine that reaches
// the database, as `registryd token` does.
func runImport(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		importUsage(e.stderr)
		return &exitError{code: 2}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		importUsage(e.stdout)
		return nil
	}
	var sc storage.Config
	var upstream, search, since string
	fs := flag.NewFlagSet("registryd import "+args[0], flag.ContinueOnError)
	fs.Usage = func() { importUsage(fs.Output()); fmt.Fprintln(fs.Output(), "\nFlags:"); fs.PrintDefaults() }
	storeSettings(fs, e.getenv, &sc)
	switch args[0] {
	case "mcp-registry":
		fs.StringVar(&upstream, "url", "", "the MCP Registry's base URL (https://registry.modelcontextprotocol.io)")
		fs.StringVar(&search, "search", "", "import only the servers the registry's search finds")
		fs.StringVar(&since, "since", "", "import the servers updated since this RFC 3339 time (default: since the last run)")
	case "leanctx":
	default:
		importUsage(e.stderr)
		return usageError("unknown import source %q", safeArg(args[0]))
	}
	if err := parseFlags(fs, args[1:], e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	var sinceT *time.Time
	switch args[0] {
	case "mcp-registry":
		if fs.NArg() != 0 {
			return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
		}
		if upstream == "" {
			return usageError("import mcp-registry needs --url")
		}
		if since != "" {
			t, err := time.Parse(time.RFC3339Nano, since)
			if err != nil {
				return usageError("--since: want an RFC 3339 time such as 2026-01-02T15:04:05Z")
			}
			sinceT = &t
		}
	case "leanctx":
		if fs.NArg() != 1 {
			return usageError("import leanctx takes one registry file")
		}
	}
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	wf := workflow.New(store, workflow.Options{})
	if args[0] == "leanctx" {
		return importLeanCtx(ctx, wf, fs.Arg(0), e)
	}
	// The total is unknown until the last page: the bar shows activity,
	// the numbers progress.
	pr := newProgress(e.stderr, 0)
	im := &mcpimport.Importer{
		Client:   &mcpimport.Client{BaseURL: upstream, UserAgent: "registryd"},
		Workflow: wf, Marks: store,
		Progress: func(p mcpimport.Progress) { pr.update(p.Seen, importLine(p)) },
	}
	sum, err := im.Run(ctx, mcpimport.Options{Search: search, Since: sinceT})
	pr.done()
	for _, s := range sum.Skips {
		fmt.Fprintf(e.stderr, "skipped %s %s: %s\n", s.Name, s.Version, safeArg(s.Reason))
	}
	if len(sum.Skips) < sum.Skipped {
		fmt.Fprintf(e.stderr, "… and %d more skipped\n", sum.Skipped-len(sum.Skips))
	}
	fmt.Fprintf(e.stdout, "%d servers read, %d new submissions, %d imported before, %d skipped in %s (%.0f servers/s)\n",
		sum.Seen, sum.Created, sum.Existing, sum.Skipped, sum.Elapsed.Round(time.Millisecond), sum.Rate())
	return err
}

func importLeanCtx(ctx context.Context, wf *workflow.Service, path string, e env) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the registry file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, addon.MaxRegistryFileBytes+1))
	if err != nil {
		return fmt.Errorf("read the registry file: %w", err)
	}
	origin := filepath.Base(path)
	sum, err := leanctx.Import(ctx, wf, workflow.Actor{Name: "import:leanctx"}, b, origin)
	if err != nil {
		return fmt.Errorf("%s: %w", safeArg(origin), err)
	}
	for _, s := range sum.Skips {
		fmt.Fprintf(e.stderr, "skipped addons[%d] %s: %s\n", s.Entry, safeArg(s.Name), safeArg(s.Reason))
	}
	fmt.Fprintf(e.stdout, "%d entries, %d new submissions, %d imported before, %d skipped\n",
		sum.Entries, sum.Created, sum.Existing, len(sum.Skips))
	return nil
}

func importUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  registryd import mcp-registry --url URL [--search S] [--since T]")
	fmt.Fprintln(w, "  registryd import leanctx FILE")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "mcp-registry pages through an MCP Registry's /v0.1/servers, converts each")
	fmt.Fprintln(w, "server.json to a manifest and submits it for review (source mcp-registry);")
	fmt.Fprintln(w, "a run asks only for what changed since the last complete one, and a server")
	fmt.Fprintln(w, "version imported before creates nothing new. leanctx submits the entries of")
	fmt.Fprintln(w, "lean-ctx's registry file (source leanctx). A document registryd cannot")
	fmt.Fprintln(w, "convert or refuses is reported and skipped. docs/interop.md has the mapping.")
	fmt.Fprintln(w, "Every subcommand takes --database-url and --data-dir like `registryd serve`.")
}

// importLine is the numbers of an import's progress line.
func importLine(pr mcpimport.Progress) string {
	return fmt.Sprintf("%d servers (%.0f/s): %d new, %d imported before, %d skipped", pr.Seen, pr.Rate(), pr.Created, pr.Existing, pr.Skipped)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// runToken is `registryd token create|list|revoke`: API tokens are made by
// the operator on the machine that reaches the database, never over HTTP.
func runToken(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		tokenUsage(e.stderr)
		return &exitError{code: 2}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		tokenUsage(e.stdout)
		return nil
	}
	var sc storage.Config
	var name, role, principal, expires, format string
	fs := flag.NewFlagSet("registryd token "+args[0], flag.ContinueOnError)
	fs.Usage = func() { tokenUsage(fs.Output()); fmt.Fprintln(fs.Output(), "\nFlags:"); fs.PrintDefaults() }
	storeSettings(fs, e.getenv, &sc)
	switch args[0] {
	case "create":
		fs.StringVar(&name, "name", "", "the token's name (letters, digits and _ - . @); without --principal, also who holds it")
		fs.StringVar(&principal, "principal", "", "who holds the token, when not --name: one person, however many tokens, and names that differ only in case are one")
		fs.StringVar(&role, "role", "", "submitter, maintainer or admin")
		fs.StringVar(&expires, "expires", "", "how long the token lives, in days or hours (90d, 12h); empty: it never expires")
	case "list":
		fs.StringVar(&format, "format", "text", "text (a table) or json (an array of objects)")
	case "revoke":
	default:
		tokenUsage(e.stderr)
		return usageError("unknown token command %q", safeArg(args[0]))
	}
	if err := parseFlags(fs, args[1:], e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	want := 0
	if args[0] == "revoke" {
		want = 1
	}
	if fs.NArg() != want {
		if want == 1 {
			return usageError("token revoke takes one token ID (see `registryd token list`)")
		}
		return usageError("unexpected argument %q", safeArg(fs.Arg(0)))
	}
	if args[0] == "create" && (name == "" || role == "") {
		return usageError("token create needs --name and --role")
	}
	ttl, err := parseTTL(expires)
	if err != nil {
		return usageError("--expires: %v", err)
	}
	if format != "" && format != "text" && format != "json" {
		return usageError("unknown --format %q (want text or json)", safeArg(format))
	}
	if err := checkStore(sc); err != nil {
		return &exitError{code: 2, err: err}
	}

	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	svc := workflow.New(store, workflow.Options{})

	switch args[0] {
	case "create":
		if principal == "" {
			principal = name
		}
		secret, tok, err := svc.IssueToken(ctx, workflow.NewToken{Principal: principal, Name: name, Role: registry.Role(role), TTL: ttl})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, secret)
		until := "it never expires"
		if tok.ExpiresAt != nil {
			until = "it expires at " + tok.ExpiresAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(e.stderr, "created token %s named %s for principal %s (%s); %s; the secret above is shown only once\n",
			tok.ID, safeArg(tok.Name), safeArg(tok.Principal.Name), tok.Role, until)
		return nil
	case "list":
		toks, err := store.Tokens(ctx)
		if err != nil {
			return fmt.Errorf("list tokens: %w", err)
		}
		if format == "json" {
			return printTokensJSON(e.stdout, toks)
		}
		return printTokens(e.stdout, toks, time.Now())
	default:
		if err := svc.RevokeToken(ctx, fs.Arg(0)); err != nil {
			if errors.Is(err, registry.ErrNotFound) {
				return fmt.Errorf("no token with ID %q", safeArg(fs.Arg(0)))
			}
			return err
		}
		fmt.Fprintf(e.stdout, "revoked %s\n", fs.Arg(0))
		return nil
	}
}

func tokenUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  registryd token create --name NAME [--principal WHO] --role submitter|maintainer|admin [--expires 90d]")
	fmt.Fprintln(w, "  registryd token list [--format text|json]")
	fmt.Fprintln(w, "  registryd token revoke TOKEN_ID")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "create prints the new token's secret once on standard output; only its")
	fmt.Fprintln(w, "SHA-256 is stored. Clients send it as `Authorization: Bearer SECRET`.")
	fmt.Fprintln(w, "--expires makes it expire that many days (d) or hours (h) after now: from")
	fmt.Fprintln(w, "then on the API refuses it (401) and the web sessions opened with it end.")
	fmt.Fprintln(w, "Every token belongs to a principal, the person who holds it: --principal,")
	fmt.Fprintln(w, "or --name when it is absent. A principal is created on first use and reused")
	fmt.Fprintln(w, "for any name that matches it after Unicode case folding (Alice = alice); all")
	fmt.Fprintln(w, "its tokens are one maintainer for the two-maintainer rule of verified, and")
	fmt.Fprintln(w, "no token of it may approve what another token of it submitted.")
	fmt.Fprintln(w, "Every subcommand takes --database-url and --data-dir (env REGISTRYD_DATABASE_URL,")
	fmt.Fprintln(w, "REGISTRYD_DATA_DIR) like `registryd serve`.")
}

// printTokens writes one line per token: ID, name, principal, role,
// creation, revocation and expiry times (UTC); an expiry already past at
// now is marked so. Names were validated on creation; safeArg keeps a row
// printable whatever the database holds.
func printTokens(w io.Writer, toks []registry.Token, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPRINCIPAL\tROLE\tCREATED\tREVOKED\tEXPIRES")
	for _, t := range toks {
		revoked, expires := "-", "never"
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.UTC().Format(time.RFC3339)
		}
		if t.ExpiresAt != nil {
			expires = t.ExpiresAt.UTC().Format(time.RFC3339)
			if !now.Before(*t.ExpiresAt) {
				expires += " (expired)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", safeArg(t.ID), safeArg(t.Name), safeArg(t.Principal.Name), safeArg(string(t.Role)),
			t.CreatedAt.UTC().Format(time.RFC3339), revoked, expires)
	}
	return tw.Flush()
}

// tokenJSON is one token as `token list --format json` prints it. The
// hash is never shown.
type tokenJSON struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	PrincipalID   string     `json:"principal_id"`
	PrincipalName string     `json:"principal"`
	Role          string     `json:"role"`
	CreatedAt     time.Time  `json:"created_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	ExpiresAt     *time.Time `json:"expires_at"`
}

// printTokensJSON writes the tokens as one JSON array (empty: []), times in
// UTC, null when there is none.
func printTokensJSON(w io.Writer, toks []registry.Token) error {
	out := make([]tokenJSON, len(toks))
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	for i, t := range toks {
		out[i] = tokenJSON{ID: t.ID, Name: t.Name, PrincipalID: t.Principal.ID, PrincipalName: t.Principal.Name, Role: string(t.Role),
			CreatedAt: t.CreatedAt.UTC(), RevokedAt: utc(t.RevokedAt), ExpiresAt: utc(t.ExpiresAt)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// parseTTL reads --expires: a whole number of days (90d) or hours (12h);
// "" is no expiry (0).
func parseTTL(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour}[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if unit == 0 || err != nil || n <= 0 || s[0] == '+' || time.Duration(n) > workflow.MaxTokenTTL/unit {
		return 0, fmt.Errorf("must be a whole number of days or hours, such as 90d or 12h, of at most %d days", workflow.MaxTokenTTL/(24*time.Hour))
	}
	return time.Duration(n) * unit, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/safetext"
)

// auditReadLimit bounds how much of one input the command reads. The manifest
// decoder has its own, smaller bound and refuses anything over it; this one
// only keeps a huge file or an endless stdin from filling memory.
const auditReadLimit = 4 << 20

const auditUsage = `Usage: registryd audit [--format text|json|sarif] FILE...

Audit addon manifests offline and print their risk reports. A FILE ending in
.json is read as the JSON (registry-file entry) form of a manifest; anything
else as TOML (lean-ctx-addon.toml). "-" reads one manifest from standard input
as TOML.

Formats:
  text   a readable preview of each manifest: tier, transport, command or URL,
         capabilities, then one line per finding (the default)
  json   the canonical report of each file, one per line, byte-identical to
         what the registry serves for the same manifest and ruleset
  sarif  one SARIF 2.1.0 log covering every file, with each finding located
         at its line, for GitHub code scanning

The trust tier is always "community": trust is conferred by a registry, and
this command consults none.

Exit status:
  0  every manifest was audited and none failed (pass or review)
  1  at least one manifest failed the audit
  2  a usage error, or a manifest was refused (unreadable, malformed, unknown
     field, unsafe characters, too large, addon.version missing or not a
     SemVer 2.0.0 version); the refusal is printed on standard error with the
     file, line and field, and the other files are still audited

Flags:
`

// audited is one manifest that made it through the audit.
type audited struct {
	name   string // the file name as given on the command line
	parsed *addon.Manifest
	report *report.Report
	bytes  []byte
}

func runAudit(ctx context.Context, args []string, e env) error {
	fset := flag.NewFlagSet("registryd audit", flag.ContinueOnError)
	format := fset.String("format", "text", "output `format`: text, json or sarif")
	fset.Usage = func() {
		fmt.Fprint(fset.Output(), auditUsage)
		fset.PrintDefaults()
	}
	// Flags may come before, between or after the files (`audit a.toml
	// --format json`); everything after "--" is a file.
	var files []string
	for rest := args; ; {
		if err := parseFlags(fset, rest, e.stdout); err != nil {
			if errors.Is(err, errHelp) {
				return nil
			}
			return err
		}
		left := fset.Args()
		if consumed := len(rest) - len(left); consumed > 0 && rest[consumed-1] == "--" {
			files = append(files, left...)
			break
		}
		if len(left) == 0 {
			break
		}
		files = append(files, left[0])
		rest = left[1:]
	}
	switch *format {
	case "text", "json", "sarif":
	default:
		return usageError("unknown --format %q (want text, json or sarif)", safeArg(*format))
	}
	if len(files) == 0 {
		return usageError("no manifest given (run `registryd audit --help`)")
	}
	if n := countStdin(files); n > 1 {
		return usageError(`"-" (standard input) given %d times; it can be read once`, n)
	}

	var (
		done    []audited
		refused bool
		failed  bool
	)
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		a, ok := auditFile(name, e)
		if !ok {
			refused = true
			continue
		}
		failed = failed || a.report.Verdict == registry.VerdictFail
		switch *format {
		case "json":
			if _, err := fmt.Fprintf(e.stdout, "%s\n", a.bytes); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
		case "text":
			if len(done) > 0 {
				fmt.Fprintln(e.stdout)
			}
			if err := writeText(e.stdout, a); err != nil {
				return fmt.Errorf("write report: %w", err)
			}
		}
		done = append(done, a)
	}
	if *format == "sarif" {
		if err := writeSARIF(e.stdout, done); err != nil {
			return fmt.Errorf("write SARIF: %w", err)
		}
	}
	switch {
	case refused:
		return &exitError{code: 2}
	case failed:
		return &exitError{code: 1}
	}
	return nil
}

func countStdin(files []string) int {
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	return n
}

// auditFile reads, parses, audits and reports one file. When the file cannot
// be read or is refused it prints why on stderr and returns false.
func auditFile(name string, e env) (audited, bool) {
	shown := printable(name)
	data, err := readInput(name, e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %s\n", shown, err)
		return audited{}, false
	}
	var m *addon.Manifest
	if strings.EqualFold(filepath.Ext(name), ".json") {
		m, err = addon.ParseJSON(data)
	} else {
		m, err = addon.ParseTOML(data)
	}
	if err == nil {
		// The registry refuses a manifest without a SemVer version, so
		// the offline audit does too.
		err = addon.CheckVersion(m)
	}
	if err != nil {
		printRefusal(e.stderr, shown, err)
		return audited{}, false
	}
	r, b, err := report.Build(report.Input{
		Manifest: data,
		Parsed:   m,
		Result:   assess.Audit(m),
		Tier:     registry.TierCommunity,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: cannot build the report: %s\n", shown, printable(err.Error()))
		return audited{}, false
	}
	return audited{name: name, parsed: m, report: r, bytes: b}, true
}

// readInput reads one manifest, from stdin for "-". Its errors never repeat
// the file name (the caller prints it, made safe).
func readInput(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, describeOpenError(err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, errors.New("is a directory, not a manifest")
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, auditReadLimit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %s", describeOpenError(err))
	}
	if len(data) > auditReadLimit {
		return nil, fmt.Errorf("too large: over %d bytes", auditReadLimit)
	}
	return data, nil
}

func describeOpenError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return errors.New(printable(pe.Err.Error()))
	}
	return errors.New(printable(err.Error()))
}

// printRefusal prints a refused manifest's field errors as
// `file:line: path: message` (without the line when it is unknown).
func printRefusal(w io.Writer, shown string, err error) {
	var ve *registry.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) == 0 {
		fmt.Fprintf(w, "%s: refused: %s\n", shown, printable(err.Error()))
		return
	}
	for _, f := range ve.Fields {
		path := f.Path
		if path == "" {
			path = "(document)"
		}
		loc := shown
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		fmt.Fprintf(w, "%s: refused: %s: %s\n", loc, printable(path), printable(f.Message))
	}
}

// printable replaces with '?' every character that safetext does not let
// be shown on one line (controls, bidi and other format characters,
// separators, invalid UTF-8, …). Everything else, including non-ASCII
// letters, is kept.
func printable(s string) string { return safetext.Replace(s, 0, '?') }

// displayArg renders one argv element for the text preview: as is when it
// is plainly printable and needs no quoting, otherwise Go-quoted (which
// escapes any control or format character).
func displayArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\") && printable(s) == s {
		return s
	}
	return strconv.QuoteToGraphic(printable(s))
}

func writeText(w io.Writer, a audited) error {
	r, m := a.report, a.parsed
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", printable(a.name))
	name := printable(r.Addon.Name)
	if r.Addon.Version != "" {
		name += " " + printable(r.Addon.Version)
	}
	fmt.Fprintf(&b, "  addon         %s\n", name)
	fmt.Fprintf(&b, "  tier          %s\n", r.Tier)
	fmt.Fprintf(&b, "  verdict       %s (risk %s: %d danger, %d warn, %d info)\n",
		r.Verdict, r.Risk, r.Counts.Danger, r.Counts.Warn, r.Counts.Info)
	switch {
	case r.Transport == "":
		fmt.Fprintf(&b, "  transport     none ([mcp] not declared)\n")
	case r.Transport == string(addon.TransportHTTP):
		fmt.Fprintf(&b, "  transport     http\n")
		fmt.Fprintf(&b, "  url           %s\n", displayArg(assess.RedactURLs(m.MCP.URL)))
		if len(m.MCP.Headers) > 0 {
			fmt.Fprintf(&b, "  headers       %s\n", joinKeys(m.MCP.Headers))
		}
	default:
		fmt.Fprintf(&b, "  transport     %s\n", printable(r.Transport))
		argv := make([]string, 0, 1+len(m.MCP.Args))
		argv = append(argv, displayArg(assess.RedactURLs(m.MCP.Command)))
		for _, a := range m.MCP.Args {
			argv = append(argv, displayArg(assess.RedactURLs(a)))
		}
		fmt.Fprintf(&b, "  command       %s\n", strings.Join(argv, " "))
		if len(m.MCP.Env) > 0 {
			fmt.Fprintf(&b, "  env           %s\n", joinKeys(m.MCP.Env))
		}
	}
	if c := r.Capabilities; c == nil {
		fmt.Fprintf(&b, "  capabilities  not declared\n")
	} else {
		exec := string(c.Exec)
		if c.Exec == addon.ExecAllow {
			exec = "[" + joinDisplay(c.ExecAllow) + "]"
		}
		env := "none"
		if len(c.Env) > 0 {
			env = joinDisplay(c.Env)
		}
		fmt.Fprintf(&b, "  capabilities  network %s, filesystem %s, exec %s, env %s\n",
			printable(string(c.Network)), printable(string(c.Filesystem)), printable(exec), env)
	}
	fmt.Fprintf(&b, "  inferred      network %t, exec %t\n", r.Inferred.Network, r.Inferred.Exec)
	if len(r.Findings) == 0 {
		fmt.Fprintf(&b, "  findings      none\n")
	} else {
		fmt.Fprintf(&b, "  findings\n")
	}
	for _, f := range r.Findings {
		loc := printable(f.Path)
		if f.Line > 0 {
			loc += " (line " + strconv.Itoa(f.Line) + ")"
		}
		note := ""
		if f.Suppressed != nil {
			note = " [suppressed: " + printable(string(f.Suppressed.Reason)) + "]"
		}
		fmt.Fprintf(&b, "    %-6s  %s  [%s at %s]%s\n", f.Level, printable(f.Message), printable(f.Code), loc, note)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func joinKeys(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return joinDisplay(keys)
}

func joinDisplay(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = displayArg(s)
	}
	return strings.Join(out, ", ")
}

// sarifLevel maps a finding level to a SARIF result level.
func sarifLevel(l registry.Level) string {
	switch l {
	case registry.LevelDanger:
		return "error"
	case registry.LevelWarn:
		return "warning"
	case registry.LevelInfo:
		return "note"
	}
	return "none"
}

// artifactURI turns a command-line file name into a SARIF artifact URI:
// relative names stay relative (GitHub code scanning resolves them against
// the repository root), with characters that a URI cannot carry escaped.
func artifactURI(name string) string {
	if name == "-" {
		return "stdin"
	}
	p := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

func writeSARIF(w io.Writer, done []audited) error {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("registryd", "https://github.com/registryd/registryd")
	run.Tool.Driver.WithVersion(assess.Ruleset)
	index := map[string]int{}
	addRule := func(r registry.Rule) {
		rule := run.AddRule(r.Code).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Description)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(r.Remedy)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Level)))
		rule.WithProperties(sarif.NewPropertyBag().Add("blocking", r.Blocking))
		index[r.Code] = len(run.Tool.Driver.Rules) - 1
	}
	for _, r := range assess.Rules() {
		addRule(r)
	}
	for _, a := range done {
		uri := artifactURI(a.name)
		for _, f := range a.report.Findings {
			if _, ok := index[f.Code]; !ok {
				// A code the rule table does not list still needs a rule
				// entry for the result to point at.
				addRule(registry.Rule{Code: f.Code, Level: f.Level, Blocking: f.Blocking, Description: f.Code, Remedy: f.Code})
			}
			phys := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri))
			if f.Line > 0 {
				phys.WithRegion(sarif.NewRegion().WithStartLine(f.Line))
			}
			loc := sarif.NewLocationWithPhysicalLocation(phys).
				AddLogicalLocation(sarif.NewLogicalLocation().WithFullyQualifiedName(f.Path).WithKind("member"))
			res := sarif.NewRuleResult(f.Code).
				WithRuleIndex(index[f.Code]).
				WithLevel(sarifLevel(f.Level)).
				WithMessage(sarif.NewTextMessage(f.Message)).
				AddLocation(loc).
				WithPartialFingerprints(map[string]string{
					// Stable across line moves, so code scanning can follow
					// one finding from commit to commit.
					"registrydFinding/v1": report.SHA256([]byte(f.Code + "\x00" + f.Path))[:32],
				})
			if f.Suppressed != nil {
				res.AddSuppression(sarif.NewSuppression().WithKind("external").WithJustification(string(f.Suppressed.Reason)))
			}
			run.AddResult(res)
		}
	}
	log.AddRun(run)
	var buf bytes.Buffer
	if err := log.PrettyWrite(&buf); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

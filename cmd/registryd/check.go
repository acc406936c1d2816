package main

// The client package is imported as regclient: the tests of this package
// have a type named client.
import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	regclient "github.com/registryd/registryd/client"
	"github.com/registryd/registryd/safetext"
)

const checkUsage = `Usage: registryd check --registry URL --key VERIFIER_KEY [flags] FILE|NAME[@VERSION]

Verify an addon's signed report before installing it, then decide under an
install policy. NAME alone is the addon's latest published version. A FILE
(or "-" for standard input) is a manifest: its bytes are hashed and the
registry is asked for the published version whose manifest has that SHA-256,
so what is checked is exactly what you are about to install.

Checked, in order: the report's DSSE signature by a pinned key; that the
report is about what was asked; the log checkpoint's signature by a pinned
key, its origin and its age (--max-age); the inclusion of the report's leaf,
recomputed from the report, in the checkpoint's tree; and that the log
extends the last checkpoint this machine saw (kept in --state, one file per
origin): a smaller tree is a rollback, another root a fork. Anything that
does not verify is refused.

Policies:
  open           allow, and list the findings
  block_fail     deny a fail verdict (the default)
  block_risky    deny a fail verdict and any danger finding that counts
  verified_only  deny a fail verdict and any addon whose tier is not verified

Exit status:
  0  allowed by the policy
  1  denied by the policy, including a manifest or name the registry has not
     published (except under open)
  2  could not verify (bad signature, unknown key, not in the log, log not
     consistent with the last one seen, stale checkpoint, registry
     unreachable), or a usage error

The text format prints "allowed" or "denied" with what was checked, then one
line per reason; json prints one object. Why a report could not be verified
is printed on standard error.

Flags:
`

// checkReadLimit bounds a manifest read by `registryd check`: the registry
// refuses manifests far smaller than this.
const checkReadLimit = 4 << 20

// checkOptions is `registryd check`'s command line.
type checkOptions struct {
	opts    regclient.Options
	policy  regclient.Policy
	format  string
	target  string
	timeout time.Duration
}

func runCheck(ctx context.Context, args []string, e env) error {
	o, err := parseCheck(args, e)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	ref, err := checkTarget(o.target, e.stdin)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	o.opts.HTTPClient = &http.Client{Timeout: o.timeout}
	c, err := regclient.New(o.opts)
	if err != nil {
		return usageError("%v", err)
	}
	checked, err := c.Check(ctx, ref, o.policy)
	out := checkOutput(ref, o.policy, checked, err)
	if o.format == "json" {
		b, _ := json.Marshal(out)
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else if err == nil {
		writeCheckText(e.stdout, out)
	}
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "registryd check: %s\n", out.Error)
		return &exitError{code: 2}
	case !checked.Decision.Allowed:
		return &exitError{code: 1}
	}
	return nil
}

// parseCheck reads the command line. --help prints the usage on standard
// output and returns errHelp.
func parseCheck(args []string, e env) (checkOptions, error) {
	var o checkOptions
	var policy string
	fs := flag.NewFlagSet("registryd check", flag.ContinueOnError)
	fs.StringVar(&o.opts.Registry, "registry", "", "the registry's base `URL` (required)")
	fs.Func("key", "a pinned verifier `key`, NAME+hash+base64 as 'registryd key generate' printed it and GET /v1/keys lists it (required; repeat it to pin both keys during a rotation)", func(s string) error {
		o.opts.Keys = append(o.opts.Keys, s)
		return nil
	})
	fs.StringVar(&o.opts.Origin, "origin", "", "the log's `origin` (default: the name of the first --key)")
	fs.StringVar(&policy, "policy", string(regclient.DefaultPolicy), "the install `policy`: open, block_fail, block_risky or verified_only")
	fs.StringVar(&o.opts.StateDir, "state", "", "the `directory` that keeps the last checkpoint seen per log (default: registryd/check under the user's config directory, "+defaultStateHint()+")")
	fs.DurationVar(&o.opts.MaxAge, "max-age", regclient.DefaultMaxAge, "refuse a checkpoint signed longer ago than this `duration`")
	fs.StringVar(&o.format, "format", "text", "output `format`: text or json")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "give up on a request to the registry after this `duration`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), checkUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, e.stdout); err != nil {
		return o, err
	}
	if fs.NArg() != 1 {
		return o, usageError("check takes one FILE or NAME[@VERSION] (see `registryd check --help`)")
	}
	o.target = fs.Arg(0)
	var err error
	if o.policy, err = regclient.ParsePolicy(policy); err != nil {
		return o, usageError("--policy: %v", err)
	}
	switch {
	case o.opts.Registry == "":
		return o, usageError("check needs --registry URL")
	case len(o.opts.Keys) == 0:
		return o, usageError("check needs --key VERIFIER_KEY: the registry's verifier key, from a source you trust")
	case o.format != "text" && o.format != "json":
		return o, usageError("--format: want text or json")
	case o.opts.MaxAge <= 0:
		return o, usageError("--max-age: want a positive duration, such as 24h")
	case o.timeout <= 0:
		return o, usageError("--timeout: want a positive duration")
	}
	if o.opts.StateDir == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return o, usageError("no --state, and no user config directory: %v", err)
		}
		o.opts.StateDir = filepath.Join(dir, "registryd", "check")
	}
	return o, nil
}

// defaultStateHint names the default state directory on this machine, for
// --help.
func defaultStateHint() string {
	if dir, err := os.UserConfigDir(); err == nil {
		return safeArg(filepath.Join(dir, "registryd", "check"))
	}
	return "os.UserConfigDir()/registryd/check"
}

// checkTarget turns the argument into a Ref: "-" or an existing regular
// file is a manifest, hashed; anything else NAME[@VERSION].
func checkTarget(target string, stdin io.Reader) (regclient.Ref, error) {
	if target == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, checkReadLimit+1))
		if err != nil {
			return regclient.Ref{}, fmt.Errorf("read standard input: %w", err)
		}
		if len(b) > checkReadLimit {
			return regclient.Ref{}, fmt.Errorf("standard input: more than %d bytes", checkReadLimit)
		}
		return regclient.ManifestRef(b), nil
	}
	if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
		f, err := os.Open(target)
		if err != nil {
			return regclient.Ref{}, fmt.Errorf("open %s: %w", safeArg(target), errors.Unwrap(err))
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, checkReadLimit+1))
		if err != nil {
			return regclient.Ref{}, fmt.Errorf("read %s: %w", safeArg(target), err)
		}
		if len(b) > checkReadLimit {
			return regclient.Ref{}, fmt.Errorf("%s: more than %d bytes", safeArg(target), checkReadLimit)
		}
		return regclient.ManifestRef(b), nil
	}
	ref, err := regclient.ParseRef(target)
	if err != nil {
		return regclient.Ref{}, usageError("%s is neither a file nor NAME[@VERSION]: %v", safeArg(target), err)
	}
	return ref, nil
}

// checkResult is the outcome of `registryd check`, the object of the json
// format. Every string that came from the registry is safe text.
type checkResult struct {
	// Outcome is "allowed", "denied" or "unverified".
	Outcome        string       `json:"outcome"`
	Target         string       `json:"target"`
	Policy         string       `json:"policy"`
	Reasons        []string     `json:"reasons"`
	Error          string       `json:"error,omitempty"`
	Addon          string       `json:"addon,omitempty"`
	Version        string       `json:"version,omitempty"`
	ManifestSHA256 string       `json:"manifest_sha256,omitempty"`
	Verdict        string       `json:"verdict,omitempty"`
	Tier           string       `json:"tier,omitempty"`
	KeyID          string       `json:"key_id,omitempty"`
	Log            *checkLogPos `json:"log,omitempty"`
}

// checkLogPos is where the verified report is in the log.
type checkLogPos struct {
	Origin    string `json:"origin"`
	TreeSize  uint64 `json:"tree_size"`
	RootHash  string `json:"root_hash"`
	Timestamp int64  `json:"timestamp"`
	LeafIndex uint64 `json:"leaf_index"`
}

func checkOutput(ref regclient.Ref, p regclient.Policy, c regclient.Checked, err error) checkResult {
	out := checkResult{Target: ref.String(), Policy: string(p), Reasons: []string{}}
	switch {
	case err != nil:
		out.Outcome = "unverified"
		out.Error = safetext.Replace("could not verify "+ref.String()+": "+err.Error(), 0, '?')
		return out
	case c.Decision.Allowed:
		out.Outcome = "allowed"
	default:
		out.Outcome = "denied"
	}
	out.Reasons = append(out.Reasons, c.Decision.Reasons...)
	if v := c.Verified; v != nil {
		r := v.Report
		out.Addon, out.Version = safeArg(r.Addon.Name), safeArg(r.Addon.Version)
		out.ManifestSHA256, out.Verdict, out.Tier, out.KeyID = r.ManifestSHA256, string(r.Verdict), string(r.Tier), v.KeyID
		out.Log = &checkLogPos{Origin: safeArg(v.Checkpoint.Origin), TreeSize: v.Checkpoint.Size,
			RootHash: base64.StdEncoding.EncodeToString(v.Checkpoint.Hash), Timestamp: v.Checkpoint.Timestamp, LeafIndex: v.LeafIndex}
	}
	return out
}

// writeCheckText writes the text format: a summary line, then one line per
// reason.
func writeCheckText(w io.Writer, out checkResult) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s under %s", out.Outcome, out.Target, out.Policy)
	if out.Log != nil {
		fmt.Fprintf(&b, " (%s@%s: verdict %s, tier %s, log %s entry %d of %d)",
			out.Addon, out.Version, out.Verdict, out.Tier, out.Log.Origin, out.Log.LeafIndex, out.Log.TreeSize)
	}
	b.WriteByte('\n')
	for _, r := range out.Reasons {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

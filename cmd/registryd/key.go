package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// runKey is `registryd key generate`: it makes the key that signs reports
// and the log's checkpoints.
func runKey(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		keyUsage(e.stderr)
		return &exitError{code: 2}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		keyUsage(e.stdout)
		return nil
	}
	if args[0] != "generate" {
		keyUsage(e.stderr)
		return usageError("unknown key command %q", safeArg(args[0]))
	}
	var name, out string
	fset := flag.NewFlagSet("registryd key generate", flag.ContinueOnError)
	fset.Usage = func() { keyUsage(fset.Output()); fmt.Fprintln(fset.Output(), "\nFlags:"); fset.PrintDefaults() }
	fset.StringVar(&name, "name", "", "the key's name, which is also the log's origin: the registry's host name, such as registry.example (no spaces, no '+')")
	fset.StringVar(&out, "out", "", "file to write the signer key to (mode 0600); it must not exist")
	if err := parseFlags(fset, args[1:], e.stdout); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fset.NArg() > 0 {
		return usageError("unexpected argument %q", safeArg(fset.Arg(0)))
	}
	if name == "" || out == "" {
		return usageError("key generate needs --name and --out")
	}
	skey, vkey, err := transparency.GenerateKey(rand.Reader, name)
	if err != nil {
		return usageError("--name: %v", err)
	}
	// O_EXCL: a key is never overwritten, since what it signed would no
	// longer verify.
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--out %s: the file exists; a signing key is never overwritten (choose another file, or remove it yourself)", safeArg(out))
	}
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	_, err = io.WriteString(f, skey+"\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return fmt.Errorf("write %s: %w", safeArg(out), err)
	}
	fmt.Fprintln(e.stdout, vkey)
	return nil
}

func keyUsage(w io.Writer) {
	fmt.Fprintln(w, `Usage: registryd key generate --name NAME --out FILE

Generates an Ed25519 key for signing reports and the transparency log's
checkpoints. The signer key (PRIVATE+KEY+NAME+hash+base64, secret) goes to
FILE, created with mode 0600; the verifier key (NAME+hash+base64, public)
is printed on standard output, for install clients to pin
(registryd check --key) and for GET /v1/keys.

Give the key to the server with REGISTRYD_SIGNING_KEY_FILE=FILE (or
serve --signing-key-file FILE). NAME is the log's origin: keep it when you
rotate to a new key (docs/trust.md, "Key rotation").`)
}

// signingSetting is the signing key files' flag and variable.
var signingSetting = setting{"signing-key-file", "REGISTRYD_SIGNING_KEY_FILE",
	"file holding the key that signs reports and checkpoints (registryd key generate); several separated by commas during a rotation, the first signing first; empty signs with an ephemeral key"}

// maxSigningKeys bounds the comma list of signing key files.
const maxSigningKeys = 4

// loadSigners reads the comma-separated signer key files, in order. An
// error names the file and never quotes its content.
func loadSigners(files string) ([]*transparency.Signer, error) {
	if files == "" {
		return nil, nil
	}
	parts := strings.Split(files, ",")
	if len(parts) > maxSigningKeys {
		return nil, fmt.Errorf("at most %d key files", maxSigningKeys)
	}
	var out []*transparency.Signer
	seen := map[string]bool{}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("file %d of the list is empty", i+1)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", safeArg(p), errors.Unwrap(err))
		}
		s, err := transparency.ParseSigner(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", safeArg(p), err)
		}
		if seen[s.Verifier().ID] {
			return nil, fmt.Errorf("%s: the same key as an earlier file", safeArg(p))
		}
		seen[s.Verifier().ID] = true
		out = append(out, s)
	}
	return out, nil
}

// signingOrEphemeral returns the signing of signers, or an ephemeral key
// with a loud warning on log when there is none.
func signingOrEphemeral(signers []*transparency.Signer, warn func(msg string, args ...any)) (storage.Signing, error) {
	if len(signers) > 0 {
		return storage.Signing{Signers: signers}, nil
	}
	k, err := storage.Ephemeral()
	if err != nil {
		return storage.Signing{}, err
	}
	warn("NO SIGNING KEY: reports and checkpoints are signed with an EPHEMERAL key; no client can verify them after this process stops. "+
		"Generate a key with `registryd key generate` and set REGISTRYD_SIGNING_KEY_FILE.", "verifier_key", k.Verifier().Text)
	return storage.Signing{Signers: []*transparency.Signer{k}}, nil
}

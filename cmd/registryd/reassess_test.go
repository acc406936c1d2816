package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/workflow"
)

// TestReassessCommand runs `registryd reassess` on both stores, off a
// terminal: --all renders every report again, with plain progress lines
// (one per batch here) on standard error and the count and rate on
// standard output, signing published reports with the given key; a second
// run without --all finds nothing stale.
func TestReassessCommand(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		ctx := context.Background()
		skey, _, err := transparency.GenerateKey(rand.Reader, "registry.example")
		if err != nil {
			t.Fatal(err)
		}
		keyFile := filepath.Join(t.TempDir(), "signing.key")
		if err := os.WriteFile(keyFile, []byte(skey), 0o600); err != nil {
			t.Fatal(err)
		}
		signer, err := transparency.ParseSigner(skey)
		if err != nil {
			t.Fatal(err)
		}
		cfg := b.Config(t)
		cfg.Signing = storage.Signing{Signers: []*transparency.Signer{signer}}
		st := fixture.Open(t, cfg)
		svc := workflow.New(st, workflow.Options{})
		const n = 30
		for i := range n {
			fixture.Publish(t, svc, fixture.Clean(fmt.Sprintf("addon-%02d", i), "1.0.0"))
		}
		env := map[string]string{"REGISTRYD_DATABASE_URL": cfg.DatabaseURL, "REGISTRYD_DATA_DIR": cfg.DataDir,
			"REGISTRYD_SIGNING_KEY_FILE": keyFile}

		var stdout, stderr bytes.Buffer
		if err := run(ctx, []string{"reassess", "--all", "--batch", "10"}, envOf(env), nil, &stdout, &stderr); err != nil {
			t.Fatalf("reassess --all: %v\n%s", err, stderr.String())
		}
		if !regexp.MustCompile(`^30 reports re-assessed in [0-9.]+m?s \([0-9]+ reports/s\)\n$`).MatchString(stdout.String()) {
			t.Errorf("stdout = %q, want the count and the rate", stdout.String())
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		want := []string{"30 reports marked for re-rendering", "10/30 reports", "20/30 reports", "30/30 reports"}
		if len(lines) != len(want) || strings.Contains(stderr.String(), "\r") {
			t.Fatalf("stderr = %q, want %d plain lines", stderr.String(), len(want))
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, want[i]) {
				t.Errorf("stderr line %d = %q, want it to start %q", i, l, want[i])
			}
		}
		if !regexp.MustCompile(`^10/30 reports \([0-9]+/s, ETA [0-9hms.]+\)$`).MatchString(lines[1]) {
			t.Errorf("progress line = %q, want the rate and the time left", lines[1])
		}
		if strings.Contains(stderr.String(), "EPHEMERAL") {
			t.Errorf("reassess with a key file warned of an ephemeral key: %q", stderr.String())
		}
		env2, err := st.PublishedEnvelope(ctx, "addon-07", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := transparency.OpenEnvelope(env2.Bytes, signer.Verifier()); err != nil {
			t.Errorf("envelope after reassess --all: %v", err)
		}

		stdout.Reset()
		stderr.Reset()
		if err := run(ctx, []string{"reassess"}, envOf(env), nil, &stdout, &stderr); err != nil {
			t.Fatalf("reassess: %v\n%s", err, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), "0 reports re-assessed in ") || stderr.Len() != 0 {
			t.Errorf("reassess with nothing stale: stdout %q, stderr %q", stdout.String(), stderr.String())
		}
	})
}

func TestReassessUsage(t *testing.T) {
	for _, args := range [][]string{{"reassess", "--batch", "0"}, {"reassess", "extra"}, {"reassess", "--batch", "100000"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, envOf(nil), nil, new(bytes.Buffer), &stderr)
		if exitCode(err) != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, exitCode(err), stderr.String())
		}
	}
}

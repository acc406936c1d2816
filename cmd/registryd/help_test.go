package main

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/buildinfo"
)

// TestHelpAndErrorStreams: asked-for help goes to standard output, once, and
// exits 0, so that `registryd serve --help | less` shows it; a misuse goes
// to standard error, exits 2 and says how to get the help, without printing
// it; nothing a user typed reaches the terminal unescaped.
func TestHelpAndErrorStreams(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		stdoutOnce string // a line the help must hold, once
		stderrHas  string
	}{
		{args: []string{"help"}, stdoutOnce: "Usage: registryd <command> [flags]"},
		{args: []string{"--help"}, stdoutOnce: "Usage: registryd <command> [flags]"},
		{args: []string{"-h"}, stdoutOnce: "Usage: registryd <command> [flags]"},
		{args: []string{"serve", "--help"}, stdoutOnce: "Usage: registryd serve [flags]"},
		{args: []string{"serve", "-h"}, stdoutOnce: "Usage: registryd serve [flags]"},
		{args: []string{"audit", "--help"}, stdoutOnce: "Usage: registryd audit [--format text|json|sarif] FILE..."},
		{args: []string{"audit", "a.toml", "--help"}, stdoutOnce: "Usage: registryd audit [--format text|json|sarif] FILE..."},
		{args: []string{"migrate", "--help"}, stdoutOnce: "Usage: registryd migrate [flags]"},
		{args: []string{"healthcheck", "--help"}, stdoutOnce: "-path"},
		{args: []string{"token", "--help"}, stdoutOnce: "registryd token list"},
		{args: []string{"token", "create", "--help"}, stdoutOnce: "registryd token list"},
		{args: []string{"token", "list", "--help"}, stdoutOnce: "registryd token list"},
		{args: []string{"webhook", "--help"}, stdoutOnce: "registryd webhook retry"},
		{args: []string{"webhook", "retry", "--help"}, stdoutOnce: "registryd webhook retry"},
		{args: []string{"version", "--help"}, stdoutOnce: "Usage: registryd version"},
		{args: []string{"import", "--help"}, stdoutOnce: "registryd import mcp-registry"},
		{args: []string{"import", "leanctx", "--help"}, stdoutOnce: "registryd import mcp-registry"},
		{args: []string{"export", "--help"}, stdoutOnce: "Usage: registryd export"},
		{args: []string{"reassess", "--help"}, stdoutOnce: "Usage: registryd reassess [--all] [--batch N]"},
		{args: []string{"key", "--help"}, stdoutOnce: "Usage: registryd key generate --name NAME --out FILE"},
		{args: []string{"key", "generate", "--help"}, stdoutOnce: "Usage: registryd key generate --name NAME --out FILE"},
		{args: []string{"key"}, code: 2, stderrHas: "Usage: registryd key generate"},
		{args: []string{"key", "generate", "--name", "x"}, code: 2, stderrHas: "key generate needs --name and --out"},
		{args: []string{"key", "rotate"}, code: 2, stderrHas: `unknown key command "rotate"`},
		{args: []string{"import"}, code: 2, stderrHas: "registryd import mcp-registry"},
		{args: []string{"check", "--help"}, stdoutOnce: "Usage: registryd check --registry URL"},
		{args: []string{"check", "--max-age", "soon"}, code: 2, stderrHas: "run `registryd check --help` for usage"},

		{args: nil, code: 2, stderrHas: "Usage: registryd <command> [flags]"},
		{args: []string{"token"}, code: 2, stderrHas: "registryd token list"},
		{args: []string{"webhook"}, code: 2, stderrHas: "registryd webhook retry"},
		{args: []string{"nope"}, code: 2, stderrHas: `unknown command "nope"`},
		{args: []string{"serve", "--bogus"}, code: 2, stderrHas: "registryd serve: flag provided but not defined: -bogus (run `registryd serve --help` for usage)"},
		{args: []string{"audit", "--format"}, code: 2, stderrHas: "registryd audit: flag needs an argument: -format (run `registryd audit --help` for usage)"},
		{args: []string{"migrate", "--data-dir"}, code: 2, stderrHas: "flag needs an argument: -data-dir"},
		{args: []string{"token", "create", "--nope"}, code: 2, stderrHas: "run `registryd token create --help` for usage"},
		{args: []string{"version", "extra"}, code: 2, stderrHas: `unexpected argument "extra"`},
		{args: []string{"serve", "--\x1b]0;pwned\x07"}, code: 2, stderrHas: "flag provided but not defined: -?]0;pwned?"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, envOf(nil), strings.NewReader(""), &stdout, &stderr)
			if got := exitCode(err); got != tt.code {
				t.Errorf("exit status %d, want %d (err %v)", got, tt.code, err)
			}
			if tt.stdoutOnce != "" {
				if n := strings.Count(stdout.String(), tt.stdoutOnce); n != 1 {
					t.Errorf("stdout holds %q %d times, want once:\n%s", tt.stdoutOnce, n, stdout.String())
				}
				if stderr.Len() != 0 {
					t.Errorf("stderr = %q, want nothing when help is asked for", stderr.String())
				}
			}
			if tt.stderrHas != "" {
				if !strings.Contains(stderr.String(), tt.stderrHas) {
					t.Errorf("stderr = %q, want it to hold %q", stderr.String(), tt.stderrHas)
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout = %q, want nothing on a usage error", stdout.String())
				}
				if strings.Contains(tt.stderrHas, "flag") && strings.Contains(stderr.String(), "Flags:") {
					t.Errorf("stderr prints the whole help on a misused flag:\n%s", stderr.String())
				}
			}
			if strings.ContainsAny(stderr.String()+stdout.String(), "\x1b\x07") {
				t.Errorf("output holds a terminal control character: %q", stderr.String())
			}
		})
	}
}

// TestVersionCommand: `registryd version` and `registryd --version` print
// the build's information, the same the /healthz answer carries.
func TestVersionCommand(t *testing.T) {
	want := buildinfo.Read().Lines()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, envOf(nil), nil, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if stdout.String() != want || stderr.Len() != 0 {
			t.Errorf("%v: stdout %q, stderr %q; want %q on stdout alone", args, stdout.String(), stderr.String(), want)
		}
	}
}

// TestVersionOfTheBinary builds registryd as an operator would and checks
// that `registryd version` says what the toolchain stamped into it (go
// version -m): the module version, the VCS revision, its time and the
// modified flag when the build had them, and that it says the revision is
// unknown when it did not (CI builds with -buildvcs=false).
func TestVersionOfTheBinary(t *testing.T) {
	bin := binary(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("registryd version: %v", err)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	stamped := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(meta))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 3 && f[0] == "mod":
			stamped["version"] = f[2]
		case len(f) == 2 && f[0] == "build":
			if k, v, ok := strings.Cut(f[1], "="); ok {
				stamped[k] = v
			}
		}
	}
	lines := string(out)
	if !strings.HasPrefix(lines, "registryd "+stamped["version"]+"\n") {
		t.Errorf("version output %q does not start with the stamped module version %q", lines, stamped["version"])
	}
	if rev := stamped["vcs.revision"]; rev != "" {
		if !strings.Contains(lines, "revision  "+rev) {
			t.Errorf("version output %q lacks the stamped revision %s", lines, rev)
		}
		if got, want := strings.Contains(lines, "uncommitted changes"), stamped["vcs.modified"] == "true"; got != want {
			t.Errorf("version output %q: says modified = %v, the build says %v", lines, got, want)
		}
		if tm := stamped["vcs.time"]; !strings.Contains(lines, "committed "+tm) {
			t.Errorf("version output %q lacks the stamped time %s", lines, tm)
		}
	} else if !strings.Contains(lines, "revision  unknown") {
		t.Errorf("version output %q of a build without VCS information does not say the revision is unknown", lines)
	}
	goVersion := strings.TrimSpace(strings.SplitN(string(meta), "\n", 2)[0])
	goVersion = goVersion[strings.LastIndex(goVersion, " ")+1:]
	if !strings.Contains(lines, "go        "+goVersion+"\n") {
		t.Errorf("version output %q lacks the Go version %s", lines, goVersion)
	}
}

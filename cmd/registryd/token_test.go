package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

func TestTokenCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": dir})
	secret, id := createToken(t, getenv, "dana", "maintainer")

	st, err := backend.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := workflow.New(st, workflow.Options{})
	a, err := svc.Authenticate(ctx, secret)
	if err != nil || a.Name != "dana" || a.Role != registry.RoleMaintainer || a.TokenID != id {
		t.Fatalf("Authenticate(printed secret) = %+v, %v", a, err)
	}

	var out bytes.Buffer
	if err := run(ctx, []string{"token", "list"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), id) || !strings.Contains(out.String(), "dana") || strings.Contains(out.String(), secret) {
		t.Errorf("token list = %q; want the token's ID and name and never its secret", out.String())
	}
	if err := run(ctx, []string{"token", "revoke", id}, getenv, nil, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, secret); err == nil {
		t.Error("a revoked token still authenticates")
	}
	out.Reset()
	if err := run(ctx, []string{"token", "list"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.SplitN(out.String(), id, 2)[1], " -\n") {
		t.Errorf("token list does not show the revocation: %q", out.String())
	}
}

// TestTokenPrincipals: --name reuses the principal of a name that folds
// alike, --principal names the holder, and the listing shows it.
func TestTokenPrincipals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": dir})
	lower, _ := createToken(t, getenv, "alice", "maintainer")
	upper, _ := createToken(t, getenv, "Alice", "maintainer")
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"token", "create", "--name", "ci-runner", "--principal", "ALICE", "--role", "submitter"}, getenv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("token create --principal: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "named ci-runner for principal alice (submitter)") {
		t.Errorf("token create said %q", stderr.String())
	}
	ci := strings.TrimSpace(stdout.String())

	st, err := backend.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := workflow.New(st, workflow.Options{})
	var principals []string
	for _, secret := range []string{lower, upper, ci} {
		a, err := svc.Authenticate(ctx, secret)
		if err != nil || a.Name != "alice" {
			t.Fatalf("Authenticate = %+v, %v; want principal alice", a, err)
		}
		principals = append(principals, a.Principal)
	}
	if principals[0] != principals[1] || principals[1] != principals[2] {
		t.Errorf("principals %v, want one", principals)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"token", "list"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "PRINCIPAL") {
		t.Fatalf("token list = %q", out.String())
	}
	for i, name := range []string{"alice", "Alice", "ci-runner"} {
		if f := strings.Fields(lines[i+1]); len(f) < 3 || f[1] != name || f[2] != "alice" {
			t.Errorf("token list line %q: want name %s, principal alice", lines[i+1], name)
		}
	}
}

func TestTokenRefusals(t *testing.T) {
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()})
	tests := []struct {
		name    string
		args    []string
		code    int
		mention string
	}{
		{"no subcommand", nil, 2, ""},
		{"unknown subcommand", []string{"mint"}, 2, "mint"},
		{"create without role", []string{"create", "--name", "x"}, 2, "--role"},
		{"create without name", []string{"create", "--role", "admin"}, 2, "--name"},
		{"unknown role", []string{"create", "--name", "x", "--role", "root"}, 1, "role"},
		{"name with escape", []string{"create", "--name", "x\x1b[2J", "--role", "admin"}, 1, "name"},
		{"principal with escape", []string{"create", "--name", "x", "--principal", "p\x1b[2J", "--role", "admin"}, 1, "principal"},
		{"revoke without id", []string{"revoke"}, 2, "token ID"},
		{"revoke unknown", []string{"revoke", "tok_nope"}, 1, "no token"},
		{"revoke hostile id", []string{"revoke", "tok_\x1b]0;pwned\x07"}, 1, "no token"},
		{"list with argument", []string{"list", "all"}, 2, "all"},
		{"list in yaml", []string{"list", "--format", "yaml"}, 2, "--format"},
		{"expires without unit", []string{"create", "--name", "x", "--role", "admin", "--expires", "90"}, 2, "--expires"},
		{"expires in weeks", []string{"create", "--name", "x", "--role", "admin", "--expires", "2w"}, 2, "--expires"},
		{"expires zero", []string{"create", "--name", "x", "--role", "admin", "--expires", "0d"}, 2, "--expires"},
		{"expires negative", []string{"create", "--name", "x", "--role", "admin", "--expires", "-1d"}, 2, "--expires"},
		{"expires a Go duration", []string{"create", "--name", "x", "--role", "admin", "--expires", "1h30m"}, 2, "--expires"},
		{"expires past ten years", []string{"create", "--name", "x", "--role", "admin", "--expires", "3661d"}, 2, "--expires"},
		{"expires overflowing", []string{"create", "--name", "x", "--role", "admin", "--expires", "99999999999999999999h"}, 2, "--expires"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"token"}, tt.args...), getenv, nil, &stdout, &stderr)
			if got := exitCode(err); got != tt.code {
				t.Errorf("exit code = %d (%v), want %d", got, err, tt.code)
			}
			all := stdout.String() + stderr.String()
			if !strings.Contains(all, tt.mention) {
				t.Errorf("output %q does not mention %q", all, tt.mention)
			}
			if strings.ContainsAny(all, "\x1b\x07") {
				t.Errorf("output echoes a control character: %q", all)
			}
		})
	}
}

// TestTokenExpiresAndJSON: --expires sets the token's expiry, which both
// listings show; --format json is one array a script can read.
func TestTokenExpiresAndJSON(t *testing.T) {
	ctx := context.Background()
	getenv := envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()})
	var stdout, stderr bytes.Buffer
	before := time.Now().UTC().Truncate(time.Second)
	if err := run(ctx, []string{"token", "create", "--name", "ci", "--role", "submitter", "--expires", "90d"}, getenv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("token create --expires: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "; it expires at ") {
		t.Errorf("token create said %q; want the expiry", stderr.String())
	}
	createToken(t, getenv, "dana", "maintainer")

	var out bytes.Buffer
	if err := run(ctx, []string{"token", "list", "--format", "json"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var toks []struct {
		ID          string     `json:"id"`
		Name        string     `json:"name"`
		PrincipalID string     `json:"principal_id"`
		Principal   string     `json:"principal"`
		Role        string     `json:"role"`
		CreatedAt   time.Time  `json:"created_at"`
		RevokedAt   *time.Time `json:"revoked_at"`
		ExpiresAt   *time.Time `json:"expires_at"`
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&toks); err != nil {
		t.Fatalf("token list --format json is not the documented array: %v", err)
	}
	if len(toks) != 2 || toks[0].Name != "ci" || toks[1].Name != "dana" {
		t.Fatalf("tokens = %+v, want ci and dana", toks)
	}
	ci, dana := toks[0], toks[1]
	if ci.ExpiresAt == nil || ci.ExpiresAt.Sub(ci.CreatedAt) != 90*24*time.Hour || ci.CreatedAt.Before(before) || ci.Principal != "ci" || ci.PrincipalID == "" || ci.Role != "submitter" {
		t.Errorf("ci = %+v, want an expiry 90 days after its creation", ci)
	}
	if dana.ExpiresAt != nil || dana.RevokedAt != nil {
		t.Errorf("dana = %+v, want no expiry and no revocation", dana)
	}
	if strings.Contains(out.String(), "hash") {
		t.Error("the JSON listing shows a hash")
	}

	out.Reset()
	if err := run(ctx, []string{"token", "list"}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "EXPIRES") || !strings.Contains(out.String(), ci.ExpiresAt.UTC().Format(time.RFC3339)) || !strings.Contains(out.String(), "never") {
		t.Errorf("token list = %q; want an EXPIRES column with ci's expiry and dana's never", out.String())
	}
	// A listing made after the expiry says so.
	var table bytes.Buffer
	if err := printTokens(&table, []registry.Token{{ID: "tok_1", Name: "ci", Role: registry.RoleSubmitter, CreatedAt: ci.CreatedAt, ExpiresAt: ci.ExpiresAt}},
		ci.ExpiresAt.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "(expired)") {
		t.Errorf("a listing after the expiry = %q, want it marked expired", table.String())
	}
}

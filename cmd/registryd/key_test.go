package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/workflow"
)

// generateKey runs `registryd key generate` and returns the verifier key it
// printed.
func generateKey(t *testing.T, name, out string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"key", "generate", "--name", name, "--out", out}, envOf(nil), nil, &stdout, &stderr); err != nil {
		t.Fatalf("key generate: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

func TestKeyGenerate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "signing.key")
	vkey := generateKey(t, "registry.example", out)
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(out)
	s, err := transparency.ParseSigner(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the key file does not hold a signer key: %v", err)
	}
	if s.Verifier().Text != vkey || !strings.HasPrefix(vkey, "registry.example+") {
		t.Errorf("printed %q, want the key's verifier key %q", vkey, s.Verifier().Text)
	}
	if strings.Contains(vkey, "PRIVATE") {
		t.Error("the secret key went to standard output")
	}

	// Never overwritten.
	var stderr bytes.Buffer
	err = run(context.Background(), []string{"key", "generate", "--name", "other", "--out", out}, envOf(nil), nil, io.Discard, &stderr)
	if exitCode(err) != 1 || !strings.Contains(stderr.String(), "exists") {
		t.Errorf("key generate over an existing file = %v (%s), want exit 1 saying it exists", err, stderr.String())
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, b) {
		t.Error("the existing key file was changed")
	}
	// A name the note format refuses is a usage error, and no file.
	bad := filepath.Join(t.TempDir(), "bad.key")
	err = run(context.Background(), []string{"key", "generate", "--name", "a b", "--out", bad}, envOf(nil), nil, io.Discard, io.Discard)
	if exitCode(err) != 2 {
		t.Errorf("key generate --name 'a b' = %v, want exit 2", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused key generation left a file: %v", err)
	}
}

func TestServeSigningKeyConfig(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.key")
	os.WriteFile(garbage, []byte("PRIVATE+KEY+secretstuff"), 0o600)
	one := filepath.Join(dir, "one.key")
	generateKey(t, "registry.example", one)
	for _, tc := range []struct{ files, want string }{
		{filepath.Join(dir, "missing.key"), "REGISTRYD_SIGNING_KEY_FILE (--signing-key-file)"},
		{garbage, "invalid key"},
		{one + ",", "file 2 of the list is empty"},
		{one + "," + one, "the same key"},
	} {
		_, err := loadServeConfig(nil, envOf(map[string]string{"REGISTRYD_SIGNING_KEY_FILE": tc.files}), io.Discard)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secretstuff") {
			t.Errorf("REGISTRYD_SIGNING_KEY_FILE=%s: %v, want exit 2 saying %q, never the key", tc.files, err, tc.want)
		}
	}
	for _, v := range []string{"1s", "soon", "48h"} {
		if _, err := loadServeConfig([]string{"--checkpoint-interval", v}, envOf(nil), io.Discard); exitCode(err) != 2 || !strings.Contains(err.Error(), "REGISTRYD_CHECKPOINT_INTERVAL") {
			t.Errorf("--checkpoint-interval %s: %v, want a usage error naming it", v, err)
		}
	}
}

// TestServeSignsWithItsKeys: serve with no key signs with an ephemeral one
// and says so loudly; with a key it serves that key; after a rotation (the
// new key first, the old one after) it signs the checkpoint and the
// envelopes that the old key alone had signed again with both.
func TestServeSignsWithItsKeys(t *testing.T) {
	dir := t.TempDir()
	oldKey, newKey := filepath.Join(dir, "old.key"), filepath.Join(dir, "new.key")
	oldV := generateKey(t, "registry.example", oldKey)
	newV := generateKey(t, "registry.example", newKey)
	data := t.TempDir()

	srv := startServer(t, envOf(map[string]string{"REGISTRYD_DATA_DIR": data}))
	if log := srv.stop(); !strings.Contains(log, "EPHEMERAL") {
		t.Errorf("serve without a key does not warn of the ephemeral key:\n%s", log)
	}

	// Publish with the old key, through the store as serve configures it.
	signers, err := loadSigners(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	st, err := backend.Open(context.Background(), storage.Config{DataDir: data, Signing: storage.Signing{Signers: signers}})
	if err != nil {
		t.Fatal(err)
	}
	fixture.Publish(t, workflow.New(st, workflow.Options{}), fixture.Clean("weather", "1.0.0"))
	st.Close()

	srv = startServer(t, envOf(map[string]string{"REGISTRYD_DATA_DIR": data, "REGISTRYD_SIGNING_KEY_FILE": oldKey}))
	var keys struct {
		Keys []struct {
			VerifierKey string `json:"verifier_key"`
			Status      string `json:"status"`
		} `json:"keys"`
	}
	getJSON(t, srv.url+"/v1/keys", &keys)
	if len(keys.Keys) != 1 || keys.Keys[0].VerifierKey != oldV {
		t.Errorf("GET /v1/keys = %+v, want the one configured key %s", keys, oldV)
	}
	srv.stop()

	srv = startServer(t, envOf(map[string]string{"REGISTRYD_DATA_DIR": data, "REGISTRYD_SIGNING_KEY_FILE": newKey + "," + oldKey}))
	getJSON(t, srv.url+"/v1/keys", &keys)
	if len(keys.Keys) != 2 || keys.Keys[0].VerifierKey != newV || keys.Keys[0].Status != "active" || keys.Keys[1].Status != "retired" {
		t.Errorf("GET /v1/keys during a rotation = %+v, want the new key active, the old retired", keys)
	}
	nv, _ := transparency.ParseVerifierKey(newV)
	ov, _ := transparency.ParseVerifierKey(oldV)
	deadline := time.Now().Add(patience)
	for {
		env := get(t, srv.url+"/v1/addons/weather/report.dsse")
		cp := get(t, srv.url+"/v1/log/checkpoint")
		_, _, envByNew := transparency.OpenEnvelope(env, nv)
		_, _, envByOld := transparency.OpenEnvelope(env, ov)
		_, by, cpErr := transparency.OpenCheckpoint(cp, "registry.example", nv, ov)
		if envByNew == nil && envByOld == nil && cpErr == nil && len(by) == 2 && by[0] == nv.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the rotation: envelope by new key %v, by old %v; checkpoint %v signed by %v\n%s", envByNew, envByOld, cpErr, by, srv.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d\n%s", url, resp.StatusCode, b)
	}
	return b
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	if err := json.Unmarshal(get(t, url), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

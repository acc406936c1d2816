package client_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/client"
	"github.com/registryd/registryd/client/internal/testregistry"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/transparency"
)

var (
	demoManifest  = []byte("[addon]\nname = \"demo\"\nversion = \"1.0.0\"\n")
	otherManifest = []byte("[addon]\nname = \"other\"\nversion = \"2.0.0\"\n")
	danger        = report.Finding{Level: registry.LevelDanger, Code: "fetch_exec", Message: "downloads and runs code", Path: "mcp.args[1]", Blocking: true}
	warn          = report.Finding{Level: registry.LevelWarn, Code: "unpinned", Message: "the package is not pinned", Path: "mcp.args[0]"}
)

// fixture is a test registry with two published addons and a client that
// pins its key.
type fixture struct {
	reg    *testregistry.Registry
	state  string
	client *client.Client
	demo   []byte // demo@1.0.0's report bytes
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	reg, err := testregistry.New("registry.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	f := &fixture{reg: reg, state: t.TempDir()}
	f.demo = f.publish(t, testregistry.Report("demo", "1.0.0", demoManifest, registry.TierVerified, registry.VerdictPass))
	f.publish(t, testregistry.Report("other", "2.0.0", otherManifest, registry.TierCommunity, registry.VerdictFail, danger, warn))
	f.client = f.newClient(t, client.Options{})
	return f
}

func (f *fixture) publish(t *testing.T, r *report.Report) []byte {
	t.Helper()
	b, err := f.reg.Publish(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newClient returns a client of the fixture's registry; fields of opts
// that are set win.
func (f *fixture) newClient(t *testing.T, opts client.Options) *client.Client {
	t.Helper()
	if opts.Registry == "" {
		opts.Registry = f.reg.URL
	}
	if opts.Keys == nil {
		opts.Keys = []string{f.reg.VerifierKey()}
	}
	if opts.StateDir == "" {
		opts.StateDir = f.state
	}
	c, err := client.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func demoRef(t *testing.T) client.Ref {
	t.Helper()
	ref, err := client.ParseRef("demo@1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestVerify(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, ref := range []client.Ref{demoRef(t), {Name: "demo"}, client.ManifestRef(demoManifest)} {
		v, err := f.client.Verify(ctx, ref)
		if err != nil {
			t.Fatalf("Verify(%s): %v", ref, err)
		}
		if !bytes.Equal(v.ReportBytes, f.demo) || v.Report.Addon.Name != "demo" || v.Report.Tier != registry.TierVerified {
			t.Errorf("Verify(%s) = %s", ref, v.ReportBytes)
		}
		if want := transparency.KeyID(mustKey(t, f.reg.VerifierKey()).Public); v.KeyID != want {
			t.Errorf("KeyID = %s, want %s", v.KeyID, want)
		}
		if v.LeafIndex != 0 || v.Checkpoint.Size != 2 || v.Checkpoint.Origin != "registry.example" {
			t.Errorf("leaf %d in checkpoint %+v; want leaf 0 of 2 in registry.example", v.LeafIndex, v.Checkpoint)
		}
	}
	// The checkpoint was saved, and a larger log is accepted through a
	// consistency proof.
	f.reg.AppendLeaf([]byte("another report\n"))
	f.publish(t, testregistry.Report("demo", "1.1.0", []byte("demo 1.1"), registry.TierVerified, registry.VerdictReview, warn))
	v, err := f.client.Verify(ctx, client.Ref{Name: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Report.Addon.Version != "1.1.0" || v.LeafIndex != 3 || v.Checkpoint.Size != 4 {
		t.Errorf("latest demo = %s at %d of %d; want 1.1.0 at 3 of 4", v.Report.Addon.Version, v.LeafIndex, v.Checkpoint.Size)
	}
	saved := savedCheckpoint(t, f.state)
	if !strings.HasPrefix(saved, "registry.example\n4\n") {
		t.Errorf("saved checkpoint:\n%s\nwant the tree of 4", saved)
	}
}

func mustKey(t *testing.T, vkey string) transparency.VerifierKey {
	t.Helper()
	k, err := transparency.ParseVerifierKey(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// savedCheckpoint returns the only checkpoint file in the state directory.
func savedCheckpoint(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) != 1 {
		t.Fatalf("state directory holds %q, want one checkpoint", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// flipPayloadByte returns the envelope with one byte of the report it
// carries flipped, re-encoded so that the envelope is still well formed.
func flipPayloadByte(t *testing.T, env []byte) []byte {
	var e map[string]any
	if err := json.Unmarshal(env, &e); err != nil {
		t.Errorf("tamper: %v", err)
		return env
	}
	p, _ := base64.StdEncoding.DecodeString(e["payload"].(string))
	p[len(p)/2] ^= 0x01
	e["payload"] = base64.StdEncoding.EncodeToString(p)
	b, _ := json.Marshal(e)
	return b
}

// onPath applies f to the answers whose path ends in suffix.
func onPath(suffix string, f func([]byte) []byte) func(string, []byte) []byte {
	return func(path string, b []byte) []byte {
		if strings.HasSuffix(path, suffix) {
			return f(bytes.Clone(b))
		}
		return b
	}
}

// editProof rewrites the JSON proof answers with edit.
func editProof(t *testing.T, edit func(p map[string]any)) func(string, []byte) []byte {
	return onPath("/proof", func(b []byte) []byte {
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("tamper: %v", err)
		}
		edit(p)
		b, _ = json.Marshal(p)
		return b
	})
}

// TestRefusals: every way the registry or the path to it can lie makes
// Verify fail closed with the error that names the check.
func TestRefusals(t *testing.T) {
	other, err := testregistry.NewSigner("registry.example")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture) *client.Client // nil: f.client
		want  error
		says  string // in the error's text, when set
	}{
		{"a flipped byte in the envelope", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(onPath(".dsse", func(b []byte) []byte { b[len(b)-10] ^= 0x01; return b }))
			return nil
		}, client.ErrSignature, ""},
		{"a flipped byte in the report", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(onPath(".dsse", func(b []byte) []byte { return flipPayloadByte(t, b) }))
			return nil
		}, client.ErrSignature, ""},
		{"an envelope that is not JSON", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(onPath(".dsse", func([]byte) []byte { return []byte("<html>") }))
			return nil
		}, client.ErrSignature, ""},
		{"a report signed by another key", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetSigner(other)
			f.publish(t, testregistry.Report("demo", "1.0.0", demoManifest, registry.TierVerified, registry.VerdictPass))
			return nil
		}, client.ErrSignature, ""},
		{"a checkpoint signed by another key", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetSigner(other)
			return nil
		}, client.ErrSignature, ""},
		{"a checkpoint of another origin", func(t *testing.T, f *fixture) *client.Client {
			return f.newClient(t, client.Options{Origin: "elsewhere.example"})
		}, client.ErrSignature, ""},
		{"a report about another addon", func(t *testing.T, f *fixture) *client.Client {
			env, _ := f.reg.Envelope("other@2.0.0")
			f.reg.SetTamper(onPath(".dsse", func([]byte) []byte { return env }))
			return nil
		}, client.ErrMismatch, ""},
		{"a proof with a changed hash", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(editProof(t, func(p map[string]any) {
				p["hashes"] = []string{base64.StdEncoding.EncodeToString(make([]byte, 32))}
			}))
			return nil
		}, client.ErrNotIncluded, ""},
		{"a proof at another index", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(editProof(t, func(p map[string]any) { p["leaf_index"] = 1 }))
			return nil
		}, client.ErrNotIncluded, ""},
		{"a proof of another leaf", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(editProof(t, func(p map[string]any) { p["leaf"] = base64.StdEncoding.EncodeToString([]byte("x")) }))
			return nil
		}, client.ErrNotIncluded, ""},
		{"a proof for another tree size", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(editProof(t, func(p map[string]any) { p["tree_size"] = 3 }))
			return nil
		}, client.ErrNotIncluded, ""},
		{"a proof without hashes", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(editProof(t, func(p map[string]any) { delete(p, "hashes") }))
			return nil
		}, client.ErrNotIncluded, ""},
		{"a report the log does not have", func(t *testing.T, f *fixture) *client.Client {
			f.reg.RollBack(0)
			return nil
		}, client.ErrNotIncluded, ""},
		{"a checkpoint older than the maximum age", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetClock(func() time.Time { return time.Now().Add(-2 * time.Hour) })
			return f.newClient(t, client.Options{MaxAge: time.Hour})
		}, client.ErrStale, ""},
		{"a checkpoint older than the default maximum age", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetClock(func() time.Time { return time.Now().Add(-25 * time.Hour) })
			return nil
		}, client.ErrStale, ""},
		{"a rolled back log", func(t *testing.T, f *fixture) *client.Client {
			f.reg.AppendLeaf([]byte("a later report\n"))
			f.see(t)
			f.reg.RollBack(2)
			return nil
		}, client.ErrInconsistent, "smaller than the 3 this client saw: a rollback"},
		{"a forked log of the same size", func(t *testing.T, f *fixture) *client.Client {
			f.see(t)
			f.reg.Fork(1)
			return nil
		}, client.ErrInconsistent, "another root than the one this client saw: a fork"},
		{"a forked log that grew", func(t *testing.T, f *fixture) *client.Client {
			f.see(t)
			f.reg.Fork(1)
			f.reg.AppendLeaf([]byte("a later report\n"))
			return nil
		}, client.ErrInconsistent, "does not extend the log of size 2 this client saw: a fork"},
		{"a consistency proof that is not JSON", func(t *testing.T, f *fixture) *client.Client {
			f.see(t)
			f.reg.AppendLeaf([]byte("a later report\n"))
			f.reg.SetTamper(onPath("/consistency", func([]byte) []byte { return []byte("{") }))
			return nil
		}, client.ErrInconsistent, ""},
		{"an unreadable saved checkpoint", func(t *testing.T, f *fixture) *client.Client {
			f.see(t)
			files, _ := filepath.Glob(filepath.Join(f.state, "checkpoint-*"))
			if err := os.WriteFile(files[0], []byte("garbage"), 0o600); err != nil {
				t.Fatal(err)
			}
			return nil
		}, client.ErrState, ""},
		{"a registry that is down", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetDown(true)
			return nil
		}, client.ErrUnreachable, ""},
		{"a registry that is gone", func(t *testing.T, f *fixture) *client.Client {
			f.reg.Close()
			return nil
		}, client.ErrUnreachable, ""},
		{"an answer larger than any report", func(t *testing.T, f *fixture) *client.Client {
			f.reg.SetTamper(onPath(".dsse", func([]byte) []byte { return bytes.Repeat([]byte(" "), 9<<20) }))
			return nil
		}, client.ErrMismatch, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			c := tt.setup(t, f)
			if c == nil {
				c = f.client
			}
			before, _ := os.ReadDir(f.state)
			var saved string
			if len(before) > 0 {
				saved = savedCheckpoint(t, f.state)
			}
			v, err := c.Verify(context.Background(), demoRef(t))
			if !errors.Is(err, tt.want) || !errors.Is(err, client.ErrUnverified) {
				t.Fatalf("Verify = %v, %v; want an error matching %v and ErrUnverified", v, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Verify = %v; want it to say %q", err, tt.says)
			}
			if v != nil {
				t.Errorf("Verify returned a report with its error")
			}
			if len(before) > 0 && tt.want != client.ErrState {
				if got := savedCheckpoint(t, f.state); got != saved {
					t.Errorf("a refused checkpoint replaced the saved one:\n%s", got)
				}
			}
			checked, err := c.Check(context.Background(), demoRef(t), client.Open)
			if !errors.Is(err, client.ErrUnverified) || checked.Decision.Allowed {
				t.Errorf("Check under open = %+v, %v; want a refusal", checked.Decision, err)
			}
		})
	}
}

// see makes the fixture's client verify demo, so that it saves the log's
// current checkpoint.
func (f *fixture) see(t *testing.T) {
	t.Helper()
	if _, err := f.client.Verify(context.Background(), demoRef(t)); err != nil {
		t.Fatalf("first Verify: %v", err)
	}
}

// TestRace: a report rendered again between the envelope and the proof is
// fetched again once; a registry that keeps serving a superseded report is
// refused.
func TestRace(t *testing.T) {
	for _, times := range []int{1, 2} {
		f := newFixture(t)
		old, _ := f.reg.Envelope("demo@1.0.0")
		suppressed := testregistry.Report("demo", "1.0.0", demoManifest, registry.TierVerified, registry.VerdictPass)
		suppressed.Counts.Suppressed = 1
		current := f.publish(t, suppressed)
		served := 0
		f.reg.SetTamper(onPath(".dsse", func(b []byte) []byte {
			if served++; served <= times {
				return old
			}
			return b
		}))
		v, err := f.client.Verify(context.Background(), demoRef(t))
		switch times {
		case 1:
			if err != nil || !bytes.Equal(v.ReportBytes, current) {
				t.Errorf("after one superseded answer: Verify = %v; want the current report", err)
			}
		default:
			if !errors.Is(err, client.ErrNotIncluded) {
				t.Errorf("after two superseded answers: Verify = %v, want ErrNotIncluded", err)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tests := []struct {
		ref    string
		policy client.Policy
		want   client.Decision
	}{
		{"demo@1.0.0", client.BlockFail, client.Decision{Allowed: true, Policy: client.BlockFail}},
		{"demo", client.VerifiedOnly, client.Decision{Allowed: true, Policy: client.VerifiedOnly}},
		{"other@2.0.0", client.Open, client.Decision{Allowed: true, Policy: client.Open, Reasons: []string{
			"the verdict is fail",
			"danger fetch_exec at mcp.args[1] (blocking): downloads and runs code",
			"warn unpinned at mcp.args[0]: the package is not pinned"}}},
		{"other@2.0.0", client.BlockFail, client.Decision{Policy: client.BlockFail, Reasons: []string{
			"the verdict is fail",
			"danger fetch_exec at mcp.args[1] (blocking): downloads and runs code",
			"warn unpinned at mcp.args[0]: the package is not pinned"}}},
		{"other", client.VerifiedOnly, client.Decision{Policy: client.VerifiedOnly, Reasons: []string{
			"the verdict is fail",
			"the tier is community, not verified",
			"danger fetch_exec at mcp.args[1] (blocking): downloads and runs code",
			"warn unpinned at mcp.args[0]: the package is not pinned"}}},
		{"missing", client.BlockFail, client.Decision{Policy: client.BlockFail, Reasons: []string{"missing is not published in the registry"}}},
		{"missing@1.0.0", client.Open, client.Decision{Allowed: true, Policy: client.Open, Reasons: []string{"missing@1.0.0 is not published in the registry"}}},
	}
	for _, tt := range tests {
		t.Run(tt.ref+" "+string(tt.policy), func(t *testing.T) {
			ref, err := client.ParseRef(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.client.Check(ctx, ref, tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Decision); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if (got.Verified == nil) != strings.HasPrefix(tt.ref, "missing") {
				t.Errorf("Verified = %v", got.Verified)
			}
		})
	}
	if _, err := f.client.Check(ctx, demoRef(t), client.Policy("lenient")); err == nil {
		t.Errorf("Check under an unknown policy succeeded")
	}
}

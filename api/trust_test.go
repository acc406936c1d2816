package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/client"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
)

// keysOf reads GET /v1/keys as verifier keys, checking each entry against
// the key it names.
func (e *env) keysOf(t *testing.T) []transparency.VerifierKey {
	t.Helper()
	r := e.do(t, req{method: "GET", path: "/v1/keys"})
	if r.status != 200 {
		t.Fatalf("GET /v1/keys = %d\n%s", r.status, r.body)
	}
	var doc struct {
		Keys []struct {
			KeyID       string `json:"key_id"`
			Name        string `json:"name"`
			VerifierKey string `json:"verifier_key"`
			Algorithm   string `json:"algorithm"`
			PublicKey   []byte `json:"public_key"`
			Status      string `json:"status"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil || len(doc.Keys) == 0 {
		t.Fatalf("GET /v1/keys: %v\n%s", err, r.body)
	}
	var out []transparency.VerifierKey
	for i, k := range doc.Keys {
		v, err := transparency.ParseVerifierKey(k.VerifierKey)
		if err != nil {
			t.Fatalf("keys[%d].verifier_key: %v", i, err)
		}
		wantStatus := "retired"
		if i == 0 {
			wantStatus = "active"
		}
		if k.KeyID != v.ID || k.Name != v.Name() || !bytes.Equal(k.PublicKey, v.Public) || k.Algorithm != "ed25519" || k.Status != wantStatus {
			t.Errorf("keys[%d] = %+v, does not describe its verifier key (id %s)", i, k, v.ID)
		}
		out = append(out, v)
	}
	if out[0].ID != e.store.SigningKeys()[0].ID {
		t.Errorf("GET /v1/keys lists %s first, the store signs with %s", out[0].ID, e.store.SigningKeys()[0].ID)
	}
	return out
}

// wantCacheable checks that path answers 200 with a strong ETag of its
// body, 304 to that ETag, and HEAD with the headers alone; it returns the
// body.
func (e *env) wantCacheable(t *testing.T, path, contentType string) []byte {
	t.Helper()
	get := e.do(t, req{method: "GET", path: path})
	if get.status != 200 {
		t.Fatalf("GET %s = %d\n%s", path, get.status, get.body)
	}
	etag := get.header.Get("ETag")
	if want := fmt.Sprintf(`"sha256-%x"`, sha256Sum(get.body)); etag != want {
		t.Errorf("GET %s: ETag %q, want %s", path, etag, want)
	}
	if ct := get.header.Get("Content-Type"); ct != contentType {
		t.Errorf("GET %s: Content-Type %q, want %q", path, ct, contentType)
	}
	nm := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}})
	if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
		t.Errorf("GET %s If-None-Match = %d (%d bytes), want 304", path, nm.status, len(nm.body))
	}
	stale := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": `"sha256-00"`}})
	if stale.status != 200 || !bytes.Equal(stale.body, get.body) {
		t.Errorf("GET %s with a stale ETag = %d, want 200 and the same bytes", path, stale.status)
	}
	head := e.do(t, req{method: "HEAD", path: path})
	if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag || head.header.Get("Content-Length") != fmt.Sprint(len(get.body)) {
		t.Errorf("HEAD %s = %d, %d bytes, ETag %q", path, head.status, len(head.body), head.header.Get("ETag"))
	}
	return get.body
}

type proofBody struct {
	LeafIndex  uint64   `json:"leaf_index"`
	TreeSize   uint64   `json:"tree_size"`
	Leaf       []byte   `json:"leaf"`
	Hashes     [][]byte `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}

// verifyPublished checks everything a client checks for a report path's
// version: the envelope opens with the listed keys and holds exactly the
// report GET's bytes; the proof names the leaf of that report and verifies
// against its checkpoint, which is the one GET /v1/log/checkpoint serves.
// It returns the checkpoint.
func (e *env) verifyPublished(t *testing.T, keys []transparency.VerifierKey, base string) transparency.Checkpoint {
	t.Helper()
	reportBytes := e.do(t, req{method: "GET", path: base + "/report"}).body
	env := e.wantCacheable(t, base+"/report.dsse", transparency.EnvelopeMediaType)
	payload, keyID, err := transparency.OpenEnvelope(env, keys...)
	if err != nil {
		t.Fatalf("%s/report.dsse: %v", base, err)
	}
	if !bytes.Equal(payload, reportBytes) || keyID != keys[0].ID {
		t.Errorf("%s/report.dsse holds\n%s\nsigned by %s; want the report GET's bytes\n%s\nsigned by %s", base, payload, keyID, reportBytes, keys[0].ID)
	}
	rep, err := report.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	var p proofBody
	if err := json.Unmarshal(e.wantCacheable(t, base+"/proof", "application/json"), &p); err != nil {
		t.Fatal(err)
	}
	cp, _, err := transparency.OpenCheckpoint([]byte(p.Checkpoint), keys[0].Name(), keys...)
	if err != nil {
		t.Fatalf("%s/proof checkpoint: %v", base, err)
	}
	if served := e.wantCacheable(t, "/v1/log/checkpoint", transparency.CheckpointMediaType); string(served) != p.Checkpoint {
		t.Errorf("the proof's checkpoint is not the one GET /v1/log/checkpoint serves:\n%s\n%s", p.Checkpoint, served)
	}
	leaf := client.LeafOf(rep, payload).Marshal()
	if !bytes.Equal(p.Leaf, leaf) || p.TreeSize != cp.Size {
		t.Errorf("%s/proof: leaf\n%s\ntree size %d; want the report's leaf\n%s\nand the checkpoint's size %d", base, p.Leaf, p.TreeSize, leaf, cp.Size)
	}
	if err := transparency.VerifyInclusion(leaf, p.LeafIndex, p.TreeSize, p.Hashes, cp.Hash); err != nil {
		t.Errorf("%s/proof: %v", base, err)
	}
	return cp
}

func TestSignedReportsAndLog(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.wantCacheable(t, "/v1/keys", "application/json")
		keys := e.keysOf(t)
		e.publish(t, npxManifest("weather", "1.0.0"))
		first := e.verifyPublished(t, keys, "/v1/addons/weather/versions/1.0.0")
		if latest := e.verifyPublished(t, keys, "/v1/addons/weather"); latest.Size != first.Size {
			t.Errorf("latest and 1.0.0 proved against sizes %d and %d", latest.Size, first.Size)
		}
		// A suppression renders the report again: a new envelope and a
		// new leaf, in a larger tree that extends the first.
		r := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"})
		var rep struct {
			Findings []struct{ Code, Path string } `json:"findings"`
		}
		if err := json.Unmarshal(r.body, &rep); err != nil || len(rep.Findings) == 0 {
			t.Fatalf("report %s: %v, want a finding", r.body, err)
		}
		sr := e.do(t, req{method: "POST", path: "/v1/addons/weather/suppressions", token: e.maintainer, ctype: "application/json",
			body: jsonBody(map[string]any{"code": rep.Findings[0].Code, "path": rep.Findings[0].Path, "reason": "mitigated"})})
		if sr.status != http.StatusCreated {
			t.Fatalf("suppress = %d\n%s", sr.status, sr.body)
		}
		e.publish(t, npxManifest("weather", "1.1.0"))
		second := e.verifyPublished(t, keys, "/v1/addons/weather/versions/1.0.0")
		e.verifyPublished(t, keys, "/v1/addons/weather")
		if second.Size <= first.Size {
			t.Fatalf("tree did not grow: %d then %d", first.Size, second.Size)
		}
		var c struct {
			Hashes [][]byte `json:"hashes"`
		}
		path := fmt.Sprintf("/v1/log/consistency?from=%d&to=%d", first.Size, second.Size)
		if err := json.Unmarshal(e.wantCacheable(t, path, "application/json"), &c); err != nil {
			t.Fatal(err)
		}
		if err := transparency.VerifyConsistency(first.Size, second.Size, c.Hashes, first.Hash, second.Hash); err != nil {
			t.Errorf("consistency %d → %d: %v", first.Size, second.Size, err)
		}

		// A submission that is not published has no envelope and no proof.
		e.submit(t, e.submitter, npxManifest("weather", "2.0.0"), http.StatusCreated)
		for _, p := range []string{"/v1/addons/weather/versions/2.0.0/report.dsse", "/v1/addons/weather/versions/2.0.0/proof",
			"/v1/addons/nowhere/report.dsse", "/v1/addons/nowhere/proof"} {
			wantProblem(t, e.do(t, req{method: "GET", path: p}), 404, "not-found")
		}
	})
}

func TestConsistencyBadParameters(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, npxManifest("weather", "1.0.0"))
		e.publish(t, npxManifest("weather", "1.1.0"))
		// The consistency proofs reach the signed checkpoint's size, which
		// the store signs shortly after each publication.
		storetest.WaitCheckpoint(t, e.store, 2)
		for _, tc := range []struct{ query, field string }{
			{"from=1", "to"},
			{"to=1", "from"},
			{"from=x&to=1", "from"},
			{"from=-1&to=1", "from"},
			{"from=+1&to=2", "from"},
			{"from=01&to=2", "from"},
			{"from=1&to=2.0", "to"},
			{"from=1&to=99999999999999999999", "to"},
			{"from=2&to=1", "from"},
			{"from=0&to=3", "to"},
			{"from=1&to=2&extra=1", "extra"},
			{"from=1&from=1&to=2", "from"},
		} {
			r := e.do(t, req{method: "GET", path: "/v1/log/consistency?" + tc.query})
			p := wantProblem(t, r, 400, "bad-request")
			if len(p.Errors) == 0 || p.Errors[0].Path != tc.field {
				t.Errorf("?%s: problem %+v, want one naming %s", tc.query, p, tc.field)
			}
		}
		for _, q := range []string{"from=0&to=0", "from=0&to=2", "from=2&to=2", "from=1&to=2"} {
			if r := e.do(t, req{method: "GET", path: "/v1/log/consistency?" + q}); r.status != 200 {
				t.Errorf("?%s = %d\n%s", q, r.status, r.body)
			}
		}
	})
}

// TestClientVerifiesServer runs the install client (package client) against
// this server: a report by name and by name@version verifies, and after the
// log grows, the client's saved checkpoint is proved consistent with the new
// one.
func TestClientVerifiesServer(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, npxManifest("weather", "1.0.0"))
		var vkeys []string
		for _, k := range e.keysOf(t) {
			vkeys = append(vkeys, k.Text)
		}
		c, err := client.New(client.Options{Registry: e.srv.URL, Keys: vkeys, StateDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, ref := range []string{"weather@1.0.0", "weather"} {
			r, err := client.ParseRef(ref)
			if err != nil {
				t.Fatal(err)
			}
			v, err := c.Verify(ctx, r)
			if err != nil {
				t.Fatalf("Verify(%s): %v", ref, err)
			}
			if v.Report.Addon.Name != "weather" || v.Report.Addon.Version != "1.0.0" {
				t.Errorf("Verify(%s) = %s@%s", ref, v.Report.Addon.Name, v.Report.Addon.Version)
			}
		}
		before, _ := e.store.Checkpoint(ctx)
		e.publish(t, npxManifest("weather", "1.1.0"))
		e.publish(t, npxManifest("rain", "0.1.0"))
		v, err := c.Verify(ctx, client.Ref{Name: "weather"})
		if err != nil {
			t.Fatalf("Verify after the log grew: %v", err)
		}
		if v.Report.Addon.Version != "1.1.0" || v.Checkpoint.Size <= before.Size {
			t.Errorf("verified %s against size %d, want 1.1.0 in a tree larger than %d", v.Report.Addon.Version, v.Checkpoint.Size, before.Size)
		}
		// A key the server does not sign with: refused.
		other, err := client.New(client.Options{Registry: e.srv.URL, Keys: []string{otherVerifierKey(t)}, StateDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.Verify(ctx, client.Ref{Name: "weather"}); err == nil || !strings.Contains(err.Error(), "signature") {
			t.Errorf("Verify with another key = %v, want a signature failure", err)
		}
	})
}

func otherVerifierKey(t *testing.T) string {
	t.Helper()
	_, vkey, err := transparency.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 64)), "registryd-ephemeral")
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

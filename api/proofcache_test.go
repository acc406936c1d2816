package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/client"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/readcache"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/workflow"
)

// proofCounter counts the store's inclusion-proof reads, and passes the
// store's change tracker on, so that the API still keeps proofs.
type proofCounter struct {
	storage.Reader
	changes *readcache.Tracker
	reads   atomic.Int64
}

func (c *proofCounter) Changes() *readcache.Tracker { return c.changes }

func (c *proofCounter) InclusionProof(ctx context.Context, addon, version string) (storage.Inclusion, error) {
	c.reads.Add(1)
	return c.Reader.InclusionProof(ctx, addon, version)
}

// replica is one registryd on a shared database: its store, its workflow,
// the API over it (keeping proofs in memory) and an API keeping nothing,
// which serves what the database says.
type replica struct {
	store   storage.Store
	wf      *workflow.Service
	counter *proofCounter
	srv     *httptest.Server
	plain   *httptest.Server
}

func newReplica(t *testing.T, cfg storage.Config) *replica {
	t.Helper()
	st := fixture.Open(t, cfg)
	r := &replica{store: st, wf: workflow.New(st, workflow.Options{})}
	r.counter = &proofCounter{Reader: st, changes: st.(interface{ Changes() *readcache.Tracker }).Changes()}
	r.srv = httptest.NewServer(api.New(api.Deps{Reader: r.counter, Workflow: r.wf}))
	t.Cleanup(r.srv.Close)
	r.plain = httptest.NewServer(api.New(api.Deps{Reader: untracked{st}, Workflow: r.wf}))
	t.Cleanup(r.plain.Close)
	return r
}

func getBody(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d, %v\n%s", url, res.StatusCode, err, b)
	}
	if want := fmt.Sprintf(`"sha256-%x"`, sha256Sum(b)); res.Header.Get("ETag") != want {
		t.Errorf("GET %s: ETag %s, want %s", url, res.Header.Get("ETag"), want)
	}
	return b
}

// warmProofs reads each path from r until it is answered without a store
// read (PostgreSQL's listener connects in the background), and returns
// what was served.
func warmProofs(t *testing.T, r *replica, paths []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range paths {
		for {
			getBody(t, r.srv.URL+p)
			n := r.counter.reads.Load()
			b := getBody(t, r.srv.URL+p)
			if r.counter.reads.Load() == n {
				out[p] = string(b)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is still read from the store after 10 s", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return out
}

// appendSigned runs appendOne, which appends one leaf to the log of s, and
// waits until a checkpoint of the grown tree is signed.
func appendSigned(t *testing.T, s storage.Store, appendOne func()) {
	t.Helper()
	var size uint64
	if cp, err := s.Checkpoint(context.Background()); err == nil {
		size = cp.Size
	} else if !errors.Is(err, registry.ErrNotFound) {
		t.Fatal(err)
	}
	appendOne()
	storetest.WaitCheckpoint(t, s, size+1)
}

// verifyProof checks a served proof as a client would: its checkpoint is
// signed by key and the leaf is included in the tree it names.
func verifyProof(t *testing.T, body []byte, key transparency.VerifierKey) transparency.Checkpoint {
	t.Helper()
	var p proofBody
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	cp, _, err := transparency.OpenCheckpoint([]byte(p.Checkpoint), key.Name(), key)
	if err != nil {
		t.Fatalf("proof's checkpoint: %v", err)
	}
	if cp.Size != p.TreeSize {
		t.Errorf("proof of tree size %d against a checkpoint of %d", p.TreeSize, cp.Size)
	}
	if err := transparency.VerifyInclusion(p.Leaf, p.LeafIndex, p.TreeSize, p.Hashes, cp.Hash); err != nil {
		t.Errorf("proof does not verify: %v", err)
	}
	return cp
}

// TestProofCacheAcrossReplicas: two replicas (two stores on one PostgreSQL
// database; two handles on one SQLite file) with one signing key. Replica A
// keeps the proofs of weather in memory; whatever replica B then does to
// the log — an append for another addon, a checkpoint signed again, a new
// leaf for weather's version, a new latest version — A serves the new
// proof once it has heard of it (never the one it kept), B at once, and
// the install client verifies A's answers throughout.
func TestProofCacheAcrossReplicas(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, be fixture.Backend) {
		key, err := storage.Ephemeral()
		if err != nil {
			t.Fatal(err)
		}
		var skew atomic.Int64
		now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		cfg := be.Config(t)
		cfg.Signing = storage.Signing{Signers: []*transparency.Signer{key}, Now: now}
		a, b := newReplica(t, cfg), newReplica(t, cfg)
		ctx := context.Background()

		weather := fixture.Publish(t, a.wf, fixture.Clean("weather", "1.0.0"))
		paths := []string{"/v1/addons/weather/versions/1.0.0/proof", "/v1/addons/weather/proof",
			"/v1/reports/sha256/" + weather.ManifestSHA256 + "/proof"}
		c, err := client.New(client.Options{Registry: a.srv.URL, Keys: []string{key.Verifier().Text}, StateDir: t.TempDir(), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		verifyClient := func(step string) {
			t.Helper()
			for _, ref := range []client.Ref{{Name: "weather", Version: "1.0.0"}, {Name: "weather"}, client.ManifestRef(fixture.Clean("weather", "1.0.0"))} {
				if _, err := c.Verify(ctx, ref); err != nil {
					t.Errorf("%s: the client does not verify %s against A: %v", step, ref, err)
				}
			}
		}
		verifyClient("published")

		steps := []struct {
			name   string
			change func(t *testing.T)
		}{
			// A proof of weather changes with the checkpoint signed after the
			// append, shortly after it.
			{"another addon appended", func(t *testing.T) {
				appendSigned(t, b.store, func() { fixture.Publish(t, b.wf, fixture.Clean("rain", "0.1.0")) })
			}},
			{"checkpoint signed again", func(t *testing.T) {
				skew.Add(int64(2 * time.Second))
				if signed, err := b.store.RefreshCheckpoint(ctx, time.Second); err != nil || !signed {
					t.Fatalf("RefreshCheckpoint = %v, %v; want a new checkpoint", signed, err)
				}
			}},
			{"version's report rendered again", func(t *testing.T) {
				appendSigned(t, b.store, func() { rerenderAs(t, b.store, weather.ID) })
			}},
			{"new latest version", func(t *testing.T) {
				appendSigned(t, b.store, func() { fixture.Publish(t, b.wf, fixture.Clean("weather", "1.1.0")) })
			}},
		}
		for _, st := range steps {
			before := warmProofs(t, a, paths)
			warmProofs(t, b, paths)
			st.change(t)
			// The writer serves the change at once.
			for _, p := range paths {
				if got, want := getBody(t, b.srv.URL+p), getBody(t, b.plain.URL+p); !bytes.Equal(got, want) {
					t.Errorf("%s: the writing replica serves %s from memory:\n%s\nthe database says\n%s", st.name, p, got, want)
				}
			}
			// The other, once it has heard of it, and the change changed
			// every proof.
			for _, p := range paths {
				deadline := time.Now().Add(10 * time.Second)
				for {
					got, want := getBody(t, a.srv.URL+p), getBody(t, a.plain.URL+p)
					if bytes.Equal(got, want) {
						if string(got) == before[p] {
							t.Errorf("%s: %s is unchanged: the step tests nothing there", st.name, p)
						}
						verifyProof(t, got, key.Verifier())
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s: after 10 s replica A still serves %s:\n%s\nthe database says\n%s", st.name, p, got, want)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			verifyClient(st.name)
		}
	})
}

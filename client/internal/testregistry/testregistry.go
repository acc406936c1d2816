// Package testregistry serves a registry's trust endpoints from memory, for
// the tests and examples of package client: signed reports, inclusion
// proofs, checkpoints and consistency proofs, in the wire formats of
// registryd's API, built with the same libraries as the server
// (transparency, github.com/transparency-dev/merkle). A test can make it
// misbehave the ways an attacker would: tamper with any answer, roll its
// log back, fork it, sign with another key or with an old clock.
package testregistry

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/transparency"
)

// Registry is a registry in memory behind a real HTTP listener. Its
// methods are safe for concurrent use with the requests it serves.
type Registry struct {
	// URL is the registry's base URL.
	URL string

	mu       sync.Mutex
	signer   *transparency.Signer // signs reports and checkpoints
	tree     *testonly.Tree
	leaves   [][]byte
	versions map[string]*version // by name@version
	latest   map[string]string   // name → name@version of its latest version
	digests  map[string]string   // manifest sha256 → name@version
	now      func() time.Time
	tamper   func(path string, body []byte) []byte
	down     bool
	srv      *httptest.Server
}

// version is the current report of one addon version.
type version struct {
	envelope []byte
	leaf     []byte
	index    uint64
}

// New starts a registry whose key is named name (which is also the log's
// origin). Close it when done.
func New(name string) (*Registry, error) {
	s, err := NewSigner(name)
	if err != nil {
		return nil, err
	}
	r := &Registry{signer: s, tree: testonly.New(rfc6962.DefaultHasher), versions: map[string]*version{},
		latest: map[string]string{}, digests: map[string]string{}, now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/addons/{name}/report.dsse", r.locked(r.serveEnvelope))
	mux.HandleFunc("GET /v1/addons/{name}/versions/{version}/report.dsse", r.locked(r.serveEnvelope))
	mux.HandleFunc("GET /v1/reports/sha256/{hex}/report.dsse", r.locked(r.serveEnvelope))
	mux.HandleFunc("GET /v1/addons/{name}/versions/{version}/proof", r.locked(r.serveProof))
	mux.HandleFunc("GET /v1/log/checkpoint", r.locked(r.serveCheckpoint))
	mux.HandleFunc("GET /v1/log/consistency", r.locked(r.serveConsistency))
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL
	return r, nil
}

// NewSigner returns a fresh signing key named name.
func NewSigner(name string) (*transparency.Signer, error) {
	skey, _, err := transparency.GenerateKey(rand.Reader, name)
	if err != nil {
		return nil, err
	}
	return transparency.ParseSigner(skey)
}

// Close stops the listener.
func (r *Registry) Close() { r.srv.Close() }

// VerifierKey is the verifier key a client pins.
func (r *Registry) VerifierKey() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.signer.Verifier().Text
}

// SetSigner makes another key sign what the registry serves from now on
// (what it signed before keeps its signatures).
func (r *Registry) SetSigner(s *transparency.Signer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.signer = s
}

// SetClock sets the clock that stamps checkpoints.
func (r *Registry) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = now
}

// SetTamper makes the registry pass every answer's body through f (nil
// stops it), as a hostile network or mirror would.
func (r *Registry) SetTamper(f func(path string, body []byte) []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tamper = f
}

// SetDown makes every request fail with 503 (true) or be served again.
func (r *Registry) SetDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = down
}

// Size is the number of leaves in the log.
func (r *Registry) Size() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tree.Size()
}

// Report returns a valid report of name@version with the given tier,
// verdict and findings, about a manifest whose bytes are manifest.
func Report(name, ver string, manifest []byte, tier registry.Tier, verdict registry.Verdict, findings ...report.Finding) *report.Report {
	sum := sha256.Sum256(manifest)
	wiring := sha256.Sum256(append([]byte("wiring "), manifest...))
	r := &report.Report{
		Schema: report.Schema, Ruleset: "test", Addon: report.Addon{Name: name, Version: ver},
		ManifestSHA256: hex.EncodeToString(sum[:]), Tier: tier, Verdict: verdict, Transport: "stdio",
		Findings: []report.Finding{}, WiringSHA256: hex.EncodeToString(wiring[:]),
	}
	for _, f := range findings {
		r.Findings = append(r.Findings, f)
		if f.Suppressed != nil {
			r.Counts.Suppressed++
			continue
		}
		switch f.Level {
		case registry.LevelInfo:
			r.Counts.Info++
		case registry.LevelWarn:
			r.Counts.Warn++
		case registry.LevelDanger:
			r.Counts.Danger++
		}
		r.Risk = max(r.Risk, f.Level)
	}
	return r
}

// Publish renders rep: it signs the report, appends its leaf to the log and
// makes it the current report of its version, and the latest of its addon.
// It returns the report bytes.
func (r *Registry) Publish(rep *report.Report) ([]byte, error) {
	b, err := report.Encode(rep)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	env, err := transparency.SignEnvelope(b, r.signer)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	leaf := transparency.Leaf{Addon: rep.Addon.Name, Version: rep.Addon.Version, ManifestSHA256: rep.ManifestSHA256, ReportSHA256: hex.EncodeToString(sum[:])}
	if err := leaf.Validate(); err != nil {
		return nil, err
	}
	lb := leaf.Marshal()
	key := rep.Addon.Name + "@" + rep.Addon.Version
	r.versions[key] = &version{envelope: env, leaf: lb, index: r.tree.Size()}
	r.latest[rep.Addon.Name] = key
	r.digests[rep.ManifestSHA256] = key
	r.tree.AppendData(lb)
	r.leaves = append(r.leaves, lb)
	return b, nil
}

// AppendLeaf appends an arbitrary leaf, as another addon's publication
// would.
func (r *Registry) AppendLeaf(leaf []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tree.AppendData(leaf)
	r.leaves = append(r.leaves, leaf)
}

// RollBack truncates the log to its first size leaves, as a server
// restored from an older database would be. The versions keep their
// reports; a version whose leaf is past size is proved against nothing.
func (r *Registry) RollBack(size uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaves = r.leaves[:size]
	r.tree = testonly.New(rfc6962.DefaultHasher)
	r.tree.AppendData(r.leaves...)
}

// Fork replaces the leaf at index with other bytes, keeping the size: the
// log now has another history than the one clients saw.
func (r *Registry) Fork(index uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaves[index] = append([]byte("forked "), r.leaves[index]...)
	r.tree = testonly.New(rfc6962.DefaultHasher)
	r.tree.AppendData(r.leaves...)
}

// Checkpoint returns the signed checkpoint of the log as it is now.
func (r *Registry) Checkpoint() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.checkpoint()
}

func (r *Registry) checkpoint() ([]byte, error) {
	c := transparency.Checkpoint{Timestamp: r.now().Unix()}
	c.Origin = r.signer.Name()
	c.Size = r.tree.Size()
	c.Hash = r.tree.Hash()
	return transparency.SignCheckpoint(c, r.signer)
}

// locked serves h with the registry locked, or 503 while it is down.
func (r *Registry) locked(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.down {
			r.refuse(w, http.StatusServiceUnavailable)
			return
		}
		h(w, req)
	}
}

// write answers body, through the tamper function.
func (r *Registry) write(w http.ResponseWriter, req *http.Request, contentType string, body []byte) {
	if r.tamper != nil {
		body = r.tamper(req.URL.Path, body)
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(body)
}

func (r *Registry) refuse(w http.ResponseWriter, status int) {
	http.Error(w, http.StatusText(status), status)
}

func (r *Registry) serveEnvelope(w http.ResponseWriter, req *http.Request) {
	key := req.PathValue("name") + "@" + req.PathValue("version")
	switch {
	case req.PathValue("hex") != "":
		key = r.digests[req.PathValue("hex")]
	case req.PathValue("version") == "":
		key = r.latest[req.PathValue("name")]
	}
	v, ok := r.versions[key]
	if !ok {
		r.refuse(w, http.StatusNotFound)
		return
	}
	r.write(w, req, transparency.EnvelopeMediaType, v.envelope)
}

func (r *Registry) serveProof(w http.ResponseWriter, req *http.Request) {
	v, ok := r.versions[req.PathValue("name")+"@"+req.PathValue("version")]
	if !ok || v.index >= r.tree.Size() {
		r.refuse(w, http.StatusNotFound)
		return
	}
	hashes, err := r.tree.InclusionProof(v.index, r.tree.Size())
	if err != nil {
		r.refuse(w, http.StatusInternalServerError)
		return
	}
	cp, err := r.checkpoint()
	if err != nil {
		r.refuse(w, http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(map[string]any{"leaf_index": v.index, "tree_size": r.tree.Size(), "leaf": v.leaf, "hashes": nonNil(hashes), "checkpoint": string(cp)})
	r.write(w, req, "application/json", body)
}

func (r *Registry) serveCheckpoint(w http.ResponseWriter, req *http.Request) {
	cp, err := r.checkpoint()
	if err != nil {
		r.refuse(w, http.StatusInternalServerError)
	} else {
		r.write(w, req, transparency.CheckpointMediaType, cp)
	}
}

func (r *Registry) serveConsistency(w http.ResponseWriter, req *http.Request) {
	from, err1 := strconv.ParseUint(req.URL.Query().Get("from"), 10, 64)
	to, err2 := strconv.ParseUint(req.URL.Query().Get("to"), 10, 64)
	if err1 != nil || err2 != nil || from > to || to > r.tree.Size() {
		r.refuse(w, http.StatusBadRequest)
		return
	}
	var hashes [][]byte
	if from > 0 && from < to {
		var err error
		if hashes, err = r.tree.ConsistencyProof(from, to); err != nil {
			r.refuse(w, http.StatusInternalServerError)
			return
		}
	}
	body, _ := json.Marshal(map[string]any{"hashes": nonNil(hashes)})
	r.write(w, req, "application/json", body)
}

func nonNil(h [][]byte) [][]byte {
	if h == nil {
		return [][]byte{}
	}
	return h
}

// Envelope returns the current signed report of key (NAME@VERSION).
func (r *Registry) Envelope(key string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.versions[key]
	if !ok {
		return nil, false
	}
	return v.envelope, true
}

package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// What install clients verify (docs/trust.md): the registry's keys, the
// signed envelopes of published reports, and the transparency log's
// checkpoint and proofs. Everything here is served as the store holds it;
// the store signs and logs when it stores a published report.

type keyJSON struct {
	KeyID       string `json:"key_id"`
	Name        string `json:"name"`
	VerifierKey string `json:"verifier_key"`
	Algorithm   string `json:"algorithm"`
	PublicKey   []byte `json:"public_key"`
	Status      string `json:"status"`
}

// keysDocument is GET /v1/keys's body and ETag: the store's keys, the
// first active and the others retired (still signing during a rotation).
// They do not change while the process runs.
func keysDocument(keys []transparency.VerifierKey) ([]byte, string) {
	out := struct {
		Keys []keyJSON `json:"keys"`
	}{Keys: make([]keyJSON, len(keys))}
	for i, k := range keys {
		status := "retired"
		if i == 0 {
			status = "active"
		}
		out.Keys[i] = keyJSON{KeyID: k.ID, Name: k.Name(), VerifierKey: k.Text, Algorithm: transparency.Algorithm, PublicKey: k.Public, Status: status}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(out); err != nil {
		// Strings and bytes always encode.
		panic("api: encode keys: " + err.Error())
	}
	return buf.Bytes(), etagOf(buf.Bytes())
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"sha256-` + hex.EncodeToString(sum[:]) + `"`
}

// keys serves GET /v1/keys.
func (s *server) keys(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	serveBytes(w, r, s.keysBody, s.keysETag, "application/json", publicReportCache)
	return nil
}

// serveBytes writes b with its strong ETag, answering 304 when the client
// holds it already.
func serveBytes(w http.ResponseWriter, r *http.Request, b []byte, etag, contentType, cacheControl string) {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	if listing.ETagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// versionRef reads {name} and, unless latest, {version}.
func versionRef(r *http.Request, latest bool) (string, string, error) {
	name, err := addonName(r)
	if err != nil {
		return "", "", err
	}
	if latest {
		return name, "", nil
	}
	version := param(r, "version")
	return name, version, validVersion(version)
}

// notModified answers 304 with the published bytes' strong ETag and cache
// policy when inm (an If-None-Match) matches the digest sum, and reports
// whether it did; otherwise it writes nothing.
func notModified(w http.ResponseWriter, inm, sum string) bool {
	etag := `"sha256-` + sum + `"`
	if !listing.ETagMatches(inm, etag) {
		return false
	}
	h := w.Header()
	h["Etag"] = []string{etag}
	h["Cache-Control"] = cachePublicReport
	w.WriteHeader(http.StatusNotModified)
	return true
}

// publishedEnvelope serves the DSSE envelope of a published report, as
// publishedReport serves the report, a revalidation answered from the digest.
func (s *server) publishedEnvelope(latest bool) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := knownParams(r); err != nil {
			return err
		}
		name, version, err := versionRef(r, latest)
		if err != nil {
			return err
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			sum, err := s.reader.PublishedEnvelopeDigest(r.Context(), name, version)
			if err != nil {
				return notFoundAs(err, "no such published addon or version, or its report is not signed yet")
			}
			if notModified(w, inm, sum) {
				return nil
			}
		}
		env, err := s.reader.PublishedEnvelope(r.Context(), name, version)
		if err != nil {
			return notFoundAs(err, "no such published addon or version, or its report is not signed yet")
		}
		serveBytes(w, r, env.Bytes, `"sha256-`+env.SHA256+`"`, transparency.EnvelopeMediaType, publicReportCache)
		return nil
	})
}

// checkpoint serves the log's latest signed checkpoint, byte for byte.
func (s *server) checkpoint(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	cp, err := s.reader.Checkpoint(r.Context())
	if err != nil {
		return notFoundAs(err, "the log has no signed checkpoint yet")
	}
	serveBytes(w, r, cp.Signed, etagOf(cp.Signed), transparency.CheckpointMediaType, publicReportCache)
	return nil
}

// proof serves the inclusion proof of a published version's current
// report against the latest checkpoint.
func (s *server) proof(latest bool) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if err := knownParams(r); err != nil {
			return err
		}
		name, version, err := versionRef(r, latest)
		if err != nil {
			return err
		}
		k := proofKey{name: name, version: version}
		if p, ok := s.proofs.Get(k); ok {
			p.serve(w, r)
			return nil
		}
		// The proof is of the addon's version (its current leaf, which
		// only an append or a change to the addon's versions moves) and of
		// the log (its latest checkpoint).
		st := s.changes.WithLog(s.changes.Addon(name))
		p, err := s.reader.InclusionProof(r.Context(), name, version)
		if err != nil {
			return notFoundAs(err, "no such published addon or version, or its report is not in the log yet")
		}
		rp := renderProof(p)
		s.proofs.Put(k, rp, st)
		rp.serve(w, r)
		return nil
	})
}

// proofKey is the request a proof answers: a version by name (version ""
// for the latest), or by its manifest's digest.
type proofKey struct{ name, version, manifest string }

// renderedProof is a proof's answer, its bytes and their strong ETag,
// kept in memory until the log or the version changes.
type renderedProof struct {
	body []byte
	etag string
}

func (p renderedProof) serve(w http.ResponseWriter, r *http.Request) {
	serveBytes(w, r, p.body, p.etag, "application/json", publicReportCache)
}

// renderProof encodes the answer of a GET …/proof.
func renderProof(p storage.Inclusion) renderedProof {
	b := appendProofJSON(make([]byte, 0, proofJSONSize(p)), p)
	return renderedProof{body: b, etag: etagOf(b)}
}

// proofJSON is the answer of a GET …/proof, as appendProofJSON writes it
// (encoding/json, for the tests that hold the two to the same bytes).
type proofJSON struct {
	LeafIndex  uint64   `json:"leaf_index"`
	TreeSize   uint64   `json:"tree_size"`
	Leaf       []byte   `json:"leaf"`
	Hashes     [][]byte `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}

// proofJSONSize is about the length of p's JSON, and at least it for a
// checkpoint of text with few characters to escape (as notes are), so
// that it is written into one allocation.
func proofJSONSize(p storage.Inclusion) int {
	n := 128 + base64.StdEncoding.EncodedLen(len(p.Leaf)) + 2*len(p.Checkpoint)
	for _, h := range p.Hashes {
		n += base64.StdEncoding.EncodedLen(len(h)) + 3
	}
	return n
}

// appendProofJSON appends p's JSON to b: the bytes json.Encoder writes of
// proofJSON, trailing newline included, with the hashes' base64 written
// in place.
func appendProofJSON(b []byte, p storage.Inclusion) []byte {
	b = append(b, `{"leaf_index":`...)
	b = strconv.AppendUint(b, p.LeafIndex, 10)
	b = append(b, `,"tree_size":`...)
	b = strconv.AppendUint(b, p.TreeSize, 10)
	b = append(b, `,"leaf":`...)
	b = appendBase64(b, p.Leaf)
	b = append(b, `,"hashes":[`...)
	for i, h := range p.Hashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBase64(b, h)
	}
	b = append(b, `],"checkpoint":`...)
	// The checkpoint is text and escaped as encoding/json escapes it (a
	// string always encodes).
	cp, _ := json.Marshal(string(p.Checkpoint))
	b = append(b, cp...)
	return append(b, "}\n"...)
}

// appendBase64 appends v as encoding/json writes a []byte: a string of its
// standard base64, null for nil.
func appendBase64(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

func nonNilHashes(h [][]byte) [][]byte {
	if h == nil {
		return [][]byte{}
	}
	return h
}

// writeCacheable encodes v and serves it with the ETag of its bytes.
func writeCacheable(w http.ResponseWriter, r *http.Request, v any, cacheControl string) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	serveBytes(w, r, buf.Bytes(), etagOf(buf.Bytes()), "application/json", cacheControl)
	return nil
}

// immutableCache lets any cache keep an answer that can never change: a
// consistency proof between two sizes of an append-only log.
const immutableCache = "public, max-age=31536000, immutable"

// consistency serves GET /v1/log/consistency?from=A&to=B.
func (s *server) consistency(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r, "from", "to"); err != nil {
		return err
	}
	from, err := sizeParam(r, "from")
	if err != nil {
		return err
	}
	to, err := sizeParam(r, "to")
	if err != nil {
		return err
	}
	if from > to {
		return badRequest("from", "must not be larger than to")
	}
	hs, err := s.reader.ConsistencyProof(r.Context(), from, to)
	var ve *registry.ValidationError
	if errors.As(err, &ve) {
		// A size beyond the log's is a bad parameter, as a malformed one.
		return problem.BadParameters(ve.Fields...)
	}
	if err != nil {
		return err
	}
	return writeCacheable(w, r, struct {
		Hashes [][]byte `json:"hashes"`
	}{nonNilHashes(hs)}, immutableCache)
}

// sizeParam reads a required tree size: a decimal number, no sign, no
// leading zero.
func sizeParam(r *http.Request, name string) (uint64, error) {
	v := r.URL.Query().Get(name)
	n, err := strconv.ParseUint(v, 10, 63)
	if err != nil || strconv.FormatUint(n, 10) != v {
		return 0, badRequest(name, "must be a tree size: a whole number, 0 or more, in decimal")
	}
	return n, nil
}

package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/transparency"
)

// DefaultMaxAge is the oldest checkpoint a client accepts when it is given
// no maximum age. A registry signs a new checkpoint at least every ten
// minutes by default, so a day leaves room for a registry that is down for
// a while, and still refuses a log frozen in the past.
const DefaultMaxAge = 24 * time.Hour

// The largest answers the client reads. A report is bounded by the
// registry's manifest limits; the envelope is its base64 and a signature.
// A proof holds a checkpoint and at most 64 hashes, a consistency proof at
// most 128.
const (
	maxEnvelope    = 8 << 20
	maxProof       = 64 << 10
	maxConsistency = 64 << 10
	maxProofHashes = 64
)

// Options configures a Client. Registry, Keys and StateDir are required.
type Options struct {
	// Registry is the registry's base URL, such as
	// https://registry.example.com (http or https, no query or fragment).
	Registry string
	// Keys are the pinned verifier keys, in the signed-note form
	// NAME+hash+base64 that `registryd key generate` prints and GET
	// /v1/keys lists. A report and a checkpoint must be signed by one of
	// them. During a key rotation, pin both keys.
	Keys []string
	// Origin is the origin line the log's checkpoints must carry. Empty
	// means the name of the first key, which is the registry's default.
	Origin string
	// StateDir is the directory where the client keeps the last checkpoint
	// it verified for each origin. Clients that share a directory share
	// what they have seen.
	StateDir string
	// MaxAge is the oldest checkpoint the client accepts, by its
	// Timestamp. Zero means DefaultMaxAge.
	MaxAge time.Duration
	// HTTPClient makes the requests. Nil means a client with a 30 s
	// timeout.
	HTTPClient *http.Client
	// Now is the clock that checkpoints are aged against. Nil means
	// time.Now.
	Now func() time.Time
}

// Client fetches reports from one registry and verifies them. It is safe
// for concurrent use; its checks of the log against the state directory
// are serialised.
type Client struct {
	base   *url.URL
	keys   []transparency.VerifierKey
	origin string
	state  stateDir
	maxAge time.Duration
	http   *http.Client
	now    func() time.Time

	mu sync.Mutex // held while the saved checkpoint is read, compared and replaced
}

// New returns a client for the registry and keys of opts. It fails when the
// URL or a key does not parse, or StateDir or Keys is empty; it does not
// touch the network or the state directory.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(opts.Registry)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, errors.New("registry: want an http or https URL with a host, and no user, query or fragment")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	if len(opts.Keys) == 0 {
		return nil, errors.New("keys: pin at least one verifier key (NAME+hash+base64)")
	}
	c := &Client{base: u, origin: opts.Origin, state: stateDir{opts.StateDir}, maxAge: opts.MaxAge, http: opts.HTTPClient, now: opts.Now}
	for i, s := range opts.Keys {
		k, err := transparency.ParseVerifierKey(s)
		if err != nil {
			return nil, fmt.Errorf("keys[%d]: %w", i, err)
		}
		c.keys = append(c.keys, k)
	}
	if c.origin == "" {
		c.origin = c.keys[0].Name()
	}
	if opts.StateDir == "" {
		return nil, errors.New("state directory: empty (the client must remember the log it has seen)")
	}
	if c.maxAge < 0 {
		return nil, errors.New("maximum age: negative")
	}
	if c.maxAge == 0 {
		c.maxAge = DefaultMaxAge
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// Verified is a report that passed every check of Client.Verify.
type Verified struct {
	// Report is the decoded report, and ReportBytes the exact signed bytes
	// (what GET …/report serves).
	Report      *report.Report
	ReportBytes []byte
	// KeyID is the ID of the pinned key whose signature verified the
	// report (transparency.KeyID).
	KeyID string
	// LeafIndex is the report's position in the log, and Checkpoint the
	// signed state of the log it was proved against.
	LeafIndex  uint64
	Checkpoint transparency.Checkpoint
}

// Verify fetches the signed report that ref names and verifies it. In
// order, it checks:
//
//  1. the envelope is signed by a pinned key (ErrSignature), its payload is
//     a report, and the report is about what ref asked for (ErrMismatch);
//  2. the proof's checkpoint is a note signed by a pinned key with the
//     expected origin (ErrSignature), and no older than the maximum age
//     (ErrStale);
//  3. the log leaf recomputed from the report (addon, version, manifest
//     digest, digest of the report bytes) is included in that checkpoint's
//     tree (ErrNotIncluded);
//  4. the checkpoint extends the last one this client saved for the
//     origin: not a smaller tree, not another root for the same size, and
//     a consistency proof from the saved tree that verifies
//     (ErrInconsistent). It then becomes the saved checkpoint.
//
// Every error that means "could not verify" matches ErrUnverified; the
// caller must not install. When the registry has no published report for
// ref the error is ErrNotPublished. A ref that is not valid is an error
// matching neither.
func (c *Client) Verify(ctx context.Context, ref Ref) (*Verified, error) {
	if err := ref.validate(); err != nil {
		return nil, err
	}
	// The envelope and the proof are two requests: a report rendered again
	// in between (a suppression, a tier change) makes the proof's leaf
	// another report's. Asking again once resolves such a race; a second
	// mismatch is a refusal.
	v, err := c.verifyOnce(ctx, ref)
	if errors.Is(err, errRaced) {
		v, err = c.verifyOnce(ctx, ref)
	}
	return v, err
}

// errRaced marks a proof whose leaf is not the report's: either the report
// changed between the two requests, or the registry proves something else.
var errRaced = fmt.Errorf("%w: the proof is about another report than the one served", ErrNotIncluded)

func (c *Client) verifyOnce(ctx context.Context, ref Ref) (*Verified, error) {
	envelope, err := c.get(ctx, ref.envelopePath(), maxEnvelope)
	if errors.Is(err, errNotFound) {
		return nil, fmt.Errorf("%s: %w", ref, ErrNotPublished)
	}
	if err != nil {
		return nil, err
	}
	v, err := c.openReport(ref, envelope)
	if err != nil {
		return nil, err
	}
	body, err := c.get(ctx, proofPath(v.Report.Addon.Name, v.Report.Addon.Version), maxProof)
	if errors.Is(err, errNotFound) {
		return nil, fmt.Errorf("%w: the registry has no proof for the report", ErrNotIncluded)
	}
	if err != nil {
		return nil, err
	}
	p, err := parseProof(body)
	if err != nil {
		return nil, err
	}
	if err := c.verifyInclusion(v, p); err != nil {
		return nil, err
	}
	if err := c.advance(ctx, p.Checkpoint, v.Checkpoint); err != nil {
		return nil, err
	}
	return v, nil
}

// openReport verifies the envelope's signature and that its report is
// about ref.
func (c *Client) openReport(ref Ref, envelope []byte) (*Verified, error) {
	payload, keyID, err := transparency.OpenEnvelope(envelope, c.keys...)
	if err != nil {
		return nil, fmt.Errorf("%w: the report: %v", ErrSignature, err)
	}
	r, err := report.Decode(payload)
	if err != nil {
		return nil, fmt.Errorf("%w: the signed payload is not a report: %v", ErrMismatch, err)
	}
	if err := ref.matches(r); err != nil {
		return nil, err
	}
	return &Verified{Report: r, ReportBytes: payload, KeyID: keyID}, nil
}

// proof is the answer of GET …/proof.
type proof struct {
	LeafIndex  uint64
	TreeSize   uint64
	Leaf       []byte
	Hashes     [][]byte
	Checkpoint []byte
}

// parseProof decodes GET …/proof: every field present, the leaf and hashes
// standard base64, at most maxProofHashes hashes. Fields the client does
// not know are ignored, so that a registry may add some.
func parseProof(b []byte) (proof, error) {
	var w struct {
		LeafIndex  *uint64  `json:"leaf_index"`
		TreeSize   *uint64  `json:"tree_size"`
		Leaf       *[]byte  `json:"leaf"`
		Hashes     [][]byte `json:"hashes"`
		Checkpoint *string  `json:"checkpoint"`
	}
	if err := decodeJSON(b, &w); err != nil {
		return proof{}, fmt.Errorf("%w: the proof: %v", ErrNotIncluded, err)
	}
	switch {
	case w.LeafIndex == nil || w.TreeSize == nil || w.Leaf == nil || w.Hashes == nil || w.Checkpoint == nil:
		return proof{}, fmt.Errorf("%w: the proof lacks one of leaf_index, tree_size, leaf, hashes, checkpoint", ErrNotIncluded)
	case len(w.Hashes) > maxProofHashes:
		return proof{}, fmt.Errorf("%w: the proof has more than %d hashes", ErrNotIncluded, maxProofHashes)
	}
	return proof{LeafIndex: *w.LeafIndex, TreeSize: *w.TreeSize, Leaf: *w.Leaf, Hashes: w.Hashes, Checkpoint: []byte(*w.Checkpoint)}, nil
}

// decodeJSON decodes one JSON object into the struct v points to, and
// nothing after it, describing an error without quoting the input. Field
// names must be spelled exactly as v's json tags spell them: encoding/json
// alone would also match "Checkpoint" or "HASHES", and a verifier must not
// read a field under a name the registry never writes.
func decodeJSON(b []byte, v any) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err == nil {
		if err := exactKeys(keys, v); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("not JSON (at byte %d)", syn.Offset)
		case errors.As(err, &typ):
			return fmt.Errorf("field %s has the wrong type", safe(typ.Field))
		}
		return errors.New("not the expected JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}

// exactKeys refuses a key of keys that names one of the fields of the
// struct v points to in another letter case.
func exactKeys(keys map[string]json.RawMessage, v any) error {
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		for k := range keys {
			if k != name && strings.EqualFold(k, name) {
				return fmt.Errorf("field %q is spelled %q", name, safe(k))
			}
		}
	}
	return nil
}

// verifyInclusion opens the proof's checkpoint, checks its age, and checks
// that the report's leaf is in its tree. It fills v's LeafIndex and
// Checkpoint.
func (c *Client) verifyInclusion(v *Verified, p proof) error {
	cp, _, err := transparency.OpenCheckpoint(p.Checkpoint, c.origin, c.keys...)
	if err != nil {
		return fmt.Errorf("%w: the log's checkpoint: %v", ErrSignature, err)
	}
	if age := c.now().Sub(cp.Time()); age > c.maxAge {
		return fmt.Errorf("%w: signed %s ago, more than the maximum age %s", ErrStale, age.Truncate(time.Second), c.maxAge)
	}
	if cp.Size != p.TreeSize {
		return fmt.Errorf("%w: the proof is for a tree of size %d, the checkpoint's is %d", ErrNotIncluded, p.TreeSize, cp.Size)
	}
	leaf := LeafOf(v.Report, v.ReportBytes).Marshal()
	if !bytes.Equal(leaf, p.Leaf) {
		return errRaced
	}
	if err := transparency.VerifyInclusion(leaf, p.LeafIndex, p.TreeSize, p.Hashes, cp.Hash); err != nil {
		return fmt.Errorf("%w: %v", ErrNotIncluded, err)
	}
	v.LeafIndex, v.Checkpoint = p.LeafIndex, cp
	return nil
}

// LeafOf returns the log leaf of a report: its addon, version and manifest
// digest, and the SHA-256 of the exact report bytes.
func LeafOf(r *report.Report, reportBytes []byte) transparency.Leaf {
	sum := sha256.Sum256(reportBytes)
	return transparency.Leaf{Addon: r.Addon.Name, Version: r.Addon.Version, ManifestSHA256: r.ManifestSHA256, ReportSHA256: hex.EncodeToString(sum[:])}
}

// advance checks that cp, whose signed note is signed, extends the
// checkpoint saved for its origin, and saves it when it is larger.
func (c *Client) advance(ctx context.Context, signed []byte, cp transparency.Checkpoint) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	saved, err := c.state.load(cp.Origin)
	if errors.Is(err, fs.ErrNotExist) {
		return c.save(cp.Origin, signed)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrState, err)
	}
	old, err := parseSaved(saved)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrState, c.state.path(cp.Origin), err)
	}
	if old.Size >= cp.Size {
		return checkConsistency(old, cp, nil)
	}
	hashes, err := c.consistency(ctx, old.Size, cp.Size)
	if err != nil {
		return err
	}
	if err := checkConsistency(old, cp, hashes); err != nil {
		return err
	}
	return c.save(cp.Origin, signed)
}

func (c *Client) save(origin string, signed []byte) error {
	if err := c.state.save(origin, signed); err != nil {
		return fmt.Errorf("%w: %v", ErrState, err)
	}
	return nil
}

// checkConsistency checks that cp extends old: a smaller tree is a
// rollback, the same size with another root a fork, and a larger tree must
// come with a consistency proof (hashes) that verifies.
func checkConsistency(old, cp transparency.Checkpoint, hashes [][]byte) error {
	switch {
	case cp.Size < old.Size:
		return fmt.Errorf("%w: the log's size is %d, smaller than the %d this client saw: a rollback", ErrInconsistent, cp.Size, old.Size)
	case cp.Size == old.Size:
		if !bytes.Equal(cp.Hash, old.Hash) {
			return fmt.Errorf("%w: the log of size %d has another root than the one this client saw: a fork", ErrInconsistent, cp.Size)
		}
		return nil
	}
	if err := transparency.VerifyConsistency(old.Size, cp.Size, hashes, old.Hash, cp.Hash); err != nil {
		return fmt.Errorf("%w: the log of size %d does not extend the log of size %d this client saw: a fork (%v)", ErrInconsistent, cp.Size, old.Size, err)
	}
	return nil
}

// parseSaved reads back a checkpoint note the client saved. Its signature
// was verified before it was saved, perhaps by a key that has since been
// retired, so it is not verified again: only the body is read.
func parseSaved(b []byte) (transparency.Checkpoint, error) {
	_, err := note.Open(b, note.VerifierList())
	var unverified *note.UnverifiedNoteError
	if !errors.As(err, &unverified) {
		return transparency.Checkpoint{}, errors.New("not a signed note")
	}
	return transparency.ParseCheckpoint([]byte(unverified.Note.Text))
}

// consistency fetches the proof that the tree of size `to` extends the tree
// of size `from`.
func (c *Client) consistency(ctx context.Context, from, to uint64) ([][]byte, error) {
	path := "/v1/log/consistency?from=" + strconv.FormatUint(from, 10) + "&to=" + strconv.FormatUint(to, 10)
	b, err := c.get(ctx, path, maxConsistency)
	if errors.Is(err, errNotFound) {
		return nil, fmt.Errorf("%w: the registry has no consistency proof from size %d to %d", ErrInconsistent, from, to)
	}
	if err != nil {
		return nil, err
	}
	return parseConsistency(b)
}

// parseConsistency decodes GET /v1/log/consistency: {"hashes":[…]}, at most
// 2×maxProofHashes standard base64 hashes.
func parseConsistency(b []byte) ([][]byte, error) {
	var w struct {
		Hashes [][]byte `json:"hashes"`
	}
	if err := decodeJSON(b, &w); err != nil {
		return nil, fmt.Errorf("%w: the consistency proof: %v", ErrInconsistent, err)
	}
	switch {
	case w.Hashes == nil:
		return nil, fmt.Errorf("%w: the consistency proof has no hashes field", ErrInconsistent)
	case len(w.Hashes) > 2*maxProofHashes:
		return nil, fmt.Errorf("%w: the consistency proof has more than %d hashes", ErrInconsistent, 2*maxProofHashes)
	}
	return w.Hashes, nil
}

// errNotFound is a 404 from the registry; each caller says what it means.
var errNotFound = errors.New("404 Not Found")

// get fetches path from the registry and returns the body of a 200 answer,
// at most limit bytes. A 404 is errNotFound; any other status, a transport
// error or a body over the limit match ErrUnreachable or ErrMismatch.
func (c *Client) get(ctx context.Context, path string, limit int64) ([]byte, error) {
	u := c.base.String() + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	req.Header.Set("User-Agent", "registryd-client")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrUnreachable, transportError(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, errNotFound
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: GET %s answered %d", ErrUnreachable, safe(path), resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %s", ErrUnreachable, safe(path), transportError(err))
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: GET %s answered more than %d bytes", ErrMismatch, safe(path), limit)
	}
	return b, nil
}

// transportError describes a failed request in safe text. The standard
// library's errors quote the URL, which the caller built and may show.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return safe(err.Error())
}

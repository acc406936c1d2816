package storetest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gowebpki/jcs"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// The transparency log and the signed envelopes (storage.Log), through the
// only ways in: PutReport and CreateVersion of published versions.

// logState is what a test knows of the log: the checkpoints it saw, by
// size, and the leaf it expects each published version's proof to name.
type logState struct {
	roots  map[uint64][]byte
	leaves map[string]transparency.Leaf // addon@version → its current leaf
}

// publishN publishes n versions of addon (versions from, from+1, …) in one
// transaction, each with its report, and returns their leaves.
func publishN(t *testing.T, s storage.Store, addonName string, from, n int) []transparency.Leaf {
	t.Helper()
	ctx := context.Background()
	var leaves []transparency.Leaf
	inTx(t, s, func(tx storage.Tx) error {
		leaves = leaves[:0]
		if _, err := tx.Addon(ctx, addonName); errors.Is(err, registry.ErrNotFound) {
			if err := tx.PutAddon(ctx, addon(addonName, 0)); err != nil {
				return err
			}
		}
		for i := from; i < from+n; i++ {
			l, err := publishOne(ctx, tx, addonName, i)
			if err != nil {
				return err
			}
			leaves = append(leaves, l)
		}
		return nil
	})
	return leaves
}

// publishOne stores a submission, its report and its published version,
// in the order the workflow does (report first), and returns the leaf the
// log must hold for it.
func publishOne(ctx context.Context, tx storage.Tx, addonName string, i int) (transparency.Leaf, error) {
	version := fmt.Sprintf("1.0.%d", i)
	id := fmt.Sprintf("sub_%s_%d", addonName, i)
	sub := submission(id, addonName, version, i)
	sub.Status = registry.StatusApproved
	if err := tx.CreateSubmission(ctx, sub); err != nil {
		return transparency.Leaf{}, err
	}
	rep := report(id, "r1", fmt.Sprintf(`{"addon":%q,"n":%d}`, addonName+"@"+version, i))
	if err := tx.PutReport(ctx, rep, nil); err != nil {
		return transparency.Leaf{}, err
	}
	if err := tx.CreateVersion(ctx, registry.Version{Addon: addonName, Version: version, SubmissionID: id, PublishedAt: at(i)}); err != nil {
		return transparency.Leaf{}, err
	}
	return transparency.Leaf{Addon: addonName, Version: version, ManifestSHA256: sub.ManifestSHA256, ReportSHA256: rep.SHA256}, nil
}

// checkpoint reads and verifies the latest checkpoint against the store's
// keys and its origin (the active key's name).
func checkpoint(t *testing.T, s storage.Store) transparency.Checkpoint {
	t.Helper()
	cp, err := s.Checkpoint(context.Background())
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	keys := s.SigningKeys()
	c, by, err := transparency.OpenCheckpoint(cp.Signed, keys[0].Name(), keys...)
	if err != nil {
		t.Fatalf("OpenCheckpoint: %v\n%s", err, cp.Signed)
	}
	if len(by) != len(keys) {
		t.Errorf("checkpoint signed by %d keys, want all %d", len(by), len(keys))
	}
	if c.Size != cp.Size || !bytes.Equal(c.Hash, cp.Root) || c.Time().Unix() != cp.SignedAt.Unix() {
		t.Errorf("signed checkpoint says size %d root %x at %v; stored %d %x %v", c.Size, c.Hash, c.Time(), cp.Size, cp.Root, cp.SignedAt)
	}
	return c
}

// SignedWithin is how soon after an append a checkpoint of its tree is
// signed (docs/trust.md); BenchCheckpointDelay measures it.
const SignedWithin = time.Second

// WaitCheckpoint waits, polling, until the latest signed checkpoint of s
// is of a tree of at least size leaves and returns it; it fails the test
// after 10 s. The store signs a checkpoint of a grown tree after the
// appending transaction commits, within SignedWithin.
func WaitCheckpoint(t testing.TB, s storage.Store, size uint64) storage.Checkpoint {
	t.Helper()
	cp, err := waitCheckpoint(s, size, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func waitCheckpoint(s storage.Store, size uint64, within time.Duration) (storage.Checkpoint, error) {
	return waitCheckpointEvery(s, size, within, 2*time.Millisecond)
}

func waitCheckpointEvery(s storage.Store, size uint64, within, every time.Duration) (storage.Checkpoint, error) {
	ctx := context.Background()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		cp, err := s.Checkpoint(ctx)
		switch {
		case err == nil && cp.Size >= size:
			return cp, nil
		case err != nil && !errors.Is(err, registry.ErrNotFound):
			return cp, err
		case time.Now().After(deadline):
			return cp, fmt.Errorf("no checkpoint of a tree of %d leaves signed within %v (latest: size %d, %v)", size, within, cp.Size, err)
		}
		<-tick.C
	}
}

// verifyLog checks the log against what st knows: the checkpoint, once
// signed, has size want, every version's inclusion proof verifies against
// it, and the tree is consistent with every earlier checkpoint seen.
func verifyLog(t *testing.T, s storage.Store, st *logState, want uint64) {
	t.Helper()
	ctx := context.Background()
	WaitCheckpoint(t, s, want)
	c := checkpoint(t, s)
	if c.Size != want {
		t.Fatalf("checkpoint size %d, want %d", c.Size, want)
	}
	if old, ok := st.roots[c.Size]; ok && !bytes.Equal(old, c.Hash) {
		t.Fatalf("two roots for size %d: a fork", c.Size)
	}
	st.roots[c.Size] = c.Hash
	seen := map[uint64]string{}
	for ref, l := range st.leaves {
		addonName, version, _ := cutAt(ref)
		p, err := s.InclusionProof(ctx, addonName, version)
		if err != nil {
			t.Fatalf("InclusionProof(%s): %v", ref, err)
		}
		// The checkpoint may be signed again at the same size between the
		// two reads (a later timestamp, another replica's key): the proof
		// must name the same tree head, not the same signatures.
		if p.TreeSize != c.Size || !sameTreeHead(t, p.Checkpoint, mustCheckpoint(t, s).Signed) {
			t.Errorf("proof of %s is against size %d, not the latest checkpoint's %d", ref, p.TreeSize, c.Size)
		}
		if !bytes.Equal(p.Leaf, l.Marshal()) {
			t.Errorf("proof of %s names leaf\n%s\nwant\n%s", ref, p.Leaf, l.Marshal())
		}
		if other, dup := seen[p.LeafIndex]; dup {
			t.Errorf("%s and %s share leaf index %d", ref, other, p.LeafIndex)
		}
		seen[p.LeafIndex] = ref
		if err := transparency.VerifyInclusion(l.Marshal(), p.LeafIndex, p.TreeSize, p.Hashes, c.Hash); err != nil {
			t.Errorf("inclusion of %s: %v", ref, err)
		}
	}
	for size, root := range st.roots {
		if size > c.Size {
			continue
		}
		hs, err := s.ConsistencyProof(ctx, size, c.Size)
		if err != nil {
			t.Fatalf("ConsistencyProof(%d, %d): %v", size, c.Size, err)
		}
		if err := transparency.VerifyConsistency(size, c.Size, hs, root, c.Hash); err != nil {
			t.Errorf("consistency %d → %d: %v", size, c.Size, err)
		}
	}
}

// sameTreeHead reports whether two signed checkpoints name the same tree
// head: origin, size and root hash, whatever their timestamps and
// signatures.
func sameTreeHead(t *testing.T, a, b []byte) bool {
	t.Helper()
	head := func(signed []byte) transparency.Checkpoint {
		body, _, ok := bytes.Cut(signed, []byte("\n\n"))
		if !ok {
			t.Fatalf("not a signed note:\n%s", signed)
		}
		c, err := transparency.ParseCheckpoint(append(body, '\n'))
		if err != nil {
			t.Fatalf("ParseCheckpoint: %v\n%s", err, signed)
		}
		return c
	}
	ca, cb := head(a), head(b)
	return ca.Origin == cb.Origin && ca.Size == cb.Size && bytes.Equal(ca.Hash, cb.Hash)
}

func mustCheckpoint(t *testing.T, s storage.Store) storage.Checkpoint {
	t.Helper()
	cp, err := s.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func cutAt(ref string) (string, string, bool) {
	for i := len(ref) - 1; i >= 0; i-- {
		if ref[i] == '@' {
			return ref[:i], ref[i+1:], true
		}
	}
	return ref, "", false
}

func newLogState() *logState {
	return &logState{roots: map[uint64][]byte{}, leaves: map[string]transparency.Leaf{}}
}

func (st *logState) add(ls ...transparency.Leaf) {
	for _, l := range ls {
		st.leaves[l.Addon+"@"+l.Version] = l
	}
}

// testLogAppend grows the log one publication at a time through the sizes
// where the tree's shape changes, then by a batch to 1000 in one
// transaction, checking every proof at each size.
func testLogAppend(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if _, err := s.Checkpoint(ctx); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("Checkpoint of a new store = %v, want ErrNotFound", err)
	}
	if _, err := s.InclusionProof(ctx, "alpha", "1.0.0"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("InclusionProof of nothing = %v, want ErrNotFound", err)
	}
	st := newLogState()
	n := 0
	for _, size := range []int{1, 2, 3, 7, 8, 9} {
		for n < size {
			st.add(publishN(t, s, "alpha", n, 1)...)
			n++
		}
		verifyLog(t, s, st, uint64(size))
	}
	// A batch: 991 leaves, one transaction, one checkpoint.
	st.add(publishN(t, s, "beta", 0, 1000-n)...)
	verifyLog(t, s, st, 1000)

	// The latest version's proof is that of the addon's latest version.
	inTx(t, s, func(tx storage.Tx) error {
		a, err := tx.Addon(ctx, "alpha")
		if err != nil {
			return err
		}
		a.LatestVersion = "1.0.8"
		return tx.PutAddon(ctx, a)
	})
	latest, err := s.InclusionProof(ctx, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if l := st.leaves["alpha@1.0.8"]; !bytes.Equal(latest.Leaf, l.Marshal()) {
		t.Errorf("latest proof names\n%s\nwant alpha@1.0.8's leaf", latest.Leaf)
	}
}

// testLogRerender: a published version's report stored again with other
// bytes appends one leaf, which its proof then names; stored again with the
// same bytes it appends nothing; an unpublished submission's report is
// neither signed nor logged.
func testLogRerender(t *testing.T, s storage.Store) {
	ctx := context.Background()
	st := newLogState()
	st.add(publishN(t, s, "alpha", 0, 2)...)
	verifyLog(t, s, st, 2)

	rep := report("sub_alpha_1", "r1", `{"rerendered":true}`)
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, rep, nil) })
	l := st.leaves["alpha@1.0.1"]
	l.ReportSHA256 = rep.SHA256
	st.add(l)
	verifyLog(t, s, st, 3)

	// The same bytes again, twice in one transaction: no new leaf.
	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.PutReport(ctx, rep, nil); err != nil {
			return err
		}
		return tx.PutReport(ctx, rep, nil)
	})
	verifyLog(t, s, st, 3)
	// Two renderings in one transaction: only the last is logged.
	rep2 := report("sub_alpha_1", "r1", `{"rerendered":2}`)
	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.PutReport(ctx, report("sub_alpha_1", "r1", `{"never seen":1}`), nil); err != nil {
			return err
		}
		return tx.PutReport(ctx, rep2, nil)
	})
	l.ReportSHA256 = rep2.SHA256
	st.add(l)
	verifyLog(t, s, st, 4)

	// The envelope is of the exact report bytes, signed by the store's key.
	env, err := s.PublishedEnvelope(ctx, "alpha", "1.0.1")
	if err != nil {
		t.Fatal(err)
	}
	payload, keyID, err := transparency.OpenEnvelope(env.Bytes, s.SigningKeys()...)
	if err != nil {
		t.Fatalf("OpenEnvelope: %v", err)
	}
	if !bytes.Equal(payload, rep2.Bytes) || keyID != s.SigningKeys()[0].ID {
		t.Errorf("envelope holds %q signed by %s, want %q by %s", payload, keyID, rep2.Bytes, s.SigningKeys()[0].ID)
	}
	checkEnvelopeForm(t, env.Bytes, rep2.Bytes, s.SigningKeys())
	if sum, err := s.PublishedEnvelopeDigest(ctx, "alpha", "1.0.1"); err != nil || sum != sha256Hex(env.Bytes) || env.SHA256 != sum {
		t.Errorf("PublishedEnvelopeDigest = %q, %v; envelope's SHA256 %q, want sha256 of the bytes %q", sum, err, env.SHA256, sha256Hex(env.Bytes))
	}

	// A pending submission's report: no envelope, no leaf.
	inTx(t, s, func(tx storage.Tx) error {
		sub := submission("sub_pending", "alpha", "2.0.0", 9)
		if err := tx.CreateSubmission(ctx, sub); err != nil {
			return err
		}
		return tx.PutReport(ctx, report("sub_pending", "r1", `{"pending":true}`), nil)
	})
	verifyLog(t, s, st, 4)
	if _, err := s.PublishedEnvelope(ctx, "alpha", "2.0.0"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("PublishedEnvelope of an unpublished version = %v, want ErrNotFound", err)
	}
	if _, err := s.InclusionProof(ctx, "alpha", "2.0.0"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("InclusionProof of an unpublished version = %v, want ErrNotFound", err)
	}

	// A transaction that fails appends nothing.
	boom := errors.New("boom")
	err = s.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.PutReport(ctx, report("sub_alpha_0", "r1", `{"rolled back":true}`), nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v", err)
	}
	verifyLog(t, s, st, 4)
}

// testLogVersionFirst: a submission created and published in one
// transaction before its report is stored (as a direct publication does)
// gets its report signed and logged as PutReport stores it, whatever else
// the transaction does: several reports, only the last logged; a report,
// the version, then another report; a submission created in another
// transaction; a transaction that fails.
func testLogVersionFirst(t *testing.T, s storage.Store) {
	ctx := context.Background()
	st := newLogState()
	// create creates submission i of alpha, approved.
	create := func(tx storage.Tx, i int) (registry.Submission, error) {
		sub := submission(fmt.Sprintf("sub_first_%d", i), "alpha", fmt.Sprintf("1.0.%d", i), i)
		sub.Status = registry.StatusApproved
		return sub, tx.CreateSubmission(ctx, sub)
	}
	version := func(tx storage.Tx, sub registry.Submission) error {
		return tx.CreateVersion(ctx, registry.Version{Addon: sub.Addon, Version: sub.Version, SubmissionID: sub.ID, PublishedAt: at(1)})
	}
	leaf := func(sub registry.Submission, rep registry.Report) transparency.Leaf {
		return transparency.Leaf{Addon: sub.Addon, Version: sub.Version, ManifestSHA256: sub.ManifestSHA256, ReportSHA256: rep.SHA256}
	}
	// wantEnvelope fails unless sub's published envelope holds rep, signed.
	wantEnvelope := func(sub registry.Submission, rep registry.Report) {
		t.Helper()
		env, err := s.PublishedEnvelope(ctx, sub.Addon, sub.Version)
		if err != nil {
			t.Fatalf("PublishedEnvelope(%s@%s): %v", sub.Addon, sub.Version, err)
		}
		payload, _, err := transparency.OpenEnvelope(env.Bytes, s.SigningKeys()...)
		if err != nil || !bytes.Equal(payload, rep.Bytes) || env.SHA256 != sha256Hex(env.Bytes) {
			t.Errorf("envelope of %s@%s holds %q (%v), digest %s; want %q", sub.Addon, sub.Version, payload, err, env.SHA256, rep.Bytes)
		}
		checkEnvelopeForm(t, env.Bytes, rep.Bytes, s.SigningKeys())
	}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutAddon(ctx, addon("alpha", 0)) })

	// Version, then report.
	var sub0 registry.Submission
	rep0 := report("sub_first_0", "r1", `{"first":0}`)
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		if sub0, err = create(tx, 0); err != nil {
			return err
		}
		if err := version(tx, sub0); err != nil {
			return err
		}
		return tx.PutReport(ctx, rep0, nil)
	})
	st.add(leaf(sub0, rep0))
	verifyLog(t, s, st, 1)
	wantEnvelope(sub0, rep0)

	// Version, then two reports: only the last is logged. Then, in the
	// same transaction, a submission whose report comes before its
	// version and again after it.
	var sub1, sub2 registry.Submission
	rep1 := report("sub_first_1", "r1", `{"first":1}`)
	rep2 := report("sub_first_2", "r1", `{"first":2,"again":true}`)
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		if sub1, err = create(tx, 1); err != nil {
			return err
		}
		if err := version(tx, sub1); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, report("sub_first_1", "r1", `{"never seen":1}`), nil); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, rep1, nil); err != nil {
			return err
		}
		if sub2, err = create(tx, 2); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, report("sub_first_2", "r1", `{"first":2}`), nil); err != nil {
			return err
		}
		if err := version(tx, sub2); err != nil {
			return err
		}
		return tx.PutReport(ctx, rep2, nil)
	})
	st.add(leaf(sub1, rep1), leaf(sub2, rep2))
	verifyLog(t, s, st, 3)
	wantEnvelope(sub1, rep1)
	wantEnvelope(sub2, rep2)

	// A submission created in an earlier transaction, published, then
	// given its report.
	var sub3 registry.Submission
	rep3 := report("sub_first_3", "r1", `{"first":3}`)
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		sub3, err = create(tx, 3)
		return err
	})
	inTx(t, s, func(tx storage.Tx) error {
		if err := version(tx, sub3); err != nil {
			return err
		}
		return tx.PutReport(ctx, rep3, nil)
	})
	st.add(leaf(sub3, rep3))
	verifyLog(t, s, st, 4)
	wantEnvelope(sub3, rep3)

	// A transaction that fails after the report leaves nothing behind.
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx storage.Tx) error {
		sub, err := create(tx, 4)
		if err != nil {
			return err
		}
		if err := version(tx, sub); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, report("sub_first_4", "r1", `{"rolled back":true}`), nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v", err)
	}
	verifyLog(t, s, st, 4)
	if _, err := s.PublishedEnvelope(ctx, "alpha", "1.0.4"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("PublishedEnvelope of a rolled-back version = %v, want ErrNotFound", err)
	}
	if n, err := s.SignEnvelopes(ctx, 10); err != nil || n != 0 {
		t.Errorf("SignEnvelopes = %d, %v; want every published report signed already", n, err)
	}
}

// testLogConcurrent publishes from several goroutines at once, each in its
// own transactions (so on its own connection where the store has several):
// the log ends with every leaf once, no gap, and every checkpoint any of
// them saw is consistent with the final tree.
func testLogConcurrent(t *testing.T, s storage.Store) {
	LogAcrossStores(t, s)
}

// LogAcrossStores publishes from several goroutines at once, spread over
// stores (replicas: stores opened on one database with the same signing
// key), each publication in its own transaction: the log ends with every
// leaf once, no gap, and every checkpoint any of them saw is consistent
// with the final tree. The stores must hold nothing yet.
func LogAcrossStores(t *testing.T, stores ...storage.Store) {
	const writers, each = 6, 8
	ctx := context.Background()
	st := newLogState()
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("w%d", w)
			for i := range each {
				var l transparency.Leaf
				err := s.InTx(ctx, func(tx storage.Tx) error {
					if i == 0 {
						if err := tx.PutAddon(ctx, addon(name, 0)); err != nil {
							return err
						}
					}
					var err error
					l, err = publishOne(ctx, tx, name, i)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
				// The proof asked right after the publication verifies,
				// against a signed checkpoint.
				cp, err := proveSigned(s, l)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				st.add(l)
				if old, ok := st.roots[cp.Size]; ok && !bytes.Equal(old, cp.Hash) {
					errs <- fmt.Errorf("two roots for size %d", cp.Size)
				}
				st.roots[cp.Size] = cp.Hash
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, s := range stores {
		verifyLog(t, s, st, writers*each)
	}
}

// proveSigned fetches the inclusion proof of l's version and checks it: the
// checkpoint it carries is signed by every key of the store's, is of the
// tree the proof is of, which holds the leaf; it returns that checkpoint.
func proveSigned(s storage.Store, l transparency.Leaf) (transparency.Checkpoint, error) {
	p, err := s.InclusionProof(context.Background(), l.Addon, l.Version)
	if err != nil {
		return transparency.Checkpoint{}, fmt.Errorf("InclusionProof(%s@%s): %w", l.Addon, l.Version, err)
	}
	keys := s.SigningKeys()
	c, by, err := transparency.OpenCheckpoint(p.Checkpoint, keys[0].Name(), keys...)
	switch {
	case err != nil:
		return c, fmt.Errorf("proof of %s@%s: its checkpoint: %w", l.Addon, l.Version, err)
	case len(by) != len(keys):
		return c, fmt.Errorf("proof of %s@%s: checkpoint signed by %d keys, want %d", l.Addon, l.Version, len(by), len(keys))
	case c.Size != p.TreeSize || p.LeafIndex >= c.Size:
		return c, fmt.Errorf("proof of %s@%s: leaf %d in a tree of %d, its checkpoint of %d", l.Addon, l.Version, p.LeafIndex, p.TreeSize, c.Size)
	case !bytes.Equal(p.Leaf, l.Marshal()):
		return c, fmt.Errorf("proof of %s@%s names leaf %q", l.Addon, l.Version, p.Leaf)
	}
	if err := transparency.VerifyInclusion(p.Leaf, p.LeafIndex, p.TreeSize, p.Hashes, c.Hash); err != nil {
		return c, fmt.Errorf("proof of %s@%s: %w", l.Addon, l.Version, err)
	}
	return c, nil
}

// testConsistencyErrors: bad sizes are refused naming the parameter.
func testConsistencyErrors(t *testing.T, s storage.Store) {
	ctx := context.Background()
	publishN(t, s, "alpha", 0, 3)
	WaitCheckpoint(t, s, 3)
	for _, tc := range []struct {
		from, to uint64
		field    string
	}{{2, 1, "from"}, {0, 4, "to"}, {5, 9, "to"}} {
		_, err := s.ConsistencyProof(ctx, tc.from, tc.to)
		var ve *registry.ValidationError
		if !errors.Is(err, registry.ErrInvalid) || !errors.As(err, &ve) || ve.Fields[0].Path != tc.field {
			t.Errorf("ConsistencyProof(%d, %d) = %v, want ErrInvalid naming %s", tc.from, tc.to, err, tc.field)
		}
	}
	for _, tc := range [][2]uint64{{0, 0}, {0, 3}, {3, 3}, {1, 3}} {
		if _, err := s.ConsistencyProof(ctx, tc[0], tc[1]); err != nil {
			t.Errorf("ConsistencyProof(%d, %d): %v", tc[0], tc[1], err)
		}
	}
}

// testRefreshCheckpoint: a store with no checkpoint signs one of the empty
// tree; a fresh one is left alone; an old one is signed again over the
// same tree.
func testRefreshCheckpoint(t *testing.T, s storage.Store) {
	ctx := context.Background()
	signed, err := s.RefreshCheckpoint(ctx, time.Hour)
	if err != nil || !signed {
		t.Fatalf("RefreshCheckpoint of a new log = %v, %v; want it signed", signed, err)
	}
	if c := checkpoint(t, s); c.Size != 0 {
		t.Errorf("empty log's checkpoint has size %d", c.Size)
	}
	if signed, err := s.RefreshCheckpoint(ctx, time.Hour); err != nil || signed {
		t.Errorf("RefreshCheckpoint of a fresh checkpoint = %v, %v; want it left alone", signed, err)
	}
	publishN(t, s, "alpha", 0, 2)
	WaitCheckpoint(t, s, 2)
	before := checkpoint(t, s)
	if signed, err := s.RefreshCheckpoint(ctx, 0); err != nil || !signed {
		t.Fatalf("RefreshCheckpoint(0) = %v, %v; want it signed", signed, err)
	}
	after := checkpoint(t, s)
	if after.Size != before.Size || !bytes.Equal(after.Hash, before.Hash) || after.Timestamp < before.Timestamp {
		t.Errorf("re-signed checkpoint %+v, want the same tree as %+v, no older", after, before)
	}
	if n, err := s.SignEnvelopes(ctx, 10); err != nil || n != 0 {
		t.Errorf("SignEnvelopes with every envelope signed = %d, %v; want 0", n, err)
	}
}

func sha256Hex(b []byte) string { return report("x", "", string(b)).SHA256 }

// checkEnvelopeForm fails t unless env is the one envelope a report has
// under keys: RFC 8785 canonical JSON (jcs.Transform leaves it as it is)
// holding exactly payload, payloadType and signatures, the payload the
// standard base64 of report, the payload type transparency.PayloadType, and
// one signature per key, in the keys' order, each that key's Ed25519
// signature over DSSE's PAE. Ed25519 being deterministic, those are the
// bytes transparency.SignEnvelope writes for the report and the keys.
func checkEnvelopeForm(t *testing.T, env, report []byte, keys []transparency.VerifierKey) {
	t.Helper()
	canon, err := jcs.Transform(env)
	if err != nil || !bytes.Equal(canon, env) {
		t.Errorf("envelope is not canonical JSON (%v):\n got %s\nwant %s", err, env, canon)
	}
	var e struct {
		Payload     string
		PayloadType string
		Signatures  []struct{ KeyID, Sig string }
	}
	dec := json.NewDecoder(bytes.NewReader(env))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("envelope %s: %v", env, err)
	}
	if e.Payload != base64.StdEncoding.EncodeToString(report) || e.PayloadType != transparency.PayloadType {
		t.Errorf("envelope's payload %q of type %q, want the base64 of %q of type %q", e.Payload, e.PayloadType, report, transparency.PayloadType)
	}
	if len(e.Signatures) != len(keys) {
		t.Fatalf("envelope has %d signatures, want one per key (%d)", len(e.Signatures), len(keys))
	}
	pae := dsse.PAE(transparency.PayloadType, report)
	for i, k := range keys {
		sig, err := base64.StdEncoding.DecodeString(e.Signatures[i].Sig)
		if e.Signatures[i].KeyID != k.ID || err != nil || !ed25519.Verify(k.Public, pae, sig) {
			t.Errorf("envelope's signature %d is by %q (%v), want a valid one by %q", i, e.Signatures[i].KeyID, err, k.ID)
		}
	}
}

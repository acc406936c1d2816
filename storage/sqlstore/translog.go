package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// The transparency log (tables log_nodes and log_head, migrations 00008,
// 00021 and 00024) and the envelopes of published reports (columns of
// reports, with leaf_idx, the index of the report's current leaf). A
// report's row keeps its envelope's signatures alone (migration 00026):
// the rest of the envelope is the report again, and the readers assemble
// it from the report's bytes (transparency.AssembleEnvelope).
//
// A transaction that stores a published version's report signs its
// envelope at once (keeping its signatures) and queues its leaf (logReport), writing into the
// report's row the index the leaf will most likely have (tx.nextLeafIdx).
// Just before the transaction commits, flushLog appends every queued leaf:
// from the compact range of the tree this process appended to last, or,
// when the head no longer names that tree, from the range rebuilt from the
// stored nodes under the head row's lock, it appends the leaves, stores
// every subtree node completed on the way (the leaves' own rows with their
// text), corrects the index of any report whose leaf landed elsewhere, and
// writes the new tree's size and root into the head row. The head's lock
// (PostgreSQL's row lock, taken by the conditional update or the read;
// SQLite's write transactions exclude each other anyway) makes appends one
// at a time across every connection and replica, so the log has no gap and
// no fork; holding it only for the flush keeps the critical section to a
// few statements, however many leaves the transaction appends.
//
// The append signs nothing: the head row's checkpoint columns (cp_size,
// cp_root, checkpoint, signed_at, signed_by) hold the latest signed
// checkpoint, which names a tree the head's may have outgrown. Once a
// transaction that appended commits, this process's checkpoint signer
// (checkpointer.go) signs the head's tree, a few times a second at most,
// without taking the head's lock (the signature is stored by a
// compare-and-swap on the head row's checkpoint, signCheckpoint); every
// reader serves the signed checkpoint's tree, and a proof asked of a
// leaf it does not cover yet has that tree signed first
// (Store.InclusionProof).

// notary signs for one store: envelopes and checkpoints, with its keys in
// order, at its clock.
type notary struct {
	signers []*transparency.Signer
	keys    []transparency.VerifierKey
	keyIDs  string // the keys' IDs, comma-separated, as envelope_keys and signed_by store them
	origin  string
	now     func() time.Time

	// The compact range of the last tree this process appended to, so
	// that the next append need not read it (cachedRange).
	mu          sync.Mutex
	rangeSize   uint64
	rangeRoot   []byte
	rangeHashes [][]byte
}

func newNotary(s storage.Signing) *notary {
	n := &notary{signers: s.Signers, now: s.Now, origin: s.Signers[0].Name()}
	ids := make([]string, len(s.Signers))
	for i, sg := range s.Signers {
		n.keys = append(n.keys, sg.Verifier())
		ids[i] = sg.Verifier().ID
	}
	n.keyIDs = strings.Join(ids, ",")
	if n.now == nil {
		n.now = time.Now
	}
	return n
}

// signedByAll reports whether the comma-separated key IDs include every key
// of the notary's.
func (n *notary) signedByAll(ids string) bool {
	for _, k := range n.keys {
		if !strings.Contains(ids, k.ID) {
			return false
		}
	}
	return true
}

// signatures signs a report's envelope and returns the signatures a
// report's row keeps of it (transparency.EnvelopeSignatures).
func (n *notary) signatures(report []byte) (string, error) {
	sigs, err := transparency.EnvelopeSignatures(report, n.signers...)
	return string(sigs), err
}

// checkpoint signs the checkpoint of a tree, stamped now (whole seconds).
func (n *notary) checkpoint(size uint64, root []byte) ([]byte, time.Time, error) {
	at := n.now().UTC().Truncate(time.Second)
	signed, err := transparency.SignCheckpoint(transparency.Checkpoint{
		Checkpoint: log.Checkpoint{Origin: n.origin, Size: size, Hash: root},
		Timestamp:  at.Unix(),
	}, noteSigners(n.signers)...)
	return signed, at, err
}

func noteSigners(ss []*transparency.Signer) []note.Signer {
	out := make([]note.Signer, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// SigningKeys returns the verifier keys the store signs with, the active
// one first.
func (s *Store) SigningKeys() []transparency.VerifierKey {
	return append([]transparency.VerifierKey(nil), s.n.keys...)
}

// nodeKey is the stored key of a tree node: its position in an in-order
// walk of the infinite tree, unique across levels. A leaf's is 2 * its
// index (leafKey), every internal node's odd.
func nodeKey(id compact.NodeID) int64 {
	return int64(id.Index<<(id.Level+1) + (1 << id.Level) - 1)
}

// leafKey is the key of leaf idx's row in log_nodes.
func leafKey(idx int64) int64 { return 2 * idx }

var rangeFactory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// nodeQueries read nodes by key: qNodes[i] binds nodeBatches[i] keys. The
// texts are constant, so each database prepares them once; a read binds
// the smallest batch that holds its keys and -1 (which no node has) in
// the places left over, since an IN list costs by its length. A tree of
// any size needs at most 63 nodes for an inclusion proof and 126 for a
// consistency proof, read 64 at a time.
var nodeBatches = []int{8, 16, 32, 64}

var qNodes = func() []string {
	out := make([]string, len(nodeBatches))
	for i, n := range nodeBatches {
		ph := make([]string, n)
		for j := range ph {
			ph[j] = fmt.Sprintf("$%d", j+1)
		}
		out[i] = `SELECT id, hash FROM log_nodes WHERE id IN (` + strings.Join(ph, ", ") + `)`
	}
	return out
}()

// nodes reads the hashes of ids, in their order; every one must exist.
func (r reader) nodes(ctx context.Context, ids []compact.NodeID) ([][]byte, error) {
	got := make(map[int64][]byte, len(ids))
	for start := 0; start < len(ids); {
		q := len(nodeBatches) - 1
		for i, n := range nodeBatches {
			if n >= len(ids)-start {
				q = i
				break
			}
		}
		a := make([]any, nodeBatches[q])
		for i := range a {
			a[i] = int64(-1)
			if start+i < len(ids) {
				a[i] = nodeKey(ids[start+i])
			}
		}
		start += len(a)
		rows, err := r.c.Query(ctx, qNodes[q], a...)
		if err != nil {
			return nil, r.err("read log nodes", err)
		}
		for rows.Next() {
			var k int64
			var h []byte
			if err := rows.Scan(&k, &h); err != nil {
				rows.Close()
				return nil, r.err("read log nodes", err)
			}
			got[k] = h
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, r.err("read log nodes", err)
		}
	}
	out := make([][]byte, len(ids))
	for i, id := range ids {
		h, ok := got[nodeKey(id)]
		if !ok {
			return nil, fmt.Errorf("%s: log node %d.%d is missing", r.d.Name(), id.Level, id.Index)
		}
		out[i] = h
	}
	return out, nil
}

// proofHashes fetches the nodes of a proof and combines them into its
// hashes.
func (r reader) proofHashes(ctx context.Context, n proof.Nodes) ([][]byte, error) {
	hs, err := r.nodes(ctx, n.IDs)
	if err != nil {
		return nil, err
	}
	hs, err = n.Rehash(hs, rfc6962.DefaultHasher.HashChildren)
	if err != nil {
		return nil, fmt.Errorf("%s: rehash proof: %w", r.d.Name(), err)
	}
	return hs, nil
}

// pendingLeaf is a leaf a transaction will append when it commits.
type pendingLeaf struct {
	submission string
	leaf       []byte
	// idx is the leaf index written into the report's row (leaf_idx),
	// which flushLog corrects if the leaf lands elsewhere.
	idx int64
	// prev is the submission's current leaf before this transaction, what
	// a later rendering in it is compared with.
	prev current
}

// current is a submission's current leaf: its index and text; a nil idx
// when it has none.
type current struct {
	idx  *int64
	leaf []byte
}

// published is what the log needs of a submission that is a published
// version: the leaf's fields but the report digest, and its current leaf.
type published struct {
	addon, version, manifest string
	cur                      current
}

// curCols read a submission's current leaf from its report's row (rp) and
// the leaf's row in log_nodes: two lookups by primary key.
const curCols = `rp.leaf_idx, (SELECT n.leaf FROM log_nodes n WHERE n.id = 2 * rp.leaf_idx)`

// qPublishedAs finds whether a submission is a published version, with its
// current leaf: index lookups (versions by submission, migration 00015;
// the submission; its report; the leaf).
const qPublishedAs = `SELECT s.addon, s.version, s.manifest_sha256, ` + curCols + `
	FROM versions v JOIN submissions s ON s.id = v.submission_id LEFT JOIN reports rp ON rp.submission_id = s.id
	WHERE v.submission_id = $1`

// qPublishedReportOf is qPublishedAs with the submission's report.
const qPublishedReportOf = `SELECT s.addon, s.version, s.manifest_sha256, ` + curCols + `, rp.bytes, rp.sha256
	FROM versions v JOIN submissions s ON s.id = v.submission_id JOIN reports rp ON rp.submission_id = s.id
	WHERE v.submission_id = $1`

// publishedAs returns the published version submission id is, or ok false.
func (t *tx) publishedAs(ctx context.Context, id string) (published, bool, error) {
	var p published
	err := t.c.QueryRow(ctx, qPublishedAs, id).Scan(&p.addon, &p.version, &p.manifest, &p.cur.idx, &p.cur.leaf)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, t.err(fmt.Sprintf("published version of %q", id), err)
	}
	return p, true, nil
}

// publishedAsMany returns, by submission ID, the published versions among
// ids, in one query.
func (t *tx) publishedAsMany(ctx context.Context, ids []string) (map[string]published, error) {
	out := make(map[string]published, len(ids))
	rows, err := t.c.Query(ctx, `SELECT s.id, s.addon, s.version, s.manifest_sha256, `+curCols+`
		FROM submissions s JOIN versions v ON v.addon = s.addon AND v.submission_id = s.id
		LEFT JOIN reports rp ON rp.submission_id = s.id
		WHERE `+t.d.AnyOf("s.id", "$1"), t.d.List(ids))
	if err != nil {
		return nil, t.err("published versions of reports", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var p published
		if err := rows.Scan(&id, &p.addon, &p.version, &p.manifest, &p.cur.idx, &p.cur.leaf); err != nil {
			return nil, t.err("published versions of reports", err)
		}
		out[id] = p
	}
	if err := rows.Err(); err != nil {
		return nil, t.err("published versions of reports", err)
	}
	return out, nil
}

// logCols are a report's envelope columns (its signatures and the IDs of
// their keys) and the index of its current leaf: all nil (NULL) for a
// report that has none.
type logCols struct{ sigs, keys, leafIdx any }

// logReport signs the envelope of a published version's report and queues
// the report's leaf unless the version's current leaf is the same. It
// returns the envelope's columns and the leaf's index, for the caller to
// store.
func (t *tx) logReport(id string, p published, report []byte, reportSHA string) (logCols, error) {
	sigs, err := t.n.signatures(report)
	if err != nil {
		return logCols{}, fmt.Errorf("sign report of %q: %w", id, err)
	}
	leaf := transparency.Leaf{Addon: p.addon, Version: p.version, ManifestSHA256: p.manifest, ReportSHA256: reportSHA}
	if err := leaf.Validate(); err != nil {
		return logCols{}, fmt.Errorf("log report of %q: %w", id, err)
	}
	// Rendered already in this transaction: what counts is the leaf it
	// had before, not the index its row holds for the queued one.
	cur := p.cur
	if i := t.queued(id); i >= 0 {
		cur = t.pending[i].prev
		t.pending = append(t.pending[:i], t.pending[i+1:]...)
	}
	cols := logCols{sigs: sigs, keys: t.n.keyIDs}
	if b := leaf.Marshal(); cur.idx != nil && bytes.Equal(b, cur.leaf) {
		cols.leafIdx = *cur.idx
	} else {
		idx := t.nextLeafIdx()
		t.pending = append(t.pending, pendingLeaf{submission: id, leaf: b, idx: idx, prev: cur})
		cols.leafIdx = idx
	}
	return cols, nil
}

// queued returns the position of id's leaf in the queue, or -1.
func (t *tx) queued(id string) int {
	for i, p := range t.pending {
		if p.submission == id {
			return i
		}
	}
	return -1
}

// nextLeafIdx guesses the index the next queued leaf will have: the size
// of the tree this process appended to last, plus the leaves queued. The
// guess is right unless another process or transaction appends first, or
// a queued leaf leaves the queue; flushLog corrects the reports' rows
// then.
func (t *tx) nextLeafIdx() int64 {
	t.n.mu.Lock()
	size := int64(t.n.rangeSize)
	t.n.mu.Unlock()
	return size + int64(len(t.pending))
}

// signed drops id from the reports flushLog is to sign: it has just been.
func (t *tx) signed(id string) {
	for i, u := range t.unsigned {
		if u == id {
			t.unsigned = append(t.unsigned[:i], t.unsigned[i+1:]...)
			return
		}
	}
}

// logPublished signs and logs the report a just-published version's
// submission already has (none yet is not an error: PutReport will).
func (t *tx) logPublished(ctx context.Context, id string) error {
	var p published
	var report []byte
	var sha string
	err := t.c.QueryRow(ctx, qPublishedReportOf, id).Scan(&p.addon, &p.version, &p.manifest, &p.cur.idx, &p.cur.leaf, &report, &sha)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return t.err(fmt.Sprintf("published report of %q", id), err)
	}
	env, err := t.logReport(id, p, report, sha)
	if err != nil {
		return err
	}
	if _, err := t.c.Exec(ctx, `UPDATE reports SET signatures = $2, envelope_keys = $3, leaf_idx = $4 WHERE submission_id = $1`,
		id, env.sigs, env.keys, env.leafIdx); err != nil {
		return t.err(fmt.Sprintf("store envelope of %q", id), err)
	}
	return nil
}

// head is the log's head row: the tree (size, root) and its latest signed
// checkpoint, of the tree cpSize and cpRoot (nil when none is signed).
type head struct {
	size     uint64
	root     []byte
	cpSize   *int64
	cpRoot   []byte
	signed   []byte
	signedAt *time.Time
	signedBy string
}

// covered reports whether h's signed checkpoint is of h's tree.
func (h head) covered() bool {
	return h.signed != nil && h.cpSize != nil && uint64(*h.cpSize) == h.size && bytes.Equal(h.cpRoot, h.root)
}

func (r reader) head(ctx context.Context) (head, error) {
	var h head
	var size int64
	err := r.c.QueryRow(ctx, `SELECT size, root, cp_size, cp_root, checkpoint, signed_at, signed_by FROM log_head WHERE id = 1`+r.lock).
		Scan(&size, &h.root, &h.cpSize, &h.cpRoot, &h.signed, r.d.ScanNullTime(&h.signedAt), &h.signedBy)
	if err != nil {
		return h, r.err("read log head", err)
	}
	h.size = uint64(size)
	return h, nil
}

var copyNodes = newCopy("log_nodes", "id", "hash", "submission_id", "leaf")

// flushLog appends the queued leaves to the log (the checkpoint signer
// signs the new tree once the transaction commits). It runs last in the
// transaction, holding the log's lock until the commit.
func (t *tx) flushLog(ctx context.Context) error {
	// The reports of versions published in this transaction that were
	// stored before and not since (CreateVersion) are signed now.
	for _, id := range t.unsigned {
		if err := t.logPublished(ctx, id); err != nil {
			return err
		}
	}
	t.unsigned = nil
	if len(t.pending) == 0 {
		return nil
	}
	// Most often the tree is still the one this process appended to last:
	// then the head is updated from it without being read first, the
	// update's condition checking (and, on PostgreSQL, locking) that it
	// is. Otherwise the head is read under its lock.
	if size, root, hashes, ok := t.n.lastRange(); ok {
		done, err := t.appendTo(ctx, size, root, hashes)
		if done || err != nil {
			return err
		}
	}
	h, err := t.head(ctx)
	if err != nil {
		return err
	}
	hashes, ok := t.n.cachedRange(h.size, h.root)
	if !ok {
		if hashes, err = t.nodes(ctx, compact.RangeNodes(0, h.size, nil)); err != nil {
			return err
		}
	}
	_, err = t.appendTo(ctx, h.size, nil, hashes)
	return err
}

// appendTo appends the queued leaves to the tree of size whose compact
// range is hashes, stores the nodes and writes the new tree into the
// head. With root nil the caller holds the head's lock and has read that
// tree in it; otherwise the head is updated only if it still names size
// and root, and done is false (nothing written) if it does not.
func (t *tx) appendTo(ctx context.Context, size uint64, root []byte, hashes [][]byte) (done bool, err error) {
	rng, err := rangeFactory.NewRange(0, size, hashes)
	if err != nil {
		return false, fmt.Errorf("%s: log range of size %d: %w", t.d.Name(), size, err)
	}
	// Every node the appends complete, each leaf's row with its text and
	// submission (the visitor sees a leaf first, then the subtrees it
	// completes).
	rows := make([][]any, 0, 2*len(t.pending))
	var p *pendingLeaf
	visit := func(id compact.NodeID, hash []byte) {
		if id.Level == 0 {
			rows = append(rows, []any{nodeKey(id), hash, p.submission, p.leaf})
		} else {
			rows = append(rows, []any{nodeKey(id), hash, nil, nil})
		}
	}
	for i := range t.pending {
		p = &t.pending[i]
		if err := rng.Append(rfc6962.DefaultHasher.HashLeaf(p.leaf), visit); err != nil {
			return false, fmt.Errorf("%s: append to log: %w", t.d.Name(), err)
		}
	}
	newRoot, err := rng.GetRootHash(nil)
	if err != nil {
		return false, fmt.Errorf("%s: log root: %w", t.d.Name(), err)
	}
	if root != nil && len(rows) <= maxInsertRows && t.d.WritesInWith() {
		// One statement, one round trip: the head's update, and the nodes'
		// insert only if the head still named the tree.
		q, a := guardedAppend(size, root, rng.End(), newRoot, rows)
		n, err := t.c.Exec(ctx, q, a...)
		switch {
		case err != nil:
			return false, t.err("append to log", err)
		case n == 0:
			return false, nil
		case n != int64(len(rows)):
			return false, fmt.Errorf("%s: append to log: %d of %d nodes stored", t.d.Name(), n, len(rows))
		}
	} else {
		if ok, err := t.advanceHead(ctx, size, root, rng.End(), newRoot); !ok || err != nil {
			return false, err
		}
		if err := t.insertRows(ctx, copyNodes, rows); err != nil {
			return false, t.err("append to log", err)
		}
	}
	if err := t.fixLeafIdx(ctx, int64(size)); err != nil {
		return false, err
	}
	t.pending = nil
	t.appended = true
	t.n.keepRange(rng.End(), newRoot, rng.Hashes())
	return true, nil
}

// fixLeafIdx corrects the leaf_idx of every report whose queued leaf was
// appended at another index than the one written into its row (the queued
// leaves are appended in order from size): none when this process's guess
// was right, one statement per distinct shift otherwise (a replica's append
// in between shifts all of them alike).
func (t *tx) fixLeafIdx(ctx context.Context, size int64) error {
	var shifts []int64
	byShift := map[int64][]string{}
	for i, p := range t.pending {
		d := size + int64(i) - p.idx
		if d == 0 {
			continue
		}
		if _, ok := byShift[d]; !ok {
			shifts = append(shifts, d)
		}
		byShift[d] = append(byShift[d], p.submission)
	}
	for _, d := range shifts {
		if _, err := t.c.Exec(ctx, `UPDATE reports SET leaf_idx = leaf_idx + $1 WHERE `+t.d.AnyOf("submission_id", "$2"),
			d, t.d.List(byShift[d])); err != nil {
			return t.err("store leaf indexes", err)
		}
	}
	return nil
}

// cachedRange returns the compact range of the tree of size and root that
// this process appended last, if it is that tree. A tree is its size and
// root (a collision aside), so a range kept by a transaction that then
// failed to commit is still right for the tree it names, and a replica's
// appends since make the head name another tree, which is read from the
// database instead.
func (n *notary) cachedRange(size uint64, root []byte) ([][]byte, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.rangeSize != size || !bytes.Equal(n.rangeRoot, root) {
		return nil, false
	}
	return append([][]byte(nil), n.rangeHashes...), true
}

// lastRange returns the compact range of the tree this process appended to
// last, if any.
func (n *notary) lastRange() (uint64, []byte, [][]byte, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.rangeRoot == nil {
		return 0, nil, nil, false
	}
	return n.rangeSize, n.rangeRoot, append([][]byte(nil), n.rangeHashes...), true
}

func (n *notary) keepRange(size uint64, root []byte, hashes [][]byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rangeSize, n.rangeRoot, n.rangeHashes = size, root, append([][]byte(nil), hashes...)
}

// maxInsertRows is the most rows insertRows writes with one INSERT; more
// go through the database's bulk copy.
const maxInsertRows = 32

// insertRows writes rows into c's table: a publication's one leaf and few
// nodes in one INSERT statement (one round trip, where a copy takes
// several), a batch's thousands by the bulk copy.
func (t *tx) insertRows(ctx context.Context, c *Copy, rows [][]any) error {
	switch {
	case len(rows) == 0:
		return nil
	case len(rows) > maxInsertRows:
		return t.c.CopyRows(ctx, c, len(rows), func(i int) []any { return rows[i] })
	}
	var a args
	var q strings.Builder
	q.WriteString("INSERT INTO " + c.Table + " (" + strings.Join(c.Cols, ", ") + ") VALUES ")
	for i, r := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteByte('(')
		for j, v := range r {
			if j > 0 {
				q.WriteString(", ")
			}
			q.WriteString(a.add(v))
		}
		q.WriteByte(')')
	}
	_, err := t.c.Exec(ctx, q.String(), a...)
	return err
}

// guardedAppend returns a statement (a data-modifying WITH, see
// Dialect.WritesInWith) and its arguments that write the tree of newSize
// and newRoot into the head if the head still names the tree of size and
// root, and insert the nodes' rows (copyNodes' columns) only if it did:
// it changes len(rows) rows or none. The casts type the VALUES, which
// the INSERT's columns do not reach through the SELECT.
func guardedAppend(size uint64, root []byte, newSize uint64, newRoot []byte, rows [][]any) (string, []any) {
	a := args{int64(newSize), newRoot, int64(size), root}
	var q strings.Builder
	q.WriteString(`WITH head AS (UPDATE log_head SET size = $1, root = $2 WHERE id = 1 AND size = $3 AND root = $4 RETURNING id)
		INSERT INTO log_nodes (id, hash, submission_id, leaf)
		SELECT n.id, n.hash, n.submission_id, n.leaf FROM (VALUES `)
	for i, r := range rows {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "(%s::bigint, %s::bytea, %s::text, %s::bytea)", a.add(r[0]), a.add(r[1]), a.add(r[2]), a.add(r[3]))
	}
	q.WriteString(`) AS n (id, hash, submission_id, leaf) WHERE EXISTS (SELECT 1 FROM head)`)
	return q.String(), a
}

// advanceHead writes the tree of newSize and newRoot into the head row:
// with root nil the caller holds the head's lock; otherwise only if the
// head still names the tree of size and root, reporting whether it did.
// The checkpoint columns are left alone: the append signs nothing.
func (t *tx) advanceHead(ctx context.Context, size uint64, root []byte, newSize uint64, newRoot []byte) (bool, error) {
	q, a := `UPDATE log_head SET size = $1, root = $2 WHERE id = 1`, []any{int64(newSize), newRoot}
	if root != nil {
		q, a = q+` AND size = $3 AND root = $4`, append(a, int64(size), root)
	}
	n, err := t.c.Exec(ctx, q, a...)
	if err != nil {
		return false, t.err("store log head", err)
	}
	return n == 1, nil
}

// storeCheckpoint signs a checkpoint of h's tree, holding no lock, and
// stores it in the head row only if the row still holds the checkpoint h
// read (a compare-and-swap, one UPDATE in a transaction of its own). It
// reports whether it stored it: false when another signature came first.
// An append since h was read does not fail it: h's tree is a tree the log
// had, the head's or an earlier one, as a checkpoint's always is, and the
// append's signer signs the grown tree. The condition also repeats what it
// implies: a checkpoint is never stored over one of a larger tree.
func (s *Store) storeCheckpoint(ctx context.Context, h head) (bool, error) {
	signed, at, err := s.n.checkpoint(h.size, h.root)
	if err != nil {
		return false, fmt.Errorf("sign checkpoint: %w", err)
	}
	var n int64
	err = s.inTx(ctx, func(t *tx) error {
		var err error
		n, err = t.c.Exec(ctx, `UPDATE log_head SET cp_size = $1, cp_root = $2, checkpoint = $3, signed_at = $4, signed_by = $5
			WHERE id = 1 AND checkpoint IS NOT DISTINCT FROM $6 AND (cp_size IS NULL OR cp_size <= $1)`,
			int64(h.size), h.root, signed, t.d.Time(at), t.n.keyIDs, h.signed)
		if err != nil {
			return t.err("store checkpoint", err)
		}
		return nil
	})
	return n == 1, err
}

// checkpointStale reports whether the head's tree must be signed: its
// checkpoint is missing, of a smaller tree, older than maxAge or lacks one
// of the store's keys.
func (n *notary) checkpointStale(h head, maxAge time.Duration) bool {
	return !h.covered() || h.signedAt == nil || n.now().Sub(*h.signedAt) >= maxAge || !n.signedByAll(h.signedBy)
}

// RefreshCheckpoint signs the head's tree when its checkpoint is missing,
// of a smaller tree, older than maxAge or lacks one of the store's keys;
// see storage.Store.
func (s *Store) RefreshCheckpoint(ctx context.Context, maxAge time.Duration) (bool, error) {
	signed, err := s.signCheckpoint(ctx, maxAge)
	if err != nil {
		return false, fmt.Errorf("refresh checkpoint: %w", err)
	}
	return signed, nil
}

// maxSignAttempts bounds how often signCheckpoint signs in vain: each
// failed attempt means that another signature was stored meanwhile, after
// which the tree must have grown again for it to try once more.
const maxSignAttempts = 20

// signCheckpoint signs a checkpoint of the head's tree if it is stale
// (checkpointStale), and reports whether it did. The head is read without
// a lock and the signature stored only if no other was stored meanwhile
// (storeCheckpoint); if one was, the head is read and the decision made
// again. So no lock is held while the checkpoint is signed, and a signer
// never makes an append wait for more than its one UPDATE and commit; of
// replicas signing at once, the first to store wins and the others find
// its checkpoint fresh (or, when the tree has grown since, sign again).
// The process signs one at a time, so that the signer and the proofs that
// cannot wait for it (InclusionProof) sign once between them: one that
// waited for another reads the head again before it signs.
func (s *Store) signCheckpoint(ctx context.Context, maxAge time.Duration) (bool, error) {
	h, err := s.head(ctx)
	if err != nil {
		return false, err
	}
	if !s.n.checkpointStale(h, maxAge) {
		return false, nil
	}
	if !s.cp.mu.TryLock() {
		s.cp.mu.Lock()
		if h, err = s.head(ctx); err != nil || !s.n.checkpointStale(h, maxAge) {
			s.cp.mu.Unlock()
			return false, err
		}
	}
	defer s.cp.mu.Unlock()
	// The proofs kept in memory carry the checkpoint (cache.go).
	defer s.txEnded()
	for attempt := 1; ; attempt++ {
		stored, err := s.storeCheckpoint(ctx, h)
		if err != nil || stored {
			return stored, err
		}
		if attempt == maxSignAttempts {
			return false, fmt.Errorf("%s: sign checkpoint: another checkpoint was stored first %d times", s.d.Name(), attempt)
		}
		if h, err = s.head(ctx); err != nil {
			return false, err
		}
		if !s.n.checkpointStale(h, maxAge) {
			return false, nil
		}
	}
}

// SignEnvelopes signs every published report whose envelope is missing or
// lacks one of the store's keys, batch reports per transaction; see
// storage.Store. Each transaction claims its batch as re-assessment does,
// passing over the reports another transaction holds: it signs the bytes
// it holds, never an older report than the one a concurrent re-render
// commits, and keeps no stale report waiting. The batches walk the reports
// in order from a cursor, so each report is looked at once however many
// are signed already, and each batch costs a few statements: the claim,
// one read of the claimed reports, and one upsert of their envelopes per
// rowsPerStatement reports.
func (s *Store) SignEnvelopes(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		return 0, fmt.Errorf("sign envelopes: batch must be positive, got %d", batch)
	}
	total, after := 0, ""
	for {
		n, next, err := s.signEnvelopes(ctx, after, batch)
		total += n
		if err != nil {
			return total, fmt.Errorf("sign envelopes: %w", err)
		}
		if next == "" {
			return total, nil
		}
		after = next
	}
}

// qEnvelopesOf reads what signing the envelopes of the claimed reports
// needs: each one's published version, its current leaf and its bytes, in
// one query.
const qEnvelopesOf = `SELECT s.id, s.addon, s.version, s.manifest_sha256, ` + curCols + `, rp.bytes, rp.sha256, rp.ruleset
	FROM submissions s JOIN versions v ON v.submission_id = s.id JOIN reports rp ON rp.submission_id = s.id
	WHERE `

// onConflictEnvelopes makes upsertReports write only a report's envelope
// signatures and leaf index: the claimed reports exist, and their bytes
// are those read under the claim.
const onConflictEnvelopes = ` ON CONFLICT (submission_id) DO UPDATE SET signatures = excluded.signatures,
	envelope_keys = excluded.envelope_keys, leaf_idx = excluded.leaf_idx`

// signEnvelopes signs, in one transaction, up to batch of the reports
// SignEnvelopes signs whose submission ID follows after, and returns how
// many it signed and the cursor of the next batch ("" when none follows).
func (s *Store) signEnvelopes(ctx context.Context, after string, batch int) (int, string, error) {
	var a args
	conds := []string{"rp.signatures IS NULL"}
	for _, k := range s.n.keys {
		conds = append(conds, "rp.envelope_keys NOT LIKE "+a.add("%"+k.ID+"%"))
	}
	where := "(" + strings.Join(conds, " OR ") + ")"
	if after != "" {
		// On both sides of the join, so that PostgreSQL walks both indexes
		// from the cursor rather than one of them from its start.
		c := a.add(after)
		where += " AND rp.submission_id > " + c + " AND v.submission_id > " + c
	}
	q := `SELECT rp.submission_id FROM versions v JOIN reports rp ON rp.submission_id = v.submission_id
		WHERE ` + where + ` ORDER BY rp.submission_id LIMIT ` + a.add(batch) + s.d.Claim("rp", false)
	var (
		n    int
		next string
	)
	// The envelopes it signs are served from memory (cache.go).
	defer s.txEnded()
	err := s.inTx(ctx, func(t *tx) error {
		n, next = 0, ""
		ids, err := list(t.reader, ctx, "unsigned reports", func(row Row) (string, error) {
			var id string
			return id, row.Scan(&id)
		}, q, a...)
		if err != nil || len(ids) == 0 {
			return err
		}
		if len(ids) == batch {
			next = ids[len(ids)-1]
		}
		// Read once claimed: a re-render that committed before the claim
		// is what is signed.
		type claimed struct {
			id  string
			p   published
			r   []byte
			sha string
			set string
		}
		rows, err := list(t.reader, ctx, "unsigned reports", func(row Row) (claimed, error) {
			var c claimed
			return c, row.Scan(&c.id, &c.p.addon, &c.p.version, &c.p.manifest, &c.p.cur.idx, &c.p.cur.leaf, &c.r, &c.sha, &c.set)
		}, qEnvelopesOf+t.d.AnyOf("s.id", "$1"), t.d.List(ids))
		if err != nil {
			return err
		}
		// A submission is one version; should it be two, it is signed once.
		seen := make(map[string]bool, len(rows))
		rows = slices.DeleteFunc(rows, func(c claimed) bool {
			dup := seen[c.id]
			seen[c.id] = true
			return dup
		})
		envs := make([]logCols, len(rows))
		for i, c := range rows {
			if envs[i], err = t.logReport(c.id, c.p, nonNilBytes(c.r), c.sha); err != nil {
				return err
			}
		}
		err = chunks(len(rows), func(lo, hi int) error {
			a := make([]any, 0, reportArgs*(hi-lo))
			for i := lo; i < hi; i++ {
				c, env := rows[i], envs[i]
				a = append(a, c.id, nonNilBytes(c.r), c.sha, c.set, env.sigs, env.keys, env.leafIdx)
			}
			_, err := t.c.Exec(ctx, upsertReports+valuesSQL(hi-lo, reportArgs, 1, ", false")+onConflictEnvelopes, a...)
			return err
		})
		if err != nil {
			return t.err(fmt.Sprintf("store %d envelopes", len(rows)), err)
		}
		n = len(rows)
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	return n, next, nil
}

// Checkpoint returns the latest signed checkpoint; see storage.Log.
func (r reader) Checkpoint(ctx context.Context) (storage.Checkpoint, error) {
	h, err := r.head(ctx)
	if err != nil {
		return storage.Checkpoint{}, err
	}
	if h.signed == nil || h.signedAt == nil || h.cpSize == nil {
		return storage.Checkpoint{}, fmt.Errorf("%s: checkpoint: none signed yet: %w", r.d.Name(), registry.ErrNotFound)
	}
	return storage.Checkpoint{Size: uint64(*h.cpSize), Root: h.cpRoot, Signed: h.signed, SignedAt: *h.signedAt}, nil
}

// The inclusion proof's first read: the latest signed checkpoint and the
// version's current leaf, in one statement so that they come from one
// state of the log. The leaf may be newer than the checkpoint (appended,
// not signed yet): then the checkpoint's size is not past its index.
const (
	qInclusion = `SELECT h.cp_size, h.checkpoint, rp.leaf_idx, n.leaf
		FROM log_head h, versions v JOIN reports rp ON rp.submission_id = v.submission_id
		JOIN log_nodes n ON n.id = 2 * rp.leaf_idx
		WHERE h.id = 1 AND v.addon = $1 AND v.version = $2`
	qInclusionLatest = `SELECT h.cp_size, h.checkpoint, rp.leaf_idx, n.leaf
		FROM log_head h, addons a JOIN versions v ON v.addon = a.name AND v.version = a.latest_version
		JOIN reports rp ON rp.submission_id = v.submission_id JOIN log_nodes n ON n.id = 2 * rp.leaf_idx
		WHERE h.id = 1 AND a.name = $1`
)

// errUnsigned is the reader's InclusionProof's error for a leaf that no
// signed checkpoint covers yet.
var errUnsigned = errors.New("no signed checkpoint covers the leaf yet")

// InclusionProof proves addon@version's current leaf against the latest
// signed checkpoint; see storage.Log. When that checkpoint does not cover
// the leaf yet (appended an instant ago, the signer not done), it signs a
// checkpoint of the head's tree first, as the signer would have: a proof
// is always of the leaf the report names, and always against a signed
// tree.
func (s *Store) InclusionProof(ctx context.Context, addon, version string) (storage.Inclusion, error) {
	p, err := s.reader.InclusionProof(ctx, addon, version)
	if !errors.Is(err, errUnsigned) {
		return p, err
	}
	if _, err := s.signCheckpoint(ctx, neverStale); err != nil {
		return p, fmt.Errorf("inclusion proof of %s@%s: %w", addon, version, err)
	}
	return s.reader.InclusionProof(ctx, addon, version)
}

// InclusionProof proves addon@version's current leaf against the latest
// signed checkpoint, failing with errUnsigned when that does not cover it.
func (r reader) InclusionProof(ctx context.Context, addon, version string) (storage.Inclusion, error) {
	var row Row
	if version == "" {
		row = r.c.QueryRow(ctx, qInclusionLatest, addon)
	} else {
		row = r.c.QueryRow(ctx, qInclusion, addon, version)
	}
	var size *int64
	var idx int64
	var p storage.Inclusion
	if err := row.Scan(&size, &p.Checkpoint, &idx, &p.Leaf); err != nil {
		return p, r.err(fmt.Sprintf("inclusion proof of %s@%s", addon, version), err)
	}
	if size == nil || p.Checkpoint == nil || *size <= idx {
		return storage.Inclusion{}, fmt.Errorf("%s: inclusion proof of %s@%s: leaf %d: %w", r.d.Name(), addon, version, idx, errUnsigned)
	}
	p.TreeSize, p.LeafIndex = uint64(*size), uint64(idx)
	nodes, err := proof.Inclusion(p.LeafIndex, p.TreeSize)
	if err != nil {
		return p, fmt.Errorf("%s: inclusion proof of %s@%s: %w", r.d.Name(), addon, version, err)
	}
	if p.Hashes, err = r.proofHashes(ctx, nodes); err != nil {
		return p, err
	}
	return p, nil
}

// ConsistencyProof proves that the tree of size to extends that of size
// from; see storage.Log.
func (r reader) ConsistencyProof(ctx context.Context, from, to uint64) ([][]byte, error) {
	h, err := r.head(ctx)
	if err != nil {
		return nil, err
	}
	size := uint64(0)
	if h.signed != nil && h.cpSize != nil {
		size = uint64(*h.cpSize)
	}
	switch {
	case to > size:
		return nil, invalid("to", fmt.Sprintf("is larger than the log's size in its latest checkpoint, %d", size))
	case from > to:
		return nil, invalid("from", "is larger than to")
	}
	nodes, err := proof.Consistency(from, to)
	if err != nil {
		return nil, fmt.Errorf("%s: consistency proof: %w", r.d.Name(), err)
	}
	return r.proofHashes(ctx, nodes)
}

// The envelope reads, as the report reads (reports.go): the report's bytes
// and its envelope's signatures.
const (
	qPublishedEnvelopeLatest = `SELECT rp.bytes, rp.signatures` + publishedFromLatest + ` AND rp.signatures IS NOT NULL`
	qPublishedEnvelope       = `SELECT rp.bytes, rp.signatures` + publishedFromVersion + ` AND rp.signatures IS NOT NULL`
)

// PublishedEnvelope returns the envelope of the report PublishedReport
// returns, assembled from the report and its stored signatures, and its
// digest; see storage.Log.
func (r reader) PublishedEnvelope(ctx context.Context, addon, version string) (storage.Envelope, error) {
	var row Row
	if version == "" {
		row = r.c.QueryRow(ctx, qPublishedEnvelopeLatest, addon)
	} else {
		row = r.c.QueryRow(ctx, qPublishedEnvelope, addon, version)
	}
	var report, sigs []byte
	if err := row.Scan(&report, &sigs); err != nil {
		return storage.Envelope{}, r.err(fmt.Sprintf("envelope of %s@%s", addon, version), err)
	}
	env := transparency.AssembleEnvelope(report, sigs)
	sum := sha256.Sum256(env)
	return storage.Envelope{Bytes: env, SHA256: hex.EncodeToString(sum[:])}, nil
}

// PublishedEnvelopeDigest returns the SHA256 of the envelope
// PublishedEnvelope returns, which it assembles to hash it.
func (r reader) PublishedEnvelopeDigest(ctx context.Context, addon, version string) (string, error) {
	e, err := r.PublishedEnvelope(ctx, addon, version)
	return e.SHA256, err
}

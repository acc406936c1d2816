package storetest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// The checkpoint signed apart from the append: an append grows the tree,
// and the store signs a checkpoint of it after the transaction commits.

// testCheckpointSoon: after a publication, a checkpoint covering it is
// signed with nothing else asked of the store, the first after an idle log
// and one after a run of publications alike, and a proof asked at once,
// before the store's signer may have signed, verifies against a signed
// checkpoint that holds the leaf. How soon (SignedWithin) is a figure of
// BenchCheckpointDelay, not asserted here: a busy machine may stall the
// signer past it without the store doing anything wrong, so the test
// waits up to ten times as long and logs the delay.
func testCheckpointSoon(t *testing.T, s storage.Store) {
	st := newLogState()
	for i, n := range []int{1, 1, 1, 3} {
		leaves := publishN(t, s, "alpha", len(st.leaves), n)
		committed := time.Now()
		st.add(leaves...)
		if i == 1 {
			// Right after another publication: the signer waits before it
			// signs again, so the proof likely has its checkpoint signed.
			if _, err := proveSigned(s, leaves[0]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		cp, err := waitCheckpoint(s, uint64(len(st.leaves)), 10*SignedWithin)
		if err != nil {
			t.Fatalf("after publication %d (%v after its commit): %v", i, time.Since(committed), err)
		}
		t.Logf("publication %d: checkpoint signed %v after the commit", i, time.Since(committed).Round(time.Millisecond))
		if cp.Size != uint64(len(st.leaves)) {
			t.Errorf("checkpoint of %d leaves, %d appended", cp.Size, len(st.leaves))
		}
	}
	verifyLog(t, s, st, uint64(len(st.leaves)))
}

// testCheckpointBehind: a tree grown past its signed checkpoint (a process
// that stopped between its append and the signature) is served as the
// checkpoint's tree — the checkpoint, consistency proofs, tiles and
// bundles, proofs of the leaves it holds — until a proof of a leaf it lacks
// or the periodic refresh signs the grown tree.
func testCheckpointBehind(t *testing.T, s storage.Store) {
	ctx := context.Background()
	st := newLogState()
	st.add(publishN(t, s, "alpha", 0, 2)...)
	verifyLog(t, s, st, 2)
	two := mustCheckpoint(t, s)
	last := publishN(t, s, "alpha", 2, 1)[0]
	st.add(last)
	verifyLog(t, s, st, 3)

	for _, grow := range []string{"proof", "refresh"} {
		rewindCheckpoint(t, s, two)
		if cp := mustCheckpoint(t, s); cp.Size != 2 || !bytes.Equal(cp.Signed, two.Signed) {
			t.Fatalf("rewound checkpoint: size %d", cp.Size)
		}
		if _, err := s.ConsistencyProof(ctx, 2, 3); !errors.Is(err, registry.ErrInvalid) {
			t.Errorf("ConsistencyProof(2, 3) past the signed tree = %v, want ErrInvalid", err)
		}
		if _, err := s.LogEntries(ctx, 0, 3); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("LogEntries(0, 3) past the signed tree = %v, want ErrNotFound", err)
		}
		if _, err := s.LogTile(ctx, 0, 0, 3); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("LogTile(0, 0, 3) past the signed tree = %v, want ErrNotFound", err)
		}
		if es, err := s.LogEntries(ctx, 0, 2); err != nil || len(es) != 2 {
			t.Errorf("LogEntries(0, 2) of the signed tree = %d entries, %v", len(es), err)
		}
		// A leaf the checkpoint holds is proved against it, not against
		// the larger unsigned tree.
		p, err := s.InclusionProof(ctx, "alpha", "1.0.0")
		if err != nil || p.TreeSize != 2 || !bytes.Equal(p.Checkpoint, two.Signed) {
			t.Errorf("proof of a signed leaf: tree %d, %v; want the signed checkpoint's 2", p.TreeSize, err)
		}
		switch grow {
		case "proof":
			// The proof of the leaf it lacks has the grown tree signed.
			c, err := proveSigned(s, last)
			if err != nil || c.Size != 3 {
				t.Fatalf("proof of the unsigned leaf: checkpoint of %d, %v; want one of 3 signed", c.Size, err)
			}
		case "refresh":
			signed, err := s.RefreshCheckpoint(ctx, time.Hour)
			if err != nil || !signed {
				t.Fatalf("RefreshCheckpoint of a tree ahead of its checkpoint = %v, %v; want it signed", signed, err)
			}
		}
		verifyLog(t, s, st, 3)
		if signed, err := s.RefreshCheckpoint(ctx, time.Hour); err != nil || signed {
			t.Errorf("RefreshCheckpoint of a fresh checkpoint of the tree = %v, %v; want it left alone", signed, err)
		}
	}
}

// rewindCheckpoint stores cp as the latest signed checkpoint, straight into
// the database of a SQLite or PostgreSQL store, as if the store had not
// signed since.
func rewindCheckpoint(t *testing.T, s storage.Store, cp storage.Checkpoint) {
	t.Helper()
	ctx := context.Background()
	var err error
	switch db := s.(type) {
	case interface{ DB() *sql.DB }:
		_, err = db.DB().ExecContext(ctx, `UPDATE log_head SET cp_size = ?, cp_root = ?, checkpoint = ? WHERE id = 1`, int64(cp.Size), cp.Root, cp.Signed)
	case interface{ Pool() *pgxpool.Pool }:
		_, err = db.Pool().Exec(ctx, `UPDATE log_head SET cp_size = $1, cp_root = $2, checkpoint = $3 WHERE id = 1`, int64(cp.Size), cp.Root, cp.Signed)
	default:
		t.Fatalf("rewind checkpoint: a store of type %T is neither SQLite nor PostgreSQL", s)
	}
	if err != nil {
		t.Fatalf("rewind checkpoint: %v", err)
	}
}

package migrations_test

import (
	"bytes"
	"context"
	"database/sql"
	"io/fs"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/transparency"
)

// TestCheckpointApart stores a log at version 23, whose checkpoint always
// names the head's tree, migrates to 24 (the checkpoint names its own
// tree), and checks on both dialects that the store serves the same signed
// checkpoint byte for byte, with proofs against it; then that going back
// to 23 keeps a checkpoint of the head's tree and drops one of an older
// tree, which version 23 would serve as the head's.
func TestCheckpointApart(t *testing.T) {
	_, skey, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	signing := storage.Signing{Signers: []*transparency.Signer{skey}}
	eachDialect(t, func(t *testing.T, d oldDB) {
		db := d.open()
		old := fillBeforeLogTable(t, d.dialect, db, d.fsys, skey)
		upTo(t, d.dialect, db, d.fsys, 23)
		db.Close()
		cfg := d.cfg
		cfg.Signing = signing
		checkCheckpointApart(t, cfg, old, d.dialect, d.open, d.fsys)
	})
}

func checkCheckpointApart(t *testing.T, cfg storage.Config, old oldLog, dialect goose.Dialect, open func() *sql.DB, fsys fs.FS) {
	ctx := context.Background()
	db := open()
	defer db.Close()
	var before []byte
	if err := db.QueryRowContext(ctx, `SELECT checkpoint FROM log_head WHERE id = 1`).Scan(&before); err != nil || before == nil {
		t.Fatalf("checkpoint at version 23: %q, %v", before, err)
	}

	s, err := backend.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := s.Checkpoint(ctx)
	if err != nil || cp.Size != uint64(len(old.leaves)) || !bytes.Equal(cp.Root, old.root) || !bytes.Equal(cp.Signed, before) {
		t.Fatalf("checkpoint after 00024 = size %d root %x %v\n%s\nwant size %d root %x\n%s", cp.Size, cp.Root, err, cp.Signed, len(old.leaves), old.root, before)
	}
	for v, idx := range old.current {
		p, err := s.InclusionProof(ctx, "weather", v)
		if err != nil || p.LeafIndex != idx || p.TreeSize != uint64(len(old.leaves)) || !bytes.Equal(p.Checkpoint, before) {
			t.Fatalf("proof of %s after 00024: leaf %d of %d, %v; want leaf %d against the migrated checkpoint", v, p.LeafIndex, p.TreeSize, err, idx)
		}
		if err := transparency.VerifyInclusion(p.Leaf, p.LeafIndex, p.TreeSize, p.Hashes, old.root); err != nil {
			t.Errorf("proof of %s: %v", v, err)
		}
	}
	s.Close()

	p, err := goose.NewProvider(dialect, db, fsys)
	if err != nil {
		t.Fatal(err)
	}
	head := func() (size int64, checkpoint []byte) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT size, checkpoint FROM log_head WHERE id = 1`).Scan(&size, &checkpoint); err != nil {
			t.Fatal(err)
		}
		return size, checkpoint
	}
	// Back to 23 with the checkpoint of the head's tree: kept.
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatalf("down to 23: %v", err)
	}
	if size, got := head(); size != int64(len(old.leaves)) || !bytes.Equal(got, before) {
		t.Errorf("checkpoint at 23 again: size %d %q, want it kept", size, got)
	}
	// Up again, the tree grown past its checkpoint, and back: dropped.
	if _, err := p.UpTo(ctx, 24); err != nil {
		t.Fatalf("up to 24: %v", err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE log_head SET size = size + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatalf("down to 23: %v", err)
	}
	if _, got := head(); got != nil {
		t.Errorf("checkpoint of an older tree kept at 23: %q", got)
	}
}

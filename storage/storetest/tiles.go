package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// The log as C2SP tlog-tiles tiles and entry bundles (storage.Log's
// LogTile and LogEntries), checked the way a mirror or witness uses them:
// the tree's root rebuilt from the tiles alone with transparency-dev/merkle
// must be the checkpoint's, and every entry must hash to its tile's hash.

// PublishLeaves publishes n versions of addon (versions from, from+1, …)
// in one transaction, each with its report, and returns the leaves the log
// appends for them, in order, once a signed checkpoint covers them. For
// tests that need a log of some size.
func PublishLeaves(t testing.TB, s storage.Store, addonName string, from, n int) []transparency.Leaf {
	t.Helper()
	ctx := context.Background()
	var leaves []transparency.Leaf
	err := s.InTx(ctx, func(tx storage.Tx) error {
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
	if err != nil {
		t.Fatalf("publish %d versions of %s: %v", n, addonName, err)
	}
	// The leaves are in a signed checkpoint when it returns: the proof of
	// the last has one signed if the store's signer has not yet.
	if n > 0 {
		if _, err := s.InclusionProof(ctx, addonName, leaves[n-1].Version); err != nil {
			t.Fatalf("publish %d versions of %s: proof of the last: %v", n, addonName, err)
		}
	}
	return leaves
}

// TileFunc fetches the first width hashes of the tile at level of index.
type TileFunc func(level uint8, index uint64, width int) ([]byte, error)

var tileRanges = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// RootFromTiles computes the root of the tree of size from its tiles, as a
// tlog-tiles client does: from the top level down, each hash of a tile
// stands for a complete subtree of 256**level leaves, and the tiles of a
// level cover what the levels above left over. It reads the fewest tiles
// that cover the tree, each of the width the tree's size gives it.
func RootFromTiles(size uint64, tile TileFunc) ([]byte, error) {
	rng := tileRanges.NewEmptyRange(0)
	top := 0
	for top < 7 && size>>(8*(top+1)) > 0 {
		top++
	}
	for level := top; level >= 0; level-- {
		shift := uint(8 * level)
		for i, end := rng.End()>>shift, size>>shift; i < end; {
			n := i / 256
			width := int(min(256, end-n*256))
			data, err := tile(uint8(level), n, width)
			if err != nil {
				return nil, fmt.Errorf("tile %d/%d width %d: %w", level, n, width, err)
			}
			if len(data) != 32*width {
				return nil, fmt.Errorf("tile %d/%d width %d: %d bytes, want %d", level, n, width, len(data), 32*width)
			}
			for ; i < n*256+uint64(width); i++ {
				h := data[(i-n*256)*32:][:32]
				sub, err := tileRanges.NewRange(i<<shift, (i+1)<<shift, [][]byte{h})
				if err != nil {
					return nil, err
				}
				if err := rng.AppendRange(sub, nil); err != nil {
					return nil, err
				}
			}
		}
	}
	if rng.End() != size {
		return nil, fmt.Errorf("the tiles cover %d leaves, not %d", rng.End(), size)
	}
	return rng.GetRootHash(nil)
}

// SubtreeRoot returns the root of the complete subtree whose 256 hashes
// a full tile holds: the hash the tile stands for one level up.
func SubtreeRoot(tile []byte) ([]byte, error) {
	rng := tileRanges.NewEmptyRange(0)
	for i := 0; i+32 <= len(tile); i += 32 {
		if err := rng.Append(tile[i:i+32], nil); err != nil {
			return nil, err
		}
	}
	return rng.GetRootHash(nil)
}

// testLogTiles grows a log past one full tile and checks its tiles and
// bundles: the root they give, the leaves they hold, a partial tile that
// stays what it was as the log grows, and none past the log's size.
func testLogTiles(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if _, err := s.LogTile(ctx, 0, 0, 1); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("LogTile of an empty log = %v, want ErrNotFound", err)
	}
	if _, err := s.LogEntries(ctx, 0, 1); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("LogEntries of an empty log = %v, want ErrNotFound", err)
	}
	leaves := PublishLeaves(t, s, "alpha", 0, 200)
	early, err := s.LogTile(ctx, 0, 0, 200)
	if err != nil {
		t.Fatalf("LogTile(0, 0, 200) of a log of 200: %v", err)
	}
	if _, err := s.LogTile(ctx, 0, 0, 201); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("LogTile(0, 0, 201) of a log of 200 = %v, want ErrNotFound", err)
	}
	leaves = append(leaves, PublishLeaves(t, s, "alpha", 200, 1)...)
	leaves = append(leaves, PublishLeaves(t, s, "beta", 0, 399)...)
	c := checkpoint(t, s)
	if c.Size != 600 {
		t.Fatalf("checkpoint size %d, want 600", c.Size)
	}

	tile := func(level uint8, index uint64, width int) ([]byte, error) {
		return s.LogTile(ctx, level, index, width)
	}
	root, err := RootFromTiles(c.Size, tile)
	if err != nil {
		t.Fatalf("root from tiles: %v", err)
	}
	if !bytes.Equal(root, c.Hash) {
		t.Errorf("root from tiles %x, checkpoint's %x", root, c.Hash)
	}

	// The partial tile read at size 200 is still served, the prefix of the
	// full tile it grew into.
	again, err := s.LogTile(ctx, 0, 0, 200)
	if err != nil || !bytes.Equal(again, early) {
		t.Errorf("LogTile(0, 0, 200) after growth = %x, %v; want what it was", again, err)
	}
	level1, err := s.LogTile(ctx, 1, 0, 2)
	if err != nil {
		t.Fatalf("LogTile(1, 0, 2): %v", err)
	}
	for n := range uint64(3) {
		width := 256
		if n == 2 {
			width = 600 - 512
		}
		hashes, err := s.LogTile(ctx, 0, n, width)
		if err != nil {
			t.Fatalf("LogTile(0, %d, %d): %v", n, width, err)
		}
		if n == 0 && !bytes.Equal(hashes[:len(early)], early) {
			t.Errorf("full tile 0/0 does not start with the partial tile 0/0.p/200")
		}
		if width == 256 {
			sub, err := SubtreeRoot(hashes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sub, level1[n*32:][:32]) {
				t.Errorf("tile 0/%d hashes to %x, tile 1/0 holds %x for it", n, sub, level1[n*32:][:32])
			}
		}
		entries, err := s.LogEntries(ctx, n, width)
		if err != nil {
			t.Fatalf("LogEntries(%d, %d): %v", n, width, err)
		}
		if len(entries) != width {
			t.Fatalf("LogEntries(%d, %d): %d entries", n, width, len(entries))
		}
		for i, e := range entries {
			idx := int(n)*256 + i
			if want := leaves[idx].Marshal(); !bytes.Equal(e, want) {
				t.Errorf("entry %d is\n%s\nwant\n%s", idx, e, want)
			}
			if h := rfc6962.DefaultHasher.HashLeaf(e); !bytes.Equal(h, hashes[i*32:][:32]) {
				t.Errorf("entry %d hashes to %x, its tile holds %x", idx, h, hashes[i*32:][:32])
			}
		}
	}

	// Nothing past the log's size, nor any tile no log could hold.
	for _, tc := range []struct {
		level        uint8
		index        uint64
		width        int
		entriesToo   bool
		whyNotServed string
	}{
		{0, 2, 89, true, "one hash past the log"},
		{0, 2, 256, true, "a full tile the log has not filled"},
		{0, 3, 1, true, "a tile past the log"},
		{1, 0, 3, false, "a level-1 hash past the log"},
		{1, 0, 256, false, "a full level-1 tile"},
		{2, 0, 1, false, "a level no hash of the log reaches"},
		{63, 0, 1, false, "the highest level"},
		{0, math.MaxUint64, 256, true, "the largest index"},
		{0, 1 << 54, 1, true, "an index whose node key would overflow"},
		{7, 1, 1, false, "a level-7 tile past 2**62 leaves"},
		{0, 0, 0, true, "width 0"},
		{0, 0, 257, true, "width 257"},
	} {
		if _, err := s.LogTile(ctx, tc.level, tc.index, tc.width); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("LogTile(%d, %d, %d) (%s) = %v, want ErrNotFound", tc.level, tc.index, tc.width, tc.whyNotServed, err)
		}
		if tc.entriesToo {
			if _, err := s.LogEntries(ctx, tc.index, tc.width); !errors.Is(err, registry.ErrNotFound) {
				t.Errorf("LogEntries(%d, %d) (%s) = %v, want ErrNotFound", tc.index, tc.width, tc.whyNotServed, err)
			}
		}
	}
}

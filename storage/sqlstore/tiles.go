package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/transparency-dev/merkle/compact"

	"github.com/registryd/registryd/registry"
)

// The log as C2SP tlog-tiles serves it (docs/trust.md): tiles of the hashes
// the log already stores (log_nodes holds every complete subtree, leaves
// included) and bundles of its leaves (the leaves' rows of log_nodes carry
// their text). Neither is stored apart: a tile is up to 256 nodes read by
// key, a bundle up to 256 leaves read by one range of keys. A
// tile or bundle exists when every one of its rows does; rows are only
// ever added, with the head, so a tile once there never changes. Only what
// the latest signed checkpoint covers is served: a tile or bundle past its
// size is not there yet, though its rows may be (appended, not signed).

// signedSize returns the size of the tree of the latest signed checkpoint,
// 0 when none is signed yet.
func (r reader) signedSize(ctx context.Context) (uint64, error) {
	var size *int64
	if err := r.c.QueryRow(ctx, `SELECT cp_size FROM log_head WHERE id = 1 AND checkpoint IS NOT NULL`).Scan(&size); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return 0, r.err("read log checkpoint size", err)
	}
	if size == nil {
		return 0, nil
	}
	return uint64(*size), nil
}

// tileWidth is the number of hashes in a full tile, and of entries in a
// full bundle: tiles are of height 8.
const tileWidth = 256

// maxTileLeaves bounds the leaves a tile may reach: a node key (nodeKey)
// is an int64, and a subtree ending past 2**62 leaves could have one past
// it. No log grows that large.
const maxTileLeaves = uint64(1) << 62

// qTile reads the nodes of one tile by key: one constant text (prepared
// once), the keys of a partial tile padded with -1, which no node has.
var qTile = func() string {
	ph := make([]string, tileWidth)
	for i := range ph {
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	return `SELECT id, hash FROM log_nodes WHERE id IN (` + strings.Join(ph, ", ") + `)`
}()

// qEntries reads the leaves of a bundle: the even keys of a range of
// log_nodes, between which lie the nodes of the subtrees they complete.
const qEntries = `SELECT id, leaf FROM log_nodes WHERE id >= $1 AND id < $2 AND leaf IS NOT NULL ORDER BY id`

// tileSpan returns the tree level of the hashes of the tile at level of
// index, and the index at that tree level of its first hash; ok is false
// when no log can hold width of them.
func tileSpan(level uint8, index uint64, width int) (height uint, first uint64, ok bool) {
	if width < 1 || width > tileWidth || level > 63 {
		return 0, 0, false
	}
	height = 8 * uint(level)
	if height >= 62 {
		return 0, 0, false
	}
	// index*256 + width subtrees of 2**height leaves must fit.
	most := maxTileLeaves >> height
	if uint64(width) > most || index > (most-uint64(width))/tileWidth {
		return 0, 0, false
	}
	return height, index * tileWidth, true
}

func tileNotFound(d Dialect, what string) error {
	return fmt.Errorf("%s: %s: the log is not that large: %w", d.Name(), what, registry.ErrNotFound)
}

// LogTile returns the first width hashes of a tile; see storage.Log.
func (r reader) LogTile(ctx context.Context, level uint8, index uint64, width int) ([]byte, error) {
	what := fmt.Sprintf("log tile %d/%d width %d", level, index, width)
	height, first, ok := tileSpan(level, index, width)
	if !ok {
		return nil, tileNotFound(r.d, what)
	}
	// tileSpan bounds the tile's last leaf by maxTileLeaves.
	if signed, err := r.signedSize(ctx); err != nil || (first+uint64(width))<<height > signed {
		if err != nil {
			return nil, err
		}
		return nil, tileNotFound(r.d, what)
	}
	args := make([]any, tileWidth)
	for i := range args {
		args[i] = int64(-1)
		if i < width {
			args[i] = nodeKey(compact.NewNodeID(height, first+uint64(i)))
		}
	}
	rows, err := r.c.Query(ctx, qTile, args...)
	if err != nil {
		return nil, r.err(what, err)
	}
	defer rows.Close()
	out := make([]byte, width*32)
	seen := 0
	for rows.Next() {
		var key int64
		var hash []byte
		if err := rows.Scan(&key, &hash); err != nil {
			return nil, r.err(what, err)
		}
		// key = index<<(height+1) + 2**height - 1, as nodeKey makes it.
		i := (uint64(key)-(uint64(1)<<height-1))>>(height+1) - first
		if i >= uint64(width) || len(hash) != 32 {
			return nil, fmt.Errorf("%s: %s: node key %d or its %d-byte hash is not of this tile", r.d.Name(), what, key, len(hash))
		}
		copy(out[i*32:], hash)
		seen++
	}
	if err := rows.Err(); err != nil {
		return nil, r.err(what, err)
	}
	if seen != width {
		return nil, tileNotFound(r.d, what)
	}
	return out, nil
}

// LogEntries returns the leaves of an entry bundle; see storage.Log.
func (r reader) LogEntries(ctx context.Context, index uint64, width int) ([][]byte, error) {
	what := fmt.Sprintf("log entries %d width %d", index, width)
	_, first, ok := tileSpan(0, index, width)
	if !ok {
		return nil, tileNotFound(r.d, what)
	}
	if signed, err := r.signedSize(ctx); err != nil || first+uint64(width) > signed {
		if err != nil {
			return nil, err
		}
		return nil, tileNotFound(r.d, what)
	}
	rows, err := r.c.Query(ctx, qEntries, leafKey(int64(first)), leafKey(int64(first)+int64(width)))
	if err != nil {
		return nil, r.err(what, err)
	}
	defer rows.Close()
	out := make([][]byte, 0, width)
	for rows.Next() {
		var key int64
		var leaf []byte
		if err := rows.Scan(&key, &leaf); err != nil {
			return nil, r.err(what, err)
		}
		if want := int64(first) + int64(len(out)); key != leafKey(want) {
			return nil, fmt.Errorf("%s: %s: log leaf %d is missing", r.d.Name(), what, want)
		}
		out = append(out, leaf)
	}
	if err := rows.Err(); err != nil {
		return nil, r.err(what, err)
	}
	if len(out) != width {
		return nil, tileNotFound(r.d, what)
	}
	return out, nil
}

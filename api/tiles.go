package api

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
)

// The transparency log as C2SP tlog-tiles serves it (c2sp.org/tlog-tiles),
// so that a mirror or a witness can copy it with any tlog-tiles client. The
// log's prefix is /v1/log: its checkpoint is GET /v1/log/checkpoint
// (trust.go), its tiles GET /v1/log/tile/<L>/<N>[.p/<W>] and its entry
// bundles GET /v1/log/tile/entries/<N>[.p/<W>]. An entry is a leaf's text
// form (transparency.Leaf), whose RFC 6962 leaf hash the level-0 tiles
// hold.

const (
	// tilePrefix is where the tiles' paths begin; entriesPrefix the entry
	// bundles'.
	tilePrefix    = "/v1/log/tile/"
	entriesPrefix = tilePrefix + "entries/"

	// tileMediaType is the Content-Type tlog-tiles gives tiles and
	// bundles.
	tileMediaType = "application/octet-stream"

	// tileHeight is the height of every tile tlog-tiles serves: 256
	// hashes, or entries, in a full one.
	tileHeight = 8
)

// tileRef is a tile, or an entry bundle (level -1), that a path names.
type tileRef struct {
	level int // -1 for an entry bundle
	index uint64
	width int // 256 for a full tile
}

// parseTilePath reads what follows /v1/log/tile/ in a request's path, as
// it was sent (escaped): "<L>/<N>[.p/<W>]" or "entries/<N>[.p/<W>]". Only
// the one encoding C2SP allows is accepted: L a decimal level from 0 to
// 63, N in 3-digit path elements all but the last prefixed with x and no
// leading element of zeros (x001/x234/067), W a decimal width from 1 to
// 255, none with a leading zero. x/mod/sumdb/tlog parses N and W: its tile
// paths are tlog-tiles' with the height before the level ("tile/8/0/…")
// and "data" for "entries", and it accepts only a path it would write.
func parseTilePath(p string) (tileRef, error) {
	level, rest, ok := strings.Cut(p, "/")
	if !ok {
		return tileRef{}, badRequest("level", "must be followed by the tile's index: tile/<level>/<index>[.p/<width>]")
	}
	ref := tileRef{level: -1}
	sumLevel := "data"
	if level != "entries" {
		l, err := strconv.ParseUint(level, 10, 8)
		if err != nil || l > 63 || strconv.FormatUint(l, 10) != level {
			return tileRef{}, badRequest("level", "must be entries or a level from 0 to 63 in decimal, with no leading zero")
		}
		ref.level, sumLevel = int(l), level
	}
	t, err := tlog.ParseTilePath("tile/" + strconv.Itoa(tileHeight) + "/" + sumLevel + "/" + rest)
	if err != nil || t.H != tileHeight || t.N < 0 {
		return tileRef{}, badRequest("index", "must be the tile's index in 3-digit path elements, all but the last prefixed with x and the first not x000 (x001/x234/067), followed for a partial tile by .p/ and its width from 1 to 255")
	}
	ref.index, ref.width = uint64(t.N), t.W
	return ref, nil
}

// logTile serves a tile or an entry bundle of the log. Either is served
// once the log holds all of it, and then never changes, a partial one
// included (a partial tile of the same width is the same hashes at every
// later size), so caches may keep it for good; the paths of sizes the log
// has not reached are 404.
func (s *server) logTile(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	ref, err := parseTilePath(strings.TrimPrefix(r.URL.EscapedPath(), tilePrefix))
	if err != nil {
		return err
	}
	if a, ok := s.tiles.get(ref); ok {
		serveBytes(w, r, a.body, a.etag, tileMediaType, immutableCache)
		return nil
	}
	var body []byte
	if ref.level < 0 {
		leaves, err := s.reader.LogEntries(r.Context(), ref.index, ref.width)
		if err != nil {
			return notFoundAs(err, "the log holds no such entry bundle")
		}
		if body, err = entryBundle(leaves); err != nil {
			return err
		}
	} else {
		body, err = s.reader.LogTile(r.Context(), uint8(ref.level), ref.index, ref.width)
		if err != nil {
			return notFoundAs(err, "the log holds no such tile")
		}
	}
	a := tileAnswer{body: body, etag: etagOf(body)}
	s.tiles.put(ref, a)
	serveBytes(w, r, a.body, a.etag, tileMediaType, immutableCache)
	return nil
}

// maxCachedTileBytes bounds the bytes of the tiles and bundles kept in
// memory: 4,096 full tiles, or about 500 full bundles of leaves of 250
// bytes.
const maxCachedTileBytes = 32 << 20

// tileAnswer is a tile's or bundle's bytes and their strong ETag.
type tileAnswer struct {
	body []byte
	etag string
}

// tileCache keeps the tiles and bundles this process served. What a tile
// path names never changes once the log holds it, so an answer is kept
// with nothing to invalidate it: the log only grows, and a database is
// restored from a backup only with the servers stopped
// (docs/operations.md). Past its bound it evicts arbitrary entries to make
// room for each new one, so that a client walking the whole log keeps its
// memory bounded. It is safe for concurrent use.
type tileCache struct {
	max int

	mu      sync.Mutex
	size    int
	answers map[tileRef]tileAnswer
}

func newTileCache(maxBytes int) *tileCache {
	return &tileCache{max: maxBytes, answers: make(map[tileRef]tileAnswer)}
}

func (c *tileCache) get(ref tileRef) (tileAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[ref]
	return a, ok
}

func (c *tileCache) put(ref tileRef, a tileAnswer) {
	if len(a.body) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.answers[ref]; ok {
		c.size -= len(old.body)
		delete(c.answers, ref)
	}
	for old, oa := range c.answers {
		if c.size+len(a.body) <= c.max {
			break
		}
		c.size -= len(oa.body)
		delete(c.answers, old)
	}
	c.answers[ref] = a
	c.size += len(a.body)
}

// bytes returns how many bytes of answers the cache holds.
func (c *tileCache) bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// entryBundle encodes leaves as a tlog-tiles entry bundle: each a
// big-endian uint16 length followed by its bytes.
func entryBundle(leaves [][]byte) ([]byte, error) {
	n := 0
	for _, l := range leaves {
		n += 2 + len(l)
	}
	out := make([]byte, 0, n)
	for i, l := range leaves {
		if len(l) > math.MaxUint16 {
			return nil, fmt.Errorf("entry bundle: entry %d is %d bytes, more than a bundle can hold", i, len(l))
		}
		out = binary.BigEndian.AppendUint16(out, uint16(len(l)))
		out = append(out, l...)
	}
	return out, nil
}

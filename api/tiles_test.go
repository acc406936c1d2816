package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
)

// tileIndex encodes a tile index as C2SP tlog-tiles does: 3-digit path
// elements, all but the last prefixed with x.
func tileIndex(n uint64) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/%s", n%1000, s)
	}
	return s
}

// tileURL is the path of the first width hashes of a tile ("entries" for
// a bundle).
func tileURL(level string, n uint64, width int) string {
	p := "/v1/log/tile/" + level + "/" + tileIndex(n)
	if width < 256 {
		p += fmt.Sprintf(".p/%d", width)
	}
	return p
}

var identity = map[string]string{"Accept-Encoding": "identity"}

// wantTile fetches a tile or bundle uncompressed and checks how it is
// served: octet-stream, immutable, a strong ETag of its bytes that
// revalidates, and HEAD alike. It returns the body.
func (e *env) wantTile(t *testing.T, path string) []byte {
	t.Helper()
	get := e.do(t, req{method: "GET", path: path, header: identity})
	if get.status != 200 {
		t.Fatalf("GET %s = %d\n%s", path, get.status, get.body)
	}
	etag := get.header.Get("ETag")
	if want := fmt.Sprintf(`"sha256-%x"`, sha256Sum(get.body)); etag != want {
		t.Errorf("GET %s: ETag %q, want %s", path, etag, want)
	}
	if ct, cc := get.header.Get("Content-Type"), get.header.Get("Cache-Control"); ct != "application/octet-stream" || cc != "public, max-age=31536000, immutable" {
		t.Errorf("GET %s: Content-Type %q, Cache-Control %q; want application/octet-stream, immutable", path, ct, cc)
	}
	nm := e.do(t, req{method: "GET", path: path, header: map[string]string{"If-None-Match": etag, "Accept-Encoding": "identity"}})
	if nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
		t.Errorf("GET %s If-None-Match = %d (%d bytes), want 304", path, nm.status, len(nm.body))
	}
	head := e.do(t, req{method: "HEAD", path: path, header: identity})
	if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag || head.header.Get("Content-Length") != fmt.Sprint(len(get.body)) {
		t.Errorf("HEAD %s = %d, %d bytes, ETag %q", path, head.status, len(head.body), head.header.Get("ETag"))
	}
	return get.body
}

// decodeBundle splits an entry bundle into its entries.
func decodeBundle(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 || len(b) < 2+int(binary.BigEndian.Uint16(b)) {
			t.Fatalf("entry bundle: entry %d is cut short", len(out))
		}
		n := int(binary.BigEndian.Uint16(b))
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out
}

// TestLogTiles copies the log as a tlog-tiles mirror would, with nothing
// but the pinned key: the checkpoint, the tree's root rebuilt from the
// tiles alone with transparency-dev/merkle, every entry's leaf hash in its
// level-0 tile, and a report's leaf among the entries.
func TestLogTiles(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		keys := e.keysOf(t)
		e.publish(t, manifest("weather", "1.0.0"))
		var proof proofBody
		if err := json.Unmarshal(e.do(t, req{method: "GET", path: "/v1/addons/weather/proof"}).body, &proof); err != nil {
			t.Fatal(err)
		}
		// 600 leaves: full tiles 0/000 and 0/001, partial 0/002.p/88 and
		// 1/000.p/2.
		storetest.PublishLeaves(t, e.store, "bulk", 0, 599)

		signed := e.wantCacheable(t, "/v1/log/checkpoint", transparency.CheckpointMediaType)
		cp, _, err := transparency.OpenCheckpoint(signed, keys[0].Name(), keys...)
		if err != nil {
			t.Fatalf("checkpoint: %v", err)
		}
		if cp.Size != 600 {
			t.Fatalf("checkpoint size %d, want 600", cp.Size)
		}
		fetched := map[string]bool{}
		root, err := storetest.RootFromTiles(cp.Size, func(level uint8, n uint64, width int) ([]byte, error) {
			p := tileURL(fmt.Sprint(level), n, width)
			fetched[p] = true
			return e.wantTile(t, p), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(root, cp.Hash) {
			t.Errorf("root from tiles %x, checkpoint's %x", root, cp.Hash)
		}
		if want := []string{"/v1/log/tile/0/002.p/88", "/v1/log/tile/1/000.p/2"}; len(fetched) != 2 || !fetched[want[0]] || !fetched[want[1]] {
			t.Errorf("the root took tiles %v, want %v", fetched, want)
		}

		level1 := e.wantTile(t, "/v1/log/tile/1/000.p/2")
		for n, width := range []int{256, 256, 88} {
			hashes := e.wantTile(t, tileURL("0", uint64(n), width))
			if len(hashes) != 32*width {
				t.Fatalf("tile 0/%d: %d bytes, want %d", n, len(hashes), 32*width)
			}
			if width == 256 {
				sub, err := storetest.SubtreeRoot(hashes)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(sub, level1[n*32:][:32]) {
					t.Errorf("tile 0/%d hashes to %x; tile 1/000.p/2 holds %x", n, sub, level1[n*32:][:32])
				}
			}
			entries := decodeBundle(t, e.wantTile(t, tileURL("entries", uint64(n), width)))
			if len(entries) != width {
				t.Fatalf("bundle %d: %d entries, want %d", n, len(entries), width)
			}
			for i, entry := range entries {
				if h := rfc6962.DefaultHasher.HashLeaf(entry); !bytes.Equal(h, hashes[i*32:][:32]) {
					t.Errorf("entry %d hashes to %x, tile 0/%d holds %x", n*256+i, h, n, hashes[i*32:][:32])
				}
			}
			if n == 0 && (proof.LeafIndex != 0 || !bytes.Equal(entries[0], proof.Leaf)) {
				t.Errorf("entry 0 is\n%s\nweather@1.0.0's proof names leaf %d\n%s", entries[0], proof.LeafIndex, proof.Leaf)
			}
		}

		// A partial tile or bundle of a size the log has passed is still
		// served: the prefix of what it grew into.
		full := e.wantTile(t, "/v1/log/tile/0/000")
		if part := e.wantTile(t, "/v1/log/tile/0/000.p/7"); !bytes.Equal(part, full[:7*32]) {
			t.Errorf("tile 0/000.p/7 is not the first 7 hashes of 0/000")
		}
		fullBundle := e.wantTile(t, "/v1/log/tile/entries/000")
		if part := e.wantTile(t, "/v1/log/tile/entries/000.p/3"); !bytes.HasPrefix(fullBundle, part) || len(decodeBundle(t, part)) != 3 {
			t.Errorf("bundle 000.p/3 is not the first 3 entries of bundle 000")
		}

		// Bundles are compressed for a client that accepts gzip.
		gz := e.do(t, req{method: "GET", path: "/v1/log/tile/entries/000", header: map[string]string{"Accept-Encoding": "gzip"}})
		if gz.status != 200 || gz.header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(gz.header.Get("ETag"), `-gzip"`) {
			t.Fatalf("GET bundle with gzip = %d, Content-Encoding %q, ETag %q", gz.status, gz.header.Get("Content-Encoding"), gz.header.Get("ETag"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz.body))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, fullBundle) {
			t.Errorf("gzip bundle decompresses to %d bytes (%v), want the %d of the bundle", len(plain), err, len(fullBundle))
		}
		if len(gz.body) >= len(fullBundle)/2 {
			t.Errorf("gzip bundle is %d bytes of %d", len(gz.body), len(fullBundle))
		}

		// A full tile grown into is served alike at a later size.
		storetest.PublishLeaves(t, e.store, "bulk", 599, 1)
		if again := e.wantTile(t, "/v1/log/tile/0/000"); !bytes.Equal(again, full) {
			t.Errorf("tile 0/000 changed as the log grew")
		}
		if got := e.wantTile(t, "/v1/log/tile/0/002.p/89"); !bytes.HasPrefix(got, hashesOf(t, e, "/v1/log/tile/0/002.p/88")) {
			t.Errorf("tile 0/002.p/89 does not extend 0/002.p/88")
		}
	})
}

// TestLogTileLevel1 serves a log of 65,536 leaves, whose level-1 tile
// 1/000 is full: 256 hashes, each the root of a full level-0 tile. The
// log is seeded (storetest.SeedLog) with 65,535 leaves and the last is a
// report published through the API. A client of x/mod/sumdb/tlog reads
// the tiles it needs to prove that leaf and an early one (checking each
// tile against the checkpoint's tree as it reads it), and
// transparency-dev/merkle verifies what it proved; every hash of tile
// 1/000 is the root of its level-0 tile as served, and the root of 1/000
// is the tree's, which tile 2/000.p/1 holds.
func TestLogTileLevel1(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		keys := e.keysOf(t)
		seeded := storetest.SeedLog(t, e.store, 65535)
		e.publish(t, manifest("weather", "1.0.0"))
		var pb proofBody
		if err := json.Unmarshal(e.do(t, req{method: "GET", path: "/v1/addons/weather/proof"}).body, &pb); err != nil {
			t.Fatal(err)
		}
		const size = 65536
		if pb.LeafIndex != size-1 || pb.TreeSize != size {
			t.Fatalf("weather's proof: leaf %d of %d, want %d of %d", pb.LeafIndex, pb.TreeSize, size-1, size)
		}
		cp, _, err := transparency.OpenCheckpoint(e.wantCacheable(t, "/v1/log/checkpoint", transparency.CheckpointMediaType), keys[0].Name(), keys...)
		if err != nil || cp.Size != size {
			t.Fatalf("checkpoint of size %d (%v), want %d", cp.Size, err, size)
		}

		tree := tlog.Tree{N: size, Hash: tlog.Hash(cp.Hash)}
		hr := tlog.TileHashReader(tree, &apiTiles{t: t, e: e})
		for _, leaf := range []struct {
			index uint64
			text  []byte
		}{{1234, seeded[1234].Marshal()}, {size - 1, pb.Leaf}} {
			p, err := tlog.ProveRecord(size, int64(leaf.index), hr)
			if err != nil {
				t.Fatalf("prove leaf %d from tiles: %v", leaf.index, err)
			}
			hashes := make([][]byte, len(p))
			for i := range p {
				hashes[i] = p[i][:]
			}
			if err := proof.VerifyInclusion(rfc6962.DefaultHasher, leaf.index, size, rfc6962.DefaultHasher.HashLeaf(leaf.text), hashes, cp.Hash); err != nil {
				t.Errorf("leaf %d: the proof from tiles does not verify: %v", leaf.index, err)
			}
		}

		level1 := e.wantTile(t, "/v1/log/tile/1/000")
		if len(level1) != 256*32 {
			t.Fatalf("tile 1/000: %d bytes, want a full tile of 8192", len(level1))
		}
		for n := range uint64(256) {
			sub, err := storetest.SubtreeRoot(e.wantTile(t, tileURL("0", n, 256)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sub, level1[n*32:][:32]) {
				t.Fatalf("tile 0/%03d hashes to %x; tile 1/000 holds %x", n, sub, level1[n*32:][:32])
			}
		}
		root, err := storetest.SubtreeRoot(level1)
		if err != nil {
			t.Fatal(err)
		}
		if top := e.wantTile(t, "/v1/log/tile/2/000.p/1"); !bytes.Equal(root, cp.Hash) || !bytes.Equal(top, cp.Hash) {
			t.Errorf("tile 1/000 hashes to %x, tile 2/000.p/1 holds %x; the checkpoint's root is %x", root, top, cp.Hash)
		}
		last := decodeBundle(t, e.wantTile(t, "/v1/log/tile/entries/255"))
		if len(last) != 256 || !bytes.Equal(last[255], pb.Leaf) || !bytes.Equal(last[0], seeded[255*256].Marshal()) {
			t.Errorf("bundle 255 (%d entries) does not end with weather's leaf or begin with leaf %d", len(last), 255*256)
		}
	})
}

// apiTiles is a tlog.TileReader over the API's tile endpoints.
type apiTiles struct {
	t *testing.T
	e *env
}

func (r *apiTiles) Height() int { return 8 }

func (r *apiTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		// tlog's path puts the height before the level: tile/8/L/N.
		p := "/v1/log/" + strings.Replace(tile.Path(), "tile/8/", "tile/", 1)
		out[i] = r.e.wantTile(r.t, p)
	}
	return out, nil
}

func (r *apiTiles) SaveTiles([]tlog.Tile, [][]byte) {}

func hashesOf(t *testing.T, e *env, path string) []byte {
	t.Helper()
	return e.wantTile(t, path)
}

// TestLogTilesRefused: a path that is not a tile's in the one encoding
// C2SP allows is 400 naming the part at fault, without echoing it; a tile
// or bundle the log does not hold (yet) is 404.
func TestLogTilesRefused(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		storetest.PublishLeaves(t, e.store, "bulk", 0, 300)
		for _, tc := range []struct {
			path   string
			status int
			field  string
		}{
			{"/v1/log/tile/0/1", 400, "index"},
			{"/v1/log/tile/0/01", 400, "index"},
			{"/v1/log/tile/0/0001", 400, "index"},
			{"/v1/log/tile/0/x01/000", 400, "index"},
			{"/v1/log/tile/0/x000/001", 400, "index"},
			{"/v1/log/tile/0/001/000", 400, "index"},
			{"/v1/log/tile/0/+01", 400, "index"},
			{"/v1/log/tile/0/00a", 400, "index"},
			{"/v1/log/tile/0/000/", 400, "index"},
			{"/v1/log/tile/0/000.p", 400, "index"},
			{"/v1/log/tile/0/000.p/0", 400, "index"},
			{"/v1/log/tile/0/000.p/256", 400, "index"},
			{"/v1/log/tile/0/000.p/07", 400, "index"},
			{"/v1/log/tile/0/000.q/7", 400, "index"},
			{"/v1/log/tile/0/%30%30%30", 400, "index"},
			{"/v1/log/tile/0/x999/x999/x999/x999/x999/x999/x999/999", 400, "index"},
			{"/v1/log/tile/entries/1", 400, "index"},
			{"/v1/log/tile/entries/000.p/256", 400, "index"},
			{"/v1/log/tile/00/000", 400, "level"},
			{"/v1/log/tile/64/000", 400, "level"},
			{"/v1/log/tile/256/000", 400, "level"},
			{"/v1/log/tile/-1/000", 400, "level"},
			{"/v1/log/tile/data/000", 400, "level"},
			{"/v1/log/tile/0", 400, "level"},

			{"/v1/log/tile/0/001.p/45", 404, ""},
			{"/v1/log/tile/0/001", 404, ""},
			{"/v1/log/tile/0/002.p/1", 404, ""},
			{"/v1/log/tile/1/000", 404, ""},
			{"/v1/log/tile/1/000.p/2", 404, ""},
			{"/v1/log/tile/2/000.p/1", 404, ""},
			{"/v1/log/tile/63/000.p/1", 404, ""},
			{"/v1/log/tile/0/x009/x223/x372/x036/x854/x775/807", 404, ""},
			{"/v1/log/tile/entries/001", 404, ""},
			{"/v1/log/tile/entries/001.p/45", 404, ""},
			{"/v1/log/tile/entries/x001/000", 404, ""},
		} {
			// The document's templates show paths of two and three
			// segments below tile/; others are checked as problems alone.
			segs := strings.Count(strings.TrimSuffix(strings.TrimPrefix(tc.path, "/v1/log/tile/"), "/"), "/") + 1
			r := e.do(t, req{method: "GET", path: tc.path, undocumented: segs != 2 && segs != 3})
			if r.status != tc.status {
				t.Errorf("GET %s = %d, want %d\n%s", tc.path, r.status, tc.status, r.body)
				continue
			}
			slug := "not-found"
			if tc.status == 400 {
				slug = "bad-request"
			}
			p := wantProblem(t, r, tc.status, slug)
			if tc.field != "" && (len(p.Errors) != 1 || p.Errors[0].Path != tc.field) {
				t.Errorf("GET %s: fields %+v, want one naming %s", tc.path, p.Errors, tc.field)
			}
			rest := strings.TrimPrefix(tc.path, "/v1/log/tile/")
			if len(rest) >= 3 && bytes.Contains(r.body, []byte(rest)) {
				t.Errorf("GET %s: the problem echoes the path:\n%s", tc.path, r.body)
			}
			if cc := r.header.Get("Cache-Control"); strings.Contains(cc, "immutable") {
				t.Errorf("GET %s = %d with Cache-Control %q", tc.path, r.status, cc)
			}
		}
		if r := e.do(t, req{method: "GET", path: "/v1/log/tile/0/000?x=1"}); r.status != 400 {
			t.Errorf("GET a tile with a query parameter = %d, want 400", r.status)
		}
	})
}

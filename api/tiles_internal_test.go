package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/workflow"
)

// A client walking every tile of the log must not grow the tiles kept in
// memory past their bound, and every answer, kept or evicted, stays right.
func TestTileCacheBounded(t *testing.T) {
	st := fixture.SQLite.Open(t)
	storetest.PublishLeaves(t, st, "bulk", 0, 300)
	s := newServer(Deps{Reader: st, Workflow: workflow.New(st, workflow.Options{})})
	const bound = 3 * 8192
	s.tiles = newTileCache(bound)
	srv := httptest.NewServer(s.routes())
	t.Cleanup(srv.Close)
	get := func(path string) []byte {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d, %v", path, res.StatusCode, err)
		}
		return b
	}
	full := get("/v1/log/tile/0/000")
	for round := range 2 {
		for w := 1; w < 256; w++ {
			if got := get(fmt.Sprintf("/v1/log/tile/0/000.p/%d", w)); !bytes.Equal(got, full[:32*w]) {
				t.Fatalf("round %d: tile 0/000.p/%d is not the first %d hashes of 0/000", round, w, w)
			}
			if n := s.tiles.bytes(); n > bound {
				t.Fatalf("the tile cache holds %d bytes, past its bound of %d", n, bound)
			}
		}
	}
	if _, ok := s.tiles.get(tileRef{level: 0, index: 0, width: 255}); !ok {
		t.Errorf("the last tile served is not kept")
	}
	if got := get("/v1/log/tile/0/000"); !bytes.Equal(got, full) {
		t.Errorf("tile 0/000 changed")
	}
}

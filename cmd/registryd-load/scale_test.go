package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// registryOf serves GET /v1/addons over n addons in the API's shape, its
// cursor being the offset, and counts the requests that asked for the page
// 10,000 deep.
type registryOf struct {
	n    int
	deep atomic.Int64
}

func (g *registryOf) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/addons" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	off, _ := strconv.Atoi(q.Get("cursor"))
	if off == 10_000 && limit == 30 {
		g.deep.Add(1)
	}
	type item struct {
		Name string `json:"name"`
	}
	body := struct {
		Items []item  `json:"items"`
		Next  *string `json:"next_cursor"`
	}{Items: []item{}}
	for i := off; i < min(off+limit, g.n); i++ {
		body.Items = append(body.Items, item{fmt.Sprintf("addon-%05d", i)})
	}
	if off+limit < g.n {
		next := strconv.Itoa(off + limit)
		body.Next = &next
	}
	json.NewEncoder(w).Encode(body)
}

// scale counts the registry, finds the cursor 10,000 deep by paging, and
// measures the page there on the server that has one and not on the other.
func TestScaleDeepPage(t *testing.T) {
	big, small := &registryOf{n: 10_100}, &registryOf{n: 50}
	bigSrv, smallSrv := httptest.NewServer(big), httptest.NewServer(small)
	t.Cleanup(bigSrv.Close)
	t.Cleanup(smallSrv.Close)
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"scale", "-url", smallSrv.URL + "," + bigSrv.URL, "-only", "list",
		"-duration", "100ms", "-concurrency", "1"}, func(string) string { return "" }, &out, &errs)
	if err != nil {
		t.Fatalf("scale: %v\n%s%s", err, out.String(), errs.String())
	}
	if big.deep.Load() == 0 {
		t.Errorf("the page 10,000 deep was never asked for")
	}
	table := out.String()
	for _, want := range []string{"| 50 addons: req/s |", "| 10100 addons: req/s |", "| list, 10,000 deep | – | – | – |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "search") {
		t.Errorf("-only list measured more:\n%s", table)
	}
}

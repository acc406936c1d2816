package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// With -rounds, each figure is the median of its rounds, each taken on its
// own, and failed rounds are left out.
func TestMedianRun(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	got, ok := medianRun([]scaleRun{
		{perSecond: 100, p50: ms(1), p99: ms(9), cpu: ms(3)},
		{failed: true},
		{perSecond: 300, p50: ms(3), p99: ms(5), cpu: 0}, // CPU not read
		{perSecond: 200, p50: ms(2), p99: ms(7), cpu: ms(1)},
	})
	want := scaleRun{perSecond: 200, p50: ms(2), p99: ms(7), cpu: ms(3)}
	if !ok || got != want {
		t.Errorf("medianRun = %+v, %v; want %+v, true", got, ok, want)
	}
	if _, ok := medianRun([]scaleRun{{failed: true}}); ok {
		t.Errorf("medianRun of failed rounds only: ok")
	}
}

// -rounds runs each request that many times on each server and says so;
// a count out of range is refused before anything is measured.
func TestScaleRounds(t *testing.T) {
	reg := &registryOf{n: 50}
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"scale", "-url", srv.URL, "-only", "list (30)", "-rounds", "3",
		"-duration", "50ms", "-concurrency", "1"}, func(string) string { return "" }, &out, &errs)
	if err != nil {
		t.Fatalf("scale: %v\n%s%s", err, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "3 rounds; medians of the rounds") || !strings.Contains(out.String(), "| list (30) | ") {
		t.Errorf("table:\n%s", out.String())
	}
	for _, bad := range []string{"0", "100"} {
		out.Reset()
		errs.Reset()
		err := run(context.Background(), []string{"scale", "-url", srv.URL, "-rounds", bad}, func(string) string { return "" }, &out, &errs)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(fmt.Sprint(err), "rounds") {
			t.Errorf("-rounds %s: %v", bad, err)
		}
	}
}

package mcpimport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/mcpfixture"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// eachStore runs fn on a fresh store of each kind.
func eachStore(t *testing.T, fn func(t *testing.T, st storage.Store)) {
	t.Helper()
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) { fn(t, b.Open(t)) })
}

// importer returns an Importer from upstream into st whose waits are
// recorded, not slept.
func importer(st storage.Store, upstream string, pageSize int) (*mcpimport.Importer, *waits) {
	w := &waits{}
	return &mcpimport.Importer{
		Client:   &mcpimport.Client{BaseURL: upstream, PageSize: pageSize, Wait: w.wait},
		Workflow: workflow.New(st, workflow.Options{}),
		Marks:    st,
	}, w
}

// waits records the back-off waits of a client.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

// requests records the query strings an upstream was asked.
type requests struct {
	mu sync.Mutex
	q  []url.Values
}

func (r *requests) add(q url.Values) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.q = append(r.q, q)
}

func (r *requests) all() []url.Values {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]url.Values(nil), r.q...)
}

// recordedUpstream serves the answers a real MCP Registry gave, by the
// request that got each; a page after the last one is empty, as the real
// one answers. Any other request fails the test.
func recordedUpstream(t *testing.T) (*httptest.Server, *requests) {
	t.Helper()
	limit2 := mcpfixture.Recorded(t, "list-limit2")
	var first struct {
		Metadata struct{ NextCursor string } `json:"metadata"`
	}
	if err := json.Unmarshal(limit2.Body, &first); err != nil {
		t.Fatal(err)
	}
	page2 := mcpfixture.Recorded(t, "list-limit2-page2")
	var second struct {
		Metadata struct{ NextCursor string } `json:"metadata"`
	}
	if err := json.Unmarshal(page2.Body, &second); err != nil {
		t.Fatal(err)
	}
	reqs := &requests{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		reqs.add(q)
		var resp mcpfixture.Response
		switch {
		case r.URL.Path != "/v0.1/servers":
			resp = mcpfixture.Recorded(t, "not-found")
		case q.Get("limit") == "0":
			resp = mcpfixture.Recorded(t, "bad-limit")
		case q.Has("updated_since"):
			resp = mcpfixture.Recorded(t, "list-updated-since")
		case q.Has("search"):
			resp = mcpfixture.Recorded(t, "list-search")
		case q.Get("limit") == "2" && q.Get("cursor") == "":
			resp = limit2
		case q.Get("limit") == "2" && q.Get("cursor") == first.Metadata.NextCursor:
			resp = page2
		case q.Get("limit") == "2" && q.Get("cursor") == second.Metadata.NextCursor:
			resp = mcpfixture.Response{Status: 200, Body: []byte(`{"servers":[],"metadata":{"count":0}}`)}
		case q.Get("limit") == "100":
			resp = mcpfixture.Recorded(t, "list-limit100")
		default:
			t.Errorf("the recorded upstream has no answer to %s", r.URL.RawQuery)
			http.Error(w, "no recording", http.StatusNotImplemented)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		w.Write(resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

// generated is an MCP Registry of n generated servers (npm, PyPI and OCI
// packages in turn, every tenth one a nuget package registryd does not
// wire), with pagination, search and updated_since as the real one has
// them.
type generated struct {
	mu      sync.Mutex
	servers []genServer
}

type genServer struct {
	name, version string
	updated       time.Time
	doc           json.RawMessage
}

var genBase = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

func newGenerated(n int) *generated {
	g := &generated{}
	for i := range n {
		g.servers = append(g.servers, genServer{name: fmt.Sprintf("io.github.gen%05d/server-%d", i, i), version: "1.0.0", updated: genBase.Add(time.Duration(i) * time.Millisecond)})
	}
	for i := range g.servers {
		g.servers[i].doc = genDoc(i, g.servers[i])
	}
	sort.Slice(g.servers, func(i, j int) bool {
		return g.servers[i].name+g.servers[i].version < g.servers[j].name+g.servers[j].version
	})
	return g
}

func genDoc(i int, s genServer) json.RawMessage {
	var pkg string
	switch {
	case i%10 == 9:
		pkg = fmt.Sprintf(`{"registryType":"nuget","identifier":"Gen%d","version":%q,"transport":{"type":"stdio"}}`, i, s.version)
	case i%3 == 0:
		pkg = fmt.Sprintf(`{"registryType":"npm","identifier":"gen-server-%d","version":%q,"transport":{"type":"stdio"},"environmentVariables":[{"name":"GEN_TOKEN","isSecret":true}]}`, i, s.version)
	case i%3 == 1:
		pkg = fmt.Sprintf(`{"registryType":"pypi","identifier":"gen-server-%d","version":%q,"transport":{"type":"stdio"}}`, i, s.version)
	default:
		pkg = fmt.Sprintf(`{"registryType":"oci","identifier":"ghcr.io/gen/server-%d:%s","transport":{"type":"stdio"}}`, i, s.version)
	}
	return json.RawMessage(fmt.Sprintf(`{"$schema":%q,"name":%q,"description":"Generated server %d.","version":%q,"packages":[%s]}`,
		"https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json", s.name, i, s.version, pkg))
}

// bump publishes a new version of the i-th server, updated at t.
func (g *generated) bump(i int, version string, t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := genServer{name: g.servers[i].name, version: version, updated: t}
	s.doc = genDoc(i*30, s) // an npm package
	g.servers = append(g.servers, s)
	sort.Slice(g.servers, func(i, j int) bool {
		return g.servers[i].name+g.servers[i].version < g.servers[j].name+g.servers[j].version
	})
}

func (g *generated) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit < 1 || limit > 100 {
		http.Error(w, `{"title":"Unprocessable Entity","status":422}`, http.StatusUnprocessableEntity)
		return
	}
	var since time.Time
	if s := q.Get("updated_since"); s != "" {
		if since, err = time.Parse(time.RFC3339Nano, s); err != nil {
			http.Error(w, "bad updated_since", http.StatusBadRequest)
			return
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	cursor := q.Get("cursor")
	var page []genServer
	next := ""
	for _, s := range g.servers {
		key := s.name + ":" + s.version
		if cursor != "" && key <= cursor || !since.IsZero() && !s.updated.After(since) || !strings.Contains(s.name, q.Get("search")) {
			continue
		}
		if len(page) == limit {
			next = page[len(page)-1].name + ":" + page[len(page)-1].version
			break
		}
		page = append(page, s)
	}
	var b strings.Builder
	b.WriteString(`{"servers":[`)
	for i, s := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		ts := s.updated.Format(time.RFC3339Nano)
		fmt.Fprintf(&b, `{"server":%s,"_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","publishedAt":%q,"updatedAt":%q,"isLatest":true}}}`, s.doc, ts, ts)
	}
	b.WriteString(`],"metadata":{`)
	if next != "" {
		fmt.Fprintf(&b, `"nextCursor":%q,`, next)
	}
	fmt.Fprintf(&b, `"count":%d}}`, len(page))
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(b.String()))
}

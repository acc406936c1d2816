package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/registryd/registryd/api"
)

// contract validates responses against the embedded OpenAPI document and
// remembers which operations the tests exercised.
type contract struct {
	doc    *openapi3.T
	router routers.Router

	mu   sync.Mutex
	seen map[string]bool // "GET /v1/addons/{name} 200"
}

var (
	contractOnce sync.Once
	theContract  *contract
	contractErr  error
)

func loadContract() (*contract, error) {
	contractOnce.Do(func() {
		openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.FileBodyDecoder)
		openapi3filter.RegisterBodyDecoder("application/toml", openapi3filter.FileBodyDecoder)
		doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
		if err != nil {
			contractErr = fmt.Errorf("load openapi.json: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contractErr = fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
			return
		}
		r, err := legacy.NewRouter(doc)
		if err != nil {
			contractErr = fmt.Errorf("route openapi.json: %w", err)
			return
		}
		theContract = &contract{doc: doc, router: r, seen: map[string]bool{}}
	})
	return theContract, contractErr
}

// check validates one exchange: the route and method must be documented,
// the status must be listed for the operation, every required header of
// that response must be present and valid, and the body must match its
// schema for the response's Content-Type.
func (c *contract) check(req *http.Request, status int, header http.Header, body []byte) error {
	// Route on the path alone: the document's server is "/". A segment
	// with an escaped '/' (an MCP server name) stays one segment.
	probe := &http.Request{Method: req.Method, URL: &url.URL{Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery}, Header: req.Header}
	route, params, err := c.router.FindRoute(probe)
	if err != nil {
		return fmt.Errorf("%s %s: undocumented route: %v", req.Method, req.URL.Path, err)
	}
	resp := route.Operation.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("%s %s: status %d is not documented", req.Method, route.Path, status)
	}
	c.mu.Lock()
	c.seen[req.Method+" "+route.Path+" "+strconv.Itoa(status)] = true
	c.mu.Unlock()
	// kin-openapi skips HEAD and 304 entirely; check their headers here.
	for name, h := range resp.Value.Headers {
		if h.Value != nil && h.Value.Required && header.Get(name) == "" {
			return fmt.Errorf("%s %s %d: required header %s is missing", req.Method, route.Path, status, name)
		}
	}
	if req.Method == http.MethodHead || status == http.StatusNotModified {
		if len(body) != 0 {
			return fmt.Errorf("%s %s %d: body must be empty, got %d bytes", req.Method, route.Path, status, len(body))
		}
		return nil
	}
	if len(resp.Value.Content) == 0 && len(body) != 0 {
		return fmt.Errorf("%s %s %d: documented without a body, got %d bytes", req.Method, route.Path, status, len(body))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s %d: %v\nbody: %.600s", req.Method, route.Path, status, err, body)
	}
	return nil
}

// recorder is an http.RoundTripper that validates every response it carries
// against the contract, failing t on a mismatch.
type recorder struct {
	t    testing.TB
	c    *contract
	next http.RoundTripper
}

func (rt *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if req.Context().Value(undocumentedKey{}) != nil {
		if err := rt.c.checkProblem(resp.StatusCode, resp.Header, body); err != nil {
			rt.t.Errorf("OpenAPI contract: %s %s: %v", req.Method, req.URL.Path, err)
		}
		return resp, nil
	}
	if err := rt.c.check(req, resp.StatusCode, resp.Header, body); err != nil {
		rt.t.Errorf("OpenAPI contract: %v", err)
	}
	return resp, nil
}

// undocumentedKey marks, in a request's context, a request to a route the
// document cannot list.
type undocumentedKey struct{}

// checkProblem validates a response to an undocumented route: it must be a
// 4xx problem matching the Problem schema.
func (c *contract) checkProblem(status int, header http.Header, body []byte) error {
	if status < 400 || status > 499 {
		return fmt.Errorf("status %d for an undocumented route, want a 4xx problem", status)
	}
	if ct := header.Get("Content-Type"); ct != "application/problem+json" {
		return fmt.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("problem body: %v", err)
	}
	return c.doc.Components.Schemas["Problem"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// TestContractCatchesDrift proves the contract check can fail: an
// undocumented route, an undocumented status and a body that does not match
// its schema are each refused, and a conforming response passes.
func TestContractCatchesDrift(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	probHeader := http.Header{"Content-Type": {"application/problem+json"}, "X-Request-Id": {"abc"}}
	jsonHeader := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"abc"}, "Cache-Control": {"no-cache"}}
	tests := []struct {
		name    string
		method  string
		path    string
		status  int
		header  http.Header
		body    string
		wantErr bool
	}{
		{"conforming rules", "GET", "/v1/rules", 200, jsonHeader, `{"ruleset":"x","rules":[]}`, false},
		{"conforming problem", "GET", "/v1/addons/x", 404, probHeader, `{"type":"urn:registryd:problem:not-found","title":"Not found","status":404,"detail":"d","request_id":"abc"}`, false},
		{"undocumented route", "GET", "/v1/nope", 200, jsonHeader, `{}`, true},
		{"undocumented method", "DELETE", "/v1/rules", 200, jsonHeader, `{}`, true},
		{"undocumented status", "GET", "/v1/rules", 418, jsonHeader, `{}`, true},
		{"wrong field type", "GET", "/v1/rules", 200, jsonHeader, `{"ruleset":1,"rules":[]}`, true},
		{"unknown field", "GET", "/v1/rules", 200, jsonHeader, `{"ruleset":"x","rules":[],"extra":true}`, true},
		{"null list", "GET", "/v1/rules", 200, jsonHeader, `{"ruleset":"x","rules":null}`, true},
		{"wrong content type", "GET", "/v1/rules", 200, http.Header{"Content-Type": {"text/plain"}, "X-Request-Id": {"abc"}, "Cache-Control": {"x"}}, `x`, true},
		{"missing request id", "GET", "/v1/rules", 200, http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"x"}}, `{"ruleset":"x","rules":[]}`, true},
		{"304 without ETag", "GET", "/v1/addons/x/report", 304, http.Header{"X-Request-Id": {"abc"}, "Cache-Control": {"x"}}, ``, true},
		{"HEAD undocumented status", "HEAD", "/v1/addons/x/report", 201, http.Header{"X-Request-Id": {"abc"}}, ``, true},
		{"problem without request id", "GET", "/v1/addons/x", 404, probHeader, `{"type":"t","title":"t","status":404,"detail":"d"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, "http://example.test"+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Use a private contract so these synthetic exchanges do not
			// count towards the coverage check.
			priv := &contract{doc: c.doc, router: c.router, seen: map[string]bool{}}
			err = priv.check(req, tt.status, tt.header, []byte(tt.body))
			if got := err != nil; got != tt.wantErr {
				t.Errorf("check(%s %s %d) error = %v, want error %v", tt.method, tt.path, tt.status, err, tt.wantErr)
			}
		})
	}
}

// uncovered lists the documented operations (method and path) that no
// recorded exchange reached.
func (c *contract) uncovered() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := map[string]bool{}
	for k := range c.seen {
		var m, p string
		fmt.Sscanf(k, "%s %s", &m, &p)
		hit[m+" "+p] = true
	}
	var out []string
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			if !hit[method+" "+path] {
				out = append(out, method+" "+path)
			}
		}
	}
	sort.Strings(out)
	return out
}

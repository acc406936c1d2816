// Package mcpfixture gives tests the recorded MCP Registry: its server.json
// schema (to validate what registryd writes), its four seed documents, and
// the answers a real MCP Registry server gave to the requests registryd
// makes and answers, from shared/fixtures/mcp-registry.
package mcpfixture

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/registryd/registryd/internal/sharedtest"
)

// dir is the fixtures' directory under shared/.
const dir = "fixtures/mcp-registry"

// File returns the bytes of a fixture file (`seed-servers.json`,
// `responses/list-limit2.json`, …).
func File(t testing.TB, name string) []byte {
	t.Helper()
	return sharedtest.File(t, dir, name)
}

// Response is one recorded answer: its status, headers and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Recorded returns the recorded answer called name (`list-limit2`,
// `not-found`, …).
func Recorded(t testing.TB, name string) Response {
	t.Helper()
	head := File(t, "responses/"+name+".headers")
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	status, err := r.ReadLine()
	if err != nil {
		t.Fatalf("%s.headers: %v", name, err)
	}
	fields := strings.Fields(status)
	if len(fields) < 2 {
		t.Fatalf("%s.headers: status line %q", name, status)
	}
	code, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("%s.headers: status line %q", name, status)
	}
	h, err := r.ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		t.Fatalf("%s.headers: %v", name, err)
	}
	return Response{Status: code, Header: http.Header(h), Body: bytes.TrimSpace(File(t, "responses/"+name+".json"))}
}

var (
	compileOnce sync.Once
	schema      *jsonschema.Schema
	schemaErr   error
)

// Validate checks a server.json document against server.schema.json, with
// formats asserted, failing t with the schema's complaint.
func Validate(t testing.TB, doc []byte) {
	t.Helper()
	compileOnce.Do(func() {
		var raw any
		raw, schemaErr = jsonschema.UnmarshalJSON(bytes.NewReader(File(t, "server.schema.json")))
		if schemaErr != nil {
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if schemaErr = c.AddResource("server.schema.json", raw); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile("server.schema.json")
	})
	if schemaErr != nil {
		t.Fatalf("compile server.schema.json: %v", schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("server.json is not JSON: %v\n%s", err, doc)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("server.json does not validate against server.schema.json: %v\n%s", err, doc)
	}
}

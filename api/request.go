package api

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
)

// mediaType returns the media type of r's body, lower-cased, and refuses a
// charset other than UTF-8.
func mediaType(r *http.Request) (string, bool) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "", false
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return "", false
	}
	return mt, true
}

// readBody reads the whole body up to the server's limit.
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > s.maxBody {
		return nil, tooLarge(s.maxBody)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(s.maxBody)
		}
		return nil, malformedBody("the body could not be read")
	}
	return b, nil
}

// decodeJSON reads r's body into dst: it must be application/json, valid
// UTF-8, one JSON value with no unknown fields, no key given twice in an
// object, and nothing after it.
func (s *server) decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if mt, ok := mediaType(r); !ok || mt != "application/json" {
		return unsupportedMediaType("application/json")
	}
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		return malformedBody("the body is not valid UTF-8")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return malformedBody("the body is empty")
	}
	// encoding/json/v2 semantics: names match exactly, and a duplicate
	// name is a syntax error rather than a silent last-one-wins.
	if err := jsonv2.Unmarshal(b, dst, jsonv2.RejectUnknownMembers(true)); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError turns a decoding error into a problem that names the field
// without echoing anything the client sent that is unsafe to print.
func jsonError(err error) error {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn) && syn.Err == jsontext.ErrDuplicateName:
		return problem.MalformedBody(jsonPath(syn.JSONPointer), "the body gives a key more than once")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return malformedBody("the body ends in the middle of a JSON value")
	case syn != nil:
		return malformedBody("the body is not valid JSON (at byte " + strconv.FormatInt(syn.ByteOffset, 10) + ")")
	case errors.As(err, &sem) && sem.Err == jsonv2.ErrUnknownName:
		return invalid(registry.FieldError{Path: jsonPath(sem.JSONPointer), Message: "unknown field"})
	case sem != nil:
		path := jsonPath(sem.JSONPointer)
		if path == "" || sem.GoType == nil {
			return invalid(registry.FieldError{Message: "the body must be a JSON object"})
		}
		t := sem.GoType
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return invalid(registry.FieldError{Path: path, Message: "must be a JSON " + jsonKind(t.Kind().String())})
	}
	return malformedBody("the body is not valid JSON")
}

// jsonPath turns a JSON pointer (/suppression/reason) into the dotted field
// path a problem names (suppression.reason), or "" when a name in it is not
// safe to echo.
func jsonPath(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	path := strings.Join(parts, ".")
	if !safeFieldName(path) {
		return ""
	}
	return path
}

func jsonKind(k string) string {
	switch k {
	case "bool":
		return "boolean"
	case "string":
		return "string"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "ptr":
		return "value"
	}
	return "number"
}

// safeFieldName reports whether a field name from the client may be echoed.
func safeFieldName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// validID checks a path id (sub_…, sup_…): 1 to 64 characters of
// [A-Za-z0-9_-].
func validID(name, s string) error {
	if s == "" || len(s) > 64 {
		return badRequest(name, "must be 1 to 64 characters of letters, digits, '_' and '-'")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return badRequest(name, "must be 1 to 64 characters of letters, digits, '_' and '-'")
		}
	}
	return nil
}

// validAddonName checks an addon slug: [a-z0-9-], no leading or trailing
// dash, at most 64 bytes.
func validAddonName(s string) error {
	const msg = "must be an addon name: 1 to 64 of [a-z0-9-], not starting or ending with '-'"
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return badRequest("name", msg)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return badRequest("name", msg)
		}
	}
	return nil
}

// validVersion checks a version segment: 1 to 64 printable ASCII characters
// without '/', spaces or quotes.
func validVersion(s string) error {
	const msg = "must be 1 to 64 characters of letters, digits and . _ + - ~"
	if s == "" || len(s) > 64 {
		return badRequest("version", msg)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._+-~", c) >= 0) {
			return badRequest("version", msg)
		}
	}
	return nil
}

// knownParams refuses query parameters the endpoint does not take, so that
// a typo (`?verdit=fail`) is not silently ignored.
func knownParams(r *http.Request, allowed ...string) error {
	for k, vs := range r.URL.Query() {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			name := k
			if !safeFieldName(name) {
				name = ""
			}
			return badRequest(name, "unknown query parameter")
		}
		if len(vs) > 1 {
			return badRequest(k, "must be given once")
		}
	}
	return nil
}

// page reads ?cursor= and ?limit=. The cursor must be one this server
// returned for the same walk (see listing.Scope); the page carries the
// store's cursor inside it.
func page(r *http.Request, scope string) (storage.Page, error) {
	q := r.URL.Query()
	p := storage.Page{}
	cursor := q.Get("cursor")
	if len(cursor) > 512 || !safetext.GraphicASCII(cursor) {
		return p, badRequest("cursor", "is not a cursor this server returned")
	}
	var err error
	if p.Cursor, err = listing.StoreCursor(cursor, scope); err != nil {
		return p, err
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > storage.MaxLimit {
			return p, badRequest("limit", "must be an integer from 1 to "+strconv.Itoa(storage.MaxLimit))
		}
		p.Limit = n
	} else if q.Has("limit") {
		return p, badRequest("limit", "must be an integer from 1 to "+strconv.Itoa(storage.MaxLimit))
	}
	return p, nil
}

// listErr turns a store's refusal of a cursor into a 400 naming it.
func listErr(err error) error {
	if errors.Is(err, registry.ErrInvalid) {
		return badRequest("cursor", "is not a cursor this server returned")
	}
	return err
}

// freeText checks a reason or note: at most max bytes, and only characters
// safetext lets be shown on several lines (tabs and newlines are the only
// controls).
func freeText(path, s string, required bool, max int) *registry.FieldError {
	switch {
	case s == "" && required:
		return &registry.FieldError{Path: path, Message: "must not be empty"}
	case len(s) > max:
		return &registry.FieldError{Path: path, Message: "must be at most " + strconv.Itoa(max) + " bytes"}
	case !safetext.Valid(s, safetext.Lines):
		return &registry.FieldError{Path: path, Message: "must not contain control, bidirectional or invisible characters"}
	case required && strings.TrimSpace(s) == "":
		return &registry.FieldError{Path: path, Message: "must not be blank"}
	}
	return nil
}

// timeParam reads an RFC 3339 time from the query.
func timeParam(r *http.Request, name string) (*time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		if r.URL.Query().Has(name) {
			return nil, badRequest(name, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z")
		}
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, badRequest(name, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z")
	}
	t = t.UTC()
	return &t, nil
}

// strictQuery refuses a request whose query string net/url would not parse
// whole: a `;` (which Go no longer takes for a separator, so the parameter
// holding it would be dropped without a word) or a malformed percent
// escape. The answer is 400 naming the parameter; no route ever sees a
// query with a parameter silently missing.
func (s *server) strictQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery == "" {
			next.ServeHTTP(w, r)
			return
		}
		if err := checkQuery(r.URL.RawQuery); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkQuery returns a bad-request problem for the first parameter of raw
// that url.ParseQuery would drop, or nil. The parameter is named when its
// name is safe to echo.
func checkQuery(raw string) error {
	for part := range strings.SplitSeq(raw, "&") {
		key, value, _ := strings.Cut(part, "=")
		name, kerr := url.QueryUnescape(key)
		if i := strings.IndexByte(name, ';'); kerr == nil && i >= 0 {
			name = name[:i]
		}
		if kerr != nil || !safeFieldName(name) {
			name = ""
		}
		switch {
		case strings.Contains(part, ";"):
			return badRequest(name, "contains ';': separate query parameters with '&' and escape a literal ';' as %3B")
		case kerr != nil:
			return badRequest("", "a query parameter name is not valid percent-encoding")
		}
		if _, err := url.QueryUnescape(value); err != nil {
			return badRequest(name, "is not valid percent-encoding")
		}
	}
	return nil
}

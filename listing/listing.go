// Package listing writes registryd's paged lists the one way every list of
// the API is written: a JSON body encoded before anything is sent, a strong
// ETag over its bytes (If-None-Match answers 304), a `Link: <…>; rel="next"`
// header to the next page, and cursors bound to the request they continue.
//
// A store's cursor says where the previous page ended; it does not say
// under which filters. Given to the same list with other filters it would
// silently continue another walk, often with an empty page. So the cursor a
// client sees is the store's cursor followed by a tag of the list's path,
// its filters (every query parameter but cursor and limit) and the caller's
// scope; a cursor whose tag does not match is refused with a problem naming
// the cursor field. The limit may change from page to page.
package listing

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/registryd/registryd/problem"
)

// tagLen is the length of a cursor's tag: 9 bytes of SHA-256, base64url.
const tagLen = 12

// Scope identifies the walk r continues: its path, its filters (every query
// parameter except cursor and limit, in a canonical order) and extra, which
// callers use for what the query does not show (a submitter sees only its
// own submissions).
func Scope(r *http.Request, extra string) string {
	q := r.URL.Query()
	q.Del("cursor")
	q.Del("limit")
	return r.URL.Path + "\x00" + q.Encode() + "\x00" + extra
}

func tag(scope string) string {
	sum := sha256.Sum256([]byte(scope))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// Cursor returns the cursor a client is given for the store's cursor next
// within scope, or "" for the last page.
func Cursor(next, scope string) string {
	if next == "" {
		return ""
	}
	return next + "." + tag(scope)
}

// StoreCursor returns the store's cursor inside a client's cursor, "" for
// none. A cursor that was not made by Cursor for this scope is a 400
// problem naming the field "cursor".
func StoreCursor(cursor, scope string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	i := strings.LastIndexByte(cursor, '.')
	if i < 0 || len(cursor)-i-1 != tagLen || i == 0 {
		return "", problem.BadRequest("cursor", "is not a cursor this server returned")
	}
	if cursor[i+1:] != tag(scope) {
		return "", problem.BadRequest("cursor", "belongs to a list with other filters; repeat the request without it, or with the filters it came with")
	}
	return cursor[:i], nil
}

// Page is one page of a list as Write sends it.
type Page struct {
	// Body is the list's JSON envelope.
	Body any
	// Next is the client's cursor of the next page (from Cursor), "" on
	// the last page.
	Next string
	// Base is the externally visible base URL for the Link header, ""
	// for a link relative to the request.
	Base string
	// CacheControl is sent as is: "public, no-cache" for public lists,
	// "private, no-cache" for a caller's own.
	CacheControl string
}

// Write answers r with p: 200 and the body, or 304 when the client's
// If-None-Match holds the body's ETag. Encoding happens before the header
// is written, so an encoding failure is returned and nothing is sent.
func Write(w http.ResponseWriter, r *http.Request, p Page) error {
	a, err := Encode(r, p)
	if err != nil {
		return err
	}
	a.Write(w, r)
	return nil
}

// Answer is a page encoded for r: what Write sends, kept so that the same
// request can be answered again without encoding it again.
type Answer struct {
	body                     []byte
	etag, link, cacheControl string
}

// Encode encodes p as the answer to r.
func Encode(r *http.Request, p Page) (Answer, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(p.Body); err != nil {
		return Answer{}, err
	}
	sum := sha256.Sum256(buf.Bytes())
	a := Answer{body: buf.Bytes(), etag: `"sha256-` + hex.EncodeToString(sum[:]) + `"`, cacheControl: p.CacheControl}
	if p.Next != "" {
		a.link = "<" + nextURL(r, p.Base, p.Next) + `>; rel="next"`
	}
	return a, nil
}

// Write answers r, a request for the same page (path and query) as the one
// a was encoded for: 200 and the body, or 304 when the client's
// If-None-Match holds its ETag. It does not modify a, so one Answer may
// be written to many requests at once.
func (a Answer) Write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", a.cacheControl)
	if a.link != "" {
		h.Set("Link", a.link)
	}
	if ETagMatches(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(a.body)
	}
}

// nextURL is r's URL with its cursor replaced by next, under base.
func nextURL(r *http.Request, base, next string) string {
	q := r.URL.Query()
	q.Set("cursor", next)
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	return strings.TrimRight(base, "/") + u.String()
}

// ETagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// "*" or any listed tag equal to etag once W/ is ignored.
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" {
			return true
		}
		part = strings.TrimPrefix(part, "W/")
		if part == etag {
			return true
		}
	}
	return false
}

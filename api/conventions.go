package api

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/rs/cors"
)

// crossOrigin lets pages on any origin read the public GETs: reports,
// badges, the registry's lists, the rules and the OpenAPI document. They
// need no credentials, so none are allowed (Access-Control-Allow-Origin is
// "*"); a preflight may ask for the conditional and request-id headers,
// and a script may read the headers that matter for caching, paging and
// rate limits.
var crossOrigin = cors.New(cors.Options{
	AllowedOrigins:   []string{"*"},
	AllowedMethods:   []string{http.MethodGet, http.MethodHead},
	AllowedHeaders:   []string{"If-None-Match", "If-Modified-Since", RequestIDHeader},
	ExposedHeaders:   []string{"ETag", "Link", "Retry-After", RequestIDHeader},
	AllowCredentials: false,
	MaxAge:           86400,
}).Handler

// options answers an OPTIONS request that is not a CORS preflight (those
// crossOrigin answers) with the methods of a public GET route.
func options(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, HEAD, OPTIONS")
	w.WriteHeader(http.StatusNoContent)
}

// compressMinSize is the smallest body worth compressing: below about one
// packet, gzip saves no round trip and costs CPU on both ends.
const compressMinSize = 1024

// gzipETagSuffix marks the strong ETag of a gzip-encoded representation:
// it is a different representation, so it has a different tag
// (`"sha256-…"` becomes `"sha256-…-gzip"`; the hex stays that of the
// uncompressed bytes).
const gzipETagSuffix = "-gzip"

var gzipWrapper = func() func(http.Handler) http.HandlerFunc {
	w, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		gzhttp.EnableZstd(false),
		gzhttp.SuffixETag(gzipETagSuffix),
	)
	if err != nil {
		panic(err) // the options are constants
	}
	return w
}()

// compress gzips responses of at least compressMinSize bytes for clients
// that accept gzip (lists, pages, the OpenAPI document); smaller bodies,
// HEAD answers and 304s go out as they are, and every answer says Vary:
// Accept-Encoding. Reports and badges do not go through it: their ETag is
// the SHA-256 of the bytes served, which clients check, and their bodies
// are around a kilobyte.
//
// A conditional request naming the ETag of a compressed representation is
// answered as for the uncompressed one it was made from: the handler sees
// the tag without its suffix, and a 304 carries the suffix back.
func compress(next http.Handler) http.Handler {
	z := gzipWrapper(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inm := r.Header.Get("If-None-Match")
		if !strings.Contains(inm, gzipETagSuffix+`"`) || !acceptsGzip(r) {
			z.ServeHTTP(w, r)
			return
		}
		r.Header.Set("If-None-Match", strings.ReplaceAll(inm, gzipETagSuffix+`"`, `"`))
		z.ServeHTTP(&gzipNotModified{ResponseWriter: w}, r)
	})
}

// gzipNotModified puts the gzip suffix back on the ETag of a 304.
type gzipNotModified struct{ http.ResponseWriter }

func (g *gzipNotModified) WriteHeader(code int) {
	if code == http.StatusNotModified {
		h := g.Header()
		if tag := h.Get("ETag"); strings.HasSuffix(tag, `"`) && !strings.HasSuffix(tag, gzipETagSuffix+`"`) {
			h.Set("ETag", tag[:len(tag)-1]+gzipETagSuffix+`"`)
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipNotModified) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// acceptsGzip reports whether r's Accept-Encoding lists gzip (or *) with a
// quality above zero.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			coding = strings.TrimSpace(coding)
			if !strings.EqualFold(coding, "gzip") && coding != "*" {
				continue
			}
			q := strings.ReplaceAll(params, " ", "")
			if strings.HasPrefix(q, "q=0") && strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") == "" {
				continue
			}
			return true
		}
	}
	return false
}

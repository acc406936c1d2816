package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/serverjson"
	"github.com/registryd/registryd/storage"
)

// The MCP Registry API (GET /v0.1/servers…): registryd answers, for what it
// has published, in the shapes an MCP Registry answers, so that MCP tooling
// can use registryd as its registry. Each published version is one
// server.json (serverjson.FromManifest) with registryd's curation under
// _meta[CurationKey]; a version whose wiring has no faithful server.json
// form is left out. Errors take the MCP Registry's shape too.

// CurationKey is the _meta key under which registryd puts its curation of
// a server version.
const CurationKey = "dev.registryd/curation"

// The MCP Registry API's page size bounds.
const (
	mcpDefaultLimit = 30
	mcpMaxLimit     = 100
	// mcpMaxScan bounds the store pages one list request reads to fill a
	// page with versions that have a server.json form.
	mcpMaxScan = 8
)

type mcpServerResponse struct {
	Server serverjson.Server `json:"server"`
	Meta   mcpResponseMeta   `json:"_meta"`
}

type mcpResponseMeta struct {
	Official mcpOfficial `json:"io.modelcontextprotocol.registry/official"`
	Curation mcpCuration `json:"dev.registryd/curation"`
}

type mcpOfficial struct {
	Status          string    `json:"status"`
	StatusChangedAt time.Time `json:"statusChangedAt"`
	PublishedAt     time.Time `json:"publishedAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	IsLatest        bool      `json:"isLatest"`
}

// mcpCuration is registryd's curation of one version: the audit's outcome
// and where its report is.
type mcpCuration struct {
	Addon        string         `json:"addon"`
	Version      string         `json:"version"`
	Verdict      string         `json:"verdict"`
	Tier         string         `json:"tier"`
	Risk         string         `json:"risk"`
	Counts       mcpCounts      `json:"counts"`
	Ruleset      string         `json:"ruleset"`
	ReportURL    string         `json:"reportUrl"`
	ReportSHA256 string         `json:"reportSha256"`
	Source       string         `json:"source"`
	Upstream     *mcpUpstream   `json:"upstream,omitempty"`
	Signed       *mcpSignedLink `json:"signedReport,omitempty"`
}

// mcpSignedLink is where the signed envelope (DSSE) of the report is; the
// registry's keys are at GET /v1/keys (docs/trust.md).
type mcpSignedLink struct {
	URL string `json:"url"`
}

type mcpCounts struct {
	Danger     int `json:"danger"`
	Warn       int `json:"warn"`
	Info       int `json:"info"`
	Suppressed int `json:"suppressed"`
}

type mcpUpstream struct {
	URL     string `json:"url"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

type mcpServerList struct {
	Servers  []mcpServerResponse `json:"servers"`
	Metadata mcpListMetadata     `json:"metadata"`
}

type mcpListMetadata struct {
	NextCursor string `json:"nextCursor,omitempty"`
	Count      int    `json:"count"`
}

// mcpProblem is an error in the MCP Registry API's shape.
type mcpProblem struct {
	Title  string          `json:"title"`
	Status int             `json:"status"`
	Detail string          `json:"detail"`
	Errors []mcpErrorField `json:"errors,omitempty"`
}

type mcpErrorField struct {
	Message  string `json:"message"`
	Location string `json:"location"`
	Value    any    `json:"value,omitempty"`
}

func (p *mcpProblem) Error() string { return p.Detail }

// mcpInvalid refuses a query parameter: 422, its location and, when it is
// a number, its value.
func mcpInvalid(param, msg string, value any) error {
	return &mcpProblem{Title: http.StatusText(http.StatusUnprocessableEntity), Status: http.StatusUnprocessableEntity,
		Detail: "validation failed", Errors: []mcpErrorField{{Message: msg, Location: "query." + param, Value: value}}}
}

var errServerNotFound = &mcpProblem{Title: http.StatusText(http.StatusNotFound), Status: http.StatusNotFound, Detail: "Server not found"}

// handleMCP adapts an MCP Registry API handler: its own problems in the
// MCP Registry's shape, anything else through writeError.
func (s *server) handleMCP(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		var p *mcpProblem
		switch {
		case err == nil:
		case errors.As(err, &p):
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(p)
			b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			h := w.Header()
			h.Set("Content-Type", "application/problem+json")
			h.Set("Content-Length", strconv.Itoa(len(b)))
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(p.Status)
			w.Write(b)
		default:
			s.writeError(w, r, err)
		}
	}
}

// namespace is the reverse-DNS namespace of the server names registryd
// gives the addons it did not import from an MCP Registry: the public
// URL's host, labels reversed ("registry.example" serves
// "example.registry/NAME"), or "dev.registryd" without a public URL.
func namespace(public string) string {
	u, err := url.Parse(public)
	if err != nil || u.Hostname() == "" {
		return "dev.registryd"
	}
	labels := strings.Split(strings.ToLower(u.Hostname()), ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	ns := strings.Join(labels, ".")
	if !serverjson.ValidName(ns + "/x") {
		return "dev.registryd"
	}
	return ns
}

// serverName is the name an addon answers under: the upstream server it
// was imported from, else the registry's namespace and its own name.
func (s *server) serverName(ps storage.PublishedServer) string {
	if ps.Upstream != "" {
		return ps.Upstream
	}
	return s.ns + "/" + ps.Addon.Name
}

// mcpServer renders one published version, or false when its wiring has
// no faithful server.json form.
func (s *server) mcpServer(ps storage.PublishedServer) (mcpServerResponse, bool, error) {
	var m *addon.Manifest
	var err error
	if ps.Submission.Format == "json" {
		m, err = addon.ParseJSON(ps.Submission.Manifest)
	} else {
		m, err = addon.ParseTOML(ps.Submission.Manifest)
	}
	if err != nil {
		// A manifest the current rules refuse is not served.
		return mcpServerResponse{}, false, nil
	}
	sj, err := serverjson.FromManifest(m, s.serverName(ps))
	if err != nil {
		return mcpServerResponse{}, false, nil
	}
	rep, err := report.Decode(ps.Report.Bytes)
	if err != nil {
		return mcpServerResponse{}, false, err
	}
	a, v := ps.Addon, ps.Version
	updated := v.PublishedAt
	if a.UpdatedAt.After(updated) {
		updated = a.UpdatedAt
	}
	off := mcpOfficial{Status: "active", StatusChangedAt: v.PublishedAt.UTC(), PublishedAt: v.PublishedAt.UTC(),
		UpdatedAt: updated.UTC(), IsLatest: v.Version == a.LatestVersion}
	if a.Removed {
		off.Status = "deleted"
		if a.RemovedAt != nil {
			off.StatusChangedAt = a.RemovedAt.UTC()
		}
	}
	cur := mcpCuration{
		Addon: a.Name, Version: v.Version, Verdict: string(rep.Verdict), Tier: string(a.TierFor(v.WiringSHA256)),
		Risk: rep.Risk.String(), Ruleset: ps.Report.Ruleset,
		Counts:    mcpCounts{Danger: rep.Counts.Danger, Warn: rep.Counts.Warn, Info: rep.Counts.Info, Suppressed: rep.Counts.Suppressed},
		ReportURL: s.public + registry.VersionReportPath(a.Name, v.Version), ReportSHA256: ps.Report.SHA256,
		Source: string(ps.Submission.Source),
		Signed: &mcpSignedLink{URL: s.public + registry.VersionReportPath(a.Name, v.Version) + ".dsse"},
	}
	if u := ps.Submission.Upstream; u != nil {
		cur.Upstream = &mcpUpstream{URL: u.URL, Name: u.Name, Version: u.Version}
	}
	return mcpServerResponse{Server: sj, Meta: mcpResponseMeta{Official: off, Curation: cur}}, true, nil
}

// writeMCP writes v as JSON with a strong ETag over its bytes, answering
// 304 when the client holds them: the answers are canonical (the same
// registry state gives the same bytes) and so cacheable.
func writeMCP(w http.ResponseWriter, r *http.Request, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	sum := sha256.Sum256(body)
	etag := `"sha256-` + hex.EncodeToString(sum[:]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", publicReportCache)
	if listing.ETagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return nil
}

// mcpBool reads a boolean query parameter.
func mcpBool(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, mcpInvalid(name, "expected boolean", nil)
}

// mcpKnownParams refuses parameters the route does not take, or given
// twice, in the MCP Registry's shape.
func mcpKnownParams(r *http.Request, allowed ...string) error {
	for k, vs := range r.URL.Query() {
		name := k
		if !safeFieldName(name) {
			name = ""
		}
		if !contains(allowed, k) {
			return mcpInvalid(name, "unknown query parameter", nil)
		}
		if len(vs) > 1 {
			return mcpInvalid(name, "must be given once", nil)
		}
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// listServers serves GET /v0.1/servers.
func (s *server) listServers(w http.ResponseWriter, r *http.Request) error {
	if err := mcpKnownParams(r, "cursor", "limit", "search", "updated_since", "version", "include_deleted"); err != nil {
		return err
	}
	q := r.URL.Query()
	limit := mcpDefaultLimit
	if l := q.Get("limit"); l != "" || q.Has("limit") {
		n, err := strconv.Atoi(l)
		switch {
		case err != nil:
			return mcpInvalid("limit", "expected integer", nil)
		case n < 1:
			return mcpInvalid("limit", "expected number >= 1", n)
		case n > mcpMaxLimit:
			return mcpInvalid("limit", "expected number <= "+strconv.Itoa(mcpMaxLimit), n)
		}
		limit = n
	}
	cursor := q.Get("cursor")
	if len(cursor) > 512 || !safetext.GraphicASCII(cursor) {
		return mcpInvalid("cursor", "is not a cursor this server returned", nil)
	}
	f := storage.ServerFilter{Query: q.Get("search"), Version: q.Get("version")}
	if len(f.Query) > MaxQueryBytes || !safetext.Valid(f.Query, 0) {
		return mcpInvalid("search", "must be at most "+strconv.Itoa(MaxQueryBytes)+" bytes of printable text", nil)
	}
	if f.Version != "" && f.Version != storage.LatestVersion && validVersion(f.Version) != nil {
		return mcpInvalid("version", "must be latest or a version", nil)
	}
	if v := q.Get("updated_since"); v != "" || q.Has("updated_since") {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return mcpInvalid("updated_since", "expected an RFC 3339 date-time", nil)
		}
		t = t.UTC()
		f.UpdatedSince = &t
	}
	del, err := mcpBool(r, "include_deleted")
	if err != nil {
		return err
	}
	// As the MCP Registry does: a mirror asking for changes sees deletions.
	f.IncludeRemoved = del || f.UpdatedSince != nil

	out := mcpServerList{Servers: []mcpServerResponse{}}
	for range mcpMaxScan {
		ps, next, err := s.reader.PublishedServers(r.Context(), f, storage.Page{Cursor: cursor, Limit: limit - len(out.Servers)})
		if errors.Is(err, registry.ErrInvalid) {
			return mcpInvalid("cursor", "is not a cursor this server returned", nil)
		}
		if err != nil {
			return err
		}
		for _, p := range ps {
			sr, ok, err := s.mcpServer(p)
			if err != nil {
				return err
			}
			if ok {
				out.Servers = append(out.Servers, sr)
			}
		}
		cursor = next
		if next == "" || len(out.Servers) == limit {
			break
		}
	}
	out.Metadata = mcpListMetadata{NextCursor: cursor, Count: len(out.Servers)}
	return writeMCP(w, r, out)
}

// serverVersions reads the published versions of the server named by the
// {serverName} parameter (all of them, or only version; LatestVersion for
// the latest), newest first. It returns errServerNotFound when there are
// none in the server.json form.
func (s *server) serverVersions(r *http.Request, version string, includeDeleted bool) ([]mcpServerResponse, error) {
	name := param(r, "serverName")
	if !serverjson.ValidName(name) {
		return nil, errServerNotFound
	}
	addonName := ""
	if b, err := s.reader.UpstreamBinding(r.Context(), name); err == nil {
		addonName = b.Addon
	} else if !errors.Is(err, registry.ErrNotFound) {
		return nil, err
	} else if rest, ok := strings.CutPrefix(name, s.ns+"/"); ok && validAddonName(rest) == nil {
		addonName = rest
	} else {
		return nil, errServerNotFound
	}
	f := storage.ServerFilter{Addon: addonName, Version: version, IncludeRemoved: includeDeleted}
	var all []storage.PublishedServer
	cursor := ""
	for {
		ps, next, err := s.reader.PublishedServers(r.Context(), f, storage.Page{Cursor: cursor, Limit: storage.MaxLimit})
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
		if next == "" {
			break
		}
		cursor = next
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].Version, all[j].Version
		if !a.PublishedAt.Equal(b.PublishedAt) {
			return a.PublishedAt.After(b.PublishedAt)
		}
		return a.Version > b.Version
	})
	out := []mcpServerResponse{}
	for _, p := range all {
		// The name asked must be the name the addon answers under.
		if s.serverName(p) != name {
			return nil, errServerNotFound
		}
		sr, ok, err := s.mcpServer(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, sr)
		}
	}
	if len(out) == 0 {
		return nil, errServerNotFound
	}
	return out, nil
}

// listServerVersions serves GET /v0.1/servers/{serverName}/versions.
func (s *server) listServerVersions(w http.ResponseWriter, r *http.Request) error {
	if err := mcpKnownParams(r, "include_deleted"); err != nil {
		return err
	}
	del, err := mcpBool(r, "include_deleted")
	if err != nil {
		return err
	}
	out, err := s.serverVersions(r, "", del)
	if err != nil {
		return err
	}
	return writeMCP(w, r, mcpServerList{Servers: out, Metadata: mcpListMetadata{Count: len(out)}})
}

// getServerVersion serves GET /v0.1/servers/{serverName}/versions/{version},
// version "latest" for the latest.
func (s *server) getServerVersion(w http.ResponseWriter, r *http.Request) error {
	if err := mcpKnownParams(r, "include_deleted"); err != nil {
		return err
	}
	del, err := mcpBool(r, "include_deleted")
	if err != nil {
		return err
	}
	version := param(r, "version")
	if version != storage.LatestVersion && validVersion(version) != nil {
		return errServerNotFound
	}
	out, err := s.serverVersions(r, version, del)
	if err != nil {
		return err
	}
	return writeMCP(w, r, out[0])
}

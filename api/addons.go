package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// MaxQueryBytes bounds the ?q= search text.
const MaxQueryBytes = 100

// listAddons serves the published registry: search (best match first),
// filters and updated_since for mirrors; by name without a search.
//
// A page is kept in memory by its query until anything published changes:
// only a valid request's answer is kept, so a query found there needs no
// checking again.
func (s *server) listAddons(w http.ResponseWriter, r *http.Request) error {
	if a, ok := s.lists.Get(r.URL.RawQuery); ok {
		a.Write(w, r)
		return nil
	}
	st := s.changes.All()
	if err := knownParams(r, "q", "tier", "verdict", "updated_since", "include_removed", "cursor", "limit"); err != nil {
		return err
	}
	scope := listing.Scope(r, "")
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := storage.AddonFilter{Query: q.Get("q"), Tier: registry.Tier(q.Get("tier")), Verdict: registry.Verdict(q.Get("verdict")),
		Order: storage.ByRelevance}
	if len(f.Query) > MaxQueryBytes || !safetext.Valid(f.Query, 0) {
		return badRequest("q", "must be at most "+strconv.Itoa(MaxQueryBytes)+" bytes of printable text")
	}
	if f.Tier != "" && !f.Tier.Valid() {
		return badRequest("tier", "must be community or verified")
	}
	if f.Verdict != "" && !f.Verdict.Valid() {
		return badRequest("verdict", "must be pass, review or fail")
	}
	if f.UpdatedSince, err = timeParam(r, "updated_since"); err != nil {
		return err
	}
	switch q.Get("include_removed") {
	case "", "false":
	case "true":
		f.IncludeRemoved = true
	default:
		return badRequest("include_removed", "must be true or false")
	}
	as, next, err := s.reader.Addons(r.Context(), f, p)
	if err != nil {
		return listErr(err)
	}
	items := make([]addonJSON, len(as))
	for i, a := range as {
		items[i] = s.addon(a)
	}
	a, err := encodeList(s, r, items, next, scope, "public, no-cache")
	if err != nil {
		return err
	}
	s.lists.Put(r.URL.RawQuery, a, st)
	a.Write(w, r)
	return nil
}

type addonDetail struct {
	Addon        addonJSON         `json:"addon"`
	Suppressions []suppressionJSON `json:"suppressions"`
	Pending      *approvalJSON     `json:"pending_verification"`
}

// addonName reads and checks the {name} parameter.
func addonName(r *http.Request) (string, error) {
	name := param(r, "name")
	return name, validAddonName(name)
}

// getAddon serves one addon with its suppressions and any pending grant of
// verified.
func (s *server) getAddon(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	a, err := s.reader.Addon(r.Context(), name)
	if err != nil {
		return notFoundAs(err, "no such addon")
	}
	sps, err := s.reader.Suppressions(r.Context(), name)
	if err != nil {
		return err
	}
	out := addonDetail{Addon: s.addon(a), Suppressions: make([]suppressionJSON, len(sps))}
	for i, sp := range sps {
		out.Suppressions[i] = suppression(sp)
	}
	if va, err := s.reader.VerifyApproval(r.Context(), name); err == nil {
		out.Pending = approval(va)
	} else if !errors.Is(err, registry.ErrNotFound) {
		return err
	}
	return writeJSON(w, r, http.StatusOK, out)
}

// listVersions serves the published versions of an addon.
func (s *server) listVersions(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r, "cursor", "limit"); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	scope := listing.Scope(r, "")
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	// An unknown addon is a 404, not an empty list.
	a, err := s.reader.Addon(r.Context(), name)
	if err != nil {
		return notFoundAs(err, "no such addon")
	}
	vs, next, err := s.reader.Versions(r.Context(), name, p)
	if err != nil {
		return listErr(err)
	}
	items := make([]versionJSON, len(vs))
	for i, v := range vs {
		items[i] = versionJSON{Version: v.Version, PublishedAt: v.PublishedAt.UTC(), PublishedBy: v.PublishedBy,
			WiringSHA256: v.WiringSHA256, Tier: string(a.TierFor(v.WiringSHA256)),
			ReportURL: s.public + registry.VersionReportPath(name, v.Version)}
	}
	return writeList(s, w, r, items, next, scope, "public, no-cache")
}

// publishedReport serves the stored bytes of a published report: the hot
// path of install clients, one store query and no re-encoding.
func (s *server) publishedReport(latest bool) http.HandlerFunc {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			if err := knownParams(r); err != nil {
				return err
			}
		}
		name, err := addonName(r)
		if err != nil {
			return err
		}
		version := ""
		if !latest {
			version = param(r, "version")
			if err := validVersion(version); err != nil {
				return err
			}
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			// A revalidation is answered from the digest alone; only a
			// changed report reads its bytes.
			sum, err := s.reader.PublishedReportDigest(r.Context(), name, version)
			if err != nil {
				return notFoundAs(err, "no such published addon or version")
			}
			if notModified(w, inm, sum) {
				return nil
			}
		}
		rep, err := s.reader.PublishedReport(r.Context(), name, version)
		if err != nil {
			return notFoundAs(err, "no such published addon or version")
		}
		serveReport(w, r, rep, publicReportCache)
		return nil
	})
}

// publicReportCache lets shared caches keep a published report but makes
// them revalidate it: its bytes change when the ruleset, the tier or a
// suppression does.
const publicReportCache = "public, no-cache"

// serveReport writes a stored report as it is, with its strong ETag,
// answering 304 when the client holds it already.
func serveReport(w http.ResponseWriter, r *http.Request, rep registry.Report, cacheControl string) {
	etag := `"sha256-` + rep.SHA256 + `"`
	h := w.Header()
	h["Etag"] = []string{etag}
	h["Cache-Control"] = headerValue(cacheControl)
	if listing.ETagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = contentJSON
	h["Content-Length"] = []string{strconv.Itoa(len(rep.Bytes))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(rep.Bytes)
	}
}

type verifiedRequest struct {
	Verified *bool  `json:"verified"`
	Reason   string `json:"reason"`
}

type verifiedResponse struct {
	Status   string        `json:"status"`
	Addon    addonJSON     `json:"addon"`
	Approval *approvalJSON `json:"approval"`
}

// setVerified grants (two maintainers) or revokes (one) verified.
func (s *server) setVerified(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	var req verifiedRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var fields []registry.FieldError
	if req.Verified == nil {
		fields = append(fields, registry.FieldError{Path: "verified", Message: "is required: true grants, false revokes"})
	}
	if fe := freeText("reason", req.Reason, true, workflow.MaxReasonBytes); fe != nil {
		fields = append(fields, *fe)
	}
	if len(fields) > 0 {
		return invalid(fields...)
	}
	a, _ := ActorFrom(r.Context())
	out, err := s.wf.SetVerified(r.Context(), a, name, *req.Verified, req.Reason)
	if err != nil {
		return notFoundAs(err, "no such addon")
	}
	resp := verifiedResponse{Addon: s.addon(out.Addon)}
	if out.Approval != nil {
		resp.Approval = approval(*out.Approval)
	}
	switch {
	case out.Pending:
		resp.Status = "pending"
		return writeJSON(w, r, http.StatusAccepted, resp)
	case *req.Verified:
		resp.Status = "granted"
	default:
		resp.Status = "revoked"
	}
	return writeJSON(w, r, http.StatusOK, resp)
}

type suppressionRequest struct {
	Code      string  `json:"code"`
	Path      string  `json:"path"`
	Reason    string  `json:"reason"`
	Note      string  `json:"note"`
	ExpiresAt *string `json:"expires_at"`
}

type suppressionEnvelope struct {
	Suppression suppressionJSON `json:"suppression"`
}

// createSuppression suppresses one finding of an addon's reports.
func (s *server) createSuppression(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	var req suppressionRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var fields []registry.FieldError
	if !validCode(req.Code) {
		fields = append(fields, registry.FieldError{Path: "code", Message: "must be a rule code: 1 to 64 of [a-z0-9_]"})
	}
	if len(req.Path) > 512 || !safetext.GraphicASCII(req.Path) {
		fields = append(fields, registry.FieldError{Path: "path", Message: "must be a field path of at most 512 printable ASCII characters, or empty for every path"})
	}
	if !registry.SuppressionReason(req.Reason).Valid() {
		fields = append(fields, registry.FieldError{Path: "reason", Message: "must be one of false_positive, mitigated, not_applicable, accepted_risk"})
	}
	if fe := freeText("note", req.Note, false, workflow.MaxNoteBytes); fe != nil {
		fields = append(fields, *fe)
	}
	var expires *time.Time
	if req.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339Nano, *req.ExpiresAt)
		if err != nil {
			fields = append(fields, registry.FieldError{Path: "expires_at", Message: "must be an RFC 3339 time such as 2026-01-02T15:04:05Z"})
		}
		t = t.UTC()
		expires = &t
	}
	if len(fields) > 0 {
		return invalid(fields...)
	}
	a, _ := ActorFrom(r.Context())
	sp, err := s.wf.Suppress(r.Context(), a, name, registry.Suppression{
		Addon: name, Code: req.Code, Path: req.Path, Reason: registry.SuppressionReason(req.Reason),
		Note: req.Note, ExpiresAt: expires,
	})
	if err != nil {
		return notFoundAs(err, "no such addon")
	}
	w.Header().Set("Location", s.public+registry.SuppressionPath(name, sp.ID))
	return writeJSON(w, r, http.StatusCreated, suppressionEnvelope{Suppression: suppression(sp)})
}

// deleteSuppression removes a suppression.
func (s *server) deleteSuppression(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	name, err := addonName(r)
	if err != nil {
		return err
	}
	id := param(r, "id")
	if err := validID("id", id); err != nil {
		return err
	}
	a, _ := ActorFrom(r.Context())
	if err := s.wf.Unsuppress(r.Context(), a, name, id); err != nil {
		return notFoundAs(err, "no such suppression of this addon")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func validCode(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

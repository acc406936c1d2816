package api

import (
	_ "embed"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
)

// OpenAPI is the OpenAPI 3.1 document of this API, served as it is at GET
// /openapi.json. Callers must not modify it.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPIETag is the strong ETag of OpenAPI.
var openAPIETag = badge.ETag(OpenAPI)

func (s *server) openAPI(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("ETag", openAPIETag)
	h.Set("Cache-Control", "public, no-cache")
	if listing.ETagMatches(r.Header.Get("If-None-Match"), openAPIETag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(OpenAPI)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(OpenAPI)
	}
	return nil
}

type statusJSON struct {
	Status string `json:"status"`
}

type healthJSON struct {
	Status string         `json:"status"`
	Build  buildinfo.Info `json:"build"`
}

// healthz answers as long as the process serves HTTP, with the build that
// answers: during a rolling upgrade it tells which replica runs what.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, r, http.StatusOK, healthJSON{Status: "ok", Build: s.deps.Build})
}

// readyz answers 200 when Deps.Ready does, else a 503 problem that does not
// say why (the reason is logged).
func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	if err := s.ready(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "not ready", "request_id", requestIDFrom(r.Context()), "error", err)
		return &problem.Error{Status: http.StatusServiceUnavailable, Slug: "unavailable", Detail: "the service is not ready"}
	}
	return writeJSON(w, r, http.StatusOK, statusJSON{Status: "ready"})
}

type rulesJSON struct {
	Ruleset string     `json:"ruleset"`
	Rules   []ruleJSON `json:"rules"`
}

// rules serves the rule table of the running ruleset.
func (s *server) rules(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r); err != nil {
		return err
	}
	rs := assess.Rules()
	out := rulesJSON{Ruleset: assess.Ruleset, Rules: make([]ruleJSON, len(rs))}
	for i, rl := range rs {
		out.Rules[i] = ruleJSON{Code: rl.Code, Level: rl.Level.String(), Blocking: rl.Blocking, Description: rl.Description, Remedy: rl.Remedy}
	}
	w.Header().Set("Cache-Control", "public, no-cache")
	return writeJSON(w, r, http.StatusOK, out)
}

// auditLog serves the maintainers' actions, newest first as the store
// orders them.
func (s *server) auditLog(w http.ResponseWriter, r *http.Request) error {
	if err := knownParams(r, "cursor", "limit"); err != nil {
		return err
	}
	scope := listing.Scope(r, "")
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	es, next, err := s.reader.AuditLog(r.Context(), storage.AuditFilter{}, p)
	if err != nil {
		return listErr(err)
	}
	items := make([]auditJSON, len(es))
	for i, e := range es {
		items[i] = auditJSON{ID: e.ID, At: e.At.UTC(), Actor: e.Actor, Action: e.Action, Target: e.Target, Reason: e.Reason, Detail: detailJSON(e.Detail)}
	}
	return writeList(s, w, r, items, next, scope, "private, no-cache")
}

// detailJSON passes a JSON detail through, null when empty, and a string
// when it is not JSON.
func detailJSON(d string) json.RawMessage {
	if d == "" {
		return json.RawMessage("null")
	}
	if json.Valid([]byte(d)) {
		return json.RawMessage(d)
	}
	b, _ := json.Marshal(d)
	return b
}

// badgeOf serves an addon's badge as SVG (?style=flat|flat-square) or as
// shields.io endpoint JSON, with ?label= replacing the label. An unknown
// addon gets a 200 with a grey "not found" badge, so that an <img> still
// shows something; a removed addon's badge fails, as its reports do; a
// malformed name is a 400 problem.
func (s *server) badgeOf(endpoint bool) handlerFunc {
	allowed := []string{"label"}
	if !endpoint {
		allowed = append(allowed, "style")
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		var label, style string
		if r.URL.RawQuery != "" {
			if err := knownParams(r, allowed...); err != nil {
				return err
			}
			q := r.URL.Query()
			label, style = q.Get("label"), q.Get("style")
		}
		name, err := addonName(r)
		if err != nil {
			return err
		}
		if len(label) > 256 || !safetext.Valid(label, 0) {
			return badRequest("label", "must be at most 256 bytes of printable text")
		}
		st, err := badge.ParseStyle(style)
		if err != nil {
			return badRequest("style", "must be flat or flat-square")
		}
		k := badgeKey{name: name, label: label, style: st, endpoint: endpoint}
		rb, hit := s.badges.Get(k)
		if !hit {
			// The stamp comes first: a change committed while the addon
			// is read keeps this answer from being served again.
			st := s.changes.Addon(name)
			found := true
			a, err := s.reader.Addon(r.Context(), name)
			if errors.Is(err, registry.ErrNotFound) {
				found, err = false, nil
			}
			if err != nil {
				return err
			}
			verdict := a.LatestVerdict
			if a.Removed {
				// A removed addon's reports fail; its badge says the same.
				verdict = registry.VerdictFail
			}
			rb = renderBadge(a.Tier(), verdict, found, k)
			s.badges.Put(k, rb, st)
		}
		s.metrics.BadgeCache(hit)
		body, etag := rb.body, rb.etag
		h := w.Header()
		if endpoint {
			h["Content-Type"] = contentJSON
		} else {
			h["Content-Type"] = contentSVG
			h["Content-Security-Policy"] = badgeCSP
		}
		h["Etag"] = rb.etags
		h["Cache-Control"] = cacheNoCache
		if listing.ETagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h["Content-Length"] = rb.length
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(body)
		}
		return nil
	}
}

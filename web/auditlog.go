package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
)

// auditPageSize is how many entries a page of the audit log shows.
const auditPageSize = 50

type auditItem struct {
	registry.AuditEntry
	At        when
	ActorLink string // the log filtered by this actor
	// The entry's object: a link to its page when it has one, and what
	// the entry's detail says of it.
	Object, ObjectLink, ObjectNote string
}

type auditPage struct {
	Actors, Actions []option
	Addon           string
	Filtered        bool
	Entries         []auditItem
	Next, First     string
}

// auditFilterParams are the audit log's filters, in the order its links
// carry them.
var auditFilterParams = []string{"actor", "action", "addon"}

func (h *Handler) auditLog(w http.ResponseWriter, r *http.Request, v *view) error {
	q := r.URL.Query()
	f := storage.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), Addon: q.Get("addon")}
	var bad []registry.FieldError
	for _, kv := range [][2]string{{"actor", f.Actor}, {"action", f.Action}} {
		if len(kv[1]) > 200 || !safetext.Valid(kv[1], 0) {
			bad = append(bad, registry.FieldError{Path: kv[0], Message: "must be printable text of at most 200 bytes"})
		}
	}
	if f.Addon != "" && !slugLike(f.Addon) {
		bad = append(bad, registry.FieldError{Path: "addon", Message: "must be an addon name (a-z, 0-9 and -)"})
	}
	if len(bad) > 0 {
		return problem.BadParameters(bad...)
	}
	actors, actions, err := h.d.Reader.AuditChoices(r.Context())
	if err != nil {
		return err
	}
	entries, next, err := h.d.Reader.AuditLog(r.Context(), f, storage.Page{Cursor: q.Get("cursor"), Limit: auditPageSize})
	if err != nil {
		return err
	}
	p := auditPage{
		Actors:   choices(actors, f.Actor),
		Actions:  choices(actions, f.Action),
		Addon:    f.Addon,
		Filtered: f != storage.AuditFilter{},
	}
	for _, e := range entries {
		it := auditItem{AuditEntry: e, At: at(e.At), ActorLink: "/review/audit-log?" + url.Values{"actor": {e.Actor}}.Encode()}
		it.Object, it.ObjectLink, it.ObjectNote = auditObject(e)
		p.Entries = append(p.Entries, it)
	}
	if next != "" {
		p.Next = "/review/audit-log?" + keep(q, auditFilterParams, "cursor", next)
	}
	if q.Get("cursor") != "" {
		p.First = "/review/audit-log?" + keep(q, auditFilterParams, "", "")
	}
	v.Data = p
	h.render(w, r, http.StatusOK, "auditlog", v)
	return nil
}

// choices makes the options of a filter from the values the log holds,
// selecting selected; a selected value the log does not hold is shown
// too, so the form says what the list is filtered by.
func choices(values []string, selected string) []option {
	if selected != "" && !slices.Contains(values, selected) {
		values = append([]string{selected}, values...)
	}
	out := make([]option, len(values))
	for i, val := range values {
		out[i] = option{Value: val, Label: val, Selected: val == selected}
	}
	return out
}

// keep encodes the parameters of q named in names that have a value, and
// key=value when key is not "": the query of a link to another page of
// the same list.
func keep(q url.Values, names []string, key, value string) string {
	out := url.Values{}
	for _, n := range names {
		if val := q.Get(n); val != "" {
			out.Set(n, val)
		}
	}
	if key != "" {
		out.Set(key, value)
	}
	return out.Encode()
}

// auditObject names what an entry is about, links it to its page, and
// says what the entry's detail adds: the addon and version of a
// submission, the finding a suppression is for. A detail that does not
// decode adds nothing.
func auditObject(e registry.AuditEntry) (name, link, note string) {
	var d struct {
		Addon    string `json:"addon"`
		Version  string `json:"version"`
		Code     string `json:"code"`
		Path     string `json:"path"`
		Override bool   `json:"override"`
	}
	_ = json.Unmarshal([]byte(e.Detail), &d)
	kind, id, _ := strings.Cut(e.Target, "/")
	switch {
	case kind == "submission" && idLike(id):
		name, link = id, "/review/submissions/"+url.PathEscape(id)
		if d.Addon != "" {
			name = strings.TrimSpace(d.Addon + " " + d.Version)
		}
		if d.Override {
			note = "published over blocking findings"
		}
	case kind == "addon" && slugLike(id):
		name, link = id, "/addons/"+url.PathEscape(id)
		if d.Code != "" {
			note = d.Code
			if d.Path != "" {
				note += " at " + d.Path
			}
		}
	default:
		name = e.Target
	}
	return printable(name), link, printable(note)
}

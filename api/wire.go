package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/registry"
)

// The wire types: the JSON the API speaks, kept apart from the domain types
// so that a storage field never leaks into a response by accident.

type submissionJSON struct {
	ID             string      `json:"id"`
	Addon          string      `json:"addon"`
	Version        string      `json:"version"`
	ManifestSHA256 string      `json:"manifest_sha256"`
	Format         string      `json:"format"`
	Source         string      `json:"source"`
	Submitter      string      `json:"submitter"`
	GitHub         *githubJSON `json:"github"`
	Status         string      `json:"status"`
	Verdict        string      `json:"verdict"`
	Risk           string      `json:"risk"`
	WiringSHA256   string      `json:"wiring_sha256"`
	DecidedBy      string      `json:"decided_by"`
	DecidedAt      *time.Time  `json:"decided_at"`
	DecisionReason string      `json:"decision_reason"`
	CreatedAt      time.Time   `json:"created_at"`
	UpdatedAt      time.Time   `json:"updated_at"`
	ReportURL      string      `json:"report_url"`
}

type githubJSON struct {
	Repo     string `json:"repo"`
	PR       int    `json:"pr"`
	CommitID string `json:"commit"`
	Path     string `json:"path"`
	Author   string `json:"author"`
}

func (s *server) submission(sub registry.Submission) submissionJSON {
	out := submissionJSON{
		ID: sub.ID, Addon: sub.Addon, Version: sub.Version, ManifestSHA256: sub.ManifestSHA256, Format: sub.Format,
		Source: string(sub.Source), Submitter: sub.Submitter, Status: string(sub.Status), Verdict: string(sub.Verdict),
		Risk: sub.Risk.String(), WiringSHA256: sub.WiringSHA256, DecidedBy: sub.DecidedBy, DecidedAt: utcPtr(sub.DecidedAt), DecisionReason: sub.DecisionReason,
		CreatedAt: sub.CreatedAt.UTC(), UpdatedAt: sub.UpdatedAt.UTC(),
		ReportURL: s.public + registry.SubmissionReportPath(sub.ID),
	}
	if g := sub.GitHub; g != nil {
		out.GitHub = &githubJSON{Repo: g.Repo, PR: g.PR, CommitID: g.CommitID, Path: g.Path, Author: g.Author}
	}
	return out
}

type findingJSON struct {
	Level      string `json:"level"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Path       string `json:"path"`
	Line       int    `json:"line"`
	Suppressed bool   `json:"suppressed"`
}

type addonJSON struct {
	Name           string     `json:"name"`
	DisplayName    string     `json:"display_name"`
	Description    string     `json:"description"`
	Homepage       string     `json:"homepage"`
	LatestVersion  string     `json:"latest_version"`
	LatestVerdict  string     `json:"latest_verdict"`
	LatestWiring   string     `json:"latest_wiring_sha256"`
	Tier           string     `json:"tier"`
	VerifiedWiring string     `json:"verified_wiring_sha256"`
	VerifiedBy     []string   `json:"verified_by"`
	VerifiedAt     *time.Time `json:"verified_at"`
	VerifiedReason string     `json:"verified_reason"`
	Removed        bool       `json:"removed"`
	RemovedAt      *time.Time `json:"removed_at"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	ReportURL      string     `json:"report_url"`
	BadgeURL       string     `json:"badge_url"`
}

func (s *server) addon(a registry.Addon) addonJSON {
	by := a.VerifiedBy
	if by == nil {
		by = []string{}
	}
	return addonJSON{
		Name: a.Name, DisplayName: a.DisplayName, Description: a.Description, Homepage: a.Homepage,
		LatestVersion: a.LatestVersion, LatestVerdict: string(a.LatestVerdict), LatestWiring: a.LatestWiring,
		Tier: string(a.Tier()), VerifiedWiring: verifiedWiring(a),
		VerifiedBy: by, VerifiedAt: utcPtr(a.VerifiedAt), VerifiedReason: a.VerifiedReason,
		Removed: a.Removed, RemovedAt: utcPtr(a.RemovedAt), CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
		ReportURL: s.public + registry.AddonReportPath(a.Name),
		BadgeURL:  s.public + registry.AddonBadgePath(a.Name),
	}
}

// verifiedWiring is the wiring a's grant covers, "" without a grant.
func verifiedWiring(a registry.Addon) string {
	if !a.Verified {
		return ""
	}
	return a.VerifiedWiring
}

type versionJSON struct {
	Version      string    `json:"version"`
	PublishedAt  time.Time `json:"published_at"`
	PublishedBy  string    `json:"published_by"`
	WiringSHA256 string    `json:"wiring_sha256"`
	Tier         string    `json:"tier"`
	ReportURL    string    `json:"report_url"`
}

// wiringChangeJSON is one change of a submission's wiring against the
// latest published version: Old is null when the field was added, New
// when it was removed.
type wiringChangeJSON struct {
	Field  string  `json:"field"`
	Key    string  `json:"key"`
	Change string  `json:"change"`
	Old    *string `json:"old"`
	New    *string `json:"new"`
}

func wiringChanges(cs []addon.WiringChange) []wiringChangeJSON {
	out := make([]wiringChangeJSON, len(cs))
	for i, c := range cs {
		out[i] = wiringChangeJSON{Field: c.Field, Key: c.Key, Change: c.Kind}
		if c.Kind != addon.WiringAdded {
			out[i].Old = &c.Old
		}
		if c.Kind != addon.WiringRemoved {
			out[i].New = &c.New
		}
	}
	return out
}

type wiringBaseJSON struct {
	Version      string `json:"version"`
	WiringSHA256 string `json:"wiring_sha256"`
}

type suppressionJSON struct {
	ID        string     `json:"id"`
	Addon     string     `json:"addon"`
	Code      string     `json:"code"`
	Path      string     `json:"path"`
	Reason    string     `json:"reason"`
	Note      string     `json:"note"`
	Author    string     `json:"author"`
	ExpiresAt *time.Time `json:"expires_at"`
	CreatedAt time.Time  `json:"created_at"`
}

func suppression(sp registry.Suppression) suppressionJSON {
	return suppressionJSON{ID: sp.ID, Addon: sp.Addon, Code: sp.Code, Path: sp.Path, Reason: string(sp.Reason),
		Note: sp.Note, Author: sp.Author, ExpiresAt: utcPtr(sp.ExpiresAt), CreatedAt: sp.CreatedAt.UTC()}
}

type approvalJSON struct {
	Addon        string    `json:"addon"`
	Maintainer   string    `json:"maintainer"`
	Reason       string    `json:"reason"`
	At           time.Time `json:"at"`
	WiringSHA256 string    `json:"wiring_sha256"`
}

func approval(va registry.VerifyApproval) *approvalJSON {
	return &approvalJSON{Addon: va.Addon, Maintainer: va.Maintainer, Reason: va.Reason, At: va.At.UTC(), WiringSHA256: va.WiringSHA256}
}

type auditJSON struct {
	ID     string          `json:"id"`
	At     time.Time       `json:"at"`
	Actor  string          `json:"actor"`
	Action string          `json:"action"`
	Target string          `json:"target"`
	Reason string          `json:"reason"`
	Detail json.RawMessage `json:"detail"`
}

type ruleJSON struct {
	Code        string `json:"code"`
	Level       string `json:"level"`
	Blocking    bool   `json:"blocking"`
	Description string `json:"description"`
	Remedy      string `json:"remedy"`
}

// list is the envelope of every paged list. Items is never null; Next is
// the cursor of the next page, null on the last.
type list[T any] struct {
	Items []T     `json:"items"`
	Next  *string `json:"next_cursor"`
}

// writeList answers with a page of items: next is the store's cursor of
// the next page ("" on the last), scope the walk the page belongs to
// (listing.Scope), cacheControl "public, no-cache" or "private, no-cache".
func writeList[T any](s *server, w http.ResponseWriter, r *http.Request, items []T, next, scope, cacheControl string) error {
	cursor := listing.Cursor(next, scope)
	return listing.Write(w, r, listing.Page{Body: newList(items, cursor), Next: cursor, Base: s.public, CacheControl: cacheControl})
}

// encodeList is writeList's answer, encoded and not yet written.
func encodeList[T any](s *server, r *http.Request, items []T, next, scope, cacheControl string) (listing.Answer, error) {
	cursor := listing.Cursor(next, scope)
	return listing.Encode(r, listing.Page{Body: newList(items, cursor), Next: cursor, Base: s.public, CacheControl: cacheControl})
}

func newList[T any](items []T, next string) list[T] {
	if items == nil {
		items = []T{}
	}
	l := list[T]{Items: items}
	if next != "" {
		l.Next = &next
	}
	return l
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

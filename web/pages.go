package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// maxField bounds every free-text form field (reasons, notes).
const maxField = 500

type addonItem struct {
	Name, Title, Version, Description string
	Link, BadgeURL                    string
	Tier                              registry.Tier
	Verdict                           registry.Verdict
}

type registryPage struct {
	Query, Tier, Verdict string
	Orders               []option
	Filtered             bool
	Count                string // "3 addons"
	Addons               []addonItem
	Next, First          string
}

// registryPageSize is how many addons a page of the registry shows, and
// registryCountMax how far the page counts them when they fill more than a
// page: counting reads the matches up to it, so it bounds the page's cost
// ("more than 1,000 addons" beyond).
const registryPageSize = 30

var registryCountMax = 1_000 // a variable for the tests

// registryFillReads is how many more reads a page of the registry makes at
// most to fill itself when a read stops short.
const registryFillReads = 3

// registryOrders are the registry's orders, the default first, and
// searchOrders its orders when it searches: best match first by default
// (storage.ByRelevance), or by name.
var (
	registryOrders = []option{
		{Value: "", Label: "name"},
		{Value: string(storage.RecentlyUpdated), Label: "recently updated"},
	}
	searchOrders = []option{
		{Value: "", Label: "best match"},
		{Value: "name", Label: "name"},
		{Value: string(storage.RecentlyUpdated), Label: "recently updated"},
	}
)

func (h *Handler) registry(w http.ResponseWriter, r *http.Request, v *view) error {
	q := r.URL.Query()
	if !safetext.Valid(q.Get("q"), 0) {
		// Refused as the API refuses it, rather than echoed in the search box.
		return problem.BadRequest("q", "must be printable text")
	}
	p := registryPage{Query: clip(q.Get("q"), 100), Tier: q.Get("tier"), Verdict: q.Get("verdict")}
	f := storage.AddonFilter{Query: p.Query}
	if t := registry.Tier(p.Tier); t.Valid() {
		f.Tier = t
	} else {
		p.Tier = ""
	}
	if vd := registry.Verdict(p.Verdict); vd.Valid() {
		f.Verdict = vd
	} else {
		p.Verdict = ""
	}
	orders, sort := registryOrders, ""
	if f.Query != "" {
		orders = searchOrders
	}
	p.Orders = selectOne(orders, q.Get("sort"), func(s string) { sort = s })
	p.Filtered = f != storage.AddonFilter{} || sort != ""
	switch sort {
	case "":
		f.Order = storage.ByRelevance // by name without a query
	case "name":
		f.Order = storage.ByName
	default:
		f.Order = storage.AddonOrder(sort)
	}
	ctx := r.Context()
	addons, next, err := h.d.Reader.Addons(ctx, f, storage.Page{Cursor: q.Get("cursor"), Limit: registryPageSize})
	first := q.Get("cursor") == ""
	if errors.Is(err, registry.ErrInvalid) { // a cursor this server did not make: start over
		addons, next, err = h.d.Reader.Addons(ctx, f, storage.Page{Limit: registryPageSize})
		first = true
	}
	// A search's page may stop short, where it has read as much of the
	// index as a page may (storage.Reader.Addons): a few more reads from
	// its cursor fill it, each bounded the same way.
	for range registryFillReads {
		if err != nil || next == "" || len(addons) >= registryPageSize {
			break
		}
		var more []registry.Addon
		more, next, err = h.d.Reader.Addons(ctx, f, storage.Page{Cursor: next, Limit: registryPageSize - len(addons)})
		addons = append(addons, more...)
	}
	if err != nil {
		return err
	}
	if first && next == "" { // the page holds every match
		p.Count = countAddons(len(addons), false)
	} else {
		n, more, err := h.d.Reader.CountAddons(ctx, f, registryCountMax)
		if err != nil {
			return err
		}
		p.Count = countAddons(n, more)
	}
	for _, a := range addons {
		p.Addons = append(p.Addons, addonItem{
			Name:        a.Name,
			Title:       title(a),
			Version:     a.LatestVersion,
			Description: a.Description,
			Link:        "/addons/" + url.PathEscape(a.Name),
			BadgeURL:    badgePath(a.Name),
			Tier:        a.Tier(),
			Verdict:     a.LatestVerdict,
		})
	}
	links := url.Values{}
	for k, val := range map[string]string{"q": f.Query, "tier": string(f.Tier), "verdict": string(f.Verdict), "sort": sort} {
		if val != "" {
			links.Set(k, val)
		}
	}
	params := []string{"q", "tier", "verdict", "sort"}
	if next != "" {
		p.Next = "/?" + keep(links, params, "cursor", next)
	}
	if q.Get("cursor") != "" {
		p.First = "/?" + keep(links, params, "", "")
	}
	v.Data = p
	h.render(w, r, http.StatusOK, "registry", v)
	return nil
}

// countAddons says how many addons match: "no addons", "1 addon",
// "1,234 addons", or "more than 1,000 addons" when the count stopped.
func countAddons(n int, more bool) string {
	switch {
	case more:
		return "more than " + thousands(n) + " addons"
	case n == 0:
		return "no addons"
	case n == 1:
		return "1 addon"
	}
	return thousands(n) + " addons"
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func title(a registry.Addon) string {
	if strings.TrimSpace(a.DisplayName) != "" {
		return a.DisplayName
	}
	return a.Name
}

func badgePath(name string) string { return registry.AddonBadgePath(name) }

func badgeText(a registry.Addon) string {
	return badge.ForAddon(a.Tier(), a.LatestVerdict, true, "").Message
}

type versionItem struct {
	Version, PublishedAt, ReportURL string
	Wiring                          string // short form
	Tier                            registry.Tier
}

// shortWiring is how the pages name a wiring digest: "sha256:" and its
// first 12 hex digits, or "unknown" for none.
func shortWiring(d string) string {
	if len(d) < 12 {
		return "unknown"
	}
	return "sha256:" + d[:12]
}

// wiringView is what the addon page says about the wiring its grant of
// verified covers.
type wiringView struct {
	Verified       string   // short digest of the covered wiring; "" without a grant
	VerifiedFull   string   // the full digest, for the title attribute
	Versions       []string // the versions with that wiring
	Latest         string   // short digest of the latest version's wiring
	LatestVersion  string
	LatestCovered  bool // the grant covers the latest version
	PendingWiring  string
	PendingCurrent bool // a pending first approval approves the latest wiring
}

// VersionList is Versions for a sentence.
func (w wiringView) VersionList() string { return strings.Join(w.Versions, ", ") }

type suppressionItem struct {
	registry.Suppression
	DeleteAction string
}

type addonPage struct {
	Addon         registry.Addon
	Title         string
	Tier          registry.Tier
	HomepageSafe  string
	BadgeURL      string
	BadgeText     string
	BadgeMarkdown string
	BadgeHTML     string
	Report        *reportView
	Versions      []versionItem
	Approval      *registry.VerifyApproval
	Suppressions  []suppressionItem
	VerifyAction  string
	Wiring        wiringView
	Origin        *origin // of the latest version's submission
	// Runs is what the latest version runs; nil when none is published.
	Runs *runsView
	// VerifierKeys are the registry's verifier keys, and Install the
	// command that checks the latest version's signed report with them
	// ("" without keys or a published version).
	VerifierKeys []string
	Install      string
}

func (h *Handler) addon(w http.ResponseWriter, r *http.Request, v *view) error {
	name := r.PathValue("name")
	if !slugLike(name) {
		return errNotFoundPage
	}
	ctx := r.Context()
	a, err := h.d.Reader.Addon(ctx, name)
	if err != nil {
		return err
	}
	p := addonPage{
		Addon:        a,
		Title:        title(a),
		Tier:         a.Tier(),
		HomepageSafe: httpsOnly(a.Homepage),
		BadgeURL:     badgePath(a.Name),
		BadgeText:    badgeText(a),
		VerifyAction: "/review/addons/" + url.PathEscape(a.Name) + "/verified",
	}
	abs := h.publicBase(r) + badgePath(a.Name)
	page := h.publicBase(r) + "/addons/" + url.PathEscape(a.Name)
	p.BadgeMarkdown = fmt.Sprintf("[![addon: %s](%s)](%s)", p.BadgeText, abs, page)
	p.BadgeHTML = fmt.Sprintf(`<a href="%s"><img src="%s" alt="addon: %s"></a>`, page, abs, p.BadgeText)

	rep, err := h.d.Reader.PublishedReport(ctx, a.Name, "")
	switch {
	case err == nil:
		rv, err := h.reportView(rep.Bytes, v, "")
		if err != nil {
			return err
		}
		rv.Heading = "Latest report"
		p.Report = rv
	case errors.Is(err, registry.ErrNotFound):
	default:
		return err
	}
	versions, _, err := h.d.Reader.Versions(ctx, a.Name, storage.Page{Limit: storage.MaxLimit})
	if err != nil {
		return err
	}
	sub, err := h.latestSubmission(r, a)
	if err != nil {
		return err
	}
	if sub != nil {
		o := originOf(*sub)
		p.Origin = &o
		p.Runs = runsOf(*sub)
		if p.Runs == nil {
			p.Runs = &runsView{Version: sub.Version}
		}
		p.Runs.Manifest = registry.VersionManifestPath(a.Name, sub.Version)
		p.Install = installSnippet(h.publicBase(r), h.d.VerifierKeys, a.Name, sub.Version)
	}
	p.VerifierKeys = h.d.VerifierKeys
	p.Wiring = wiringView{Latest: shortWiring(a.LatestWiring), LatestVersion: a.LatestVersion, LatestCovered: a.Tier() == registry.TierVerified}
	if a.Verified {
		p.Wiring.Verified, p.Wiring.VerifiedFull = shortWiring(a.VerifiedWiring), a.VerifiedWiring
	}
	for _, ver := range versions {
		tier := a.TierFor(ver.WiringSHA256)
		p.Versions = append(p.Versions, versionItem{
			Version:     ver.Version,
			PublishedAt: ver.PublishedAt.UTC().Format("2006-01-02 15:04 UTC"),
			ReportURL:   registry.VersionReportPath(a.Name, ver.Version),
			Wiring:      shortWiring(ver.WiringSHA256),
			Tier:        tier,
		})
		if tier == registry.TierVerified {
			p.Wiring.Versions = append(p.Wiring.Versions, ver.Version)
		}
	}
	if v.Session != nil {
		if ap, err := h.d.Reader.VerifyApproval(ctx, a.Name); err == nil {
			p.Approval = &ap
			p.Wiring.PendingWiring = shortWiring(ap.WiringSHA256)
			p.Wiring.PendingCurrent = ap.WiringSHA256 == a.LatestWiring
		} else if !errors.Is(err, registry.ErrNotFound) {
			return err
		}
		sups, err := h.d.Reader.Suppressions(ctx, a.Name)
		if err != nil {
			return err
		}
		for _, s := range sups {
			p.Suppressions = append(p.Suppressions, suppressionItem{
				Suppression:  s,
				DeleteAction: "/review/addons/" + url.PathEscape(a.Name) + "/suppressions/" + url.PathEscape(s.ID) + "/delete",
			})
		}
	}
	v.Data = p
	h.render(w, r, http.StatusOK, "addon", v)
	return nil
}

// latestSubmission is the submission the latest version of a was
// published from, or nil when it has none published.
func (h *Handler) latestSubmission(r *http.Request, a registry.Addon) (*registry.Submission, error) {
	if a.LatestVersion == "" {
		return nil, nil
	}
	ver, err := h.d.Reader.Version(r.Context(), a.Name, a.LatestVersion)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sub, err := h.d.Reader.Submission(r.Context(), ver.SubmissionID)
	if err != nil {
		return nil, err
	}
	return &sub, nil
}

// publicBase is the absolute base URL for links people paste elsewhere.
func (h *Handler) publicBase(r *http.Request) string {
	if h.d.PublicURL != "" {
		return strings.TrimRight(h.d.PublicURL, "/")
	}
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	host := r.Host
	if !hostLike(host) {
		host = "localhost"
	}
	return scheme + "://" + host
}

// hostLike accepts a Host header made of host-name characters and a port,
// so that a forged Host cannot put markup or a path into a snippet.
func hostLike(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// httpsOnly returns u when it is an absolute https URL with a host and
// nothing that could smuggle markup, else "".
func httpsOnly(u string) string {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil || pu.Scheme != "https" || pu.Host == "" || pu.User != nil {
		return ""
	}
	return pu.String()
}

func slugLike(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

type findingView struct {
	Level          string
	Code           string
	Message        string
	Path           string
	Line           int
	Blocking       bool
	Suppressed     string
	Remedy         string
	SuppressAction string
}

type findingGroup struct {
	Level    string
	Title    string
	Findings []findingView
}

type reportView struct {
	Heading                                           string
	Version                                           string
	Verdict, Tier, Risk, Ruleset                      string
	Removed                                           bool
	Wiring                                            string // short digest
	Groups                                            []findingGroup
	DeclaredNetwork, DeclaredExec, DeclaredFilesystem string
	Inferred                                          report.Inferred
	CSRF                                              string
	findingsByLine                                    map[int]registry.Level
}

// reportView decodes stored report bytes for people to read. suppressAction
// is the form target for suppressing a finding ("" shows no form).
func (h *Handler) reportView(b []byte, v *view, suppressAction string) (*reportView, error) {
	rep, err := report.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode stored report: %w", err)
	}
	remedies := map[string]string{}
	for _, rule := range assess.Rules() {
		remedies[rule.Code] = rule.Remedy
	}
	rv := &reportView{
		Version:        rep.Addon.Version,
		Verdict:        string(rep.Verdict),
		Tier:           string(rep.Tier),
		Risk:           rep.Risk.String(),
		Ruleset:        rep.Ruleset,
		Removed:        rep.Removed,
		Wiring:         shortWiring(rep.WiringSHA256),
		Inferred:       rep.Inferred,
		CSRF:           v.CSRF,
		findingsByLine: map[int]registry.Level{},
	}
	groups := map[registry.Level]*findingGroup{}
	for _, lvl := range []registry.Level{registry.LevelDanger, registry.LevelWarn, registry.LevelInfo} {
		g := &findingGroup{Level: lvl.String(), Title: levelTitle(lvl)}
		groups[lvl] = g
	}
	for _, f := range rep.Findings {
		fv := findingView{
			Level:    f.Level.String(),
			Code:     f.Code,
			Message:  f.Message,
			Path:     f.Path,
			Line:     f.Line,
			Blocking: f.Blocking,
			Remedy:   remedies[f.Code],
		}
		if f.Suppressed != nil {
			fv.Suppressed = strings.ReplaceAll(string(f.Suppressed.Reason), "_", " ")
		}
		if v.Session != nil {
			fv.SuppressAction = suppressAction
		}
		if g, ok := groups[f.Level]; ok {
			g.Findings = append(g.Findings, fv)
		}
		if f.Line > 0 && f.Suppressed == nil && f.Level > rv.findingsByLine[f.Line] {
			rv.findingsByLine[f.Line] = f.Level
		}
	}
	for _, lvl := range []registry.Level{registry.LevelDanger, registry.LevelWarn, registry.LevelInfo} {
		if g := groups[lvl]; len(g.Findings) > 0 {
			rv.Groups = append(rv.Groups, *g)
		}
	}
	if c := rep.Capabilities; c != nil {
		rv.DeclaredNetwork = string(c.Network)
		rv.DeclaredFilesystem = string(c.Filesystem)
		rv.DeclaredExec = string(c.Exec)
		if c.Exec == "allow" {
			rv.DeclaredExec = "only " + strings.Join(c.ExecAllow, ", ")
			if len(c.ExecAllow) == 0 {
				rv.DeclaredExec = "none (empty allow-list)"
			}
		}
	} else {
		rv.DeclaredNetwork, rv.DeclaredExec, rv.DeclaredFilesystem = "not declared", "not declared", "not declared"
	}
	return rv, nil
}

func levelTitle(l registry.Level) string {
	switch l {
	case registry.LevelDanger:
		return "Danger"
	case registry.LevelWarn:
		return "Warnings"
	default:
		return "Information"
	}
}

type option struct {
	Value, Label string
	Selected     bool
}

type sourceLine struct {
	Text  string
	Class string
}

type submissionPage struct {
	Sub           registry.Submission
	Report        *reportView
	Lines         []sourceLine
	ApproveAction string
	RejectAction  string
	Wiring        *wiringDiffView // nil when the wiring cannot be compared
	// Blocking counts the findings that block publication when the
	// verdict is fail: approving then takes an override and a reason,
	// and rejecting is the page's first action.
	Blocking int
}

// wiringDiffView is what a submission changes in the wiring, beside the
// latest published version.
type wiringDiffView struct {
	Wiring         string // short digest
	BaseVersion    string // "" when there is nothing to compare with
	BaseWiring     string
	Changes        []wiringChangeView
	Tier           registry.Tier
	VerifiedWiring string // short digest of the wiring the grant covers, "" without one
}

type wiringChangeView struct {
	Path, Kind, Old, New string
}

func (h *Handler) submission(w http.ResponseWriter, r *http.Request, v *view) error {
	id := r.PathValue("id")
	if !idLike(id) {
		return errNotFoundPage
	}
	sub, err := h.d.Reader.Submission(r.Context(), id)
	if err != nil {
		return err
	}
	rep, err := h.d.Reader.Report(r.Context(), id)
	if err != nil {
		return err
	}
	rv, err := h.reportView(rep.Bytes, v, "/review/addons/"+url.PathEscape(sub.Addon)+"/suppressions")
	if err != nil {
		return err
	}
	rv.Heading = "Report"
	p := submissionPage{
		Sub:           sub,
		Report:        rv,
		ApproveAction: "/review/submissions/" + url.PathEscape(sub.ID) + "/approve",
		RejectAction:  "/review/submissions/" + url.PathEscape(sub.ID) + "/reject",
	}
	switch d, err := workflow.CompareWiring(r.Context(), h.d.Reader, sub); {
	case errors.Is(err, registry.ErrInvalid):
	case err != nil:
		return err
	default:
		wv := &wiringDiffView{Wiring: shortWiring(d.Wiring), Tier: d.Tier}
		if d.VerifiedWiring != "" {
			wv.VerifiedWiring = shortWiring(d.VerifiedWiring)
		}
		if d.Base != nil {
			wv.BaseVersion, wv.BaseWiring = d.Base.Version, shortWiring(d.Base.WiringSHA256)
		}
		for _, c := range d.Changes {
			wv.Changes = append(wv.Changes, wiringChangeView{Path: printable(c.Path()), Kind: c.Kind, Old: printable(c.Old), New: printable(c.New)})
		}
		p.Wiring = wv
	}
	if rv.Verdict == string(registry.VerdictFail) {
		for _, g := range rv.Groups {
			for _, f := range g.Findings {
				if f.Blocking && f.Suppressed == "" {
					p.Blocking++
				}
			}
		}
	}
	for i, line := range strings.Split(strings.TrimRight(string(sub.Manifest), "\n"), "\n") {
		sl := sourceLine{Text: printable(line)}
		switch rv.findingsByLine[i+1] {
		case registry.LevelDanger:
			sl.Class = "marked marked-danger"
		case registry.LevelWarn, registry.LevelInfo:
			sl.Class = "marked"
		}
		p.Lines = append(p.Lines, sl)
	}
	v.Data = p
	h.render(w, r, http.StatusOK, "submission", v)
	return nil
}

// printable replaces with U+FFFD the characters that should not reach a
// page even escaped (safetext's rule; tabs are kept): a stored manifest was
// refused if it had them, but the page does not rely on that.
func printable(s string) string { return safetext.Replace(s, safetext.Tab, '\uFFFD') }

func idLike(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

func formReason(r *http.Request) (string, error) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" {
		return "", &registry.ValidationError{Fields: []registry.FieldError{{Path: "reason", Message: "a reason is required"}}}
	}
	if len(reason) > maxField {
		return "", &registry.ValidationError{Fields: []registry.FieldError{{Path: "reason", Message: fmt.Sprintf("at most %d bytes", maxField)}}}
	}
	return reason, nil
}

func actorOf(v *view) workflow.Actor {
	return workflow.Actor{Name: v.Session.Name, TokenID: v.Session.TokenID, Role: v.Session.Role, Principal: v.Session.Principal}
}

func (h *Handler) decide(approve bool) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, v *view) error {
		id := r.PathValue("id")
		if !idLike(id) {
			return errNotFoundPage
		}
		reason, err := formReason(r)
		if err != nil {
			return err
		}
		a := actorOf(v)
		switch {
		case approve && r.PostFormValue("override") == "true":
			_, err = h.d.Workflow.ApproveOverride(r.Context(), a, id, reason)
		case approve:
			_, err = h.d.Workflow.Approve(r.Context(), a, id, reason)
		default:
			_, err = h.d.Workflow.Reject(r.Context(), a, id, reason)
		}
		if err != nil {
			return err
		}
		http.Redirect(w, r, "/review/submissions/"+url.PathEscape(id), http.StatusSeeOther)
		return nil
	}
}

func (h *Handler) verify(w http.ResponseWriter, r *http.Request, v *view) error {
	name := r.PathValue("name")
	if !slugLike(name) {
		return errNotFoundPage
	}
	reason, err := formReason(r)
	if err != nil {
		return err
	}
	var verified bool
	switch r.PostFormValue("verified") {
	case "true":
		verified = true
	case "false":
	default:
		return &registry.ValidationError{Fields: []registry.FieldError{{Path: "verified", Message: `must be "true" or "false"`}}}
	}
	if _, err := h.d.Workflow.SetVerified(r.Context(), actorOf(v), name, verified, reason); err != nil {
		return err
	}
	http.Redirect(w, r, "/addons/"+url.PathEscape(name), http.StatusSeeOther)
	return nil
}

func (h *Handler) suppress(w http.ResponseWriter, r *http.Request, v *view) error {
	name := r.PathValue("name")
	if !slugLike(name) {
		return errNotFoundPage
	}
	sp := registry.Suppression{
		Code:   r.PostFormValue("code"),
		Path:   r.PostFormValue("path"),
		Reason: registry.SuppressionReason(r.PostFormValue("reason")),
		Note:   strings.TrimSpace(r.PostFormValue("note")),
	}
	var fields []registry.FieldError
	if sp.Code == "" || len(sp.Code) > 64 {
		fields = append(fields, registry.FieldError{Path: "code", Message: "a rule code is required"})
	}
	if len(sp.Path) > 512 {
		fields = append(fields, registry.FieldError{Path: "path", Message: "too long"})
	}
	if !sp.Reason.Valid() {
		fields = append(fields, registry.FieldError{Path: "reason", Message: "must be false_positive, mitigated, not_applicable or accepted_risk"})
	}
	if len(sp.Note) > maxField {
		fields = append(fields, registry.FieldError{Path: "note", Message: fmt.Sprintf("at most %d bytes", maxField)})
	}
	if e := r.PostFormValue("expires"); e != "" {
		t, err := time.Parse("2006-01-02", e)
		if err != nil {
			fields = append(fields, registry.FieldError{Path: "expires", Message: "must be a date (YYYY-MM-DD)"})
		} else {
			t = t.UTC()
			sp.ExpiresAt = &t
		}
	}
	if len(fields) > 0 {
		return &registry.ValidationError{Fields: fields}
	}
	if _, err := h.d.Workflow.Suppress(r.Context(), actorOf(v), name, sp); err != nil {
		return err
	}
	http.Redirect(w, r, "/addons/"+url.PathEscape(name), http.StatusSeeOther)
	return nil
}

func (h *Handler) unsuppress(w http.ResponseWriter, r *http.Request, v *view) error {
	name, id := r.PathValue("name"), r.PathValue("id")
	if !slugLike(name) || !idLike(id) {
		return errNotFoundPage
	}
	if err := h.d.Workflow.Unsuppress(r.Context(), actorOf(v), name, id); err != nil {
		return err
	}
	http.Redirect(w, r, "/addons/"+url.PathEscape(name), http.StatusSeeOther)
	return nil
}

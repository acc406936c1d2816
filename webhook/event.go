package webhook

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// Event is a delivery reduced to what registryd acts on. Name is the
// X-GitHub-Event header; the payload fills the rest, except DeliveryID,
// which the caller copies from X-GitHub-Delivery. At most one of PR, Push
// and Ping is set, according to Name; for any other event all three are nil
// and only the common fields are filled (when the payload has them).
//
// Event marshals to JSON (the tags below) so that it can travel as a job's
// arguments.
type Event struct {
	Name       string `json:"name"`
	Action     string `json:"action,omitempty"`
	DeliveryID string `json:"delivery_id,omitempty"`
	// Repo is the repository's full name, "owner/name"; RepoOwner and
	// RepoName are its two halves. All three match GitHub's name alphabet
	// ([A-Za-z0-9._-]), so they are safe to print and to put in a URL path.
	Repo           string       `json:"repo,omitempty"`
	RepoOwner      string       `json:"repo_owner,omitempty"`
	RepoName       string       `json:"repo_name,omitempty"`
	DefaultBranch  string       `json:"default_branch,omitempty"`
	Sender         string       `json:"sender,omitempty"`
	InstallationID int64        `json:"installation_id,omitempty"`
	PR             *PullRequest `json:"pull_request,omitempty"`
	Push           *Push        `json:"push,omitempty"`
	Ping           *Ping        `json:"ping,omitempty"`
}

// PullRequest is the part of a pull_request event the audit needs.
// HeadRepoFullName is the repository the head commit lives in: another
// repository's full name for a pull request from a fork, and empty when the
// fork has since been deleted.
type PullRequest struct {
	Number           int    `json:"number"`
	HeadSHA          string `json:"head_sha"`
	HeadRef          string `json:"head_ref,omitempty"`
	HeadRepoFullName string `json:"head_repo,omitempty"`
	BaseRef          string `json:"base_ref,omitempty"`
	BaseSHA          string `json:"base_sha,omitempty"`
	Author           string `json:"author,omitempty"`
	Draft            bool   `json:"draft,omitempty"`
	HTMLURL          string `json:"html_url,omitempty"`
}

// Push is the part of a push event the audit needs. Commits carries the
// per-commit file lists exactly as delivered.
//
// Truncated reports that those lists may not describe the whole change from
// Before to After: GitHub caps the commit list (at 20 commits in the
// payloads it abbreviates), may leave a commit's file lists out, and a
// forced push lists only the new commits. When Truncated is set the caller
// should ask the compare API for Before...After instead of using Changes.
// When Created is set Before is the zero SHA and there is nothing to
// compare against.
type Push struct {
	Ref       string   `json:"ref"`
	Before    string   `json:"before"`
	After     string   `json:"after"`
	Pusher    string   `json:"pusher,omitempty"`
	Created   bool     `json:"created,omitempty"`
	Deleted   bool     `json:"deleted,omitempty"`
	Forced    bool     `json:"forced,omitempty"`
	Compare   string   `json:"compare,omitempty"`
	Commits   []Commit `json:"commits"`
	Truncated bool     `json:"truncated,omitempty"`
}

// Commit is one commit of a push with the paths it added, modified and
// removed (relative to the repository root, "/"-separated).
type Commit struct {
	ID       string   `json:"id"`
	Added    []string `json:"added"`
	Modified []string `json:"modified"`
	Removed  []string `json:"removed"`
}

// Ping is a ping event: GitHub sends it once when a hook is created.
type Ping struct {
	HookID int64  `json:"hook_id,omitempty"`
	Zen    string `json:"zen,omitempty"`
}

// MaxPushCommits is the number of commits at which GitHub stops listing
// them in an abbreviated push payload; a push listing this many is treated
// as Truncated.
const MaxPushCommits = 20

// The event names registryd distinguishes.
const (
	EventPing        = "ping"
	EventPullRequest = "pull_request"
	EventPush        = "push"
)

// actionablePR lists the pull_request actions that change what a pull
// request would merge (or make it ready to be audited).
var actionablePR = map[string]bool{
	"opened":           true,
	"synchronize":      true,
	"reopened":         true,
	"ready_for_review": true,
}

// Actionable reports whether e asks for an audit: a pull_request opened,
// synchronized, reopened or marked ready for review, or a push to the
// repository's default branch that did not delete it. A ping is not
// actionable; answer it directly.
func (e *Event) Actionable() bool {
	switch {
	case e.PR != nil:
		return e.Name == EventPullRequest && actionablePR[e.Action]
	case e.Push != nil:
		return e.Name == EventPush && e.DefaultBranch != "" &&
			e.Push.Ref == "refs/heads/"+e.DefaultBranch && !e.Push.Deleted
	}
	return false
}

// FromFork reports whether e is a pull request whose head lives in another
// repository than its base (including a fork that has been deleted).
func (e *Event) FromFork() bool {
	return e.PR != nil && e.PR.HeadRepoFullName != e.Repo
}

// Changes folds the commits of p, oldest first, into the net effect on each
// path: changed lists the paths whose last operation added or modified
// them, removed those whose last operation removed them. Both are sorted.
// A path added and then removed within the push is reported removed; the
// caller treats removing something that never existed as a no-op. The
// result is only complete when p.Truncated is false.
func (p *Push) Changes() (changed, removed []string) {
	last := make(map[string]bool) // path -> present after the push
	for _, c := range p.Commits {
		// Within one commit the lists are disjoint; apply removals first
		// so a (malformed) commit listing a path twice keeps it present.
		for _, f := range c.Removed {
			last[f] = false
		}
		for _, f := range c.Added {
			last[f] = true
		}
		for _, f := range c.Modified {
			last[f] = true
		}
	}
	changed, removed = []string{}, []string{}
	for f, present := range last {
		if present {
			changed = append(changed, f)
		} else {
			removed = append(removed, f)
		}
	}
	sort.Strings(changed)
	sort.Strings(removed)
	return changed, removed
}

// The payload as GitHub sends it, limited to the fields read. Unknown
// fields are ignored: GitHub adds fields without notice.
type wirePayload struct {
	Action     string `json:"action"`
	Repository *struct {
		FullName      string `json:"full_name"`
		Name          string `json:"name"`
		DefaultBranch string `json:"default_branch"`
		Owner         *struct {
			Login string `json:"login"`
			Name  string `json:"name"`
		} `json:"owner"`
	} `json:"repository"`
	Sender *struct {
		Login string `json:"login"`
	} `json:"sender"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	PullRequest *struct {
		Number  int    `json:"number"`
		Draft   bool   `json:"draft"`
		HTMLURL string `json:"html_url"`
		User    *struct {
			Login string `json:"login"`
		} `json:"user"`
		Head *wireRef `json:"head"`
		Base *wireRef `json:"base"`
	} `json:"pull_request"`

	Ref     string `json:"ref"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Created bool   `json:"created"`
	Deleted bool   `json:"deleted"`
	Forced  bool   `json:"forced"`
	Compare string `json:"compare"`
	Commits []struct {
		ID       string   `json:"id"`
		Added    []string `json:"added"`
		Modified []string `json:"modified"`
		Removed  []string `json:"removed"`
	} `json:"commits"`
	Pusher *struct {
		Name string `json:"name"`
	} `json:"pusher"`

	Zen    string `json:"zen"`
	HookID int64  `json:"hook_id"`
}

type wireRef struct {
	SHA  string `json:"sha"`
	Ref  string `json:"ref"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

var (
	eventNameRE = regexp.MustCompile(`^[a-z][a-z_]{0,63}$`)
	actionRE    = regexp.MustCompile(`^[a-z][a-z_]{0,63}$`)
	// GitHub's alphabet for owner and repository names.
	nameRE  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	loginRE = regexp.MustCompile(`^[A-Za-z0-9._\[\]-]{1,100}$`)
	// Object names: SHA-1 (40) or SHA-256 (64) hex.
	shaRE = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
)

const (
	mediaJSON = "application/json"
	mediaForm = "application/x-www-form-urlencoded"
)

// Parse decodes body, delivered with the given Content-Type header and
// X-GitHub-Event name, into an Event. It accepts both encodings GitHub
// offers: application/json, and application/x-www-form-urlencoded with the
// JSON in the single `payload` field. It does not authenticate: call Verify
// on the same bytes first.
//
// Every refusal wraps a *registry.ValidationError (errors.Is ErrInvalid,
// and ErrTooLarge for a body over MaxBodyBytes) whose field paths name the
// header or payload field at fault (`Content-Type`, `X-GitHub-Event`,
// `pull_request.head.sha`). A malformed header is also a *problem.Error
// answering 400 bad-request, and a payload that is not one JSON object
// without repeated keys one answering 400 malformed-body; a well-formed
// payload with refused fields is a validation error (422), as everywhere
// in registryd. Messages never echo the offending value.
//
// An event name registryd does not act on still parses: the Event has Name,
// Action and the repository fields, and no PR, Push or Ping.
func Parse(contentType string, body []byte, event string) (*Event, error) {
	if len(body) > MaxBodyBytes {
		return nil, &registry.ValidationError{TooLarge: true, Fields: []registry.FieldError{
			{Path: "body", Message: fmt.Sprintf("larger than %d bytes", MaxBodyBytes)},
		}}
	}
	if !eventNameRE.MatchString(event) {
		msg := "not a GitHub event name"
		if event == "" {
			msg = "missing"
		}
		return nil, problem.BadRequest(EventHeader, msg)
	}
	raw, err := payloadJSON(contentType, body)
	if err != nil {
		return nil, err
	}
	var w wirePayload
	// encoding/json/v2 semantics: a repeated key is a syntax error, not a
	// silent last-one-wins, and so is anything after the object.
	if err := jsonv2.Unmarshal(raw, &w); err != nil {
		return nil, problem.MalformedBody("payload", jsonProblem(err))
	}
	return build(event, &w)
}

func payloadJSON(contentType string, body []byte) ([]byte, error) {
	if contentType == "" {
		return nil, problem.BadRequest("Content-Type", "missing")
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, problem.BadRequest("Content-Type", "malformed")
	}
	switch media {
	case mediaJSON:
		return body, nil
	case mediaForm:
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, problem.MalformedBody("payload", "malformed form encoding")
		}
		vs := form["payload"]
		switch {
		case len(vs) == 0:
			return nil, problem.MalformedBody("payload", "missing from the form")
		case len(vs) > 1:
			return nil, problem.MalformedBody("payload", "given more than once")
		}
		return []byte(vs[0]), nil
	}
	return nil, problem.BadRequest("Content-Type", "must be application/json or application/x-www-form-urlencoded")
}

// jsonProblem describes a decoding error without quoting the input.
func jsonProblem(err error) string {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn) && syn.Err == jsontext.ErrDuplicateName:
		if in := pointerPath(syn.JSONPointer.Parent()); in != "" {
			return "a key is given more than once in " + safeField(in)
		}
		return "a key is given more than once"
	case syn != nil:
		return "malformed JSON at byte " + strconv.FormatInt(syn.ByteOffset, 10)
	case errors.As(err, &sem):
		if sem.JSONPointer == "" {
			return "not a JSON object"
		}
		return "field " + safeField(pointerPath(sem.JSONPointer)) + " has the wrong JSON type"
	}
	return "malformed JSON"
}

// pointerPath turns a JSON pointer (/pull_request/head/sha) into a dotted
// path (pull_request.head.sha); the root is "".
func pointerPath(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
}

// safeField returns a decoder field path, which comes from our own struct
// tags, or a placeholder if it somehow is not plain.
func safeField(f string) string {
	for _, r := range f {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return "(unnamed)"
		}
	}
	return f
}

// fieldErrs collects several refused fields of one payload.
type fieldErrs []registry.FieldError

func (f *fieldErrs) add(path, msg string) {
	*f = append(*f, registry.FieldError{Path: path, Message: msg})
}

func (f fieldErrs) err() error {
	if len(f) == 0 {
		return nil
	}
	return &registry.ValidationError{Fields: f}
}

func build(name string, w *wirePayload) (*Event, error) {
	var errs fieldErrs
	e := &Event{Name: name}
	if w.Action != "" {
		if actionRE.MatchString(w.Action) {
			e.Action = w.Action
		} else {
			errs.add("action", "not a GitHub action name")
		}
	}
	needRepo := name == EventPullRequest || name == EventPush
	if r := w.Repository; r != nil {
		e.Repo, e.RepoName, e.DefaultBranch = r.FullName, r.Name, r.DefaultBranch
		owner, repo, ok := strings.Cut(r.FullName, "/")
		switch {
		case r.FullName == "":
			errs.add("repository.full_name", "missing")
		case !ok || !validName(owner) || !validName(repo):
			errs.add("repository.full_name", "not an owner/name pair of GitHub names")
		default:
			e.RepoOwner, e.RepoName = owner, repo
		}
		if r.DefaultBranch != "" && !validRefName(r.DefaultBranch) {
			errs.add("repository.default_branch", "not a valid branch name")
		}
	} else if needRepo {
		errs.add("repository", "missing")
	}
	if w.Sender != nil && w.Sender.Login != "" {
		if loginRE.MatchString(w.Sender.Login) {
			e.Sender = w.Sender.Login
		} else {
			errs.add("sender.login", "not a GitHub login")
		}
	}
	if w.Installation != nil {
		e.InstallationID = w.Installation.ID
	}
	switch name {
	case EventPullRequest:
		e.PR = buildPR(w, &errs)
		if e.Action == "" {
			errs.add("action", "missing")
		}
	case EventPush:
		e.Push = buildPush(w, &errs)
	case EventPing:
		e.Ping = &Ping{HookID: w.HookID, Zen: printableOrEmpty(w.Zen)}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return e, nil
}

func buildPR(w *wirePayload, errs *fieldErrs) *PullRequest {
	p := w.PullRequest
	if p == nil {
		errs.add("pull_request", "missing")
		return nil
	}
	pr := &PullRequest{Number: p.Number, Draft: p.Draft}
	if p.Number <= 0 {
		errs.add("pull_request.number", "missing or not positive")
	}
	if p.User != nil && p.User.Login != "" {
		if loginRE.MatchString(p.User.Login) {
			pr.Author = p.User.Login
		} else {
			errs.add("pull_request.user.login", "not a GitHub login")
		}
	}
	if u, err := url.Parse(p.HTMLURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && printableOrEmpty(p.HTMLURL) != "" {
		pr.HTMLURL = p.HTMLURL
	}
	if h := p.Head; h == nil {
		errs.add("pull_request.head", "missing")
	} else {
		if !shaRE.MatchString(h.SHA) {
			errs.add("pull_request.head.sha", missingOr(h.SHA, "not a commit SHA"))
		}
		pr.HeadSHA = h.SHA
		if h.Ref != "" && !validRefName(h.Ref) {
			errs.add("pull_request.head.ref", "not a valid branch name")
		}
		pr.HeadRef = h.Ref
		if h.Repo != nil {
			if !validFullName(h.Repo.FullName) {
				errs.add("pull_request.head.repo.full_name", "not an owner/name pair of GitHub names")
			}
			pr.HeadRepoFullName = h.Repo.FullName
		}
	}
	if b := p.Base; b == nil {
		errs.add("pull_request.base", "missing")
	} else {
		if b.SHA != "" && !shaRE.MatchString(b.SHA) {
			errs.add("pull_request.base.sha", "not a commit SHA")
		}
		if !validRefName(b.Ref) {
			errs.add("pull_request.base.ref", missingOr(b.Ref, "not a valid branch name"))
		}
		pr.BaseSHA, pr.BaseRef = b.SHA, b.Ref
	}
	return pr
}

func buildPush(w *wirePayload, errs *fieldErrs) *Push {
	p := &Push{
		Ref: w.Ref, Before: w.Before, After: w.After,
		Created: w.Created, Deleted: w.Deleted, Forced: w.Forced,
		Commits: make([]Commit, 0, len(w.Commits)),
	}
	if !strings.HasPrefix(w.Ref, "refs/") || !validRefName(w.Ref) {
		errs.add("ref", missingOr(w.Ref, "not a valid ref"))
	}
	if !shaRE.MatchString(w.Before) {
		errs.add("before", missingOr(w.Before, "not a commit SHA"))
	}
	if !shaRE.MatchString(w.After) {
		errs.add("after", missingOr(w.After, "not a commit SHA"))
	}
	if w.Pusher != nil && w.Pusher.Name != "" {
		if loginRE.MatchString(w.Pusher.Name) {
			p.Pusher = w.Pusher.Name
		} else {
			errs.add("pusher.name", "not a GitHub login")
		}
	}
	if u, err := url.Parse(w.Compare); err == nil && u.Scheme == "https" && printableOrEmpty(w.Compare) != "" {
		p.Compare = w.Compare
	}
	p.Truncated = w.Forced || len(w.Commits) >= MaxPushCommits
	for i, c := range w.Commits {
		if !shaRE.MatchString(c.ID) {
			errs.add(fmt.Sprintf("commits[%d].id", i), missingOr(c.ID, "not a commit SHA"))
		}
		if c.Added == nil || c.Modified == nil || c.Removed == nil {
			p.Truncated = true
		}
		for _, list := range []struct {
			name  string
			paths []string
		}{{"added", c.Added}, {"modified", c.Modified}, {"removed", c.Removed}} {
			for j, f := range list.paths {
				if !validPath(f) {
					errs.add(fmt.Sprintf("commits[%d].%s[%d]", i, list.name, j), "not a repository path")
				}
			}
		}
		p.Commits = append(p.Commits, Commit{
			ID:       c.ID,
			Added:    nonNil(c.Added),
			Modified: nonNil(c.Modified),
			Removed:  nonNil(c.Removed),
		})
	}
	return p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func missingOr(v, msg string) string {
	if v == "" {
		return "missing"
	}
	return msg
}

func validFullName(s string) bool {
	owner, repo, ok := strings.Cut(s, "/")
	return ok && validName(owner) && validName(repo)
}

// validName accepts a GitHub owner or repository name: GitHub's alphabet,
// and never "." or ".." (which would walk a URL path).
func validName(s string) bool {
	return s != "." && s != ".." && nameRE.MatchString(s)
}

// validRefName accepts what git check-ref-format accepts, minus the parts
// that do not matter here: it refuses empty names, control characters,
// space and the characters git forbids (~ ^ : ? * [ \), `..`, and
// names over 255 bytes.
func validRefName(s string) bool {
	if s == "" || len(s) > 255 || strings.Contains(s, "..") || strings.Contains(s, "@{") {
		return false
	}
	for _, r := range s {
		if r < 0x21 || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	return true
}

// validPath accepts a "/"-separated repository path without control
// characters, empty, "." or ".." segments, or a leading slash.
func validPath(s string) bool {
	if s == "" || len(s) > 4096 {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for _, r := range s {
		if c := safetext.Classify(r); c == safetext.Control || c == safetext.Invalid || r == 0xfffd {
			return false
		}
	}
	return true
}

// printableOrEmpty returns s if it is printable ASCII without markup
// characters, else "": such text is decoration, not worth refusing a
// delivery for.
func printableOrEmpty(s string) string {
	if safetext.ASCII(s, "<>\"'`", '?') != s {
		return ""
	}
	return s
}

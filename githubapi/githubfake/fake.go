// Package githubfake is an in-process stand-in for the few GitHub REST API
// endpoints registryd calls, for tests. It listens on a real loopback port
// (httptest), answers with GitHub's JSON shapes, status codes, Link-header
// pagination and rate-limit headers, checks the Authorization header,
// records every status and comment written, and can be told to fail the
// next calls to a route the ways GitHub fails.
//
// A Server is safe for concurrent use.
package githubfake

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Route names one endpoint; its value is the net/http pattern it serves.
type Route string

// The endpoints served.
const (
	RoutePullFiles     Route = "GET /repos/{owner}/{repo}/pulls/{number}/files"
	RouteContents      Route = "GET /repos/{owner}/{repo}/contents/{path...}"
	RouteCreateStatus  Route = "POST /repos/{owner}/{repo}/statuses/{sha}"
	RouteListComments  Route = "GET /repos/{owner}/{repo}/issues/{number}/comments"
	RouteCreateComment Route = "POST /repos/{owner}/{repo}/issues/{number}/comments"
	RouteEditComment   Route = "PATCH /repos/{owner}/{repo}/issues/comments/{id}"
	RouteCompare       Route = "GET /repos/{owner}/{repo}/compare/{basehead}"
	RoutePull          Route = "GET /repos/{owner}/{repo}/pulls/{number}"
	RouteTree          Route = "GET /repos/{owner}/{repo}/git/trees/{sha}"
)

// Routes lists every Route, for tests that exercise them all.
var Routes = []Route{RoutePullFiles, RouteContents, RouteCreateStatus, RouteListComments, RouteCreateComment, RouteEditComment, RouteCompare, RoutePull, RouteTree}

// BotLogin is the login the fake gives the author of comments and statuses
// created through it.
const BotLogin = "registryd[bot]"

// File is a changed file of a pull request or comparison, in GitHub's terms:
// Status is added, modified, removed, renamed, copied, changed or
// unchanged; PreviousFilename is set for renames. SHA defaults to a
// made-up blob name.
type File struct {
	Filename         string
	Status           string
	PreviousFilename string
	SHA              string
}

// Status is a commit status as the fake recorded it.
type Status struct {
	ID          int64
	SHA         string
	State       string
	Description string
	TargetURL   string
	Context     string
	Creator     string
}

// Comment is an issue comment as the fake holds it.
type Comment struct {
	ID   int64
	User string
	Body string
}

// Failure describes one failed answer. Use the constructors.
type Failure struct {
	status     int
	retryAfter time.Duration
	reset      time.Time
	secondary  bool
}

// ServerError is a 500 answer.
func ServerError() Failure { return Failure{status: http.StatusInternalServerError} }

// BadGateway is a 502 answer, as GitHub's edge sends when a backend times out.
func BadGateway() Failure { return Failure{status: http.StatusBadGateway} }

// Forbidden is a 403 that is not a rate limit, as GitHub answers when the
// token lacks a permission ("Resource not accessible by integration").
func Forbidden() Failure { return Failure{status: http.StatusForbidden} }

// NotFound is a 404 answer.
func NotFound() Failure { return Failure{status: http.StatusNotFound} }

// PrimaryRateLimit is a 403 with X-RateLimit-Remaining: 0 and
// X-RateLimit-Reset at reset, as GitHub answers when the hourly quota is
// spent.
func PrimaryRateLimit(reset time.Time) Failure {
	return Failure{status: http.StatusForbidden, reset: reset}
}

// SecondaryRateLimit is a 403 naming the secondary rate limit, with
// Retry-After (whole seconds; none if retryAfter is 0).
func SecondaryRateLimit(retryAfter time.Duration) Failure {
	return Failure{status: http.StatusForbidden, retryAfter: retryAfter, secondary: true}
}

// TooManyRequests is a 429 with Retry-After (whole seconds).
func TooManyRequests(retryAfter time.Duration) Failure {
	return Failure{status: http.StatusTooManyRequests, retryAfter: retryAfter}
}

// pullHead is where a pull request's head commit lives.
type pullHead struct {
	repoKey string
	sha     string
}

type fileEntry struct {
	content []byte
}

type repoState struct {
	files    map[string]map[string]fileEntry // ref -> path -> content
	pulls    map[int][]File
	heads    map[int]pullHead
	compares map[string][]File // "base...head"
	comments map[int][]*Comment
	statuses []Status
}

// Server is the fake. Create it with New; it is closed by t.Cleanup when
// created with NewTest, else by Close.
type Server struct {
	// URL is the API root to configure a client with, ending in "/".
	URL string

	srv   *httptest.Server
	token string

	mu       sync.Mutex
	now      func() time.Time
	repos    map[string]*repoState
	failures map[Route][]Failure
	calls    map[Route]int
	nextID   int64
}

// New starts a fake on a loopback port. If token is non-empty, every
// request must carry `Authorization: Bearer <token>` or `token <token>`,
// else it gets GitHub's 401.
func New(token string) *Server {
	s := &Server{
		token:    token,
		now:      time.Now,
		repos:    map[string]*repoState{},
		failures: map[Route][]Failure{},
		calls:    map[Route]int{},
		nextID:   1000,
	}
	mux := http.NewServeMux()
	handlers := map[Route]http.HandlerFunc{
		RoutePullFiles:     s.pullFiles,
		RouteContents:      s.contents,
		RouteCreateStatus:  s.createStatus,
		RouteListComments:  s.listComments,
		RouteCreateComment: s.createComment,
		RouteEditComment:   s.editComment,
		RouteCompare:       s.compare,
		RoutePull:          s.pull,
		RouteTree:          s.tree,
	}
	for route, h := range handlers {
		mux.Handle(string(route), s.wrap(route, h))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/"
	return s
}

// Cleanuper is the part of testing.TB NewTest uses.
type Cleanuper interface{ Cleanup(func()) }

// NewTest is New with Close registered on t.
func NewTest(t Cleanuper, token string) *Server {
	s := New(token)
	t.Cleanup(s.Close)
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// HTTPClient returns a client for the server (plain HTTP on loopback).
func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

// SetClock replaces the clock used for timestamps and rate-limit headers.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

func (s *Server) repo(owner, name string) *repoState {
	key := strings.ToLower(owner + "/" + name)
	r := s.repos[key]
	if r == nil {
		r = &repoState{
			files:    map[string]map[string]fileEntry{},
			pulls:    map[int][]File{},
			heads:    map[int]pullHead{},
			compares: map[string][]File{},
			comments: map[int][]*Comment{},
		}
		s.repos[key] = r
	}
	return r
}

func (s *Server) lookup(owner, name string) *repoState {
	return s.repos[strings.ToLower(owner+"/"+name)]
}

// AddPullRequest creates pull request number of owner/repo with the given
// changed files (replacing any earlier list).
func (s *Server) AddPullRequest(owner, repo string, number int, files ...File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo).pulls[number] = append([]File(nil), files...)
}

// SetPullHead records that pull request number of owner/repo has its head
// commit sha in headOwner/headRepo (a fork, or owner/repo itself). As on
// GitHub, the base repository then serves that commit's files too, at ref
// sha and at refs/pull/<number>/head, which is how a pull request from a
// fork, even a deleted one, is read.
func (s *Server) SetPullHead(owner, repo string, number int, headOwner, headRepo, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(headOwner, headRepo)
	s.repo(owner, repo).heads[number] = pullHead{repoKey: strings.ToLower(headOwner + "/" + headRepo), sha: sha}
}

// DeleteRepo removes owner/repo and everything in it, as when a fork is
// deleted while its pull request stays open.
func (s *Server) DeleteRepo(owner, repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(owner + "/" + repo)
	gone := s.repos[key]
	delete(s.repos, key)
	if gone == nil {
		return
	}
	// Pull requests from the deleted repository keep their head commit.
	for _, rs := range s.repos {
		for n, h := range rs.heads {
			if h.repoKey == key {
				rs.files["refs/pull/"+strconv.Itoa(n)+"/head"] = gone.files[h.sha]
			}
		}
	}
}

// PutFile stores content at path of owner/repo as of ref (a SHA or branch).
func (s *Server) PutFile(owner, repo, ref, filePath string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, repo)
	if r.files[ref] == nil {
		r.files[ref] = map[string]fileEntry{}
	}
	r.files[ref][filePath] = fileEntry{content: append([]byte(nil), content...)}
}

// SetCompare sets the files the comparison base...head of owner/repo lists.
func (s *Server) SetCompare(owner, repo, base, head string, files ...File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(owner, repo).compares[base+"..."+head] = append([]File(nil), files...)
}

// AddComment adds a comment by user to issue number of owner/repo, as if
// posted on GitHub, and returns its id.
func (s *Server) AddComment(owner, repo string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	r := s.repo(owner, repo)
	r.comments[number] = append(r.comments[number], &Comment{ID: s.nextID, User: user, Body: body})
	return s.nextID
}

// Statuses returns every status posted to owner/repo, oldest first.
func (s *Server) Statuses(owner, repo string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.lookup(owner, repo)
	if r == nil {
		return []Status{}
	}
	return append([]Status{}, r.statuses...)
}

// Comments returns the comments of issue number of owner/repo, oldest
// first, as they stand now.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Comment{}
	if r := s.lookup(owner, repo); r != nil {
		for _, c := range r.comments[number] {
			out = append(out, *c)
		}
	}
	return out
}

// FailNext makes the next n requests to route answer f instead (after the
// credentials check). Calls accumulate: FailNext(r, 2, a) then
// FailNext(r, 1, b) answers a, a, b.
func (s *Server) FailNext(route Route, n int, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures[route] = append(s.failures[route], f)
	}
}

// Calls returns how many requests reached route (failed ones included,
// unauthenticated ones not).
func (s *Server) Calls(route Route) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[route]
}

func (s *Server) wrap(route Route, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-GitHub-Request-Id", "FAKE:"+strconv.FormatInt(time.Now().UnixNano(), 36))
		w.Header().Set("X-GitHub-Api-Version-Selected", "2022-11-28")
		if s.token != "" {
			auth := r.Header.Get("Authorization")
			if auth != "Bearer "+s.token && auth != "token "+s.token {
				if auth == "" {
					writeError(w, http.StatusUnauthorized, "Requires authentication", "https://docs.github.com/rest")
				} else {
					writeError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
				}
				return
			}
		}
		s.mu.Lock()
		s.calls[route]++
		var fail *Failure
		if q := s.failures[route]; len(q) > 0 {
			fail, s.failures[route] = &q[0], q[1:]
		}
		now := s.now()
		s.mu.Unlock()
		if fail != nil {
			writeFailure(w, *fail, now)
			return
		}
		rateHeaders(w.Header(), 4999, now.Add(time.Hour))
		h(w, r)
	})
}

func rateHeaders(h http.Header, remaining int, reset time.Time) {
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(5000-remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

func writeFailure(w http.ResponseWriter, f Failure, now time.Time) {
	h := w.Header()
	switch {
	case f.status == http.StatusForbidden && !f.reset.IsZero():
		rateHeaders(h, 0, f.reset)
		writeError(w, f.status, "API rate limit exceeded for installation ID 1.",
			"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api")
		return
	case f.secondary:
		rateHeaders(h, 4000, now.Add(time.Hour))
		if f.retryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(f.retryAfter/time.Second)))
		}
		writeError(w, f.status, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits")
		return
	}
	rateHeaders(h, 4000, now.Add(time.Hour))
	if f.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(f.retryAfter/time.Second)))
	}
	msg := http.StatusText(f.status)
	switch f.status {
	case http.StatusInternalServerError:
		msg = "Server Error"
	case http.StatusForbidden:
		msg = "Resource not accessible by integration"
	}
	writeError(w, f.status, msg, "https://docs.github.com/rest")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

// writeError writes GitHub's error body.
func writeError(w http.ResponseWriter, status int, msg, doc string) {
	writeJSON(w, status, map[string]string{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)})
}

func validationFailed(w http.ResponseWriter, resource, field, msg, doc string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{{"resource": resource, "code": "custom", "field": field, "message": msg}},
		"documentation_url": doc,
		"status":            "422",
	})
}

// page applies GitHub's per_page/page parameters to n items and writes the
// Link header; it returns the half-open index range to serve.
func page(w http.ResponseWriter, r *http.Request, n int) (lo, hi int, ok bool) {
	q := r.URL.Query()
	per, pg := 30, 1
	if v := q.Get("per_page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			p = 30
		}
		per = min(p, 100)
	}
	if v := q.Get("page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			p = 1
		}
		pg = p
	}
	last := max((n+per-1)/per, 1)
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("per_page", strconv.Itoa(per))
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if pg > 1 {
		links = append(links, link(min(pg-1, last), "prev"))
	}
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((pg-1)*per, n)
	return lo, min(lo+per, n), true
}

func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Server) apiURL(r *http.Request, p string) string {
	return "http://" + r.Host + p
}

func (s *Server) fileJSON(r *http.Request, owner, repo string, f File) map[string]any {
	sha := f.SHA
	if sha == "" && f.Status != "removed" {
		sha = blobSHA([]byte(f.Filename))
	}
	esc := (&url.URL{Path: f.Filename}).EscapedPath()
	m := map[string]any{
		"sha":          sha,
		"filename":     f.Filename,
		"status":       f.Status,
		"additions":    1,
		"deletions":    0,
		"changes":      1,
		"blob_url":     "https://github.com/" + owner + "/" + repo + "/blob/" + sha + "/" + esc,
		"raw_url":      "https://github.com/" + owner + "/" + repo + "/raw/" + sha + "/" + esc,
		"contents_url": s.apiURL(r, "/repos/"+owner+"/"+repo+"/contents/"+esc+"?ref="+sha),
		"patch":        "@@ -0,0 +1 @@\n+x",
	}
	if f.PreviousFilename != "" {
		m["previous_filename"] = f.PreviousFilename
	}
	return m
}

func (s *Server) pullFiles(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	n, err := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	rs := s.lookup(owner, repo)
	var files []File
	found := false
	if rs != nil && err == nil {
		files, found = rs.pulls[n]
	}
	files = append([]File(nil), files...)
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files")
		return
	}
	// GitHub lists at most 3000 files of a pull request.
	files = files[:min(len(files), 3000)]
	lo, hi, _ := page(w, r, len(files))
	out := make([]map[string]any, 0, hi-lo)
	for _, f := range files[lo:hi] {
		out = append(out, s.fileJSON(r, owner, repo, f))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request) {
	owner, repo, p := r.PathValue("owner"), r.PathValue("repo"), strings.TrimSuffix(r.PathValue("path"), "/")
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	const doc = "https://docs.github.com/rest/repos/contents#get-repository-content"
	s.mu.Lock()
	var tree map[string]fileEntry
	if rs := s.lookup(owner, repo); rs != nil {
		tree = rs.files[ref]
		if tree == nil {
			tree = s.pullTree(rs, ref)
		}
	}
	entry, isFile := tree[p]
	var children []string
	if !isFile {
		for fp := range tree {
			if rest, ok := strings.CutPrefix(fp, p+"/"); ok {
				children = append(children, p+"/"+strings.SplitN(rest, "/", 2)[0])
			}
		}
	}
	s.mu.Unlock()
	self := func(fp string) string {
		return s.apiURL(r, "/repos/"+owner+"/"+repo+"/contents/"+(&url.URL{Path: fp}).EscapedPath()+"?ref="+url.QueryEscape(ref))
	}
	switch {
	case isFile:
		sha := blobSHA(entry.content)
		m := map[string]any{
			"type": "file", "size": len(entry.content), "name": path.Base(p), "path": p, "sha": sha,
			"url": self(p), "git_url": s.apiURL(r, "/repos/"+owner+"/"+repo+"/git/blobs/"+sha),
			"html_url":     "https://github.com/" + owner + "/" + repo + "/blob/" + ref + "/" + p,
			"download_url": "https://raw.githubusercontent.com/" + owner + "/" + repo + "/" + ref + "/" + p,
		}
		// Like GitHub: base64 wrapped at 60 columns up to 1 MB; above,
		// no content and encoding "none".
		if len(entry.content) <= 1<<20 {
			m["encoding"], m["content"] = "base64", wrap60(base64.StdEncoding.EncodeToString(entry.content))
		} else {
			m["encoding"], m["content"] = "none", ""
		}
		m["_links"] = map[string]string{"self": self(p), "git": m["git_url"].(string), "html": m["html_url"].(string)}
		writeJSON(w, http.StatusOK, m)
	case len(children) > 0:
		sort.Strings(children)
		out := []map[string]any{}
		seen := map[string]bool{}
		for _, c := range children {
			if seen[c] {
				continue
			}
			seen[c] = true
			typ := "dir"
			size := 0
			sha := blobSHA([]byte(c))
			s.mu.Lock()
			if e, ok := tree[c]; ok {
				typ, size, sha = "file", len(e.content), blobSHA(e.content)
			}
			s.mu.Unlock()
			out = append(out, map[string]any{"type": typ, "size": size, "name": path.Base(c), "path": c, "sha": sha, "url": self(c)})
		}
		writeJSON(w, http.StatusOK, out)
	default:
		writeError(w, http.StatusNotFound, "Not Found", doc)
	}
}

// pullTree resolves ref as the head of one of rs's pull requests: its SHA or
// refs/pull/<n>/head. GitHub keeps the head commits of pull requests from
// forks in the base repository's object store, so they stay readable there
// after the fork is gone. The fake keeps them in the head repository, or
// in a copy it takes when the fork is deleted. Call with s.mu held.
func (s *Server) pullTree(rs *repoState, ref string) map[string]fileEntry {
	for n, h := range rs.heads {
		if ref != h.sha && ref != "refs/pull/"+strconv.Itoa(n)+"/head" {
			continue
		}
		if hr := s.repos[h.repoKey]; hr != nil {
			return hr.files[h.sha]
		}
		return rs.files["refs/pull/"+strconv.Itoa(n)+"/head"]
	}
	return nil
}

func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	owner, repo, sha := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("sha")
	const doc = "https://docs.github.com/rest/commits/statuses#create-a-commit-status"
	var in struct {
		State       string  `json:"state"`
		TargetURL   *string `json:"target_url"`
		Description *string `json:"description"`
		Context     *string `json:"context"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.lookup(owner, repo)
	switch {
	case rs == nil:
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	case !isSHA(sha):
		validationFailed(w, "Status", "sha", "No commit found for SHA: "+url.PathEscape(sha), doc)
		return
	case in.State != "pending" && in.State != "success" && in.State != "failure" && in.State != "error":
		validationFailed(w, "Status", "state", "state is not included in the list", doc)
		return
	case in.Description != nil && len([]rune(*in.Description)) > 140:
		validationFailed(w, "Status", "description", "description is too long (maximum is 140 characters)", doc)
		return
	}
	st := Status{SHA: sha, State: in.State, Context: "default", Creator: BotLogin}
	if in.Description != nil {
		st.Description = *in.Description
	}
	if in.TargetURL != nil {
		st.TargetURL = *in.TargetURL
	}
	if in.Context != nil && *in.Context != "" {
		st.Context = *in.Context
	}
	s.nextID++
	st.ID = s.nextID
	rs.statuses = append(rs.statuses, st)
	now := s.now().UTC().Format(time.RFC3339)
	writeJSON(w, http.StatusCreated, map[string]any{
		"url":         s.apiURL(r, "/repos/"+owner+"/"+repo+"/statuses/"+sha),
		"avatar_url":  "https://avatars.githubusercontent.com/u/1?v=4",
		"id":          st.ID,
		"node_id":     "SC_fake" + strconv.FormatInt(st.ID, 10),
		"state":       st.State,
		"description": st.Description,
		"target_url":  st.TargetURL,
		"context":     st.Context,
		"created_at":  now,
		"updated_at":  now,
		"creator":     userJSON(BotLogin),
	})
}

func userJSON(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"login": login, "id": 1, "node_id": "U_fake", "type": typ, "site_admin": false,
		"url": "https://api.github.com/users/" + url.PathEscape(login), "html_url": "https://github.com/" + url.PathEscape(login)}
}

func (s *Server) commentJSON(r *http.Request, owner, repo string, number int, c *Comment, now string) map[string]any {
	id := strconv.FormatInt(c.ID, 10)
	return map[string]any{
		"id":                 c.ID,
		"node_id":            "IC_fake" + id,
		"url":                s.apiURL(r, "/repos/"+owner+"/"+repo+"/issues/comments/"+id),
		"html_url":           "https://github.com/" + owner + "/" + repo + "/pull/" + strconv.Itoa(number) + "#issuecomment-" + id,
		"issue_url":          s.apiURL(r, "/repos/"+owner+"/"+repo+"/issues/"+strconv.Itoa(number)),
		"body":               c.Body,
		"user":               userJSON(c.User),
		"created_at":         now,
		"updated_at":         now,
		"author_association": "NONE",
	}
}

// issue finds an issue: one with comments or a pull request.
func (s *Server) issue(owner, repo string, number int) *repoState {
	rs := s.lookup(owner, repo)
	if rs == nil {
		return nil
	}
	if _, ok := rs.pulls[number]; ok {
		return rs
	}
	if _, ok := rs.comments[number]; ok {
		return rs
	}
	return nil
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	n, _ := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	rs := s.issue(owner, repo, n)
	var cs []Comment
	if rs != nil {
		for _, c := range rs.comments[n] {
			cs = append(cs, *c)
		}
	}
	now := s.now().UTC().Format(time.RFC3339)
	s.mu.Unlock()
	if rs == nil {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/issues/comments#list-issue-comments")
		return
	}
	lo, hi, _ := page(w, r, len(cs))
	out := make([]map[string]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, s.commentJSON(r, owner, repo, n, &cs[i], now))
	}
	writeJSON(w, http.StatusOK, out)
}

func decodeBody(w http.ResponseWriter, r *http.Request, doc string) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return "", false
	}
	if in.Body == nil || *in.Body == "" {
		validationFailed(w, "IssueComment", "body", "body wasn't supplied", doc)
		return "", false
	}
	if len([]rune(*in.Body)) > 65536 {
		validationFailed(w, "IssueComment", "body", "body is too long (maximum is 65536 characters)", doc)
		return "", false
	}
	return *in.Body, true
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	n, _ := strconv.Atoi(r.PathValue("number"))
	const doc = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	body, ok := decodeBody(w, r, doc)
	if !ok {
		return
	}
	s.mu.Lock()
	rs := s.issue(owner, repo, n)
	var c *Comment
	if rs != nil {
		s.nextID++
		c = &Comment{ID: s.nextID, User: BotLogin, Body: body}
		rs.comments[n] = append(rs.comments[n], c)
	}
	now := s.now().UTC().Format(time.RFC3339)
	s.mu.Unlock()
	if rs == nil {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	writeJSON(w, http.StatusCreated, s.commentJSON(r, owner, repo, n, c, now))
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	const doc = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	body, ok := decodeBody(w, r, doc)
	if !ok {
		return
	}
	s.mu.Lock()
	var found *Comment
	number := 0
	if rs := s.lookup(owner, repo); rs != nil {
		for n, cs := range rs.comments {
			for _, c := range cs {
				if c.ID == id {
					found, number = c, n
				}
			}
		}
	}
	var out Comment
	if found != nil {
		found.Body = body
		out = *found
	}
	now := s.now().UTC().Format(time.RFC3339)
	s.mu.Unlock()
	if found == nil {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	writeJSON(w, http.StatusOK, s.commentJSON(r, owner, repo, number, &out, now))
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	owner, repo, bh := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("basehead")
	base, head, ok := strings.Cut(bh, "...")
	s.mu.Lock()
	var files []File
	found := false
	if rs := s.lookup(owner, repo); rs != nil && ok {
		files, found = rs.compares[base+"..."+head]
	}
	files = append([]File(nil), files...)
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/commits/commits#compare-two-commits")
		return
	}
	// GitHub lists at most 300 files of a comparison.
	files = files[:min(len(files), 300)]
	out := make([]map[string]any, 0, len(files))
	for _, f := range files {
		out = append(out, s.fileJSON(r, owner, repo, f))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"url":               s.apiURL(r, "/repos/"+owner+"/"+repo+"/compare/"+bh),
		"html_url":          "https://github.com/" + owner + "/" + repo + "/compare/" + bh,
		"permalink_url":     "https://github.com/" + owner + "/" + repo + "/compare/" + bh,
		"diff_url":          "https://github.com/" + owner + "/" + repo + "/compare/" + bh + ".diff",
		"patch_url":         "https://github.com/" + owner + "/" + repo + "/compare/" + bh + ".patch",
		"base_commit":       map[string]any{"sha": base},
		"merge_base_commit": map[string]any{"sha": base},
		"status":            "ahead",
		"ahead_by":          1,
		"behind_by":         0,
		"total_commits":     1,
		"commits":           []any{},
		"files":             out,
	})
}

// pull answers a pull request: its number, state and head and base
// commits (the head as SetPullHead last set it).
func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	n, err := strconv.Atoi(r.PathValue("number"))
	s.mu.Lock()
	rs := s.lookup(owner, repo)
	found := false
	var head pullHead
	if rs != nil && err == nil {
		_, found = rs.pulls[n]
		head = rs.heads[n]
	}
	s.mu.Unlock()
	if !found {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
		return
	}
	headRepo := any(nil)
	if head.repoKey != "" {
		headRepo = map[string]any{"full_name": head.repoKey, "name": path.Base(head.repoKey)}
	}
	num := strconv.Itoa(n)
	writeJSON(w, http.StatusOK, map[string]any{
		"url":      s.apiURL(r, "/repos/"+owner+"/"+repo+"/pulls/"+num),
		"id":       100000 + n,
		"number":   n,
		"state":    "open",
		"html_url": "https://github.com/" + owner + "/" + repo + "/pull/" + num,
		"head":     map[string]any{"sha": head.sha, "ref": "refs/pull/" + num + "/head", "repo": headRepo},
		"base":     map[string]any{"ref": "main", "repo": map[string]any{"full_name": owner + "/" + repo, "name": repo}},
	})
}

// tree answers the git tree of a commit (or ref): the files PutFile stored
// at it, and the directories holding them. Without ?recursive=1 only the
// top level is listed, as on GitHub.
func (s *Server) tree(w http.ResponseWriter, r *http.Request) {
	owner, repo, sha := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("sha")
	recursive := r.URL.Query().Get("recursive") != ""
	s.mu.Lock()
	var files map[string]fileEntry
	if rs := s.lookup(owner, repo); rs != nil {
		files = rs.files[sha]
		if files == nil {
			files = s.pullTree(rs, sha)
		}
	}
	entries := map[string]map[string]any{}
	for p, f := range files {
		dirs := strings.Split(p, "/")
		for i := 1; i < len(dirs); i++ {
			d := strings.Join(dirs[:i], "/")
			if recursive || i == 1 {
				entries[d] = map[string]any{"path": d, "mode": "040000", "type": "tree", "sha": blobSHA([]byte(d))}
			}
		}
		if recursive || len(dirs) == 1 {
			entries[p] = map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": blobSHA(f.content), "size": len(f.content)}
		}
	}
	s.mu.Unlock()
	if files == nil {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/trees#get-a-tree")
		return
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		e := entries[k]
		e["url"] = s.apiURL(r, "/repos/"+owner+"/"+repo+"/git/blobs/"+e["sha"].(string))
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha": sha, "url": s.apiURL(r, "/repos/"+owner+"/"+repo+"/git/trees/"+sha), "tree": out, "truncated": false,
	})
}

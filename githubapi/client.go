// Package githubapi is the part of GitHub's REST API registryd calls: the
// files and current head of a pull request, a file's content at a commit,
// commit statuses, one summary comment per pull request, the files between
// two commits of a push, and the files of a commit's tree. It wraps github.com/google/go-github and classifies every
// failure as retryable (with the delay GitHub asks for) or permanent.
//
// A Client is safe for concurrent use.
package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v89/github"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// DefaultBaseURL is GitHub's public REST API.
const DefaultBaseURL = "https://api.github.com/"

// DefaultMaxFileBytes bounds FileContent: the largest addon manifest
// registryd accepts (256 KiB).
const DefaultMaxFileBytes = 256 << 10

// DefaultTimeout bounds one HTTP exchange when Config.HTTPClient is nil.
const DefaultTimeout = 30 * time.Second

// Config configures a Client. The zero value talks to api.github.com
// without a token.
type Config struct {
	// Token is sent as `Authorization: Bearer <token>` (a personal or
	// installation access token). Empty sends no credentials.
	Token string
	// BaseURL is the REST API root: DefaultBaseURL when empty, or a GitHub
	// Enterprise Server's `https://host/api/v3/`, or a test server. A
	// missing trailing slash is added.
	BaseURL string
	// HTTPClient carries the requests; it is copied, never modified. Nil
	// means a client with DefaultTimeout.
	HTTPClient *http.Client
	// MaxFileBytes bounds FileContent; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// UserAgent replaces go-github's default User-Agent when set.
	UserAgent string
	// Now is the clock used to turn GitHub's X-RateLimit-Reset into a
	// delay; nil means time.Now.
	Now func() time.Time
}

// Client calls GitHub's REST API. Build one with New.
type Client struct {
	gh       *github.Client
	maxFile  int64
	now      func() time.Time
	baseHost string
}

// New validates cfg and returns a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("githubapi: base URL must be an absolute http(s) URL: %w", registry.ErrInvalid)
	}
	if cfg.MaxFileBytes < 0 {
		return nil, fmt.Errorf("githubapi: MaxFileBytes is negative: %w", registry.ErrInvalid)
	}
	if strings.ContainsAny(cfg.Token, "\r\n ") {
		return nil, fmt.Errorf("githubapi: token contains whitespace: %w", registry.ErrInvalid)
	}
	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	} else {
		hc.Timeout = DefaultTimeout
	}
	opts := []github.ClientOptionsFunc{github.WithHTTPClient(&hc), github.WithURLs(&base, nil)}
	if cfg.Token != "" {
		opts = append(opts, github.WithAuthToken(cfg.Token))
	}
	if cfg.UserAgent != "" {
		opts = append(opts, github.WithUserAgent(cfg.UserAgent))
	}
	gh, err := github.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("githubapi: %w", err)
	}
	c := &Client{gh: gh, maxFile: cfg.MaxFileBytes, now: cfg.Now, baseHost: u.Host}
	if c.maxFile == 0 {
		c.maxFile = DefaultMaxFileBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// FileStatus is how a pull request or comparison changed a file, as GitHub
// reports it.
type FileStatus string

// The statuses GitHub reports.
const (
	FileAdded     FileStatus = "added"
	FileModified  FileStatus = "modified"
	FileRemoved   FileStatus = "removed"
	FileRenamed   FileStatus = "renamed"
	FileCopied    FileStatus = "copied"
	FileChanged   FileStatus = "changed"
	FileUnchanged FileStatus = "unchanged"
)

// Present reports whether the file exists at the head of the change (every
// status but removed), so its content can be fetched there.
func (s FileStatus) Present() bool { return s != FileRemoved }

// File is one changed file. Path is "/"-separated from the repository root
// and exactly as GitHub sent it: it may hold any character git allows, so
// sanitize it before printing. PrevPath is set for renamed (and copied)
// files. SHA is the blob's object name at the head (empty when removed).
type File struct {
	Path     string     `json:"path"`
	Status   FileStatus `json:"status"`
	PrevPath string     `json:"prev_path,omitempty"`
	SHA      string     `json:"sha,omitempty"`
}

// MaxPullRequestFiles is the most files GitHub lists for one pull request;
// PullRequestFiles stops there.
const MaxPullRequestFiles = 3000

// MaxCompareFiles is the most files GitHub lists in one comparison.
const MaxCompareFiles = 300

const perPage = 100

// ErrTooManyFiles is returned by CompareFiles when GitHub's comparison
// lists MaxCompareFiles files, the point where it stops listing: the list
// may be incomplete, and acting on it could miss a removal.
var ErrTooManyFiles = fmt.Errorf("comparison lists %d files or more, GitHub's cap: %w", MaxCompareFiles, registry.ErrTooLarge)

// PullRequestFiles lists every file changed by pull request number of
// owner/repo, following pagination to the end (at most
// MaxPullRequestFiles, GitHub's own cap). Errors are classified (see
// IsRetryable); a missing pull request matches registry.ErrNotFound.
func (c *Client) PullRequestFiles(ctx context.Context, owner, repo string, number int) ([]File, error) {
	const op = "list pull request files"
	if err := checkRepo(owner, repo); err != nil {
		return nil, opErr(op, err)
	}
	if number <= 0 {
		return nil, opErr(op, fmt.Errorf("pull request number %d: %w", number, registry.ErrInvalid))
	}
	files := []File{}
	opts := &github.ListOptions{PerPage: perPage, Page: 1}
	for pages := 0; pages <= MaxPullRequestFiles/perPage; pages++ {
		page, resp, err := c.gh.PullRequests.ListFiles(ctx, owner, repo, number, opts)
		if err != nil {
			return nil, c.classify(op, err)
		}
		for _, f := range page {
			files = append(files, fileFrom(f))
		}
		if resp.NextPage == 0 || resp.NextPage <= opts.Page || len(files) >= MaxPullRequestFiles {
			break
		}
		opts.Page = resp.NextPage
	}
	return files, nil
}

func fileFrom(f *github.CommitFile) File {
	out := File{Path: f.GetFilename(), Status: FileStatus(f.GetStatus()), PrevPath: f.GetPreviousFilename()}
	if out.Status != FileRemoved {
		out.SHA = f.GetSHA()
	}
	return out
}

// CompareFiles lists the files changed between base and head (commit
// SHAs or refs) of owner/repo, as the compare API reports them for
// base...head: the changes on head since the merge base. It returns
// ErrTooManyFiles rather than a list GitHub may have cut short.
func (c *Client) CompareFiles(ctx context.Context, owner, repo, base, head string) ([]File, error) {
	const op = "compare commits"
	if err := checkRepo(owner, repo); err != nil {
		return nil, opErr(op, err)
	}
	for _, r := range []struct{ name, v string }{{"base", base}, {"head", head}} {
		if !validRev(r.v) {
			return nil, opErr(op, fmt.Errorf("%s is not a commit SHA or ref name: %w", r.name, registry.ErrInvalid))
		}
	}
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, owner, repo, base, head, nil)
	if err != nil {
		return nil, c.classify(op, err)
	}
	if len(cmp.Files) >= MaxCompareFiles {
		return nil, opErr(op, ErrTooManyFiles)
	}
	files := make([]File, 0, len(cmp.Files))
	for _, f := range cmp.Files {
		files = append(files, fileFrom(f))
	}
	return files, nil
}

// PullRequestHead returns the SHA of the head commit of pull request
// number of owner/repo as GitHub has it now: the commit a delivery's head
// must still be for its audit to be the pull request's. Errors are
// classified (see IsRetryable); a missing pull request matches
// registry.ErrNotFound.
func (c *Client) PullRequestHead(ctx context.Context, owner, repo string, number int) (string, error) {
	const op = "get pull request"
	if err := checkRepo(owner, repo); err != nil {
		return "", opErr(op, err)
	}
	if number <= 0 {
		return "", opErr(op, fmt.Errorf("pull request number %d: %w", number, registry.ErrInvalid))
	}
	pr, _, err := c.gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return "", c.classify(op, err)
	}
	sha := pr.GetHead().GetSHA()
	if !shaRE.MatchString(sha) {
		return "", opErr(op, errors.New("the pull request's head is not a commit SHA"))
	}
	return sha, nil
}

// ErrTreeTruncated is returned by TreeFiles when GitHub cut the tree short
// (over 100,000 entries or 7 MB): acting on part of it could miss files.
var ErrTreeTruncated = fmt.Errorf("the repository tree is larger than GitHub lists at once: %w", registry.ErrTooLarge)

// TreeFiles lists the path of every file (blob) in owner/repo at ref (a
// commit SHA or a ref name), recursively, in GitHub's order: what a push
// that creates a branch brings, having nothing before it to compare with.
// It returns ErrTreeTruncated rather than a list GitHub cut short.
func (c *Client) TreeFiles(ctx context.Context, owner, repo, ref string) ([]string, error) {
	const op = "get tree"
	if err := checkRepo(owner, repo); err != nil {
		return nil, opErr(op, err)
	}
	if !validRev(ref) {
		return nil, opErr(op, fmt.Errorf("ref is not a commit SHA or ref name: %w", registry.ErrInvalid))
	}
	tree, _, err := c.gh.Git.GetTree(ctx, owner, repo, ref, true)
	if err != nil {
		return nil, c.classify(op, err)
	}
	if tree.GetTruncated() {
		return nil, opErr(op, ErrTreeTruncated)
	}
	paths := []string{}
	for _, e := range tree.Entries {
		if e.GetType() == "blob" {
			paths = append(paths, e.GetPath())
		}
	}
	return paths, nil
}

// Content errors. ErrFileTooLarge matches registry.ErrTooLarge and
// ErrNotFile registry.ErrInvalid under errors.Is; both are permanent.
var (
	ErrFileTooLarge = fmt.Errorf("file over the size limit: %w", registry.ErrTooLarge)
	ErrNotFile      = fmt.Errorf("path is not a regular file: %w", registry.ErrInvalid)
)

// FileContent returns the bytes of the file at path in owner/repo at ref (a
// commit SHA for reproducible audits; a branch or tag is accepted). It
// refuses, before decoding, a file larger than the configured MaxFileBytes
// (ErrFileTooLarge), and a directory, symlink or submodule (ErrNotFile). A
// path or ref that does not exist matches registry.ErrNotFound.
//
// For a pull request, read from the base repository at the head SHA: GitHub
// keeps the head commits of pull requests (forks included) there, so this
// works for a fork the token cannot see and for one deleted since.
func (c *Client) FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error) {
	const op = "get file content"
	if err := checkRepo(owner, repo); err != nil {
		return nil, opErr(op, err)
	}
	if !validPath(path) {
		return nil, opErr(op, fmt.Errorf("path is not a repository file path: %w", registry.ErrInvalid))
	}
	if !validRev(ref) {
		return nil, opErr(op, fmt.Errorf("ref is not a commit SHA or ref name: %w", registry.ErrInvalid))
	}
	fc, dir, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, c.classify(op, err)
	}
	if fc == nil || dir != nil || fc.GetType() != "file" {
		return nil, opErr(op, ErrNotFile)
	}
	if int64(fc.GetSize()) > c.maxFile || fc.GetEncoding() == "none" {
		return nil, opErr(op, fmt.Errorf("%d bytes, limit %d: %w", fc.GetSize(), c.maxFile, ErrFileTooLarge))
	}
	if enc := fc.GetEncoding(); enc != "base64" && enc != "" {
		return nil, opErr(op, errors.New("unsupported content encoding"))
	}
	s, err := fc.GetContent()
	if err != nil {
		return nil, opErr(op, errors.New("content is not valid base64"))
	}
	if int64(len(s)) > c.maxFile {
		return nil, opErr(op, fmt.Errorf("%d bytes, limit %d: %w", len(s), c.maxFile, ErrFileTooLarge))
	}
	if fc.Size != nil && len(s) != fc.GetSize() {
		return nil, opErr(op, fmt.Errorf("decoded %d bytes, GitHub announced %d", len(s), fc.GetSize()))
	}
	return []byte(s), nil
}

// State is a commit status state.
type State string

// The commit status states GitHub knows.
const (
	StatePending State = "pending"
	StateSuccess State = "success"
	StateFailure State = "failure"
	StateError   State = "error"
)

// Valid reports whether s is one of the four states.
func (s State) Valid() bool {
	return s == StatePending || s == StateSuccess || s == StateFailure || s == StateError
}

// DefaultStatusContext is the context registryd's statuses carry.
const DefaultStatusContext = "registryd/audit"

// MaxDescriptionRunes is GitHub's limit on a status description.
const MaxDescriptionRunes = 140

// Status is a commit status to post.
type Status struct {
	State State
	// Description is shown next to the status. SetStatus replaces control
	// characters with spaces and shortens it to MaxDescriptionRunes (the
	// last rune becoming "…").
	Description string
	// TargetURL, if set, must be an absolute http(s) URL: the report.
	TargetURL string
	// Context names the check; DefaultStatusContext when empty.
	Context string
}

// SetStatus posts s on commit sha of owner/repo. A later status with the
// same context replaces it in GitHub's summary. Invalid input (unknown
// state, malformed SHA, relative target URL) is refused before any request
// with an error matching registry.ErrInvalid.
func (c *Client) SetStatus(ctx context.Context, owner, repo, sha string, s Status) error {
	const op = "create commit status"
	if err := checkRepo(owner, repo); err != nil {
		return opErr(op, err)
	}
	if !shaRE.MatchString(sha) {
		return opErr(op, fmt.Errorf("sha is not a commit SHA: %w", registry.ErrInvalid))
	}
	if !s.State.Valid() {
		return opErr(op, fmt.Errorf("state must be pending, success, failure or error: %w", registry.ErrInvalid))
	}
	if s.TargetURL != "" {
		u, err := url.Parse(s.TargetURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return opErr(op, fmt.Errorf("target URL must be an absolute http(s) URL: %w", registry.ErrInvalid))
		}
	}
	ctxName := s.Context
	if ctxName == "" {
		ctxName = DefaultStatusContext
	}
	if !printable(ctxName) || utf8.RuneCountInString(ctxName) > 255 {
		return opErr(op, fmt.Errorf("context must be printable and at most 255 characters: %w", registry.ErrInvalid))
	}
	st := github.RepoStatus{
		State:       github.Ptr(string(s.State)),
		Description: github.Ptr(ShortenDescription(s.Description)),
		Context:     github.Ptr(ctxName),
	}
	if s.TargetURL != "" {
		st.TargetURL = github.Ptr(s.TargetURL)
	}
	if _, _, err := c.gh.Repositories.CreateStatus(ctx, owner, repo, sha, st); err != nil {
		return c.classify(op, err)
	}
	return nil
}

// ShortenDescription returns d with every character that safetext does not
// let be shown on one line (controls, invalid UTF-8, bidi controls,
// zero-width and other invisible characters) replaced by a space, cut to
// MaxDescriptionRunes runes, the last one "…" when cut. A file name in a
// status description cannot then disguise itself.
func ShortenDescription(d string) string {
	return safetext.TruncateRunes(safetext.Replace(d, 0, ' '), MaxDescriptionRunes)
}

// MaxCommentBytes is GitHub's limit on a comment body (65536 characters;
// bounded here in bytes, which is stricter).
const MaxCommentBytes = 65536

// UpsertComment keeps one comment on issue or pull request number of
// owner/repo: it lists every comment (all pages), edits the first whose
// body contains marker (unless its body is already body), and otherwise
// creates one. marker should be a hidden HTML comment such as
// `<!-- registryd:audit -->`; if body lacks it, it is prepended so that the
// next call finds the comment. It returns the comment's id and whether it
// was created.
//
// Two concurrent calls for the same pull request can both create a
// comment; callers serialize work per pull request.
func (c *Client) UpsertComment(ctx context.Context, owner, repo string, number int, marker, body string) (id int64, created bool, err error) {
	const op = "upsert comment"
	if err := checkRepo(owner, repo); err != nil {
		return 0, false, opErr(op, err)
	}
	if number <= 0 {
		return 0, false, opErr(op, fmt.Errorf("issue number %d: %w", number, registry.ErrInvalid))
	}
	if strings.TrimSpace(marker) == "" {
		return 0, false, opErr(op, fmt.Errorf("marker is empty: %w", registry.ErrInvalid))
	}
	if !strings.Contains(body, marker) {
		body = marker + "\n" + body
	}
	if len(body) > MaxCommentBytes {
		return 0, false, opErr(op, fmt.Errorf("comment body is %d bytes, limit %d: %w", len(body), MaxCommentBytes, registry.ErrTooLarge))
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage, Page: 1}}
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, owner, repo, number, opts)
		if err != nil {
			return 0, false, c.classify(op, err)
		}
		for _, cm := range page {
			if !strings.Contains(cm.GetBody(), marker) {
				continue
			}
			if cm.GetBody() == body {
				return cm.GetID(), false, nil
			}
			if _, _, err := c.gh.Issues.EditComment(ctx, owner, repo, cm.GetID(), &github.IssueComment{Body: github.Ptr(body)}); err != nil {
				return 0, false, c.classify(op, err)
			}
			return cm.GetID(), false, nil
		}
		if resp.NextPage == 0 || resp.NextPage <= opts.Page {
			break
		}
		opts.Page = resp.NextPage
	}
	cm, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: github.Ptr(body)})
	if err != nil {
		return 0, false, c.classify(op, err)
	}
	return cm.GetID(), true, nil
}

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	shaRE  = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
)

func checkRepo(owner, repo string) error {
	for _, n := range []struct{ what, v string }{{"owner", owner}, {"repository", repo}} {
		if n.v == "." || n.v == ".." || !nameRE.MatchString(n.v) {
			return fmt.Errorf("%s is not a GitHub name: %w", n.what, registry.ErrInvalid)
		}
	}
	return nil
}

// validRev accepts a SHA or a ref name without characters git forbids, and
// without "..." (which would split a compare range).
func validRev(s string) bool {
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

// validPath accepts a "/"-separated relative path without empty, "." or
// ".." segments and without control characters.
func validPath(s string) bool {
	if s == "" || len(s) > 4096 || !utf8.ValidString(s) {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for _, r := range s {
		if safetext.Classify(r) == safetext.Control {
			return false
		}
	}
	return true
}

// printable reports whether s may be shown on one line (safetext's rule).
func printable(s string) bool { return safetext.Valid(s, 0) }

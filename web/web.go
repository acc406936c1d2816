// Package web serves registryd's HTML pages: the public registry (search,
// an addon's page with its badge and latest report) and the maintainers'
// pages (the review queue, a submission beside its manifest, approve and
// reject, verification, suppressions, the audit log).
//
// Pages are rendered on the server from templates embedded in the binary and
// use no JavaScript. Manifests are hostile input: html/template escapes every
// field in its context, a Content-Security-Policy forbids scripts, and
// homepage links are followed only for https URLs. Every form is protected
// against cross-site request forgery twice over: net/http's
// CrossOriginProtection refuses cross-origin unsafe requests, and each form
// carries a token bound to the session.
package web

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Reader is the data the pages read.
type Reader interface {
	Addons(ctx context.Context, f storage.AddonFilter, p storage.Page) ([]registry.Addon, string, error)
	CountAddons(ctx context.Context, f storage.AddonFilter, max int) (n int, more bool, err error)
	Addon(ctx context.Context, name string) (registry.Addon, error)
	Versions(ctx context.Context, addon string, p storage.Page) ([]registry.Version, string, error)
	Version(ctx context.Context, addon, version string) (registry.Version, error)
	PublishedReport(ctx context.Context, addon, version string) (registry.Report, error)
	ReviewQueue(ctx context.Context, f storage.SubmissionFilter, p storage.Page) ([]storage.QueueEntry, string, error)
	Submission(ctx context.Context, id string) (registry.Submission, error)
	Report(ctx context.Context, submissionID string) (registry.Report, error)
	Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error)
	VerifyApproval(ctx context.Context, addon string) (registry.VerifyApproval, error)
	AuditLog(ctx context.Context, f storage.AuditFilter, p storage.Page) ([]registry.AuditEntry, string, error)
	AuditChoices(ctx context.Context) (actors, actions []string, err error)
}

// Workflow is the review workflow the maintainers' forms drive.
type Workflow interface {
	Authenticate(ctx context.Context, secret string) (workflow.Actor, error)
	Approve(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	ApproveOverride(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	Reject(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	SetVerified(ctx context.Context, a workflow.Actor, addon string, verified bool, reason string) (workflow.VerifyOutcome, error)
	Suppress(ctx context.Context, a workflow.Actor, addon string, sp registry.Suppression) (registry.Suppression, error)
	Unsuppress(ctx context.Context, a workflow.Actor, addon, suppressionID string) error
}

// Sessions keeps maintainers' browser sessions on the server. Session
// returns an error wrapping registry.ErrNotFound when no live session has
// the hash: never opened, signed out, expired at now, or opened with a token
// that has since been revoked or has expired.
type Sessions interface {
	CreateSession(ctx context.Context, s registry.Session) error
	Session(ctx context.Context, hash []byte, now time.Time) (registry.Session, error)
	DeleteSession(ctx context.Context, hash []byte) error
}

// Deps is what the pages need.
type Deps struct {
	Reader   Reader
	Workflow Workflow
	Sessions Sessions
	Logger   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// PublicURL is registryd's public base URL (https://registry.example),
	// used in the badge snippets people paste elsewhere. When empty the
	// request's own host is used.
	PublicURL string
	// SessionTTL bounds a session's life; 12 hours when zero.
	SessionTTL time.Duration
	// VerifierKeys are the registry's verifier keys (NAME+hash+base64),
	// the signing key's first. The addon page shows them and pins them
	// in its `registryd check` snippet; with none it says that the
	// registry publishes no key.
	VerifierKeys []string
}

// Handler serves the pages. Build it with New.
type Handler struct {
	d     Deps
	pages map[string]*template.Template
	mux   *http.ServeMux
	cop   *http.CrossOriginProtection
}

// New returns the pages' handler. It panics only if the embedded templates
// do not parse, which a test rules out.
func New(d Deps) *Handler {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.SessionTTL <= 0 {
		d.SessionTTL = 12 * time.Hour
	}
	h := &Handler{d: d, pages: mustParsePages(), mux: http.NewServeMux(), cop: http.NewCrossOriginProtection()}
	h.routes()
	return h
}

func (h *Handler) routes() {
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	h.mux.Handle("GET /static/", h.static(static))

	h.mux.Handle("GET /{$}", h.page(h.registry))
	h.mux.Handle("GET /addons/{name}", h.page(h.addon))
	h.mux.Handle("GET /signin", h.page(h.signinForm))
	h.mux.Handle("POST /signin", h.page(h.signin))
	h.mux.Handle("POST /signout", h.page(h.signout))

	h.mux.Handle("GET /review", h.maintainer(h.queue))
	h.mux.Handle("GET /review/submissions/{id}", h.maintainer(h.submission))
	h.mux.Handle("POST /review/submissions/{id}/approve", h.maintainer(h.decide(true)))
	h.mux.Handle("POST /review/submissions/{id}/reject", h.maintainer(h.decide(false)))
	h.mux.Handle("POST /review/addons/{name}/verified", h.maintainer(h.verify))
	h.mux.Handle("POST /review/addons/{name}/suppressions", h.maintainer(h.suppress))
	h.mux.Handle("POST /review/addons/{name}/suppressions/{id}/delete", h.maintainer(h.unsuppress))
	h.mux.Handle("GET /review/audit-log", h.maintainer(h.auditLog))
	h.mux.Handle("/", h.page(func(w http.ResponseWriter, r *http.Request, v *view) error {
		return errNotFoundPage
	}))
}

// ServeHTTP serves a page, with the security headers every page carries.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	if err := h.cop.Check(r); err != nil {
		h.renderError(w, r, &view{}, http.StatusForbidden, "Forbidden", "This form was sent from another site and was refused.")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// static serves the files of fsys under /static/, and nothing else: a
// directory (the prefix itself included) is not found, never a listing.
func (h *Handler) static(fsys fs.FS) http.Handler {
	files := http.StripPrefix("/static/", http.FileServerFS(fsys))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		if fi, err := fs.Stat(fsys, name); err != nil || !fi.Mode().IsRegular() {
			h.fail(w, r, &view{}, errNotFoundPage)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// view is what every template receives.
type view struct {
	Session *registry.Session
	CSRF    string
	Flash   string
	Error   string
	Data    any
}

type pageFunc func(w http.ResponseWriter, r *http.Request, v *view) error

// page adapts a pageFunc: it loads the session (if any), sets up the CSRF
// token, checks it on POST, and renders errors as pages.
func (h *Handler) page(fn pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &view{}
		h.loadSession(w, r, v)
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if err := r.ParseForm(); err != nil {
				var mbe *http.MaxBytesError
				if !errors.As(err, &mbe) {
					err = problem.MalformedBody("", "the form could not be read")
				}
				h.fail(w, r, v, err)
				return
			}
			if !h.validCSRF(r, v) {
				h.renderError(w, r, v, http.StatusForbidden, "Forbidden", "The form expired or did not come from this site. Go back, reload the page and try again.")
				return
			}
		}
		if err := fn(w, r, v); err != nil {
			h.fail(w, r, v, err)
		}
	})
}

// maintainer is page for the maintainers' pages: without a maintainer's
// session it sends the browser to sign in.
func (h *Handler) maintainer(fn pageFunc) http.Handler {
	return h.page(func(w http.ResponseWriter, r *http.Request, v *view) error {
		if v.Session == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/signin", http.StatusSeeOther)
				return nil
			}
			return errSignIn
		}
		if !v.Session.Role.AtLeast(registry.RoleMaintainer) {
			return registry.ErrForbidden
		}
		return fn(w, r, v)
	})
}

var (
	errNotFoundPage = fmt.Errorf("page: %w", registry.ErrNotFound)
	errSignIn       = fmt.Errorf("sign in first: %w", registry.ErrUnauthenticated)
)

// pageWords are the pages' own words for a problem type, shown instead of
// the API's detail: title, then explanation.
var pageWords = map[string][2]string{
	"not-found":       {"Not found", "There is nothing here."},
	"unauthenticated": {"Sign in", "Sign in as a maintainer first."},
	"forbidden":       {"Forbidden", "Your token's role may not do this."},
	"bad-request":     {"Bad request", "The request was not valid."},
	"malformed-body":  {"Bad request", "The form could not be read."},
	"too-large":       {"Too large", "The form is over its size limit."},
	"validation":      {"Not accepted", ""},
	"conflict":        {"Not possible now", ""},
	"internal":        {"Something went wrong", "The page could not be shown. Try again later."},
	"unavailable":     {"Something went wrong", "The page could not be shown. Try again later."},
}

// fail renders the page for err with the status the API gives the same
// error (problem.For), in the pages' own words; a refusal's fields and a
// conflict's explanation come from the problem, already safe to show.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, v *view, err error) {
	if errors.Is(err, context.Canceled) {
		return // the browser went away; nothing to write
	}
	p, hd, internal := problem.For(err)
	if internal {
		h.d.Logger.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "status", p.Status, "err", err)
	}
	title, detail := p.Title, p.Detail
	if words, ok := pageWords[p.Slug()]; ok {
		title, detail = words[0], cmp.Or(words[1], detail)
	}
	if errors.Is(err, registry.ErrOwnSubmission) {
		title, detail = "Four eyes", "You submitted this, with this token or another of yours; another maintainer must approve it."
	}
	if len(p.Errors) > 0 {
		lines := make([]string, len(p.Errors))
		for i, f := range p.Errors {
			lines[i] = registry.FieldError{Path: f.Path, Line: f.Line, Message: f.Message}.String()
		}
		detail = strings.Join(lines, "\n")
	}
	for k, vs := range hd {
		if k != "Www-Authenticate" { // a browser has no bearer token to offer
			w.Header()[k] = vs
		}
	}
	h.renderError(w, r, v, p.Status, title, detail)
}

type errorPage struct {
	Title  string
	Detail string
}

func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, v *view, status int, title, detail string) {
	v.Data = errorPage{Title: title, Detail: detail}
	h.render(w, r, status, "error", v)
}

// render executes a page into a buffer and writes it whole.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	t, ok := h.pages[name]
	if !ok {
		panic("web: no page " + name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		h.d.Logger.ErrorContext(r.Context(), "render page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func mustParsePages() map[string]*template.Template {
	base := template.Must(template.New("layout.html").ParseFS(templateFS, "templates/layout.html"))
	pages := map[string]*template.Template{}
	for _, name := range []string{"registry", "addon", "signin", "queue", "submission", "auditlog", "error"} {
		t := template.Must(base.Clone())
		template.Must(t.ParseFS(templateFS, "templates/report.html", "templates/"+name+".html"))
		pages[name] = t
	}
	return pages
}

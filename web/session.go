package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/registry"
)

const (
	sessionCookie = "registryd_session"
	// csrfCookie carries a random value for visitors without a session, so
	// that the sign-in form is protected too (a double-submit token).
	csrfCookie = "registryd_csrf"
)

func newSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashSecret(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// csrfFor derives a form token from a cookie secret. A page on another site
// can neither read the cookie nor compute the token.
func csrfFor(secret string) string {
	sum := sha256.Sum256([]byte("registryd form token\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// secure reports whether the visitor reached the site over HTTPS: the
// connection says so, or a trusted proxy did (the client the API resolved,
// see package clientip). A forwarding header from anyone else is not
// believed.
func secure(r *http.Request) bool {
	if c, ok := clientip.FromContext(r.Context()); ok {
		return c.Secure
	}
	return r.TLS != nil
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   secure(r),
		SameSite: http.SameSiteStrictMode,
	})
}

// loadSession finds the visitor's session and sets v.Session and v.CSRF. A
// visitor without one gets a CSRF cookie for the sign-in form.
func (h *Handler) loadSession(w http.ResponseWriter, r *http.Request, v *view) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" && len(c.Value) <= 128 {
		s, err := h.d.Sessions.Session(r.Context(), hashSecret(c.Value), h.d.Now())
		switch {
		case err == nil:
			v.Session = &s
			v.CSRF = csrfFor(c.Value)
			return
		case errors.Is(err, registry.ErrNotFound):
			h.setCookie(w, r, sessionCookie, "", -1)
		default:
			h.d.Logger.ErrorContext(r.Context(), "load session", "err", err)
		}
	}
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 43 {
		v.CSRF = csrfFor(c.Value)
		return
	}
	secret := newSecret()
	h.setCookie(w, r, csrfCookie, secret, 0)
	v.CSRF = csrfFor(secret)
	// The form token must match the cookie the browser will send back, so a
	// POST without the cookie fails validCSRF below.
}

func (h *Handler) validCSRF(r *http.Request, v *view) bool {
	got := r.PostFormValue("csrf")
	if got == "" || v.CSRF == "" {
		return false
	}
	// v.CSRF was derived from a cookie the request carried, or from a fresh
	// one this response sets; in the latter case the request had no cookie,
	// so it cannot match what a real form holds... unless the attacker
	// guessed 256 random bits.
	return subtle.ConstantTimeCompare([]byte(got), []byte(v.CSRF)) == 1
}

func (h *Handler) signinForm(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Session != nil {
		http.Redirect(w, r, "/review", http.StatusSeeOther)
		return nil
	}
	h.render(w, r, http.StatusOK, "signin", v)
	return nil
}

func (h *Handler) signin(w http.ResponseWriter, r *http.Request, v *view) error {
	token := r.PostFormValue("token")
	if token == "" || len(token) > 256 {
		v.Error = "Enter an API token."
		h.render(w, r, http.StatusUnprocessableEntity, "signin", v)
		return nil
	}
	actor, err := h.d.Workflow.Authenticate(r.Context(), token)
	if err != nil {
		if errors.Is(err, registry.ErrUnauthenticated) || errors.Is(err, registry.ErrNotFound) {
			v.Error = "That token is not valid."
			h.render(w, r, http.StatusUnauthorized, "signin", v)
			return nil
		}
		return err
	}
	if !actor.Role.AtLeast(registry.RoleMaintainer) {
		v.Error = "Only maintainers sign in here."
		h.render(w, r, http.StatusForbidden, "signin", v)
		return nil
	}
	// A previous session of this browser ends here.
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		_ = h.d.Sessions.DeleteSession(r.Context(), hashSecret(c.Value))
	}
	secret := newSecret()
	now := h.d.Now().UTC()
	s := registry.Session{
		Hash:      hashSecret(secret),
		TokenID:   actor.TokenID,
		Name:      actor.Name,
		Role:      actor.Role,
		CreatedAt: now,
		ExpiresAt: now.Add(h.d.SessionTTL),
	}
	if err := h.d.Sessions.CreateSession(r.Context(), s); err != nil {
		return err
	}
	h.setCookie(w, r, sessionCookie, secret, int(h.d.SessionTTL/time.Second))
	http.Redirect(w, r, "/review", http.StatusSeeOther)
	return nil
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request, v *view) error {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := h.d.Sessions.DeleteSession(r.Context(), hashSecret(c.Value)); err != nil && !errors.Is(err, registry.ErrNotFound) {
			return err
		}
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

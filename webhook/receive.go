package webhook

import (
	"fmt"
	"net/http"
	"regexp"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// deliveryRE accepts GitHub's delivery GUIDs (and nothing that could break
// a log line or a key).
var deliveryRE = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// CheckHeaders refuses, from its headers alone, a request that cannot be a
// delivery, so that its body is never read: an X-Hub-Signature-256 that is
// missing or not `sha256=` and 64 hex digits (ErrSignatureMissing,
// ErrSignatureMalformed), a missing or malformed X-GitHub-Event or
// X-GitHub-Delivery (a 400 *problem.Error wrapping a
// *registry.ValidationError that names each), or a
// contentLength over MaxBodyBytes (ErrBodyTooLarge). contentLength is the
// request's, -1 when unknown.
func CheckHeaders(h http.Header, contentLength int64) error {
	if _, err := signatureBytes(h.Get(SignatureHeader)); err != nil {
		return err
	}
	var fields []registry.FieldError
	if id := h.Get(DeliveryHeader); !deliveryRE.MatchString(id) {
		fields = append(fields, registry.FieldError{Path: DeliveryHeader, Message: missingOr(id, "not a delivery id")})
	}
	if ev := h.Get(EventHeader); !eventNameRE.MatchString(ev) {
		fields = append(fields, registry.FieldError{Path: EventHeader, Message: missingOr(ev, "not a GitHub event name")})
	}
	if len(fields) > 0 {
		return problem.BadParameters(fields...)
	}
	if contentLength > MaxBodyBytes {
		return ErrBodyTooLarge
	}
	return nil
}

// Receive runs the whole intake of one delivery in the required order. It
// refuses what CheckHeaders refuses, and everything when no usable secret
// is configured (ErrNoSecret), before reading a byte of the body; reads the
// body within budget (BodyBudget.Read's errors); checks the signature
// against secrets (Verify's errors) before looking at the body; and parses
// it (Parse's errors). The Event it returns has DeliveryID set; nothing of
// the body is held once it returns. It does not close r.Body.
//
// problem.For maps the errors to answers: registry.ErrUnauthenticated →
// 401, registry.ErrTooLarge → 413, a malformed header or body → 400, a
// refused payload field → 422; the receiver answers ErrBodyTimeout with 408
// and ErrBusy with 503.
func Receive(r *http.Request, secrets [][]byte, budget *BodyBudget) (*Event, error) {
	if !usableSecret(secrets) {
		return nil, ErrNoSecret
	}
	if err := CheckHeaders(r.Header, r.ContentLength); err != nil {
		return nil, err
	}
	body, err := budget.Read(r.Body, r.ContentLength)
	if err != nil {
		return nil, err
	}
	defer body.Release()
	if err := body.Verify(r.Header.Get(SignatureHeader), secrets); err != nil {
		return nil, err
	}
	id := r.Header.Get(DeliveryHeader)
	e, err := Parse(r.Header.Get("Content-Type"), body.Bytes(), r.Header.Get(EventHeader))
	if err != nil {
		return nil, fmt.Errorf("delivery %s: %w", id, err)
	}
	e.DeliveryID = id
	return e, nil
}

package webhook

import (
	"fmt"
	"net/http"
	"regexp"

	"github.com/registryd/registryd/registry"
)

// deliveryRE accepts GitHub's delivery GUIDs (and nothing that could break
// a log line or a key).
var deliveryRE = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// Receive runs the whole intake of one delivery in the required order: it
// reads the body (at most MaxBodyBytes, ErrBodyTooLarge beyond), checks the
// X-Hub-Signature-256 header against secrets (Verify's errors) before
// looking at anything else, requires an X-GitHub-Delivery id, and parses
// (Parse's errors). The Event it returns has DeliveryID set. It does not
// close r.Body.
//
// Map the errors with errors.Is: registry.ErrUnauthenticated → 401,
// registry.ErrTooLarge → 413, registry.ErrInvalid → 400.
func Receive(r *http.Request, secrets [][]byte) (*Event, error) {
	body, err := ReadBody(r.Body)
	if err != nil {
		return nil, err
	}
	if err := Verify(body, r.Header.Get(SignatureHeader), secrets); err != nil {
		return nil, err
	}
	id := r.Header.Get(DeliveryHeader)
	if !deliveryRE.MatchString(id) {
		msg := "not a delivery id"
		if id == "" {
			msg = "missing"
		}
		return nil, &registry.ValidationError{Fields: []registry.FieldError{{Path: DeliveryHeader, Message: msg}}}
	}
	e, err := Parse(r.Header.Get("Content-Type"), body, r.Header.Get(EventHeader))
	if err != nil {
		return nil, fmt.Errorf("delivery %s: %w", id, err)
	}
	e.DeliveryID = id
	return e, nil
}

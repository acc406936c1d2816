// Package webhook receives GitHub webhook deliveries: it checks the
// X-Hub-Signature-256 HMAC over the raw body, decodes the two encodings
// GitHub sends, and reduces a pull_request, push or ping payload to the few
// fields registryd acts on. It also matches manifest paths against globs.
//
// The package does no I/O of its own beyond reading a body it is handed,
// within a BodyBudget that bounds the memory bodies hold at once. It is safe
// for concurrent use.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"

	"github.com/registryd/registryd/registry"
)

// MaxBodyBytes is the largest delivery GitHub sends (25 MiB); payloads
// above it are capped by GitHub and must be refused here.
const MaxBodyBytes = 25 << 20

// SignatureHeader is the header GitHub signs deliveries in.
const SignatureHeader = "X-Hub-Signature-256"

// EventHeader, DeliveryHeader and HookIDHeader are the other headers of a
// delivery: the event name, the delivery GUID and the id of the hook.
const (
	EventHeader    = "X-GitHub-Event"
	DeliveryHeader = "X-GitHub-Delivery"
	HookIDHeader   = "X-GitHub-Hook-ID"
)

const signaturePrefix = "sha256="

// Signature errors. Each wraps registry.ErrUnauthenticated, so the HTTP
// layer maps all of them to 401 while logs can tell them apart with
// errors.Is.
var (
	// ErrSignatureMissing: the delivery carries no X-Hub-Signature-256.
	ErrSignatureMissing = fmt.Errorf("webhook signature missing: %w", registry.ErrUnauthenticated)
	// ErrSignatureMalformed: the header is not `sha256=` followed by 64 hex digits.
	ErrSignatureMalformed = fmt.Errorf("webhook signature malformed: %w", registry.ErrUnauthenticated)
	// ErrSignatureMismatch: the signature matches none of the configured secrets.
	ErrSignatureMismatch = fmt.Errorf("webhook signature does not match: %w", registry.ErrUnauthenticated)
	// ErrNoSecret: no usable (non-empty) secret is configured, so no
	// delivery can be authenticated. Verification fails closed.
	ErrNoSecret = fmt.Errorf("no webhook secret configured: %w", registry.ErrUnauthenticated)
)

// Verify checks sigHeader, the value of X-Hub-Signature-256, against the
// HMAC-SHA256 of body under each of secrets in turn, so that a secret can be
// rotated by configuring the new one next to the old. Empty secrets are
// ignored: an HMAC under an empty key authenticates nothing. Comparison is
// constant-time. It returns nil on the first match, else one of
// ErrNoSecret, ErrSignatureMissing, ErrSignatureMalformed or
// ErrSignatureMismatch (checked in that order). body must be the exact bytes
// received, before any decoding.
func Verify(body []byte, sigHeader string, secrets [][]byte) error {
	return verify(sigHeader, secrets, func(m hash.Hash) { m.Write(body) })
}

// verify is Verify over a body that write feeds to each HMAC.
func verify(sigHeader string, secrets [][]byte, write func(hash.Hash)) error {
	if !usableSecret(secrets) {
		return ErrNoSecret
	}
	want, err := signatureBytes(sigHeader)
	if err != nil {
		return err
	}
	for _, s := range secrets {
		if len(s) == 0 {
			continue
		}
		m := hmac.New(sha256.New, s)
		write(m)
		if hmac.Equal(m.Sum(nil), want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}

// usableSecret reports whether secrets holds a non-empty secret.
func usableSecret(secrets [][]byte) bool {
	for _, s := range secrets {
		if len(s) > 0 {
			return true
		}
	}
	return false
}

// signatureBytes decodes an X-Hub-Signature-256 value: `sha256=` and 64 hex
// digits. It returns ErrSignatureMissing or ErrSignatureMalformed.
func signatureBytes(sigHeader string) ([]byte, error) {
	if sigHeader == "" {
		return nil, ErrSignatureMissing
	}
	hexSig, ok := strings.CutPrefix(sigHeader, signaturePrefix)
	if !ok || len(hexSig) != 2*sha256.Size {
		return nil, ErrSignatureMalformed
	}
	want, err := hex.DecodeString(hexSig)
	if err != nil {
		return nil, ErrSignatureMalformed
	}
	return want, nil
}

// Sign returns the raw HMAC-SHA256 of body under secret. SignatureValue
// formats it for the X-Hub-Signature-256 header.
func Sign(body, secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}

// SignatureValue returns the X-Hub-Signature-256 header value GitHub would
// send for body under secret: `sha256=` and the lower-case hex HMAC.
func SignatureValue(body, secret []byte) string {
	return signaturePrefix + hex.EncodeToString(Sign(body, secret))
}

package transparency

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Algorithm is the only signature algorithm registryd keys use, as GET
// /v1/keys names it.
const Algorithm = "ed25519"

// algEd25519 is the algorithm byte that prefixes an Ed25519 key in the
// signed-note key encoding.
const algEd25519 = 1

// ErrKey is wrapped by every error about a malformed key.
var ErrKey = errors.New("invalid key")

// KeyID returns the identifier of an Ed25519 public key: the lowercase
// hexadecimal SHA-256 of its 32 raw bytes. It is the DSSE keyid of the
// envelopes the key signs and the key_id of GET /v1/keys.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])
}

// VerifierKey is a public key of the registry, parsed from its signed-note
// verifier key text (NAME+hash+base64). It verifies checkpoints (as a
// note.Verifier) and DSSE envelopes (OpenEnvelope).
type VerifierKey struct {
	note.Verifier
	// Text is the verifier key as parsed: NAME+hash+base64.
	Text string
	// Public is the Ed25519 public key.
	Public ed25519.PublicKey
	// ID is KeyID(Public).
	ID string
}

// ParseVerifierKey parses a signed-note verifier key (NAME+hash+base64, as
// `registryd key generate` prints it). Only Ed25519 keys exist. The error
// wraps ErrKey and does not quote the input.
func ParseVerifierKey(vkey string) (VerifierKey, error) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return VerifierKey{}, fmt.Errorf("%w: verifier key: %v", ErrKey, err)
	}
	// note.NewVerifier has checked the form and the hash; what is left is
	// to keep the raw key, which it does not expose.
	// The base64 key may itself contain '+': it is everything after the
	// second one (the name has none and the hash is hexadecimal).
	raw, err := base64.StdEncoding.DecodeString(strings.SplitN(vkey, "+", 3)[2])
	if err != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != algEd25519 {
		return VerifierKey{}, fmt.Errorf("%w: verifier key: not an Ed25519 key", ErrKey)
	}
	pub := ed25519.PublicKey(raw[1:])
	return VerifierKey{Verifier: v, Text: vkey, Public: pub, ID: KeyID(pub)}, nil
}

// Signer is a registry signing key: it signs checkpoints (as a note.Signer)
// and DSSE envelopes (Envelope). It is safe for concurrent use.
type Signer struct {
	note.Signer
	private  ed25519.PrivateKey
	verifier VerifierKey
}

// GenerateKey returns a new Ed25519 key named name, as the signer key text
// (PRIVATE+KEY+NAME+hash+base64, to be kept secret) and the verifier key
// text (NAME+hash+base64, to be published), reading randomness from rand
// (crypto/rand.Reader outside tests). The name is what a checkpoint's
// origin defaults to: a non-empty string with no spaces and no '+'.
func GenerateKey(rand io.Reader, name string) (skey, vkey string, err error) {
	skey, vkey, err = note.GenerateKey(rand, name)
	if err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	// note.GenerateKey does not check the name; a key whose name the
	// parsers refuse would be useless.
	if _, err := ParseSigner(skey); err != nil {
		return "", "", err
	}
	return skey, vkey, nil
}

// ParseSigner parses a signed-note signer key (PRIVATE+KEY+NAME+hash+base64),
// the content of a key file with surrounding white space removed. The error
// wraps ErrKey and never quotes the key.
func ParseSigner(skey string) (*Signer, error) {
	ns, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("%w: signer key: %v", ErrKey, err)
	}
	// note.NewSigner has checked the form and that the hash matches the
	// derived public key; keep the private key, which it does not expose,
	// to sign envelopes with the same key.
	raw, err := base64.StdEncoding.DecodeString(strings.SplitN(skey, "+", 5)[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != algEd25519 {
		return nil, fmt.Errorf("%w: signer key: not an Ed25519 key", ErrKey)
	}
	private := ed25519.NewKeyFromSeed(raw[1:])
	vkey, err := note.NewEd25519VerifierKey(ns.Name(), private.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, fmt.Errorf("%w: signer key: %v", ErrKey, err)
	}
	v, err := ParseVerifierKey(vkey)
	if err != nil {
		return nil, err
	}
	if v.KeyHash() != ns.KeyHash() {
		return nil, fmt.Errorf("%w: signer key: hash does not match the key", ErrKey)
	}
	return &Signer{Signer: ns, private: private, verifier: v}, nil
}

// Verifier returns the public half of the key.
func (s *Signer) Verifier() VerifierKey { return s.verifier }

package transparency

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/registryd/registryd/internal/canonjson"
)

// PayloadType is the DSSE payloadType of a registryd report envelope.
const PayloadType = "application/vnd.registryd.report.v1+json"

// EnvelopeMediaType is the Content-Type of a served envelope.
const EnvelopeMediaType = "application/vnd.dsse.envelope.v1+json"

// ErrEnvelope is wrapped by every error of OpenEnvelope: the envelope is
// malformed, has another payload type, or carries no valid signature by
// one of the given keys.
var ErrEnvelope = errors.New("invalid report envelope")

// SignEnvelope returns the DSSE envelope of a report:
//
//	{"payload":<base64 of report>,"payloadType":PayloadType,"signatures":[{"keyid":<KeyID>,"sig":<base64>}]}
//
// with one signature per signer, in order, each an Ed25519 signature over
// DSSE's PAE(PayloadType, report). The envelope is RFC 8785 canonical JSON,
// so the same report and keys give the same bytes everywhere (Ed25519
// signatures are deterministic).
func SignEnvelope(report []byte, signers ...*Signer) ([]byte, error) {
	ds := make([]dsse.Signer, len(signers))
	for i, s := range signers {
		ds[i] = dsseSigner{s}
	}
	es, err := dsse.NewEnvelopeSigner(ds...)
	if err != nil {
		return nil, fmt.Errorf("sign envelope: %w", err)
	}
	env, err := es.SignPayload(context.Background(), PayloadType, report)
	if err != nil {
		return nil, fmt.Errorf("sign envelope: %w", err)
	}
	return appendEnvelope(nil, env), nil
}

// EnvelopeSignatures signs report as SignEnvelope does and returns the
// envelope's signatures member alone, as SignEnvelope writes it: the RFC
// 8785 JSON array [{"keyid":<KeyID>,"sig":<base64>},…], one signature per
// signer, in order. The rest of the envelope is the report again, so a
// store keeps these bytes and AssembleEnvelope(report, signatures) gives
// back SignEnvelope(report, signers...) byte for byte.
func EnvelopeSignatures(report []byte, signers ...*Signer) ([]byte, error) {
	if len(signers) == 0 {
		return nil, errors.New("sign envelope: no signer")
	}
	pae := dsse.PAE(PayloadType, report)
	sigs := make([]dsse.Signature, len(signers))
	for i, s := range signers {
		sigs[i] = dsse.Signature{KeyID: s.verifier.ID, Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(s.private, pae))}
	}
	return appendSignatures(nil, sigs), nil
}

// AssembleEnvelope returns the canonical envelope of report whose
// signatures member is signatures, the bytes EnvelopeSignatures returned
// for the same report: the envelope SignEnvelope returns for the report and
// the same keys. It checks nothing: signatures that are not of report make
// an envelope that OpenEnvelope refuses.
func AssembleEnvelope(report, signatures []byte) []byte {
	dst := make([]byte, 0, len(`{"payload":"","payloadType":"","signatures":}`)+
		base64.StdEncoding.EncodedLen(len(report))+len(PayloadType)+len(signatures))
	dst = append(dst, `{"payload":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, report)
	dst = append(dst, `","payloadType":`...)
	dst = canonjson.AppendString(dst, PayloadType)
	dst = append(dst, `,"signatures":`...)
	dst = append(dst, signatures...)
	return append(dst, '}')
}

// appendEnvelope appends env's RFC 8785 canonical JSON to dst: the bytes
// encoding/json and then jcs.Transform would give (tests check both on
// many inputs), written directly, since an envelope has one fixed shape.
// Its member names are ASCII, so their RFC 8785 order (by UTF-16 code
// units) is byte order: payload, payloadType, signatures; keyid, sig. The
// signatures come last, so an envelope is its payload and type followed by
// what EnvelopeSignatures returns.
func appendEnvelope(dst []byte, env *dsse.Envelope) []byte {
	n := len(`{"payload":"","payloadType":"","signatures":[]}`) + len(env.Payload) + len(env.PayloadType)
	for _, s := range env.Signatures {
		n += len(`{"keyid":"","sig":""},`) + len(s.KeyID) + len(s.Sig)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, `{"payload":`...)
	dst = canonjson.AppendString(dst, env.Payload)
	dst = append(dst, `,"payloadType":`...)
	dst = canonjson.AppendString(dst, env.PayloadType)
	dst = append(dst, `,"signatures":`...)
	dst = appendSignatures(dst, env.Signatures)
	return append(dst, '}')
}

// appendSignatures appends the RFC 8785 JSON array of sigs to dst; nil is
// null, as encoding/json writes it.
func appendSignatures(dst []byte, sigs []dsse.Signature) []byte {
	if sigs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range sigs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"keyid":`...)
		dst = canonjson.AppendString(dst, s.KeyID)
		dst = append(dst, `,"sig":`...)
		dst = canonjson.AppendString(dst, s.Sig)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// OpenEnvelope verifies a DSSE envelope against the given keys and returns
// its payload (the report bytes) and the ID of the key whose signature
// verified. The envelope must be one JSON object with exactly the fields
// payload, payloadType and signatures, payloadType must be PayloadType, the
// payload standard base64, and at least one signature must verify under one
// of keys. Every error wraps ErrEnvelope and never quotes the input.
func OpenEnvelope(envelope []byte, keys ...VerifierKey) (report []byte, keyID string, err error) {
	var env dsse.Envelope
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, "", fmt.Errorf("%w: not a DSSE envelope: %v", ErrEnvelope, jsonError(err))
	}
	if _, err := dec.Token(); err == nil {
		return nil, "", fmt.Errorf("%w: data after the envelope", ErrEnvelope)
	}
	if env.PayloadType != PayloadType {
		return nil, "", fmt.Errorf("%w: payloadType is not %s", ErrEnvelope, PayloadType)
	}
	if _, err := base64.StdEncoding.DecodeString(env.Payload); err != nil {
		return nil, "", fmt.Errorf("%w: payload is not standard base64", ErrEnvelope)
	}
	if len(keys) == 0 {
		return nil, "", fmt.Errorf("%w: no key to verify it with", ErrEnvelope)
	}
	vs := make([]dsse.Verifier, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k.ID] {
			seen[k.ID] = true
			vs = append(vs, dsseVerifier{k})
		}
	}
	ev, err := dsse.NewEnvelopeVerifier(vs...)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrEnvelope, err)
	}
	accepted, payload, err := ev.VerifyAndDecode(context.Background(), &env)
	if err != nil || len(accepted) == 0 {
		return nil, "", fmt.Errorf("%w: no valid signature by a known key", ErrEnvelope)
	}
	return payload, accepted[0].KeyID, nil
}

// jsonError keeps the position of a JSON error and drops anything that
// could quote the input.
func jsonError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at offset %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("wrong type for field %s", typ.Field)
	default:
		return "not a JSON object with payload, payloadType and signatures"
	}
}

// dsseSigner signs PAE bytes with a Signer's Ed25519 key.
type dsseSigner struct{ s *Signer }

func (d dsseSigner) Sign(_ context.Context, data []byte) ([]byte, error) {
	return ed25519.Sign(d.s.private, data), nil
}

func (d dsseSigner) KeyID() (string, error) { return d.s.verifier.ID, nil }

// dsseVerifier checks PAE signatures with a VerifierKey.
type dsseVerifier struct{ k VerifierKey }

func (d dsseVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(d.k.Public, data, sig) {
		return errors.New("signature does not verify")
	}
	return nil
}

func (d dsseVerifier) KeyID() (string, error)   { return d.k.ID, nil }
func (d dsseVerifier) Public() crypto.PublicKey { return d.k.Public }

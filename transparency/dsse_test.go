package transparency_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/registryd/registryd/transparency"
)

var sampleReport = []byte(`{"addon":{"name":"echo","version":"1.2.3"},"note":"<&> \u2028"}`)

func TestSignEnvelope(t *testing.T) {
	s := testSigner(t, "reg", 3)
	env, err := transparency.SignEnvelope(sampleReport, s)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := jcs.Transform(env)
	if err != nil || !bytes.Equal(canon, env) {
		t.Errorf("envelope is not RFC 8785 canonical JSON:\n%s\n%s", env, canon)
	}
	again, _ := transparency.SignEnvelope(sampleReport, testSigner(t, "reg", 3))
	if !bytes.Equal(again, env) {
		t.Errorf("a second signature with the same key differs:\n%s\n%s", env, again)
	}

	// Check the wire format by hand, independently of OpenEnvelope.
	var got struct {
		Payload     string `json:"payload"`
		PayloadType string `json:"payloadType"`
		Signatures  []struct {
			KeyID string `json:"keyid"`
			Sig   string `json:"sig"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal(env, &got); err != nil {
		t.Fatal(err)
	}
	if got.Payload != base64.StdEncoding.EncodeToString(sampleReport) || got.PayloadType != transparency.PayloadType {
		t.Errorf("payload %q type %q", got.Payload, got.PayloadType)
	}
	if len(got.Signatures) != 1 || got.Signatures[0].KeyID != s.Verifier().ID {
		t.Fatalf("signatures %+v, want one by %s", got.Signatures, s.Verifier().ID)
	}
	sig, _ := base64.StdEncoding.DecodeString(got.Signatures[0].Sig)
	if !ed25519.Verify(s.Verifier().Public, dsse.PAE(transparency.PayloadType, sampleReport), sig) {
		t.Error("the signature is not Ed25519 over PAE(payloadType, report)")
	}

	payload, id, err := transparency.OpenEnvelope(env, s.Verifier())
	if err != nil || !bytes.Equal(payload, sampleReport) || id != s.Verifier().ID {
		t.Errorf("OpenEnvelope = %q, %s, %v", payload, id, err)
	}
}

func TestOpenEnvelopeWithSeveralKeys(t *testing.T) {
	a, b, c := testSigner(t, "a", 4), testSigner(t, "b", 5), testSigner(t, "c", 6)
	env, err := transparency.SignEnvelope(sampleReport, a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, keys := range [][]transparency.VerifierKey{{a.Verifier()}, {b.Verifier()}, {c.Verifier(), b.Verifier()}, {b.Verifier(), b.Verifier()}} {
		if _, id, err := transparency.OpenEnvelope(env, keys...); err != nil {
			t.Errorf("OpenEnvelope with %d keys: %v", len(keys), err)
		} else if id != keys[len(keys)-1].ID && id != keys[0].ID {
			t.Errorf("verified by %s, which is not one of the keys", id)
		}
	}
	if _, _, err := transparency.OpenEnvelope(env, c.Verifier()); !errors.Is(err, transparency.ErrEnvelope) {
		t.Errorf("OpenEnvelope with an unrelated key = %v, want ErrEnvelope", err)
	}
}

func TestOpenEnvelopeRefuses(t *testing.T) {
	s, other := testSigner(t, "reg", 7), testSigner(t, "reg", 8)
	env, err := transparency.SignEnvelope(sampleReport, s)
	if err != nil {
		t.Fatal(err)
	}
	otherEnv, _ := transparency.SignEnvelope(sampleReport, other)
	var e map[string]any
	_ = json.Unmarshal(env, &e)
	edit := func(f func(map[string]any)) string {
		c := map[string]any{}
		b, _ := json.Marshal(e)
		_ = json.Unmarshal(b, &c)
		f(c)
		b, _ = json.Marshal(c)
		return string(b)
	}
	payload := e["payload"].(string)
	flipped := []byte(sampleReport)
	flipped = append([]byte{}, flipped...)
	flipped[3] ^= 1
	cases := map[string]string{
		"empty":           "",
		"not JSON":        "\x1b[31m",
		"array":           "[]",
		"trailing data":   string(env) + "{}",
		"unknown field":   edit(func(m map[string]any) { m["extra"] = "\x1b" }),
		"other type":      edit(func(m map[string]any) { m["payloadType"] = "application/vnd.in-toto+json" }),
		"flipped payload": edit(func(m map[string]any) { m["payload"] = base64.StdEncoding.EncodeToString(flipped) }),
		"url base64":      edit(func(m map[string]any) { m["payload"] = strings.NewReplacer("+", "-", "/", "_").Replace(payload) + "-" }),
		"not base64":      edit(func(m map[string]any) { m["payload"] = "!!" }),
		"no signatures":   edit(func(m map[string]any) { m["signatures"] = []any{} }),
		"bad sig base64":  edit(func(m map[string]any) { m["signatures"].([]any)[0].(map[string]any)["sig"] = "%%" }),
		"other key":       string(otherEnv),
		"signatures null": edit(func(m map[string]any) { m["signatures"] = nil }),
		"number payload":  edit(func(m map[string]any) { m["payload"] = 5 }),
		"keyid of ours":   strings.Replace(string(otherEnv), other.Verifier().ID, s.Verifier().ID, 1),
		"signature of 0s": edit(func(m map[string]any) {
			m["signatures"].([]any)[0].(map[string]any)["sig"] = base64.StdEncoding.EncodeToString(make([]byte, 64))
		}),
		"truncated":        string(env[:len(env)-2]),
		"payload replaced": strings.Replace(string(env), payload, base64.StdEncoding.EncodeToString([]byte(`{}`)), 1),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := transparency.OpenEnvelope([]byte(in), s.Verifier())
			if !errors.Is(err, transparency.ErrEnvelope) {
				t.Fatalf("OpenEnvelope = %v, want ErrEnvelope", err)
			}
			mustNotQuote(t, err, "\x1b")
			mustNotQuote(t, err, "extra")
		})
	}
	if _, _, err := transparency.OpenEnvelope(env); !errors.Is(err, transparency.ErrEnvelope) {
		t.Errorf("OpenEnvelope without keys = %v, want ErrEnvelope", err)
	}
}

package transparency_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/registryd/registryd/transparency"
)

func TestGenerateAndParse(t *testing.T) {
	skey, vkey, err := transparency.GenerateKey(seedReader(1), "registry.example")
	if err != nil {
		t.Fatal(err)
	}
	s, err := transparency.ParseSigner(skey)
	if err != nil {
		t.Fatalf("ParseSigner: %v", err)
	}
	v, err := transparency.ParseVerifierKey(vkey)
	if err != nil {
		t.Fatalf("ParseVerifierKey: %v", err)
	}
	want := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)).Public().(ed25519.PublicKey)
	if !v.Public.Equal(want) {
		t.Errorf("public key %x, want %x", v.Public, want)
	}
	if got := s.Verifier(); got.Text != vkey || got.ID != v.ID || !got.Public.Equal(v.Public) {
		t.Errorf("signer's verifier %+v, want %+v", got, v)
	}
	if v.Name() != "registry.example" || s.Name() != "registry.example" {
		t.Errorf("names %q, %q", v.Name(), s.Name())
	}
	sum := sha256.Sum256(want)
	if v.ID != hex.EncodeToString(sum[:]) {
		t.Errorf("ID %s, want lowercase hex SHA-256 of the raw key", v.ID)
	}
	if transparency.KeyID(want) != v.ID {
		t.Errorf("KeyID disagrees with VerifierKey.ID")
	}
}

// The base64 of a key may contain '+', the separator of the key's fields.
func TestParseKeysWithPlusInBase64(t *testing.T) {
	plus := 0
	for b := range 64 {
		skey, vkey, err := transparency.GenerateKey(seedReader(byte(b)), "k")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(vkey, "+") > 2 {
			plus++
		}
		s, err := transparency.ParseSigner(skey)
		if err != nil {
			t.Fatalf("seed %d: ParseSigner: %v", b, err)
		}
		if v, err := transparency.ParseVerifierKey(vkey); err != nil || v.ID != s.Verifier().ID {
			t.Fatalf("seed %d: ParseVerifierKey = %v, %v", b, v.ID, err)
		}
	}
	if plus == 0 {
		t.Fatal("no seed gave a verifier key with '+' in its base64; the test proves nothing")
	}
}

func TestGenerateKeyRefusesBadNames(t *testing.T) {
	for _, name := range []string{"", "a b", "a+b", "tab\there", "nbsp\u00a0x"} {
		if _, _, err := transparency.GenerateKey(seedReader(1), name); err == nil {
			t.Errorf("GenerateKey(%q) succeeded", name)
		}
	}
}

func TestParseKeysRefuse(t *testing.T) {
	skey, vkey, err := transparency.GenerateKey(seedReader(2), "k")
	if err != nil {
		t.Fatal(err)
	}
	i := len("k+00000000")
	secret := strings.SplitN(skey, "+", 5)[4]
	badV := map[string]string{
		"empty":              "",
		"signer key":         skey,
		"wrong hash":         "k+00000000" + vkey[i:],
		"truncated":          vkey[:len(vkey)-4],
		"unknown algorithm":  "k+f3a48bb8+AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"name with a space":  "a b" + vkey[1:],
		"garbage":            "\x1b[31mred",
		"verifier with junk": vkey + "+x",
	}
	for name, in := range badV {
		t.Run("verifier/"+name, func(t *testing.T) {
			_, err := transparency.ParseVerifierKey(in)
			if !errors.Is(err, transparency.ErrKey) {
				t.Fatalf("ParseVerifierKey = %v, want ErrKey", err)
			}
			mustNotQuote(t, err, secret)
			mustNotQuote(t, err, "\x1b")
		})
	}
	badS := map[string]string{
		"empty":         "",
		"verifier key":  vkey,
		"no prefix":     strings.TrimPrefix(skey, "PRIVATE+KEY+"),
		"wrong hash":    strings.Replace(skey, "+k+", "+k+", 1)[:len("PRIVATE+KEY+k+")] + "00000000" + skey[len("PRIVATE+KEY+k+00000000"):],
		"truncated":     skey[:len(skey)-4],
		"other name":    strings.Replace(skey, "+k+", "+j+", 1),
		"seed too long": skey[:len(skey)-1] + "AAAA",
	}
	for name, in := range badS {
		t.Run("signer/"+name, func(t *testing.T) {
			_, err := transparency.ParseSigner(in)
			if !errors.Is(err, transparency.ErrKey) {
				t.Fatalf("ParseSigner = %v, want ErrKey", err)
			}
			mustNotQuote(t, err, secret)
		})
	}
}

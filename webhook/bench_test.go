package webhook

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v89/github"

	"github.com/registryd/registryd/internal/sharedtest"
)

func benchFixture(b *testing.B, name string) []byte {
	b.Helper()
	return sharedtest.File(b, "fixtures/github-webhooks", name)
}

// BenchmarkVerify measures the HMAC check of a 28 KB pull_request delivery
// against two secrets, the second one matching (rotation).
func BenchmarkVerify(b *testing.B) {
	body := benchFixture(b, "pull_request.synchronize.1.json")
	secret := []byte("webhook-secret")
	sig := SignatureValue(body, secret)
	secrets := [][]byte{[]byte("old"), secret}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := Verify(body, sig, secrets); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	body := benchFixture(b, "pull_request.synchronize.1.json")
	form := formBody(body)
	for _, bc := range []struct {
		name, ct string
		body     []byte
	}{{"json", "application/json", body}, {"form", "application/x-www-form-urlencoded", form}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			for b.Loop() {
				if _, err := Parse(bc.ct, bc.body, "pull_request"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseGoGitHub is the reference: go-github's typed decoding of the
// same payload.
func BenchmarkParseGoGitHub(b *testing.B) {
	body := benchFixture(b, "pull_request.synchronize.1.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := github.ParseWebHook("pull_request", body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReceive is the whole intake of one delivery: read, verify, parse.
func BenchmarkReceive(b *testing.B) {
	body := benchFixture(b, "pull_request.synchronize.1.json")
	secret := []byte("webhook-secret")
	sig := SignatureValue(body, secret)
	budget, err := NewBodyBudget(DefaultBodyBudget)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := httptest.NewRequest("POST", "/v1/webhooks/github", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(EventHeader, "pull_request")
		r.Header.Set(DeliveryHeader, "72d3162e-cc78-11e3-81ab-4c9367dc0958")
		r.Header.Set(SignatureHeader, sig)
		if _, err := Receive(r, [][]byte{secret}, budget); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMatchGlob(b *testing.B) {
	for _, bc := range []struct{ name, pattern, path string }{
		{"default-hit", DefaultManifestGlob, "addons/github/lean-ctx-addon.toml"},
		{"default-miss", DefaultManifestGlob, "src/internal/pkg/very/deep/path/main.go"},
		{"many-stars", "**/a/**/b/**/c/**/lean-ctx-addon.toml", "x/a/y/b/z/c/w/v/u/t/lean-ctx-addon.toml"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				MatchGlob(bc.pattern, bc.path)
			}
		})
	}
}

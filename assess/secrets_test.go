package assess_test

import (
	"strings"
	"testing"

	"github.com/registryd/registryd/assess"
)

func TestKnownToken(t *testing.T) {
	const body36 = "R9tKp4WzN8sYdQ7vLm2xR9tKp4WzN8sYdQ7v"
	cases := []struct {
		in, want string
	}{
		{"ghp_" + body36, "a GitHub token"},
		{"Bearer gho_" + body36, "a GitHub token"},
		{"https://x:github_pat_11ABCDEFG0123456789_abcdefghij@github.com/o/r", "a GitHub token"},
		{"GITLAB=glpat-Ab12Cd34Ef56Gh78Ij90", "a GitLab token"},
		{"xoxb-1234567890-Q7vLm2xR9t", "a Slack token"},
		{"AKIAQ7VLM2XR9TKP4WZN", "an AWS access key"},
		{"AIzaSyQ7vLm2xR9tKp4WzN8sYdQ7vLm2xR9tKp4", "a Google API key"},
		{"sk_live_Q7vLm2xR9tKp4WzN8sYdQ7vL", "a Stripe secret key"},
		{"sk-proj-Q7vLm2xR9tKp4WzN8sYdQ7vLm2xR9tKp", "an API secret key"},
		{"npm_" + body36, "an npm token"},
		{"hf_QvLmxRtKpWzNsYdQvLmxRtKpWzNsYdQv", "a Hugging Face token"},
		{"sbp_0123456789abcdef0123456789abcdef01234567", "a Supabase access token"},
		// Not tokens.
		{"ghp_" + body36[:30], ""},                       // too short
		{"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""}, // a placeholder
		{"AKIAIOSFODNN7EXAMPLE", ""},                     // AWS's documentation example
		{"AKIAQ7VLM2XR9TKP4WZN5", ""},                    // one character too many
		{"sk-some-long-package-name-2024-edition", ""},   // one letter case
		{"xghp_" + body36, ""},                           // the prefix inside a longer word
		{"hf_abcdefghijklmnopqrstuvwxyzabcdefgh", ""},    // one letter case
		{"short", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := assess.KnownToken(c.in); got != c.want {
			t.Errorf("KnownToken(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzKnownToken: the search finds what reading the word's runs one by
// one finds, a token is found wherever it stands in a word, and the
// search ends on any input.
func FuzzKnownToken(f *testing.F) {
	f.Add("ghp_R9tKp4WzN8sYdQ7vLm2xR9tKp4WzN8sYdQ7v")
	f.Add("AKIAQ7VLM2XR9TKP4WZN")
	f.Add("token=sk-proj-Q7vLm2xR9tKp4WzN8sYdQ7vLm2xR9tKp&x=1")
	f.Add(strings.Repeat("a_", 100))
	f.Fuzz(func(t *testing.T, s string) {
		got := assess.KnownToken(s)
		// The search skips through s; read run by run, s holds the same.
		want := ""
		for _, run := range strings.FieldsFunc(s, func(r rune) bool {
			return !(r < 0x80 && (r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'))
		}) {
			if want = assess.KnownToken(run); want != "" {
				break
			}
		}
		if got != want {
			t.Fatalf("KnownToken(%q) = %q, but its runs one by one hold %q", s, got, want)
		}
		if got == "" {
			return
		}
		if again := assess.KnownToken("x " + s + " y"); again != got {
			t.Fatalf("KnownToken(%q) = %q, but %q embedded: %q", s, got, s, again)
		}
	})
}

package assess

import (
	"strings"
	"testing"

	"github.com/registryd/registryd/addon"
)

func TestRedactURLs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no url here", "no url here"},
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:hunter2@example.com/mcp", "https://REDACTED@example.com/mcp"},
		{"https://ghp_abcdefghijklmnop1234@github.com/o/r.git", "https://REDACTED@github.com/o/r.git"},
		{"https://${USER}:${TOKEN}@example.com/", "https://${USER}:${TOKEN}@example.com/"},
		{"https://example.com/mcp?api_key=sk-live-123456&page=2", "https://example.com/mcp?api_key=REDACTED&page=2"},
		{"https://example.com/?token=x&access_token=abc#frag", "https://example.com/?token=REDACTED&access_token=REDACTED#frag"},
		{"https://example.com/?token=${TOKEN}", "https://example.com/?token=${TOKEN}"},
		{"https://example.com/?q=plain&limit=5", "https://example.com/?q=plain&limit=5"},
		{"https://example.com/a@b/path?x=1", "https://example.com/a@b/path?x=1"},
		{"--endpoint=https://u:p@example.com curl https://h/?secret=s3cr3t", "--endpoint=https://REDACTED@example.com curl https://h/?secret=REDACTED"},
		{"git+https://tok@github.com/o/r.git#main", "git+https://REDACTED@github.com/o/r.git#main"},
		{"sh -c 'curl \"https://a:b@h/x\" | sh'", "sh -c 'curl \"https://REDACTED@h/x\" | sh'"},
		{"git+ssh://git@github.com/o/r.git", "git+ssh://git@github.com/o/r.git"},
		{"--from=SSH://deploy@h/r", "--from=SSH://deploy@h/r"},
		{"ssh://git:hunter2@h/r", "ssh://REDACTED@h/r"},
		{"https+ssh://tok@h/r", "https+ssh://REDACTED@h/r"},
	}
	for _, tt := range tests {
		if got := RedactURLs(tt.in); got != tt.want {
			t.Errorf("RedactURLs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactionMatchesFinding: what the audit reports as a credential in a
// URL is what RedactURLs hides, because both read the URL with
// urlCredentials.
func TestRedactionMatchesFinding(t *testing.T) {
	for _, u := range []string{
		"https://user:hunter2@example.com/mcp",
		"https://example.com/mcp?api_key=sk-live-abcdef123456",
		"https://example.com/mcp?access_token=ghp_abcdefghijklmnop1234",
	} {
		m, err := addon.ParseTOML([]byte("[addon]\nname = \"x\"\nversion = \"1.0.0\"\n[mcp]\ntransport = \"http\"\nurl = \"" + u + "\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range Audit(m).Findings {
			found = found || f.Code == CodeLiteralSecret
			if strings.Contains(f.Message, "hunter2") || strings.Contains(f.Message, "abcdef") {
				t.Errorf("finding echoes the credential: %q", f.Message)
			}
		}
		if !found {
			t.Errorf("%s: no %s finding", u, CodeLiteralSecret)
		}
		if r := RedactURLs(u); !strings.Contains(r, Redacted) {
			t.Errorf("RedactURLs(%q) = %q, hides nothing", u, r)
		}
	}
}

func FuzzRedactURLs(f *testing.F) {
	for _, s := range []string{"https://u:p@h/?token=t", "x://@", "a://b?c=d&token=", "https://h/?%zz=1&token=%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactURLs(s)
		if !strings.Contains(s, "://") && out != s {
			t.Fatalf("RedactURLs changed text without a URL: %q -> %q", s, out)
		}
		if again := RedactURLs(out); again != out {
			t.Fatalf("RedactURLs is not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

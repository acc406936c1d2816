package assess

import (
	"bytes"
	"strings"

	"github.com/registryd/registryd/envpolicy"
	"github.com/registryd/registryd/safetext"
)

func echoSafeKey(k string) bool  { return envpolicy.EchoSafe(k) }
func forbiddenKey(k string) bool { return envpolicy.Forbidden(k) }

// keyLabel names an environment key in a message: the key itself when it is
// echo-safe, a neutral phrase otherwise.
func keyLabel(k string) string {
	if echoSafeKey(k) {
		return k
	}
	return "(unprintable name)"
}

// safeText returns s reduced to characters that cannot attack a terminal or
// a page and that hide credentials: URLs redacted (RedactURLs), then
// printable ASCII without quotes, angle brackets, ampersand and backslash,
// at most max bytes (an ellipsis marks a cut). Any other character becomes
// '?'.
func safeText(s string, max int) string {
	out := safetext.ASCII(RedactURLs(s), "<>&\"'`\\", '?')
	if len(out) > max {
		return out[:max] + "..."
	}
	return out
}

// quoted renders a program name for a message.
func quoted(s string) string { return "`" + safeText(s, 40) + "`" }

// tokenSafe reports whether s is an HTTP token (a header name that may be
// echoed).
func tokenSafe(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// secretName reports whether a header, query parameter or env name suggests
// its value is a credential: one of a few names, a name that holds one of
// the words of secretWordAt (token, secret, password …), or one that
// starts with key_ or ends with _key.
func secretName(name string) bool {
	var buf [64]byte
	n := normalName(name, &buf)
	switch string(n) {
	case "authorization", "proxy_authorization", "cookie", "key", "sig", "signature", "auth", "pwd", "pass", "code":
		return true
	}
	for i, c := range n {
		if secretStarts[c] && secretWordAt(n, i) {
			return true
		}
	}
	return bytes.HasSuffix(n, []byte("_key")) || bytes.HasPrefix(n, []byte("key_"))
}

// secretWordAt reports whether one of the words that mark a credential's
// name starts at n[i]: token, secret, password, passwd, api_key, apikey,
// access_key, private_key, credential, session, bearer. One look at n[i]
// leaves at most three words to compare.
func secretWordAt(n []byte, i int) bool {
	switch n[i] {
	case 't':
		return wordAt(n, i, "token")
	case 's':
		return wordAt(n, i, "secret") || wordAt(n, i, "session")
	case 'p':
		return wordAt(n, i, "password") || wordAt(n, i, "passwd") || wordAt(n, i, "private_key")
	case 'a':
		return wordAt(n, i, "api_key") || wordAt(n, i, "apikey") || wordAt(n, i, "access_key")
	case 'c':
		return wordAt(n, i, "credential")
	case 'b':
		return wordAt(n, i, "bearer")
	}
	return false
}

// secretStarts holds the first letters of secretWordAt's words.
var secretStarts = [256]bool{'t': true, 's': true, 'p': true, 'a': true, 'c': true, 'b': true}

// wordAt reports whether w starts at n[i].
func wordAt(n []byte, i int, w string) bool { return len(n)-i >= len(w) && string(n[i:i+len(w)]) == w }

// normalName lower-cases a name and writes '-' and '.' as '_'. A short
// ASCII name is written into buf, so that no memory is allocated.
func normalName(name string, buf *[64]byte) []byte {
	if len(name) > len(buf) {
		return []byte(strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(name)))
	}
	n := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 0x80:
			return []byte(strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(name)))
		case 'A' <= c && c <= 'Z':
			n[i] = c + 'a' - 'A'
		case c == '-' || c == '.':
			n[i] = '_'
		default:
			n[i] = c
		}
	}
	return n
}

// placeholder reports whether v is a template the user or host fills in
// (${VAR}, $VAR, {{x}}, <x>, %VAR%) rather than a literal value.
func placeholder(v string) bool {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return true
	case strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.Contains(v, tmplMark):
		return true
	case strings.HasPrefix(v, "$") && len(v) > 1:
		return true
	case strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">"):
		return true
	case len(v) > 2 && strings.HasPrefix(v, "%") && strings.HasSuffix(v, "%"):
		return true
	}
	return false
}

// minSecretLen is the shortest value taken for a real credential; shorter
// values are examples ("x", "changeme").
const minSecretLen = 12

// exampleMarkers are what documentation puts where a credential goes.
var exampleMarkers = []string{"your", "here", "xxxx", "example", "changeme", "change_me", "replace", "placeholder",
	"dummy", "sample", "insert", "redacted", "<", ">", "{", "}", "$", "***", "...", "…"}

// literalSecret reports whether v, the value of a credential-bearing field,
// is a literal credential: after an optional scheme word (Bearer, Basic,
// Token) at least minSecretLen characters without blanks, with letters and
// digits, and neither a placeholder, a documentation example
// (YOUR_API_KEY, your-token-here), a file path nor a URL.
func literalSecret(v string) bool {
	v = strings.TrimSpace(v)
	if placeholder(v) {
		return false
	}
	if i := strings.IndexByte(v, ' '); i > 0 {
		switch strings.ToLower(v[:i]) {
		case "bearer", "basic", "token", "digest", "apikey", "api-key":
			v = strings.TrimSpace(v[i+1:])
		}
	}
	if placeholder(v) || strings.ContainsAny(v, " \t") || len(v) < minSecretLen {
		return false
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") || strings.Contains(v, "://") ||
		(len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/')) {
		return false
	}
	lv := strings.ToLower(v)
	for _, m := range exampleMarkers {
		if strings.Contains(lv, m) {
			return false
		}
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		letter = letter || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit = digit || '0' <= c && c <= '9'
	}
	return letter && digit
}

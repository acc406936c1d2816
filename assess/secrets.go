package assess

import "strings"

// Literal credentials outside the fields named for them: a value of a
// well-known token format anywhere in the wiring (an argument, a word of
// a script, any environment value, the endpoint URL), and the value of a
// program option whose name says it carries one (--api-key VALUE,
// --token=VALUE). Headers, secret-named environment variables and URL
// credentials are judged where those fields are read; a path with one
// literal_secret finding gets no second.

// tokenFormat is a credential format that its issuer marks with a fixed
// prefix, so that a value of it is recognised whatever field holds it.
type tokenFormat struct {
	prefix string
	what   string // what a message calls a value of it
	min    int    // the fewest characters after the prefix
	max    int    // the most; 0 for no bound
	// mixedCase: the characters after the prefix must hold upper- and
	// lower-case letters (formats whose body may have no digit, or whose
	// prefix is also an ordinary word's).
	mixedCase bool
}

// tokenFormats are the prefixes their issuers document for their
// credentials. Ordered so that a longer prefix comes before a prefix of
// it.
var tokenFormats = []tokenFormat{
	{prefix: "github_pat_", what: "a GitHub token", min: 22},
	{prefix: "ghp_", what: "a GitHub token", min: 36},
	{prefix: "gho_", what: "a GitHub token", min: 36},
	{prefix: "ghu_", what: "a GitHub token", min: 36},
	{prefix: "ghs_", what: "a GitHub token", min: 36},
	{prefix: "ghr_", what: "a GitHub token", min: 36},
	{prefix: "glpat-", what: "a GitLab token", min: 20},
	{prefix: "xoxb-", what: "a Slack token", min: 10},
	{prefix: "xoxp-", what: "a Slack token", min: 10},
	{prefix: "xoxa-", what: "a Slack token", min: 10},
	{prefix: "xoxr-", what: "a Slack token", min: 10},
	{prefix: "xoxs-", what: "a Slack token", min: 10},
	{prefix: "AKIA", what: "an AWS access key", min: 16, max: 16},
	{prefix: "ASIA", what: "an AWS access key", min: 16, max: 16},
	{prefix: "AIza", what: "a Google API key", min: 35, max: 35},
	{prefix: "sk_live_", what: "a Stripe secret key", min: 24},
	{prefix: "sk_test_", what: "a Stripe secret key", min: 24},
	{prefix: "rk_live_", what: "a Stripe secret key", min: 24},
	{prefix: "rk_test_", what: "a Stripe secret key", min: 24},
	{prefix: "sk-", what: "an API secret key", min: 32, mixedCase: true},
	{prefix: "npm_", what: "an npm token", min: 36, max: 36},
	{prefix: "hf_", what: "a Hugging Face token", min: 30, mixedCase: true},
	{prefix: "pypi-AgEIcHlwaS5vcmc", what: "a PyPI token", min: 20},
	{prefix: "lin_api_", what: "a Linear API key", min: 32},
	{prefix: "ntn_", what: "a Notion token", min: 32},
	{prefix: "shpat_", what: "a Shopify token", min: 32},
	{prefix: "dop_v1_", what: "a DigitalOcean token", min: 64},
	{prefix: "PMAK-", what: "a Postman API key", min: 32},
	{prefix: "sbp_", what: "a Supabase access token", min: 40},
	{prefix: "secret_", what: "a Notion token", min: 43, max: 43, mixedCase: true},
	{prefix: "figd_", what: "a Figma token", min: 32},
	{prefix: "ATATT3", what: "an Atlassian API token", min: 60},
	{prefix: "glsa_", what: "a Grafana service account token", min: 32},
	{prefix: "glc_", what: "a Grafana Cloud token", min: 32, mixedCase: true},
	{prefix: "xapp-", what: "a Slack token", min: 20},
	{prefix: "shpss_", what: "a Shopify token", min: 32},
	{prefix: "shpca_", what: "a Shopify token", min: 32},
	{prefix: "shppa_", what: "a Shopify token", min: 32},
	{prefix: "pul-", what: "a Pulumi token", min: 40, max: 40},
	{prefix: "sntryu_", what: "a Sentry token", min: 64},
	{prefix: "dapi", what: "a Databricks token", min: 32, max: 36},
	{prefix: "tskey-", what: "a Tailscale key", min: 30},
	{prefix: "AGE-SECRET-KEY-1", what: "an age secret key", min: 58},
}

// minTokenRun is the length of the shortest value of any tokenFormat: a
// shorter word holds none, and is not read further.
const minTokenRun = 20

// knownToken returns what a value of a tokenFormat that s holds is called,
// or "". s is read as runs of letters, digits, '_' and '-' (a token is
// one run, wherever it stands: after "Bearer ", in KEY=…, in a URL); a run
// is a token when it starts with a format's prefix and the rest is as
// long as that format's, holds a letter and a digit (or both letter cases
// where the format says so), and is not a documentation example.
func knownToken(s string) string {
	// i starts a run (s[i-1], if any, is not a token byte). A run as long
	// as a token needs its first minTokenRun bytes to be token bytes: the
	// last of them is looked at first, and where one is not, the search
	// goes on past it, so that a word of short runs (a path, most URLs)
	// is read a byte in every few.
	for i := 0; i+minTokenRun <= len(s); {
		k := i + minTokenRun - 1
		for k >= i && tokenBytes[s[k]] {
			k--
		}
		if k >= i {
			i = k + 1
			continue
		}
		end := i + minTokenRun
		for end < len(s) && tokenBytes[s[end]] {
			end++
		}
		if tokenStarts[s[i]] {
			if what := tokenRun(s[i:end]); what != "" {
				return what
			}
		}
		i = end + 1
	}
	return ""
}

// tokenBytes holds the bytes a token is made of; tokenStarts those a
// tokenFormat's prefix starts with.
var tokenBytes, tokenStarts = func() (bytes, starts [256]bool) {
	for c := range 256 {
		bytes[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
	}
	for _, f := range tokenFormats {
		starts[f.prefix[0]] = true
	}
	return bytes, starts
}()

// tokenRun judges one run of knownToken.
func tokenRun(run string) string {
	for _, f := range tokenFormats {
		if !strings.HasPrefix(run, f.prefix) {
			continue
		}
		body := run[len(f.prefix):]
		if len(body) < f.min || f.max > 0 && len(body) > f.max {
			return ""
		}
		var upper, lowerCase, digit bool
		for i := 0; i < len(body); i++ {
			switch c := body[i]; {
			case 'A' <= c && c <= 'Z':
				upper = true
			case 'a' <= c && c <= 'z':
				lowerCase = true
			case '0' <= c && c <= '9':
				digit = true
			}
		}
		if f.mixedCase && !(upper && lowerCase) || !f.mixedCase && !(digit && (upper || lowerCase)) {
			return ""
		}
		lr := strings.ToLower(run)
		for _, m := range exampleMarkers {
			if strings.Contains(lr, m) {
				return ""
			}
		}
		return f.what
	}
	return ""
}

// reportedSecret reports whether path already has a literal_secret
// finding.
func (a *auditor) reportedSecret(path string) bool {
	for _, f := range a.findings {
		if f.Code == CodeLiteralSecret && f.Path == path {
			return true
		}
	}
	return false
}

// tokenWord reports a value that holds one of a well-known credential
// format (knownToken's, or structuredSecret's), unless its path was
// already reported as a literal credential.
func (a *auditor) tokenWord(v, path string) {
	what := knownToken(v)
	if what == "" {
		what = structuredSecret(v)
	}
	if what == "" || a.reportedSecret(path) {
		return
	}
	label := "this argument"
	switch {
	case strings.HasPrefix(path, "mcp.env"):
		label = "this environment value"
	case strings.HasPrefix(path, "mcp.headers"):
		label = "this request header"
	case path == "mcp.url":
		label = "the endpoint URL"
	}
	a.add(CodeLiteralSecret, path, label+" holds what has the form of "+what+", a literal credential")
}

// argSecrets judges every word of a command line as it is written, for
// what no reader of one program sees: a credential in a word of a script
// or in a wrapper's option (docker run -e NAME=…, env NAME=…).
func (a *auditor) argSecrets(argv []arg) {
	a.optionSecrets(argv)
	for _, w := range argv {
		if w.lit {
			a.tokenWord(w.text, w.path)
		}
	}
}

// optionSecrets reports a literal credential given as the value of a
// program option whose name says it carries one (--api-key VALUE,
// --token=VALUE, --password VALUE), or assigned in a word to a variable
// whose name says so (API_KEY=VALUE, as env and docker run -e take it).
// An option that names where the credential is (--token-file,
// --password-env, --api-key-id) is not one.
func (a *auditor) optionSecrets(args []arg) {
	for i, w := range args {
		if !w.lit {
			continue
		}
		if !strings.HasPrefix(w.text, "--") {
			a.assignSecret(w)
			continue
		}
		name, value, inline := strings.Cut(w.text[2:], "=")
		at := w
		if !inline {
			if i+1 >= len(args) || !args[i+1].lit || strings.HasPrefix(args[i+1].text, "-") {
				continue
			}
			at, value = args[i+1], args[i+1].text
		}
		if !mayBeSecret(value) || !secretOption(name) || !literalSecret(value) || a.reportedSecret(at.path) {
			continue
		}
		a.add(CodeLiteralSecret, at.path, "the option --"+safeText(name, 40)+" is given a literal credential")
	}
}

// assignSecret reports a word NAME=VALUE (or an option's value that is
// one: -e=NAME=VALUE) whose variable's name says it holds a credential
// and whose value is a literal one.
func (a *auditor) assignSecret(w arg) {
	t := w.text
	if strings.HasPrefix(t, "-") {
		i := strings.IndexByte(t, '=')
		if i < 0 {
			return
		}
		t = t[i+1:]
	}
	name, value, ok := strings.Cut(t, "=")
	if !ok || !mayBeSecret(value) || !echoSafeKey(name) || !secretName(name) || !literalSecret(value) ||
		a.reportedSecret(w.path) {
		return
	}
	a.add(CodeLiteralSecret, w.path, "the variable "+name+" set in this argument holds a literal credential")
}

// mayBeSecret is what costs little of literalSecret's tests: long enough,
// and not a path, a variable or a URL. Most values that reach
// optionSecrets fail it.
func mayBeSecret(v string) bool {
	if len(v) < minSecretLen {
		return false
	}
	switch v[0] {
	case '/', '.', '~', '$', '<', '{', '%', '\\':
		return false
	}
	return !strings.Contains(v, "://")
}

// secretOption reports whether a program option's name (without its
// dashes) says its value is a credential.
func secretOption(name string) bool {
	if name == "" || len(name) > 64 || !secretName(name) {
		return false
	}
	var buf [64]byte
	n := string(normalName(name, &buf))
	last := n[strings.LastIndexByte(n, '_')+1:]
	return !notSecretOptionWords[last]
}

// notSecretOptionWords end the names of options that say where a
// credential is, or something about it, rather than carry it.
var notSecretOptionWords = set("file", "path", "dir", "env", "var", "name", "url", "uri", "cmd", "command",
	"helper", "id", "stdin", "type", "ttl", "timeout", "length", "size", "header", "prefix", "store", "storage",
	"mode", "method", "source", "provider", "format", "location", "endpoint", "host", "port", "field", "label",
	"kind", "version", "expiry", "expires", "lifetime", "scope", "scopes")

// structuredSecret returns what a credential that s holds is called, for
// the formats that are not one run of token bytes: a private key in PEM
// form, a Slack or Discord webhook URL (whoever has one posts as the
// integration), an Azure connection string's account or shared access
// key, a Telegram bot token (digits, a colon, 35 characters); "" for
// none, and for a documentation example.
func structuredSecret(s string) string {
	if len(s) < 30 {
		return ""
	}
	what := ""
	switch {
	case strings.Contains(s, "PRIVATE KEY") && strings.Contains(s, "-----BEGIN"):
		what = "a private key"
	case strings.Contains(s, "hooks.slack.com/services/") && slackWebhook(s):
		what = "a Slack webhook URL"
	case strings.Contains(s, "/api/webhooks/") && discordWebhook(s):
		what = "a Discord webhook URL"
	case keyAfter(s, "AccountKey=") || keyAfter(s, "SharedAccessKey="):
		what = "an Azure access key"
	case telegramToken(s):
		what = "a Telegram bot token"
	default:
		return ""
	}
	l := strings.ToLower(s)
	for _, m := range exampleMarkers {
		if strings.Contains(l, m) && m != "<" && m != ">" {
			return ""
		}
	}
	return what
}

// slackWebhook reports whether s holds a Slack incoming webhook's URL:
// services/T…/B…/ and a secret of 24 letters and digits.
func slackWebhook(s string) bool {
	_, rest, _ := strings.Cut(s, "hooks.slack.com/services/")
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 || len(parts[0]) < 9 || parts[0][0] != 'T' || len(parts[1]) < 9 || parts[1][0] != 'B' {
		return false
	}
	return alnumRun(parts[2]) >= 24
}

// discordWebhook reports whether s holds a Discord webhook's URL:
// /api/webhooks/ID/TOKEN, the ID 17 to 20 digits, the token 60 or more
// token bytes.
func discordWebhook(s string) bool {
	_, rest, _ := strings.Cut(s, "/api/webhooks/")
	id, token, ok := strings.Cut(rest, "/")
	if !ok || len(id) < 17 || len(id) > 20 || strings.Trim(id, "0123456789") != "" {
		return false
	}
	n := 0
	for n < len(token) && tokenBytes[token[n]] {
		n++
	}
	return n >= 60
}

// keyAfter reports whether s holds name followed by a base64 key of 40
// characters or more (AccountKey=…; in a connection string).
func keyAfter(s, name string) bool {
	_, rest, ok := strings.Cut(s, name)
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && (tokenBytes[rest[n]] || rest[n] == '+' || rest[n] == '/' || rest[n] == '=') {
		n++
	}
	return n >= 40
}

// telegramToken reports whether s holds a Telegram bot token: 8 to 10
// digits, a colon and 35 token bytes with both letter cases, standing
// alone (no digit before it, no token byte after it).
func telegramToken(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0; {
		d := i
		for d > 0 && '0' <= s[d-1] && s[d-1] <= '9' {
			d--
		}
		if digits := i - d; digits >= 8 && digits <= 10 && i+36 <= len(s) && (i+36 == len(s) || !tokenBytes[s[i+36]]) {
			body := s[i+1 : i+36]
			if tokenRunOf(body) && strings.ContainsAny(body, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
				strings.ContainsAny(body, "abcdefghijklmnopqrstuvwxyz") {
				return true
			}
		}
		j := strings.IndexByte(s[i+1:], ':')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// alnumRun is the number of letters and digits s starts with.
func alnumRun(s string) int {
	n := 0
	for n < len(s) && tokenBytes[s[n]] && s[n] != '_' && s[n] != '-' {
		n++
	}
	return n
}

// tokenRunOf reports whether every byte of s is a token byte.
func tokenRunOf(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenBytes[s[i]] {
			return false
		}
	}
	return true
}

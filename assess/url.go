package assess

import (
	"net/netip"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// parseEndpoint parses an MCP endpoint URL: scheme http, https, ws or wss
// (in any case) and a host. Surrounding blanks are ignored, as lean-ctx does.
func parseEndpoint(raw string) (*url.URL, bool) {
	u, err := url.Parse(untemplate(strings.TrimSpace(raw)))
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return nil, false
	}
	switch u.Scheme { // url.Parse lowers the scheme
	case "http", "https", "ws", "wss":
		return u, true
	}
	return nil, false
}

// secureScheme reports whether scheme encrypts the traffic.
func secureScheme(scheme string) bool { return scheme == "https" || scheme == "wss" }

// tmplMark stands in for a template placeholder (${VAR}, {{x}}) so that a
// templated URL parses; placeholder treats it as a placeholder.
const tmplMark = "tmplvar0"

// untemplate replaces template placeholders with tmplMark: each ${…} and
// {{…}} with no brace inside, leftmost first, as the regular expression
// `\$\{[^{}]*\}|\{\{[^{}]*\}\}` replaces them (the tests hold it to
// that), without the regexp package's allocations.
func untemplate(s string) string {
	if !strings.Contains(s, "${") && !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i+1 < len(s); {
		var end int // the end of a placeholder at i, or 0
		switch {
		case s[i] == '$' && s[i+1] == '{':
			if j := strings.IndexAny(s[i+2:], "{}"); j >= 0 && s[i+2+j] == '}' {
				end = i + 2 + j + 1
			}
		case s[i] == '{' && s[i+1] == '{':
			if j := strings.IndexAny(s[i+2:], "{}"); j >= 0 && s[i+2+j] == '}' && i+3+j < len(s) && s[i+3+j] == '}' {
				end = i + 2 + j + 2
			}
		}
		if end == 0 {
			i++
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(tmplMark)
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// loopbackHost reports whether host (no port) names this machine:
// localhost (and *.localhost, RFC 6761), 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	// The unspecified address (0.0.0.0, ::) as a destination reaches this
	// host.
	return ip.Unmap().IsLoopback() || ip.IsUnspecified()
}

// endpoint judges an HTTP transport: where the context goes, whether it is
// encrypted, and what credentials the URL and headers carry.
func (a *auditor) endpoint() {
	m := a.m
	a.inferred.Network = true
	path := "mcp.url"
	if m.MCP.URL == "" {
		path = "mcp"
	}
	u, ok := parseEndpoint(m.MCP.URL)
	switch {
	case !ok:
		a.add(CodeRemoteEndpoint, path, "the HTTP transport sends your context to an endpoint whose host cannot be read")
		a.add(CodeInsecureURL, path, "the endpoint is not a valid https:// URL with a host")
	case loopbackHost(u.Hostname()):
		// Plain http to loopback never leaves the machine: anything able to
		// read it can already read the user's files.
		a.add(CodeLoopbackEndpoint, path, "the endpoint "+safeText(u.Host, 80)+" is on this machine")
	default:
		a.add(CodeRemoteEndpoint, path, "the HTTP transport sends your context to the remote host "+safeText(u.Host, 80))
		for _, label := range strings.Split(u.Hostname(), ".") {
			if _, mixed := mixedScript(label); mixed {
				a.lookalike(arg{text: u.Hostname(), path: path, lit: true}, "host name")
				break
			}
		}
		if !secureScheme(u.Scheme) {
			a.add(CodeInsecureURL, path, "the endpoint uses plain http, so traffic and credentials travel unencrypted")
		}
	}
	if ok {
		a.urlSecrets(untemplate(strings.TrimSpace(m.MCP.URL)), path)
	}
	a.tokenWord(m.MCP.URL, path)
	a.headers()
}

// urlSecrets reports credentials written into raw, a URL, without echoing
// them: its user information, and the query parameters whose credential
// (see urlCredentials) is a literal secret.
func (a *auditor) urlSecrets(raw, path string) {
	var names []string
	seen := map[string]bool{}
	for _, c := range urlCredentials(raw) {
		switch {
		case c.param == "":
			a.add(CodeLiteralSecret, path, "the URL embeds credentials (user information before the host)")
		case literalSecret(c.value) && !seen[c.param]:
			seen[c.param] = true
			names = append(names, c.param)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		label := "a query parameter"
		if tokenSafe(k) {
			label = "the query parameter " + k
		}
		a.add(CodeLiteralSecret, path, "the URL carries a literal credential in "+label)
	}
}

// credential is a credential written into a URL: the user information
// (param "") or the value of a query parameter, and where it is in the URL.
type credential struct {
	param      string // the query parameter's name, decoded; "" for user information
	value      string // the query value, decoded
	start, end int    // the bytes of the URL it occupies
}

// urlCredentials finds the credentials written into raw, an absolute URL:
// its user information (user:password@, token@) unless it is a
// placeholder the host fills in or, in an ssh URL (ssh://git@host/…,
// git+ssh://…), a user name alone, which names the account to log in to
// and leaves the key to prove it; and the value of every query parameter
// whose name suggests a credential (secretName) unless it is empty or a
// placeholder. It is the one reading of a URL behind both the literal_secret
// finding and RedactURLs.
func urlCredentials(raw string) []credential {
	i := strings.Index(raw, "://")
	if i < 0 {
		return nil
	}
	rest := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[rest:], "/?#"); j >= 0 {
		end = rest + j
	}
	var out []credential
	if at := strings.LastIndexByte(raw[rest:end], '@'); at >= 0 {
		user, pass, hasPass := strings.Cut(raw[rest:rest+at], ":")
		user, pass = urlUnescape(user), urlUnescape(pass)
		login := !hasPass && sshScheme(raw[:i])
		if !login && !placeholder(user) || hasPass && pass != "" && !placeholder(pass) {
			out = append(out, credential{start: rest, end: rest + at})
		}
	}
	q := strings.IndexByte(raw[end:], '?')
	if q < 0 {
		return out
	}
	pos := end + q + 1
	query := raw[pos:]
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query = query[:h]
	}
	for _, part := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(part, "=")
		if name, val := urlUnescape(k), urlUnescape(v); ok && secretName(name) && !placeholder(val) {
			start := pos + len(k) + 1
			out = append(out, credential{param: name, value: val, start: start, end: start + len(v)})
		}
		pos += len(part) + 1
	}
	return out
}

// sshScheme reports whether the URL scheme at the end of before is ssh's
// (ssh, git+ssh, ssh+git, sftp), compared without case; before is what
// comes before "://", which may start with other text.
func sshScheme(before string) bool {
	i := len(before)
	for i > 0 && (isLetter(before[i-1]) || isDigit(before[i-1]) || strings.IndexByte("+.-", before[i-1]) >= 0) {
		i--
	}
	switch strings.ToLower(before[i:]) {
	case "ssh", "git+ssh", "ssh+git", "sftp":
		return true
	}
	return false
}

// urlUnescape decodes a URL component, or returns it as written when it is not
// valid percent-encoding.
func urlUnescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// Redacted stands where RedactURLs removed a credential.
const Redacted = "REDACTED"

// urlInText finds URLs in text: a scheme, "://", and everything up to a
// blank, a quote or an angle bracket.
var urlInText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'`<>]+")

// RedactURLs returns s with the credentials written into every URL in it
// replaced by Redacted: the user information before the host and the value
// of every query parameter whose name suggests a credential (token, key,
// secret, password, …), as the audit's literal_secret finding reads them.
// A placeholder the host fills in (${TOKEN}) is not a credential and stays.
// Text with no such URL is returned as it is. It is safe for concurrent
// use.
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(u string) string {
		cs := urlCredentials(u)
		if len(cs) == 0 {
			return u
		}
		var b strings.Builder
		last := 0
		for _, c := range cs {
			b.WriteString(u[last:c.start])
			b.WriteString(Redacted)
			last = c.end
		}
		b.WriteString(u[last:])
		return b.String()
	})
}

// headers judges [mcp.headers]: disclosure of the names, and literal
// credentials in the values.
func (a *auditor) headers() {
	h := a.m.MCP.Headers
	if len(h) == 0 {
		return
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var shown []string
	for _, k := range names {
		if tokenSafe(k) {
			shown = append(shown, k)
		}
	}
	msg := "sends " + plural(len(names), "request header") + ", which may carry credentials"
	if len(shown) > 0 {
		msg += ": " + strings.Join(shown, ", ")
	}
	a.add(CodeRequestHeaders, "mcp.headers", msg)
	for _, k := range names {
		v := h[k]
		lv := strings.ToLower(strings.TrimSpace(v))
		schemed := strings.HasPrefix(lv, "bearer ") || strings.HasPrefix(lv, "basic ") || strings.HasPrefix(lv, "token ")
		if (secretName(k) || schemed) && literalSecret(v) {
			path, label := "mcp.headers", "a request header"
			if tokenSafe(k) {
				path, label = "mcp.headers."+k, "the request header "+k
			}
			a.add(CodeLiteralSecret, path, label+" holds a literal credential")
		}
		path := "mcp.headers"
		if tokenSafe(k) {
			path += "." + k
		}
		a.tokenWord(v, path)
	}
}

// sha256Hex matches a sha256 digest written in hexadecimal.
var sha256Hex = regexp.MustCompile(`^(sha256:)?[0-9a-fA-F]{64}$`)

// artifacts judges [artifacts.<target-triple>]: every download URL like
// any other (https, no credentials in it), each artifact pinned by a
// sha256. Artifacts are downloaded at install time, over the network.
func (a *auditor) artifacts() {
	triples := make([]string, 0, len(a.m.Artifacts))
	for t := range a.m.Artifacts {
		triples = append(triples, t)
	}
	sort.Strings(triples)
	for _, t := range triples {
		art := a.m.Artifacts[t]
		p := "artifacts." + t
		if !a.m.HasPath(p) {
			p = "artifacts" // a triple that may not be printed
		}
		label := "the artifact " + quoted(t)
		if strings.TrimSpace(art.URL) != "" {
			a.inferred.Network = true
			up := p + ".url"
			if !a.m.HasPath(up) {
				up = p
			}
			u, ok := parseAnyURL(untemplate(strings.TrimSpace(art.URL)))
			switch {
			case !ok:
				a.add(CodeInsecureURL, up, label+" is not downloaded from a valid https:// URL with a host")
			case u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost(u.Hostname())):
				a.add(CodeInsecureURL, up, label+" is downloaded over "+safeText(u.Scheme, 16)+", not https, so anyone on the way can replace it")
			}
			if ok {
				a.urlSecrets(untemplate(strings.TrimSpace(art.URL)), up)
			}
		}
		switch {
		case strings.TrimSpace(art.SHA256) == "":
			a.add(CodeUnpinned, p, label+" has no sha256, so what is installed can change without notice")
		case !sha256Hex.MatchString(strings.TrimSpace(art.SHA256)):
			sp := p + ".sha256"
			if !a.m.HasPath(sp) {
				sp = p
			}
			a.add(CodeUnpinned, sp, label+" has a sha256 that is not 64 hexadecimal digits, so it pins nothing")
		}
	}
}

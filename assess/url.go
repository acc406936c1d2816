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

var templateRE = regexp.MustCompile(`\$\{[^{}]*\}|\{\{[^{}]*\}\}`)

// untemplate replaces template placeholders with tmplMark.
func untemplate(s string) string {
	if !strings.Contains(s, "${") && !strings.Contains(s, "{{") {
		return s
	}
	return templateRE.ReplaceAllString(s, tmplMark)
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
		if !secureScheme(u.Scheme) {
			a.add(CodeInsecureURL, path, "the endpoint uses plain http, so traffic and credentials travel unencrypted")
		}
	}
	if ok {
		a.urlSecrets(u, path)
	}
	a.headers()
}

// urlSecrets reports credentials written into a URL, without echoing them.
func (a *auditor) urlSecrets(u *url.URL, path string) {
	if u.User != nil {
		p, _ := u.User.Password()
		if !placeholder(u.User.Username()) || (p != "" && !placeholder(p)) {
			a.add(CodeLiteralSecret, path, "the URL embeds credentials (user information before the host)")
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return
	}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !secretName(k) {
			continue
		}
		for _, v := range q[k] {
			if literalSecret(v) {
				label := "a query parameter"
				if tokenSafe(k) {
					label = "the query parameter " + k
				}
				a.add(CodeLiteralSecret, path, "the URL carries a literal credential in "+label)
				break
			}
		}
	}
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
	}
}

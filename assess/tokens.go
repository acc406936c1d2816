package assess

import (
	"net/url"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Tokens the user's own tools print on request (gh auth token, gcloud auth
// print-access-token …). A server may hand one to the service it belongs
// to, in an Authorization header: that is what the commands are for. Sent
// to any other host, or down a raw connection (nc, ssh), it leaves with
// the user's account. Secrets that no service takes as they are printed
// (the AWS secret key, the answer of git credential fill) are credentials
// like the files that hold them (secrets in cmdInfo).

// tokenSource is a token a command prints: what it is, and the hosts of
// its service (a host is the service's when it is one of them or ends in
// "." and one of them).
type tokenSource struct {
	what string
	own  []string
	// anyService: an item of the user's password store, whose service
	// the wiring does not say. Sent over HTTP it may be going to its own
	// service; down a raw connection (nc, ssh) it is not.
	anyService bool
}

var (
	githubToken = &tokenSource{what: "the user's GitHub token (gh auth token)",
		own: []string{"github.com", "githubusercontent.com", "ghcr.io"}}
	googleToken = &tokenSource{what: "the user's Google Cloud access token (gcloud auth print-access-token)",
		own: []string{"googleapis.com", "google.com"}}
	azureToken = &tokenSource{what: "the user's Azure access token (az account get-access-token)",
		own: []string{"azure.com", "azure.net", "windows.net", "microsoft.com", "microsoftonline.com", "visualstudio.com",
			"azure-api.net", "azurecr.io"}}
	herokuToken = &tokenSource{what: "the user's Heroku token (heroku auth:token)", own: []string{"heroku.com"}}
	flyToken    = &tokenSource{what: "the user's Fly.io token (fly auth token)", own: []string{"fly.io", "fly.dev"}}
)

// tokenPrinted returns the token the command c prints, or nil.
func tokenPrinted(c invocation) *tokenSource {
	args := c.args()
	words := func(ws ...string) bool { return startsWith(args, ws...) }
	switch c.name {
	case "gh":
		if !words("auth", "token") {
			return nil
		}
		// A GitHub Enterprise host's token belongs to that host.
		for i := 2; i < len(args); i++ {
			t := args[i].text
			if h, ok := strings.CutPrefix(t, "--hostname="); ok {
				return &tokenSource{what: githubToken.what, own: append(slices.Clip(githubToken.own), lower(h))}
			}
			if (t == "--hostname" || t == "-h") && i+1 < len(args) {
				return &tokenSource{what: githubToken.what, own: append(slices.Clip(githubToken.own), lower(args[i+1].text))}
			}
		}
		return githubToken
	case "gcloud":
		if words("auth", "print-access-token") || words("auth", "application-default", "print-access-token") {
			return googleToken
		}
	case "az":
		if words("account", "get-access-token") {
			return azureToken
		}
	case "heroku":
		if words("auth:token") {
			return herokuToken
		}
	case "fly", "flyctl":
		if words("auth", "token") {
			return flyToken
		}
	}
	return nil
}

// printsToken is the flow judge of the tools that print a token.
func printsToken(_ *auditor, c invocation, info *cmdInfo) { info.token = tokenPrinted(c) }

// passSubcommands are the commands of pass (and its otp extension) that
// print no password; any other first word is the name of one to show.
var passSubcommands = set("init", "ls", "list", "find", "search", "grep", "insert", "add", "edit", "generate", "rm",
	"remove", "delete", "mv", "rename", "cp", "copy", "git", "help", "version")

// storeItem returns the password, token or secret of one item of the
// user's password store that the command c prints, or nil: the item's
// service is not known (tokenSource.anyService).
func storeItem(c invocation) *tokenSource {
	args := c.args()
	words := func(ws ...string) bool { return startsWith(args, ws...) }
	what := ""
	switch c.name {
	case "security":
		// -w prints the password alone; without it the attributes.
		if (words("find-generic-password") || words("find-internet-password")) && slices.ContainsFunc(args, isWord("-w")) {
			what = "a password from the user's macOS keychain (security " + args[0].text + " -w)"
		}
	case "op":
		if words("read") {
			what = "a secret from the user's 1Password vault (op read)"
		}
	case "pass":
		if passPrints(args) {
			what = "a password from the user's password store (pass)"
		}
	case "gopass":
		if words("show") || words("otp") {
			what = "a secret from the user's password store (gopass)"
		}
	case "secret-tool":
		if words("lookup") {
			what = "a secret from the user's keyring (secret-tool lookup)"
		}
	case "bw":
		if words("get", "password") || words("get", "item") || words("get", "notes") || words("get", "totp") {
			what = "an item of the user's Bitwarden vault (bw get)"
		}
	case "lpass":
		if words("show") {
			what = "an item of the user's LastPass vault (lpass show)"
		}
	case "keyring":
		if words("get") {
			what = "a password from the user's keyring (keyring get)"
		}
	}
	if what == "" {
		return nil
	}
	return &tokenSource{what: what, anyService: true}
}

// passPrints reports whether pass prints a password with args: pass NAME,
// pass show NAME or pass otp NAME, unless -c (--clip) or -q (--qrcode)
// sends it to the clipboard or a QR code instead; show without a name
// lists the names.
func passPrints(args []arg) bool {
	if len(args) == 0 {
		return false
	}
	if args[0].text == "show" || args[0].text == "otp" {
		args = args[1:]
	} else if passSubcommands[args[0].text] {
		return false
	}
	named := false
	for _, w := range args {
		switch t := w.text; {
		case t == "-c" || t == "-q" || strings.HasPrefix(t, "--clip") || strings.HasPrefix(t, "--qrcode") ||
			strings.HasPrefix(t, "-c") || strings.HasPrefix(t, "-q"):
			return false
		case !strings.HasPrefix(t, "-"):
			named = true
		}
	}
	return named
}

// printsItem is the flow judge of the password stores' tools: the item
// they print (storeItem).
func printsItem(_ *auditor, c invocation, info *cmdInfo) {
	if t := storeItem(c); t != nil {
		info.token = t
	}
}

// printedSecret is the flow judge of aws and git for what they print
// that no service takes as it is: the AWS secret key or session token
// (aws configure get, aws configure export-credentials) and the
// credentials git credential fill answers with.
func printedSecret(_ *auditor, c invocation, info *cmdInfo) {
	args := c.args()
	switch {
	case c.name == "aws" && len(args) >= 2 && args[0].text == "configure" && args[1].text == "export-credentials",
		c.name == "aws" && len(args) >= 3 && args[0].text == "configure" && args[1].text == "get" &&
			(strings.HasSuffix(args[2].text, "aws_secret_access_key") || strings.HasSuffix(args[2].text, "aws_session_token")):
		info.secrets = "the user's AWS credentials"
	case c.name == "git" && len(args) >= 2 && args[0].text == "credential" && args[1].text == "fill":
		info.secrets = "the user's git credentials (git credential fill)"
	}
}

// startsWith reports whether the first words of args are ws.
func startsWith(args []arg, ws ...string) bool {
	if len(args) < len(ws) {
		return false
	}
	for i, w := range ws {
		if args[i].text != w {
			return false
		}
	}
	return true
}

// ownHost reports whether host is one of t's service.
func (t *tokenSource) ownHost(host string) bool {
	host = strings.TrimSuffix(lower(host), ".")
	for _, o := range t.own {
		if host == o || strings.HasSuffix(host, "."+o) {
			return true
		}
	}
	return false
}

// httpClients are the senders that send to the URLs among their words;
// the other senders (nc, socat, telnet, ssh) hand what they are given to a
// raw connection, which no token's service reads.
var httpClients = set("curl", "curlie", "wget", "wget2", "invoke-webrequest", "iwr", "invoke-restmethod", "irm",
	"xh", "xhs", "http", "https")

// tokenLeaves says where the token t goes when the client name sends it
// with the words given: the first host among the URLs that is not t's
// service, or "a raw connection"; "" when it stays with its service or
// the client's URL is not known.
func tokenLeaves(t *tokenSource, name string, hosts []string) string {
	if !httpClients[name] {
		return "down a raw connection"
	}
	if t.anyService {
		return ""
	}
	for _, h := range hosts {
		if !t.ownHost(h) {
			return "to " + safeText(h, 80)
		}
	}
	return ""
}

// urlHosts returns the hosts of the URLs written literally among the
// words of the client name, but for the values of its options that name
// no destination (a header, a referer, a proxy: fetchOtherValues).
func urlHosts(name string, words []arg) []string {
	var hosts []string
	if name == "xh" || name == "xhs" || name == "http" || name == "https" {
		// Their URL may come without a scheme (evil.example/x).
		if i := xhURL(words); i >= 0 && words[i].lit && !strings.Contains(words[i].text, "://") {
			if _, u, ok := wordURL("http://" + strings.TrimSpace(words[i].text)); ok && u.Hostname() != "" {
				hosts = append(hosts, u.Hostname())
			}
		}
	}
	others := fetchOtherValues[name]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if others[w.text] || others == nil && psOtherValues[lower(w.text)] {
			i++
			continue
		}
		if !w.lit || !strings.Contains(w.text, "://") {
			continue
		}
		if _, u, ok := wordURL(strings.TrimSpace(w.text)); ok && u.Hostname() != "" {
			hosts = append(hosts, u.Hostname())
		}
	}
	return hosts
}

// heldToken says what token w holds: the output of a command or process
// substitution in it that prints one, or the value of a variable the
// script set from one; nil for none.
func (s *scan) heldToken(w *syntax.Word) *tokenSource {
	return held(s, w, s.tokenVars, func(info cmdInfo) *tokenSource { return info.token }, nil)
}

// tokenHeldBy records that the script set variable name from a value that
// holds a token (T=$(gh auth token)), or forgets that it did.
func (s *scan) tokenHeldBy(name string, v *syntax.Word) {
	tok := s.heldToken(v)
	if tok == nil {
		delete(s.tokenVars, name)
		return
	}
	if s.tokenVars == nil {
		s.tokenVars = map[string]*tokenSource{}
	}
	s.tokenVars[name] = tok
}

// tokenSent judges the words of a client that sends its command line: a
// token among them that goes elsewhere than its service leaves with the
// user's account.
func (s *scan) tokenSent(name string, words []*syntax.Word) {
	var tok *tokenSource
	lits := make([]arg, len(words))
	for i, w := range words {
		if tok == nil {
			tok = s.heldToken(w)
		}
		lits[i].text, lits[i].lit = wordText(w)
		if !lits[i].lit {
			// https://evil.example/$(gh auth token): the URL's host is
			// literal although the word is not.
			if host := shapeHost(w); host != "" {
				lits[i] = arg{text: "https://" + host + "/", lit: true}
			}
		}
	}
	if tok == nil {
		return
	}
	if where := tokenLeaves(tok, name, urlHosts(name, lits)); where != "" {
		s.a.exfil(s.path, "sends "+tok.what+" "+where+" in the command line of "+quoted(name))
	}
}

// shapeMark stands for a part of a word whose value is not known.
const shapeMark = "x0subst0x"

// shapeHost returns the host of the URL a word makes when its parts whose
// value is not known (a command substitution, a variable) are left out of
// the host: https://evil.example/$(cmd) and https://$(cmd).evil.example/
// both go to evil.example. It returns "" when the word is no URL or its
// host is not known.
func shapeHost(w *syntax.Word) string {
	_, host := shapeURL(w)
	return host
}

// shapeURL returns the URL a word makes, with shapeMark where its value
// is not known, and its host as shapeHost gives it; nil and "" when the
// word is no URL.
func shapeURL(w *syntax.Word) (*url.URL, string) {
	var b strings.Builder
	writeWord(&b, w, func(syntax.WordPart) bool {
		b.WriteString(shapeMark)
		return b.Len() <= maxURLShape
	})
	if b.Len() > maxURLShape {
		return nil, ""
	}
	shape := b.String()
	if !strings.Contains(shape, "://") {
		return nil, ""
	}
	_, u, ok := wordURL(strings.TrimSpace(shape))
	if !ok {
		return nil, ""
	}
	host := strings.ToLower(u.Hostname())
	if i := strings.LastIndex(host, shapeMark); i >= 0 {
		// A label made from the unknown part: the domain after it.
		rest, ok := strings.CutPrefix(host[i+len(shapeMark):], ".")
		if !ok || !strings.Contains(rest, ".") || strings.Contains(rest, shapeMark) {
			return u, ""
		}
		host = rest
	}
	return u, host
}

// tokenInCredentials judges the words of a program that does not send
// its command line as such (git clone, pip install git+https://…): a URL
// whose user or password part holds a token gives the token to the URL's
// host when the program connects, which is what that part is for; git
// (also behind a git+https:// source) and the package tools that fetch a
// URL they are given (urlFetchers) send the URL's path to it as well.
// Unless the host is the token's service, the token leaves with the
// user's account. A store item, whose service is not known, is not judged.
func (s *scan) tokenInCredentials(name string, words []*syntax.Word) {
	for _, w := range words {
		if _, lit := wordText(w); lit {
			continue
		}
		u, host := shapeURL(w)
		if u == nil || host == "" {
			continue
		}
		// git sends a URL's path too, to the same host, also when another
		// program hands it a git+https:// source.
		inUser := u.User != nil && strings.Contains(u.User.String(), shapeMark)
		viaGit := name == "git" || strings.Contains(litPrefix(w), "git+") || urlFetchers[family(name)]
		if !inUser && (!viaGit || !strings.Contains(u.EscapedPath()+"?"+u.RawQuery, shapeMark)) {
			continue
		}
		tok := s.heldToken(w)
		if tok == nil || tok.anyService || tok.ownHost(host) {
			continue
		}
		where := "in the credentials of a URL of "
		if !inUser {
			where = "in a URL of "
		}
		s.a.exfil(s.path, "puts "+tok.what+" "+where+safeText(host, 80)+", which "+quoted(name)+" hands to that host")
		return
	}
}

// urlFetchers are the programs (by family) that fetch a URL given as a
// package, a module or a manifest with a request for its path: pip install
// https://HOST/x.whl, npm install https://HOST/x.tgz, deno run
// https://HOST/x.ts, kubectl apply -f https://HOST/x.yaml, helm install
// NAME https://HOST/x.tgz.
var urlFetchers = set("pip", "uv", "uvx", "pipx", "npm", "pnpm", "yarn", "bun", "npx", "pnpx", "deno", "kubectl", "oc",
	"helm", "gem", "composer")

// maxURLShape bounds the text shapeHost builds.
const maxURLShape = 4096

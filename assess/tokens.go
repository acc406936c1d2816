package assess

import (
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
}

var (
	githubToken = &tokenSource{"the user's GitHub token (gh auth token)",
		[]string{"github.com", "githubusercontent.com", "ghcr.io"}}
	googleToken = &tokenSource{"the user's Google Cloud access token (gcloud auth print-access-token)",
		[]string{"googleapis.com", "google.com"}}
	azureToken = &tokenSource{"the user's Azure access token (az account get-access-token)",
		[]string{"azure.com", "azure.net", "windows.net", "microsoft.com", "microsoftonline.com", "visualstudio.com",
			"azure-api.net", "azurecr.io"}}
	herokuToken = &tokenSource{"the user's Heroku token (heroku auth:token)", []string{"heroku.com"}}
	flyToken    = &tokenSource{"the user's Fly.io token (fly auth token)", []string{"fly.io", "fly.dev"}}
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
				return &tokenSource{githubToken.what, append(slices.Clip(githubToken.own), lower(h))}
			}
			if (t == "--hostname" || t == "-h") && i+1 < len(args) {
				return &tokenSource{githubToken.what, append(slices.Clip(githubToken.own), lower(args[i+1].text))}
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
	"xh", "xhs")

// tokenLeaves says where the token t goes when the client name sends it
// with the words given: the first host among the URLs that is not t's
// service, or "a raw connection"; "" when it stays with its service or
// the client's URL is not known.
func tokenLeaves(t *tokenSource, name string, hosts []string) string {
	if !httpClients[name] {
		return "down a raw connection"
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
	}
	if tok == nil {
		return
	}
	if where := tokenLeaves(tok, name, urlHosts(name, lits)); where != "" {
		s.a.exfil(s.path, "sends "+tok.what+" "+where+" in the command line of "+quoted(name))
	}
}

package web

import (
	"slices"
	"strings"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// runsView is what a published version runs, as the public addon page
// shows it: its transport and either the command and its arguments or the
// URL, and the names of the environment variables and request headers it
// sets. Their values are never part of it: a value may be a credential,
// and the names are what a person needs to judge the wiring.
type runsView struct {
	Version     string
	Transport   string
	Command     string
	Args        []string
	SHA256      string // the pin of the command's binary, "" when none
	URL         string
	EnvNames    []string
	HeaderNames []string
	// Manifest is the path of the version's manifest, the exact bytes.
	Manifest string
}

// runsOf describes what sub's manifest runs, or returns nil when the
// stored manifest no longer parses (a rule tightened since it was
// published); the page then shows the link to the manifest alone.
func runsOf(sub registry.Submission) *runsView {
	var m *addon.Manifest
	var err error
	if sub.Format == "json" {
		m, err = addon.ParseJSON(sub.Manifest)
	} else {
		m, err = addon.ParseTOML(sub.Manifest)
	}
	if err != nil {
		return nil
	}
	rv := &runsView{
		Version:     sub.Version,
		Transport:   "none declared",
		EnvNames:    names(m.MCP.Env),
		HeaderNames: names(m.MCP.Headers),
	}
	if m.MCP.Declared {
		rv.Transport = string(m.MCP.Transport)
		if rv.Transport == "" {
			rv.Transport = string(addon.TransportStdio)
		}
		rv.Command = shown(m.MCP.Command)
		for _, a := range m.MCP.Args {
			rv.Args = append(rv.Args, shown(a))
		}
		rv.SHA256 = shown(m.MCP.SHA256)
		rv.URL = shown(m.MCP.URL)
	}
	return rv
}

// names returns the keys of m, sorted, each made safe to show.
func names(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, shown(k))
	}
	slices.Sort(out)
	return out
}

// shown is s with every character safetext would not let be shown
// replaced; the templates escape the rest.
func shown(s string) string { return safetext.Replace(s, safetext.Tab, '\uFFFD') }

// installSnippet is the command that verifies name@version's signed report
// against the registry's keys before anything is installed, or "" when the
// registry has no key to pin. Names and versions are slugs and SemVer, and
// the registry URL and keys are quoted, so the snippet pastes into a POSIX
// shell as it is.
func installSnippet(base string, keys []string, name, version string) string {
	if len(keys) == 0 || name == "" || version == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("registryd check --registry " + shellQuote(base))
	for _, k := range keys {
		b.WriteString(" --key " + shellQuote(k))
	}
	b.WriteString(" " + shellQuote(name+"@"+version))
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and @%+=:,./-_: in single quotes, each single quote
// inside closed, escaped and reopened.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

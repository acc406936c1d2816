package serverjson

import (
	"sort"
	"strconv"
	"strings"

	"github.com/registryd/registryd/addon"
)

// NotConvertible is the error of a document that has no faithful manifest
// form, or a manifest that has no faithful server.json form. Reason is
// safe to print: it names fields and registryd's own words, never a value
// from the document.
type NotConvertible struct {
	Reason string
}

func (e *NotConvertible) Error() string { return "no faithful form: " + e.Reason }

func notConvertible(format string, args ...string) *NotConvertible {
	r := format
	for _, a := range args {
		r = strings.Replace(r, "%s", a, 1)
	}
	return &NotConvertible{Reason: r}
}

// ToManifest maps an upstream server version to the manifest registryd
// audits (docs/interop.md has the table):
//
//   - addon.name is AddonName(s.Name); display_name the title; version,
//     description as they are; author the name's namespace; homepage the
//     websiteUrl, else the repository URL;
//   - the wiring comes from the first package that a package runner runs
//     with an exact version (npm: `npx -y NAME@VERSION`, pypi: `uvx
//     NAME==VERSION`, oci: `docker run -i --rm -e VAR… IMAGE:TAG`), its
//     fixed arguments appended, else from the first streamable-http remote
//     (transport http, its URL and headers);
//   - each environment variable (and header) is passed by name: its value
//     is the publisher's fixed value, else `${NAME}`, which the client
//     fills from the user's environment.
//
// It returns a *NotConvertible when the name is not a valid server name
// or when no package or remote has a faithful form (nuget, mcpb, sse, an
// unpinned version, a template variable, an argument only the user can
// fill). The manifest is not validated here: the workflow parses it as any
// submission and refuses what registryd refuses.
func ToManifest(s Server) (*addon.Manifest, error) {
	if !ValidName(s.Name) {
		return nil, notConvertible("name: is not a server name (namespace/name of [A-Za-z0-9._-])")
	}
	ns, _, _ := strings.Cut(s.Name, "/")
	m := &addon.Manifest{Addon: addon.Meta{
		Name: AddonName(s.Name), DisplayName: s.Title, Version: s.Version,
		Description: s.Description, Author: ns, Homepage: s.WebsiteURL,
		Categories: []string{}, Keywords: []string{},
	}}
	if m.Addon.Homepage == "" && s.Repository != nil {
		m.Addon.Homepage = s.Repository.URL
	}
	var why []string
	for i, p := range s.Packages {
		mcp, err := packageWiring(p)
		if err == nil {
			m.MCP = mcp
			return m, nil
		}
		why = append(why, "packages["+strconv.Itoa(i)+"]: "+err.Reason)
	}
	for i, r := range s.Remotes {
		mcp, err := remoteWiring(r)
		if err == nil {
			m.MCP = mcp
			return m, nil
		}
		why = append(why, "remotes["+strconv.Itoa(i)+"]: "+err.Reason)
	}
	if len(why) == 0 {
		return nil, notConvertible("neither packages nor remotes: nothing to wire")
	}
	return nil, &NotConvertible{Reason: strings.Join(why, "; ")}
}

// packageWiring is the [mcp] table that runs p.
func packageWiring(p Package) (addon.MCP, *NotConvertible) {
	mcp := addon.MCP{Declared: true, Transport: addon.TransportStdio, Env: map[string]string{}, Headers: map[string]string{}}
	if p.Transport.Type != TransportStdio {
		return mcp, notConvertible("a package that listens on HTTP has no manifest form (registryd wires stdio packages)")
	}
	if p.Identifier == "" {
		return mcp, notConvertible("identifier: is empty")
	}
	env, err := inputs(p.EnvironmentVariables, "environmentVariables")
	if err != nil {
		return mcp, err
	}
	pkgArgs, err := argv(p.PackageArguments, "packageArguments")
	if err != nil {
		return mcp, err
	}
	runArgs, err := argv(p.RuntimeArguments, "runtimeArguments")
	if err != nil {
		return mcp, err
	}
	mcp.Env = env
	switch p.RegistryType {
	case RegistryNPM:
		if !exactVersion(p.Version) {
			return mcp, notConvertible("version: npm packages need an exact version")
		}
		mcp.Command = "npx"
		mcp.Args = append(append(append([]string{"-y"}, runArgs...), p.Identifier+"@"+p.Version), pkgArgs...)
	case RegistryPyPI:
		if !exactVersion(p.Version) {
			return mcp, notConvertible("version: PyPI packages need an exact version")
		}
		mcp.Command = "uvx"
		mcp.Args = append(append(runArgs, p.Identifier+"=="+p.Version), pkgArgs...)
	case RegistryOCI:
		image := p.Identifier
		if p.Version != "" && !strings.Contains(lastSegment(image), ":") && !strings.Contains(image, "@") {
			image += ":" + p.Version
		}
		if !pinnedImage(image) {
			return mcp, notConvertible("identifier: OCI images need a version tag or a digest")
		}
		names := make([]string, 0, len(env))
		for n := range env {
			names = append(names, n)
		}
		sort.Strings(names)
		args := []string{"run", "-i", "--rm"}
		for _, n := range names {
			args = append(args, "-e", n)
		}
		mcp.Command = "docker"
		mcp.Args = append(append(append(args, runArgs...), image), pkgArgs...)
	default:
		return mcp, notConvertible("registryType: %s has no manifest form (registryd wires npm, pypi and oci packages)", safeToken(p.RegistryType))
	}
	return mcp, nil
}

// remoteWiring is the [mcp] table that connects to r.
func remoteWiring(r Transport) (addon.MCP, *NotConvertible) {
	mcp := addon.MCP{Declared: true, Transport: addon.TransportHTTP, Env: map[string]string{}, Headers: map[string]string{}}
	if r.Type != TransportStreamableHTTP {
		return mcp, notConvertible("type: %s has no manifest form (registryd wires streamable-http remotes)", safeToken(r.Type))
	}
	if strings.ContainsAny(r.URL, "{}") {
		return mcp, notConvertible("url: a URL template needs values the user provides")
	}
	if !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "http://") {
		return mcp, notConvertible("url: must be an http or https URL")
	}
	headers, err := inputs(r.Headers, "headers")
	if err != nil {
		return mcp, err
	}
	mcp.URL, mcp.Headers = r.URL, headers
	return mcp, nil
}

// inputs maps environment variables or headers to their manifest values:
// a fixed value as it is, else a reference to the variable of the same
// name in the user's environment.
func inputs(kvs []KeyValueInput, field string) (map[string]string, *NotConvertible) {
	out := make(map[string]string, len(kvs))
	for i, kv := range kvs {
		at := field + "[" + strconv.Itoa(i) + "]"
		v := kv.Value
		if v == "" || strings.ContainsAny(v, "{}") {
			if !envName(kv.Name) {
				return nil, notConvertible(at + ": a value the user provides needs a name of [A-Za-z_][A-Za-z0-9_]*")
			}
			v = "${" + kv.Name + "}"
		}
		if _, dup := out[kv.Name]; dup {
			return nil, notConvertible(at + ": is named twice")
		}
		out[kv.Name] = v
	}
	return out, nil
}

// argv maps arguments to argv elements: a positional argument is its
// value, a named one its flag and its value (or the flag alone). The value
// is the publisher's fixed one, else the default; an optional argument
// without either is left out, a required one has no faithful form.
func argv(args []Argument, field string) ([]string, *NotConvertible) {
	var out []string
	for i, a := range args {
		at := field + "[" + strconv.Itoa(i) + "]"
		v := a.Value
		if v == "" {
			v = a.Default
		}
		if strings.ContainsAny(v, "{}") {
			return nil, notConvertible(at + ": a template variable needs values the user provides")
		}
		switch a.Type {
		case ArgumentPositional:
			if v == "" {
				if a.IsRequired {
					return nil, notConvertible(at + ": needs a value the user provides")
				}
				continue
			}
			out = append(out, v)
		case ArgumentNamed:
			if a.Name == "" {
				return nil, notConvertible(at + ": a named argument without a name")
			}
			out = append(out, a.Name)
			if v != "" {
				out = append(out, v)
			} else if a.IsRequired && a.ValueHint != "" {
				return nil, notConvertible(at + ": needs a value the user provides")
			}
		default:
			return nil, notConvertible(at + ": type must be positional or named")
		}
	}
	return out, nil
}

// exactVersion reports whether v names one release: it starts with a
// digit, holds only [A-Za-z0-9.+-], and is no range or wildcard.
func exactVersion(v string) bool {
	if v == "" || v[0] < '0' || v[0] > '9' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(alnum(c) || c == '.' || c == '+' || c == '-') {
			return false
		}
	}
	for _, part := range strings.Split(v, ".") {
		if part == "x" || part == "X" {
			return false
		}
	}
	return true
}

// pinnedImage reports whether an image reference has a digest or a tag
// other than latest.
func pinnedImage(ref string) bool {
	if _, digest, ok := strings.Cut(ref, "@"); ok {
		return strings.HasPrefix(digest, "sha256:") && len(digest) == len("sha256:")+64
	}
	last := lastSegment(ref)
	_, tag, ok := strings.Cut(last, ":")
	return ok && tag != "" && tag != "latest"
}

func lastSegment(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(alnum(c) || c == '_') {
			return false
		}
	}
	return true
}

// safeToken returns s when it is a short token safe to print, else a word
// that stands for it.
func safeToken(s string) string {
	if s == "" {
		return "an empty type"
	}
	if len(s) > 32 {
		return "an unknown type"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(alnum(c) || c == '-' || c == '_' || c == '.') {
			return "an unknown type"
		}
	}
	return s
}

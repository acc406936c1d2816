package serverjson

import (
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/registryd/registryd/addon"
)

// Bounds of server.json's text fields, in characters.
const (
	maxDescription = 100
	maxTitle       = 100
)

// FromManifest returns the server.json of a published addon version, named
// name (a valid server name), following the table of docs/interop.md:
//
//   - `npx [-y] NAME@VERSION ARGS…` (or [install] manager npm whose bin is
//     the package's name) is an npm package, runtime hint npx;
//   - `uvx NAME==VERSION ARGS…`, `uvx --from NAME==VERSION NAME ARGS…` (or
//     [install] manager uv or pip whose bin is the package's name) is a
//     PyPI package, runtime hint uvx;
//   - `docker run -i --rm [-e VAR]… IMAGE:TAG ARGS…` is an OCI package,
//     runtime hint docker, identifier with its tag (or digest);
//   - transport http is a streamable-http remote with its header names;
//
// each with the package's arguments as fixed positional arguments and the
// environment variables (or headers) by name only, never a value. The
// description is cut to 100 characters (an empty one is the display name,
// else the addon name), the title is the display name, websiteUrl the
// homepage when it is an http(s) URL.
//
// Any other wiring (a local binary, an inline script, a version that is
// not exact, another runner or option, an [install] whose binary is not
// the package) has no faithful server.json form: FromManifest returns a
// *NotConvertible saying why, and the addon is left out.
func FromManifest(m *addon.Manifest, name string) (Server, error) {
	s := Server{
		Schema:      SchemaURL,
		Name:        name,
		Description: cut(m.Addon.Description, maxDescription),
		Title:       cut(m.Addon.DisplayName, maxTitle),
		Version:     m.Addon.Version,
	}
	if s.Description == "" {
		s.Description = s.Title
	}
	if s.Description == "" {
		s.Description = m.Addon.Name
	}
	if u, err := url.Parse(m.Addon.Homepage); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		s.WebsiteURL = m.Addon.Homepage
	}
	if m.MCP.Transport == addon.TransportHTTP {
		if !strings.HasPrefix(m.MCP.URL, "https://") && !strings.HasPrefix(m.MCP.URL, "http://") {
			return Server{}, notConvertible("mcp.url: not an http or https URL")
		}
		s.Remotes = []Transport{{Type: TransportStreamableHTTP, URL: m.MCP.URL, Headers: byName(m.MCP.Headers)}}
		return s, nil
	}
	p, err := stdioPackage(m)
	if err != nil {
		return Server{}, err
	}
	s.Packages = []Package{p}
	return s, nil
}

// stdioPackage is the package that runs m's stdio wiring.
func stdioPackage(m *addon.Manifest) (Package, *NotConvertible) {
	p := Package{Transport: Transport{Type: TransportStdio}, EnvironmentVariables: byName(m.MCP.Env)}
	args := m.MCP.Args
	switch cmd := m.MCP.Command; {
	case cmd == "":
		return p, notConvertible("mcp.command: the manifest runs nothing")
	case m.Install.Declared():
		return installPackage(m, p)
	case cmd == "npx":
		for len(args) > 0 && (args[0] == "-y" || args[0] == "--yes") {
			args = args[1:]
		}
		if len(args) == 0 {
			return p, notConvertible("mcp.args: npx names no package")
		}
		name, version, ok := npmSpec(args[0])
		if !ok {
			return p, notConvertible("mcp.args: npx runs a package without an exact version, or with an option server.json cannot say")
		}
		p.RegistryType, p.Identifier, p.Version, p.RuntimeHint = RegistryNPM, name, version, "npx"
		args = args[1:]
	case cmd == "uvx":
		var bin string
		if len(args) >= 3 && args[0] == "--from" {
			bin, args = args[2], append([]string{args[1]}, args[3:]...)
		}
		if len(args) == 0 {
			return p, notConvertible("mcp.args: uvx names no package")
		}
		name, version, ok := strings.Cut(args[0], "==")
		if !ok || !exactVersion(version) || !pypiName(name) || (bin != "" && bin != name) {
			return p, notConvertible("mcp.args: uvx runs a package without an exact version, a binary other than the package, or an option server.json cannot say")
		}
		p.RegistryType, p.Identifier, p.Version, p.RuntimeHint = RegistryPyPI, name, version, "uvx"
		args = args[1:]
	case cmd == "docker":
		image, rest, env, ok := dockerRun(args)
		if !ok {
			return p, notConvertible("mcp.args: docker runs with an option server.json cannot say, or an image without a version tag or digest")
		}
		p.RegistryType, p.Identifier, p.RuntimeHint = RegistryOCI, image, "docker"
		p.EnvironmentVariables = byName(merge(m.MCP.Env, env))
		args = rest
	default:
		return p, notConvertible("mcp.command: a local program or another runner has no server.json form")
	}
	p.PackageArguments = positional(args)
	return p, nil
}

// installPackage is the package of a wiring that installs a package and
// runs its binary: faithful only when the binary is the package's own name.
func installPackage(m *addon.Manifest, p Package) (Package, *NotConvertible) {
	in := m.Install
	bin := in.Bin
	if bin == "" {
		bin = in.Package
	}
	if m.MCP.Command != bin || bin != in.Package || !exactVersion(in.Version) {
		return p, notConvertible("install: the server is a binary other than the package, or the version is not exact")
	}
	switch in.Manager {
	case addon.ManagerNPM:
		p.RegistryType, p.RuntimeHint = RegistryNPM, "npx"
	case addon.ManagerUV, addon.ManagerPip:
		p.RegistryType, p.RuntimeHint = RegistryPyPI, "uvx"
	default:
		return p, notConvertible("install.manager: only npm, uv and pip packages have a server.json form")
	}
	p.Identifier, p.Version = in.Package, in.Version
	p.PackageArguments = positional(m.MCP.Args)
	return p, nil
}

// npmSpec splits NAME@VERSION (NAME may be @scope/name) with an exact
// version.
func npmSpec(s string) (name, version string, ok bool) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return "", "", false
	}
	name, version = s[:i], s[i+1:]
	if strings.HasPrefix(name, "-") || !exactVersion(version) {
		return "", "", false
	}
	return name, version, true
}

func pypiName(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(alnum(c) || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// dockerRun reads `run -i --rm [-e VAR]… IMAGE ARGS…`: the image (pinned),
// the arguments after it and the variables passed by name. Any other
// option has no server.json form.
func dockerRun(args []string) (image string, rest []string, env map[string]string, ok bool) {
	if len(args) == 0 || args[0] != "run" {
		return "", nil, nil, false
	}
	env = map[string]string{}
	interactive := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || a == "--interactive":
			interactive = true
		case a == "--rm":
		case a == "-e" || a == "--env":
			if i+1 == len(args) || !envName(args[i+1]) {
				return "", nil, nil, false
			}
			env[args[i+1]] = "${" + args[i+1] + "}"
			i++
		case strings.HasPrefix(a, "-"):
			return "", nil, nil, false
		default:
			if !interactive || !pinnedImage(a) {
				return "", nil, nil, false
			}
			return a, args[i+1:], env, true
		}
	}
	return "", nil, nil, false
}

// byName lists the names of a map's keys, sorted, without their values.
func byName(m map[string]string) []KeyValueInput {
	if len(m) == 0 {
		return nil
	}
	out := make([]KeyValueInput, 0, len(m))
	for k := range m {
		out = append(out, KeyValueInput{Name: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func positional(args []string) []Argument {
	var out []Argument
	for _, a := range args {
		out = append(out, Argument{Type: ArgumentPositional, InputField: InputField{Value: a}})
	}
	return out
}

// cut returns s cut to n characters, the last one an ellipsis when it was
// longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

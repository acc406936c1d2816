package assess

import "strings"

// Docker's MCP Gateway (`docker mcp gateway run`, the docker-mcp CLI
// plugin) starts MCP servers in containers and offers their tools as one
// MCP server. The servers and their images come from the user's own
// configuration and Docker's catalog, which pins its images by digest;
// what the wiring's own options add is judged:
//
//   - --interceptor when:type:argument runs on every tool call: type exec
//     runs the argument with /bin/sh -c, type docker runs `docker run --rm
//     --init IMAGE ARGS…` (the image is the argument up to its first blank,
//     the rest is split as a shell splits words), type http posts each call
//     (before) or result (after) to the URL and takes a non-empty answer as
//     the tool's result;
//   - --servers (--server) names catalog servers, or images (a name with a
//     '/' or docker://), which must be pinned as any image;
//   - --oci-ref names images too;
//   - --catalog, --additional-catalog and --mcp-registry that are URLs are
//     read when the gateway starts, and decide then which images and
//     packages run.
//
// `docker mcp client connect` writes the gateway into an AI client's
// configuration and `docker mcp server enable` adds a server to what every
// later gateway starts: both persist beyond the wiring.

// dockerMCPValues are the options of `docker mcp gateway run` that take a
// value (pflag reads --name=value or --name value).
var dockerMCPValues = set("--servers", "--server", "--profile", "--profile-file", "--catalog",
	"--additional-catalog", "--registry", "--additional-registry", "--config", "--additional-config",
	"--tools-config", "--additional-tools-config", "--secrets", "--tools", "--interceptor", "--oci-ref",
	"--mcp-registry", "--port", "--transport", "--cpus", "--memory", "--log")

// dockerCatalogHost serves Docker's own catalog, the gateway's default.
const dockerCatalogHost = "desktop.docker.com"

// dockerMCP judges `docker mcp …` after "mcp".
func (a *auditor) dockerMCP(c invocation, args []arg) cmdInfo {
	info := cmdInfo{name: c.name}
	rest := optionWords(args, nil, false, nil)
	if len(rest) < 2 {
		return info
	}
	switch group, verb := rest[0].text, rest[1].text; {
	case group == "client" && verb == "connect":
		a.add(CodePersistence, rest[1].path, "`docker mcp client connect` writes Docker's MCP gateway into an AI client's configuration, which starts it on every later use")
		return info
	case group == "server" && verb == "enable":
		a.add(CodePersistence, rest[1].path, "`docker mcp server enable` adds servers to what every later start of Docker's MCP gateway runs")
		return info
	case group != "gateway" || verb != "run":
		return info
	}
	a.inferred.Network = true // images are pulled, remote servers reached
	var port *arg
	transport := "stdio"
	optionWords(rest[2:], dockerMCPValues, false, func(flag string, w arg, val string) {
		if !w.lit {
			return
		}
		v := arg{text: val, path: w.path, lit: true}
		switch flag {
		case "--port":
			port = &v
		case "--transport":
			transport = lower(strings.TrimSpace(val))
		case "--interceptor":
			a.interceptor(v, c.depth)
		case "--servers", "--server", "--oci-ref":
			items := []string{val}
			if flag != "--oci-ref" {
				items = strings.Split(val, ",") // a list, as pflag reads it
			}
			for _, item := range items {
				a.gatewayImage(arg{text: item, path: w.path, lit: true}, flag == "--oci-ref")
			}
		case "--catalog", "--additional-catalog", "--mcp-registry":
			for _, item := range strings.Split(val, ",") {
				a.gatewaySource(flag, arg{text: strings.TrimSpace(item), path: w.path, lit: true})
			}
		}
	})
	a.gatewayListens(port, transport, c.env)
	return info
}

// gatewayListens judges the gateway's HTTP transports: with --port it
// listens on every interface, and asks each client for a bearer token
// unless DOCKER_MCP_IN_CONTAINER=1 (the variable it reads to know that it
// runs in a container) in what it inherits (env) turns that check off:
// then whoever reaches the port calls every server's tools.
func (a *auditor) gatewayListens(port *arg, transport string, env map[string]string) {
	switch transport {
	case "sse", "http", "streamable", "streaming", "streamable-http":
	default:
		return
	}
	if port == nil || strings.TrimSpace(port.text) == "" || strings.TrimSpace(port.text) == "0" ||
		strings.TrimSpace(env["DOCKER_MCP_IN_CONTAINER"]) != "1" {
		return
	}
	a.add(CodeInboundAccess, port.path, "Docker's MCP gateway listens on every interface on port "+safeText(port.text, 10)+
		" with its token check off (DOCKER_MCP_IN_CONTAINER=1), so whoever reaches this machine can call its servers' tools")
}

// gatewayImage judges a server the gateway is told to run: an image
// reference (docker://REF, or any name with a '/') must be pinned; a
// plain name is a server of the catalog. image says the value is an image
// whatever its form (--oci-ref).
func (a *auditor) gatewayImage(w arg, image bool) {
	ref := strings.TrimSpace(w.text)
	if after, ok := strings.CutPrefix(lower(ref), "docker://"); ok {
		ref, image = ref[len(ref)-len(after):], true
	}
	if ref == "" || strings.Contains(ref, "://") || !image && !strings.Contains(ref, "/") {
		return
	}
	if ok, why := imagePinned(ref); !ok {
		a.add(CodeUnpinned, w.path, "Docker's MCP gateway runs the image "+quoted(ref)+", which "+why+"; pin a digest or a version tag")
	}
}

// gatewaySource judges a catalog or an MCP registry entry the gateway
// reads when it starts, when it is a URL: what that document lists then is
// what runs (Docker's own catalog pins its images and is the default).
// Over plain http anyone on the way can replace it.
func (a *auditor) gatewaySource(flag string, w arg) {
	u, ok := parseAnyURL(w.text)
	if !ok || u.Hostname() == "" {
		return // a path under ~/.docker/mcp, or a catalog's name
	}
	a.urlSecrets(w.text, w.path)
	what := "the catalog"
	if flag == "--mcp-registry" {
		what = "the MCP registry entry"
	}
	if !strings.EqualFold(u.Hostname(), dockerCatalogHost) || flag == "--mcp-registry" {
		a.add(CodeUnpinned, w.path, "Docker's MCP gateway reads "+what+" at "+safeText(u.Host, 80)+
			" when it starts and runs the servers it lists then: what runs can change without notice")
	}
	if strings.EqualFold(u.Scheme, "http") && !loopbackHost(u.Hostname()) {
		a.add(CodeInsecureURL, w.path, "Docker's MCP gateway reads "+what+" from "+safeText(u.Host, 80)+
			" over plain http, which anyone on the way can replace")
	}
}

// interceptor judges one --interceptor of the gateway, when:type:argument.
// A spec the gateway refuses (another when or type, a missing part) runs
// nothing: it stops the gateway at start.
func (a *auditor) interceptor(w arg, depth int) {
	parts := strings.SplitN(w.text, ":", 3)
	if len(parts) != 3 {
		return
	}
	when, kind, argument := lower(parts[0]), lower(parts[1]), parts[2]
	if when != "before" && when != "after" {
		return
	}
	at := func(text string) arg { return arg{text: text, path: w.path, lit: true} }
	switch kind {
	case "exec":
		a.command([]arg{at("/bin/sh"), at("-c"), at(argument)}, depth+1, ctxNested)
	case "docker":
		image, more, _ := strings.Cut(argument, " ")
		argv := []arg{at("docker"), at("run"), at("--rm"), at("--init"), at(image)}
		if strings.TrimSpace(more) != "" {
			words, ok := shellPlainWords(more)
			if !ok {
				return // the gateway cannot split them: the interceptor fails, nothing runs
			}
			for _, t := range words {
				argv = append(argv, at(t))
			}
		}
		a.command(argv, depth+1, ctxNested)
	case "http":
		u, ok := parseEndpoint(strings.TrimSpace(argument))
		if !ok {
			return
		}
		a.inferred.Network = true
		a.urlSecrets(argument, w.path)
		if loopbackHost(u.Hostname()) {
			return
		}
		sent := "every tool call's arguments"
		if when == "after" {
			sent = "every tool's result"
		}
		a.add(CodeRemoteEndpoint, w.path, "Docker's MCP gateway sends "+sent+" to "+safeText(u.Host, 80)+
			" and takes what it answers as the tool's result: your context leaves this machine")
		if !secureScheme(u.Scheme) {
			a.add(CodeInsecureURL, w.path, "Docker's MCP gateway sends tool calls to "+safeText(u.Host, 80)+
				" over plain http, so anyone on the way can read them and change the results")
		}
	}
}

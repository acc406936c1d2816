// Package serverjson is the MCP Registry's `server.json` document, and the
// mapping between it and registryd's addon manifest in both directions:
// ToManifest reads an upstream server version into a manifest that goes
// through the audit like any submission, FromManifest writes what
// registryd publishes in the form MCP tooling reads. docs/interop.md holds
// the mapping tables and what is lost each way.
//
// The package is pure: no I/O, no clock, no environment.
package serverjson

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// SchemaURL is the `$schema` of the server.json documents registryd writes:
// the version of the format its mapping follows.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// Server is one server.json document (the MCP Registry's ServerDetail).
// Fields registryd does not map are still decoded, so that a reader can say
// what it left out; unknown fields are ignored, as the format asks of
// readers.
type Server struct {
	Schema      string         `json:"$schema,omitempty"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Title       string         `json:"title,omitempty"`
	Repository  *Repository    `json:"repository,omitempty"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl,omitempty"`
	Icons       []Icon         `json:"icons,omitempty"`
	Packages    []Package      `json:"packages,omitempty"`
	Remotes     []Transport    `json:"remotes,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// Repository is where a server's source lives.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	ID        string `json:"id,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Icon is an image a client may show for a server.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Package is a server distributed through a package registry, run by a
// package runner (npx, uvx, docker, …).
type Package struct {
	RegistryType         string          `json:"registryType"`
	RegistryBaseURL      string          `json:"registryBaseUrl,omitempty"`
	Identifier           string          `json:"identifier"`
	Version              string          `json:"version,omitempty"`
	FileSHA256           string          `json:"fileSha256,omitempty"`
	RuntimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is how a client speaks to a server: stdio for a package, or
// streamable-http or sse at a URL (a remote, or a package that listens).
type Transport struct {
	Type      string                `json:"type"`
	URL       string                `json:"url,omitempty"`
	Headers   []KeyValueInput       `json:"headers,omitempty"`
	Variables map[string]InputField `json:"variables,omitempty"`
}

// The transport types.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// The registry types registryd maps.
const (
	RegistryNPM  = "npm"
	RegistryPyPI = "pypi"
	RegistryOCI  = "oci"
)

// InputField is what every input has: how a client shows it and where its
// value comes from (Value fixed by the publisher, else Default, else the
// user).
type InputField struct {
	Description string                `json:"description,omitempty"`
	IsRequired  bool                  `json:"isRequired,omitempty"`
	Format      string                `json:"format,omitempty"`
	Value       string                `json:"value,omitempty"`
	IsSecret    bool                  `json:"isSecret,omitempty"`
	Default     string                `json:"default,omitempty"`
	Placeholder string                `json:"placeholder,omitempty"`
	Choices     []string              `json:"choices,omitempty"`
	Variables   map[string]InputField `json:"variables,omitempty"`
}

// Argument is a command-line argument: positional (a value) or named (a
// flag and its value).
type Argument struct {
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
	InputField
}

// The argument types.
const (
	ArgumentPositional = "positional"
	ArgumentNamed      = "named"
)

// KeyValueInput is an environment variable or an HTTP header.
type KeyValueInput struct {
	Name string `json:"name"`
	InputField
}

// MaxNameBytes bounds a server name, as the MCP Registry does.
const MaxNameBytes = 200

// ValidName reports whether s is a server name the MCP Registry accepts:
// a reverse-DNS namespace, one slash, and a name
// (`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`), 3 to 200 bytes. Such a name is safe
// to print.
func ValidName(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || len(s) < 3 || len(s) > MaxNameBytes || ns == "" || name == "" {
		return false
	}
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; !(alnum(c) || c == '.' || c == '-') {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(alnum(c) || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// maxAddonName is the longest addon name (addon.MaxNameBytes).
const maxAddonName = 64

// hashLen is the length of the digest suffix of AddonName: 10 base32
// characters, 50 bits.
const hashLen = 10

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// AddonName maps an upstream server name to the addon name it is imported
// under, deterministically: the last label of the namespace and the
// server's own name, lower-cased, every run of other characters than
// [a-z0-9] made one dash, cut to leave room for a dash and the first 50
// bits of the SHA-256 of the exact upstream name in lower-case base32.
// "io.github.domdomegg/airtable-mcp-server" becomes
// "domdomegg-airtable-mcp-server-" and ten characters. Two names map to one
// addon name only if their digests collide in 50 bits; the import refuses
// even that case, because each addon is bound to one upstream name (see
// registry.UpstreamBinding). The result is always a valid addon name.
func AddonName(upstream string) string {
	ns, name, _ := strings.Cut(upstream, "/")
	if i := strings.LastIndexByte(ns, '.'); i >= 0 {
		ns = ns[i+1:]
	}
	base := slugify(ns + "-" + name)
	sum := sha256.Sum256([]byte(upstream))
	suffix := lowerBase32.EncodeToString(sum[:])[:hashLen]
	if room := maxAddonName - hashLen - 1; len(base) > room {
		base = strings.TrimRight(base[:room], "-")
	}
	if base == "" {
		return suffix
	}
	return base + "-" + suffix
}

// slugify lower-cases s and turns every run of characters outside
// [a-z0-9] into one dash, with none at either end.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	return b.String()
}

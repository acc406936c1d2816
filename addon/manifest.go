// Package addon is the addon manifest model: the lean-ctx `lean-ctx-addon.toml`
// format and its JSON (registry-file) form, decoded strictly and validated.
//
// The package is pure: it performs no I/O beyond reading the bytes it is
// given, and a test keeps it free of network, database, filesystem, clock and
// environment access.
//
// # Wiring
//
// The wiring of a manifest (Manifest.Wiring) is every field that changes
// what a client executes, fetches, connects to or grants when it installs
// the addon. The registry's `verified` tier is granted to one wiring, named
// by its digest (Wiring.SHA256): a later version with the same wiring keeps
// the tier, one with another wiring does not.
//
// The fields, each a WiringEntry with the Field name given here:
//
//	addon.integration, mcp.integration     the typed adapter the client wires the server into
//	mcp.transport                          stdio or http ("" when there is no [mcp] table)
//	mcp.command, mcp.args, mcp.sha256      what is launched, with what, pinned to which binary
//	mcp.env (one entry per name)           the environment the server is launched with
//	mcp.url, mcp.headers (one per name)    what is connected to, with which credentials
//	capabilities.network, .filesystem,     what the client grants the server; present only
//	  .env, .exec, .exec_allow             when [capabilities] is
//	install.manager, .package, .version,   what the client installs and how it checks it;
//	  .bin, .verify                        present only when [install] names a package
//	artifacts (one entry per target)       which prebuilt binary is fetched, from where, pinned how
//	dependencies                           which other addons are installed with it
//
// Everything else is left out because it changes no behaviour of an
// installed addon: the name (a wiring belongs to one addon anyway), version,
// display name, description, author, homepage, license, categories,
// keywords, min_lean_ctx, pricing, and the manifest's own `verified` claim,
// which registryd never reads.
//
// Values are compared as the client reads them, not as they are written:
// TOML and JSON syntax, key order, whitespace and comments do not matter;
// [mcp] without transport is stdio; an omitted capability takes its
// strictest value; capabilities.env, capabilities.exec_allow and
// dependencies are sets (order and repetition do not matter); mcp.args and
// install.verify are argument vectors, whose order does.
package addon

import (
	"strconv"
	"strings"
)

// Transport is how an MCP server is reached.
type Transport string

// The transports.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
)

// Manifest is a decoded, validated addon manifest. Values are exactly as
// written (no trimming); absent optional sections are nil.
type Manifest struct {
	Addon        Meta
	MCP          MCP
	Capabilities *Capabilities // nil when [capabilities] is absent
	Install      *Install      // nil when [install] is absent
	Pricing      *Pricing      // nil when [pricing] is absent
	Artifacts    map[string]Artifact
	Dependencies []Dependency

	// fields holds every field path present in the source document
	// (`mcp.args[2]`), mapped to its 1-based line there, or to 0 where the
	// decoder does not know the line. One index serves both Line and HasPath.
	fields *lineIndex
	// keyLines holds the lines of map keys that are not safe to print (and
	// so have no path of their own), by keyLineKey(map path, key).
	keyLines map[string]int
}

// Meta is the `[addon]` table.
type Meta struct {
	Name        string
	DisplayName string
	Version     string
	Description string
	Author      string
	Homepage    string
	License     string
	Categories  []string
	Integration string
	Keywords    []string
	MinLeanCtx  string
	// Verified is what the manifest claims. registryd never derives the trust
	// tier from it: trust is conferred by the registry.
	Verified bool
}

// MCP is the `[mcp]` table: how the MCP server is launched or reached.
type MCP struct {
	// Declared reports whether the source document had an [mcp] table.
	Declared  bool
	Transport Transport // defaults to stdio
	Command   string
	Args      []string
	Env       map[string]string
	SHA256    string
	URL       string
	Headers   map[string]string
	// Integration is the typed-adapter slug when written under [mcp]; upstream
	// lets it override addon.integration. Empty when absent.
	Integration string
}

// NetworkAccess is the declared network capability.
type NetworkAccess string

// The network capabilities.
const (
	NetworkNone NetworkAccess = "none"
	NetworkFull NetworkAccess = "full"
)

// FilesystemAccess is the declared filesystem capability.
type FilesystemAccess string

// The filesystem capabilities.
const (
	FilesystemReadOnly  FilesystemAccess = "read_only"
	FilesystemReadWrite FilesystemAccess = "read_write"
)

// ExecMode is the shape of the declared exec capability.
type ExecMode string

// The exec modes. ExecAllow carries a list of binaries (possibly empty,
// which allows nothing).
const (
	ExecNone  ExecMode = "none"
	ExecFull  ExecMode = "full"
	ExecAllow ExecMode = "allow"
)

// Capabilities is the `[capabilities]` table with every omitted field set to
// its strictest value.
type Capabilities struct {
	Network    NetworkAccess
	Filesystem FilesystemAccess
	Env        []string
	Exec       ExecMode
	ExecAllow  []string // the binaries when Exec is ExecAllow
}

// The package managers an [install] block may name.
const (
	ManagerUV     = "uv"
	ManagerPip    = "pip"
	ManagerCargo  = "cargo"
	ManagerNPM    = "npm"
	ManagerBrew   = "brew"
	ManagerDotnet = "dotnet"
)

// Install is the `[install]` table: a package a client installs with a
// pinned package manager before it runs the server. Verify is an argv probe
// (never a shell line) that exits 0 when the package is already installed.
type Install struct {
	Manager string
	Package string
	Version string
	Bin     string
	Verify  []string
}

// Declared reports whether the install block names a package (lean-ctx
// treats an install block without a package as absent).
func (i *Install) Declared() bool { return i != nil && i.Package != "" }

// The pricing models. An empty Pricing.Model means PricingOneTime.
const (
	PricingOneTime = "one_time"
	PricingUsage   = "usage"
)

// Pricing is the `[pricing]` table. Amounts are in the smallest currency
// unit and lie in [0, 2^32-1]. Currency is as written (upstream reads an
// empty one as `usd`); whether a paid listing is well-formed is a listing
// gate, not a parse rule.
type Pricing struct {
	Model                string // PricingOneTime, PricingUsage or empty
	PriceCents           int64  // one-time price
	Currency             string
	UsagePricePer1kCents int64 // usage model: price per 1,000 tool calls
}

// Artifact is one `[artifacts.<target-triple>]` table: a prebuilt binary for
// one platform, pinned by the SHA-256 of its bytes.
type Artifact struct {
	Filename string
	URL      string
	SHA256   string
}

// Dependency is one `[[dependencies]]` entry: another addon (by slug) this
// one needs, and optionally the version it needs.
type Dependency struct {
	Name    string
	Version string
}

// Line returns the 1-based source line of the field at path, or 0 when the
// decoder did not record one.
func (m *Manifest) Line(path string) int {
	if m == nil {
		return 0
	}
	if l, ok := m.fields.get(path); ok {
		return l
	}
	if list, _, ok := m.listElement(path); ok {
		// An element on its list's first line is not recorded on its own.
		return m.fields.line(list)
	}
	return 0
}

// HasPath reports whether the field at path (`mcp.args[2]`, `mcp.env.X`,
// `mcp`) was present in the source document.
func (m *Manifest) HasPath(path string) bool {
	if m == nil {
		return false
	}
	if _, ok := m.fields.get(path); ok {
		return true
	}
	_, _, ok := m.listElement(path)
	return ok
}

// listElement reports whether path is list[i] for a list of strings the
// source had (mcp.args, addon.keywords …) with more than i elements.
func (m *Manifest) listElement(path string) (list string, i int, ok bool) {
	if !strings.HasSuffix(path, "]") {
		return "", 0, false
	}
	open := strings.LastIndexByte(path, '[')
	if open <= 0 {
		return "", 0, false
	}
	list = path[:open]
	i, err := strconv.Atoi(path[open+1 : len(path)-1])
	if err != nil || i < 0 || path[open+1] == '+' || (len(path)-open > 3 && path[open+1] == '0') {
		return "", 0, false
	}
	var elems []string
	switch list {
	case "mcp.args":
		elems = m.MCP.Args
	case "addon.categories":
		elems = m.Addon.Categories
	case "addon.keywords":
		elems = m.Addon.Keywords
	case "install.verify":
		if m.Install != nil {
			elems = m.Install.Verify
		}
	case "capabilities.env":
		if m.Capabilities != nil {
			elems = m.Capabilities.Env
		}
	case "capabilities.exec":
		if m.Capabilities != nil {
			elems = m.Capabilities.ExecAllow
		}
	default:
		return "", 0, false
	}
	if _, present := m.fields.get(list); !present || i >= len(elems) {
		return "", 0, false
	}
	return list, i, true
}

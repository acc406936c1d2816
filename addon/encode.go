package addon

import (
	"bytes"
	"encoding/json"
)

// The JSON form of a manifest as lean-ctx writes its registry file: every
// field of [addon] and [mcp] present (empty where unset), the optional
// tables only when the manifest has them, keys in lean-ctx's order.
type (
	jsonManifest struct {
		Addon        jsonMeta                `json:"addon"`
		MCP          *jsonMCP                `json:"mcp,omitempty"`
		Capabilities *jsonCaps               `json:"capabilities,omitempty"`
		Install      *jsonInstall            `json:"install,omitempty"`
		Pricing      *jsonPricing            `json:"pricing,omitempty"`
		Artifacts    map[string]jsonArtifact `json:"artifacts,omitempty"`
		Dependencies []jsonDependency        `json:"dependencies,omitempty"`
	}
	jsonMeta struct {
		Name        string   `json:"name"`
		DisplayName string   `json:"display_name"`
		Version     string   `json:"version"`
		Description string   `json:"description"`
		Author      string   `json:"author"`
		Homepage    string   `json:"homepage"`
		License     string   `json:"license"`
		Categories  []string `json:"categories"`
		Integration string   `json:"integration"`
		Keywords    []string `json:"keywords"`
		MinLeanCtx  string   `json:"min_lean_ctx"`
		Verified    bool     `json:"verified"`
	}
	jsonMCP struct {
		Transport   Transport         `json:"transport"`
		Command     string            `json:"command"`
		Args        []string          `json:"args"`
		Env         map[string]string `json:"env"`
		SHA256      string            `json:"sha256"`
		URL         string            `json:"url"`
		Headers     map[string]string `json:"headers"`
		Integration string            `json:"integration,omitempty"`
	}
	jsonCaps struct {
		Network    NetworkAccess    `json:"network"`
		Filesystem FilesystemAccess `json:"filesystem"`
		Env        []string         `json:"env"`
		Exec       any              `json:"exec"`
	}
	jsonInstall struct {
		Manager string   `json:"manager"`
		Package string   `json:"package"`
		Version string   `json:"version"`
		Bin     string   `json:"bin"`
		Verify  []string `json:"verify"`
	}
	jsonPricing struct {
		Model                string `json:"model,omitempty"`
		PriceCents           int64  `json:"price_cents"`
		Currency             string `json:"currency"`
		UsagePricePer1kCents int64  `json:"usage_price_per_1k_cents"`
	}
	jsonArtifact struct {
		Filename string `json:"filename"`
		URL      string `json:"url"`
		SHA256   string `json:"sha256"`
	}
	jsonDependency struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
)

// EncodeJSON returns m in its JSON form, one entry of a lean-ctx registry
// file, such that ParseJSON of the result is m again (field for field;
// omitted capabilities come back as the strictest values they stood for).
// Every [addon] field, and every [mcp] field when m has that table, is
// written, empty where m leaves it so, as lean-ctx writes them; [capabilities], [install], [pricing], artifacts
// and dependencies only where m has them. The bytes are compact and
// deterministic (map keys sorted). EncodeJSON does not validate m.
func EncodeJSON(m *Manifest) []byte {
	return encodeJSON(jsonOf(m), "")
}

// EncodeRegistryFile returns a lean-ctx registry file holding ms in order:
// `{"$schema": …, "registry_version": 1, "addons": [ … ]}`, indented by two
// spaces as lean-ctx writes it and ending in a newline. ParseRegistryFile
// reads it back.
func EncodeRegistryFile(ms []*Manifest) []byte {
	file := struct {
		Schema          string         `json:"$schema"`
		RegistryVersion int            `json:"registry_version"`
		Addons          []jsonManifest `json:"addons"`
	}{Schema: RegistrySchemaURL, RegistryVersion: 1, Addons: make([]jsonManifest, len(ms))}
	for i, m := range ms {
		file.Addons[i] = jsonOf(m)
	}
	return encodeJSON(file, "  ")
}

// RegistrySchemaURL is the `$schema` of a lean-ctx registry file.
const RegistrySchemaURL = "https://leanctx.dev/schema/addon-registry-v1.json"

func encodeJSON(v any, indent string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		// Only strings, numbers, booleans, slices and maps of strings are
		// encoded: there is nothing json can refuse.
		panic("addon: encode JSON: " + err.Error())
	}
	if indent == "" {
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	return buf.Bytes()
}

func jsonOf(m *Manifest) jsonManifest {
	out := jsonManifest{
		Addon: jsonMeta{
			Name: m.Addon.Name, DisplayName: m.Addon.DisplayName, Version: m.Addon.Version,
			Description: m.Addon.Description, Author: m.Addon.Author, Homepage: m.Addon.Homepage,
			License: m.Addon.License, Categories: strs(m.Addon.Categories), Integration: m.Addon.Integration,
			Keywords: strs(m.Addon.Keywords), MinLeanCtx: m.Addon.MinLeanCtx, Verified: m.Addon.Verified,
		},
	}
	if m.MCP.Declared {
		out.MCP = &jsonMCP{
			Transport: m.MCP.Transport, Command: m.MCP.Command, Args: strs(m.MCP.Args), Env: strMap(m.MCP.Env),
			SHA256: m.MCP.SHA256, URL: m.MCP.URL, Headers: strMap(m.MCP.Headers), Integration: m.MCP.Integration,
		}
		if out.MCP.Transport == "" {
			out.MCP.Transport = TransportStdio
		}
	}
	if c := m.Capabilities; c != nil {
		jc := &jsonCaps{Network: c.Network, Filesystem: c.Filesystem, Env: strs(c.Env), Exec: string(c.Exec)}
		if c.Exec == ExecAllow {
			jc.Exec = strs(c.ExecAllow)
		}
		out.Capabilities = jc
	}
	if in := m.Install; in != nil {
		out.Install = &jsonInstall{Manager: in.Manager, Package: in.Package, Version: in.Version, Bin: in.Bin, Verify: strs(in.Verify)}
	}
	if p := m.Pricing; p != nil {
		out.Pricing = &jsonPricing{Model: p.Model, PriceCents: p.PriceCents, Currency: p.Currency, UsagePricePer1kCents: p.UsagePricePer1kCents}
	}
	if len(m.Artifacts) > 0 {
		out.Artifacts = make(map[string]jsonArtifact, len(m.Artifacts))
		for k, a := range m.Artifacts {
			out.Artifacts[k] = jsonArtifact(a)
		}
	}
	for _, d := range m.Dependencies {
		out.Dependencies = append(out.Dependencies, jsonDependency(d))
	}
	return out
}

func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func strMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

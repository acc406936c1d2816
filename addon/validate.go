package addon

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/go-playground/validator/v10"
)

// The structural rules, as validator tags on request-shaped structs built
// from a Manifest. The tag names double as the keys of ruleMessages.
type (
	rulesManifest struct {
		Addon        rulesMeta     `json:"addon"`
		Capabilities *rulesCaps    `json:"capabilities"`
		Install      *rulesInstall `json:"install"`
		Dependencies []rulesDep    `json:"dependencies" validate:"dive"`
	}
	rulesMeta struct {
		Name string `json:"name" validate:"required,slug"`
	}
	rulesCaps struct {
		Env  []string `json:"env" validate:"dive,envname"`
		Exec []string `json:"exec" validate:"dive,required,nospace"`
	}
	// rulesInstall applies only to a declared block (one that names a
	// package); lean-ctx ignores any other.
	rulesInstall struct {
		Manager string   `json:"manager" validate:"required,oneof=uv pip cargo npm brew dotnet"`
		Package string   `json:"package" validate:"required,nometa"`
		Version string   `json:"version" validate:"required,nometa,pin"`
		Bin     string   `json:"bin" validate:"omitempty,nometa"`
		Verify  []string `json:"verify" validate:"dive,argmeta"`
	}
	rulesDep struct {
		Name string `json:"name" validate:"required,slug"`
	}
)

var ruleMessages = map[string]string{
	"required": "is required",
	"slug":     "must be a slug: lower-case ASCII letters, digits and dashes, not starting or ending with a dash",
	"envname":  "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
	"nospace":  "must be a binary name or path without whitespace",
	"oneof":    "must be one of uv, pip, cargo, npm, brew, dotnet",
	"nometa":   "must not contain whitespace or shell metacharacters",
	"argmeta":  "must not contain shell metacharacters",
	"pin":      `must be an exact version (not "latest", "*", a range or a tag)`,
}

// rulesValidator is built once; a *validator.Validate is safe for
// concurrent use once its rules are registered.
var rulesValidator = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		return strings.SplitN(f.Tag.Get("json"), ",", 2)[0]
	})
	str := func(pred func(string) bool) validator.Func {
		return func(fl validator.FieldLevel) bool { return pred(fl.Field().String()) }
	}
	must := func(err error) {
		if err != nil {
			panic(err) // a malformed rule table is a programming error
		}
	}
	must(v.RegisterValidation("slug", str(isSlug)))
	must(v.RegisterValidation("envname", str(isEnvName)))
	must(v.RegisterValidation("nospace", str(noSpace)))
	must(v.RegisterValidation("nometa", str(noMeta)))
	must(v.RegisterValidation("argmeta", str(argNoMeta)))
	must(v.RegisterValidation("pin", str(isExactPin)))
	return v
})

// installMeta are the characters a shell would act on; none belongs in a
// package name, a version or a binary name.
const installMeta = "|;&`<>$(){}'\"\\*?!#~"

// argvMeta are the characters upstream refuses in a verify argv element.
const argvMeta = "|;&`<>\n\r"

// isSlug: `[a-z0-9-]+`, no leading or trailing dash.
func isSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isEnvName: `[A-Za-z_][A-Za-z0-9_]*`.
func isEnvName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || isAlnum(c)) {
			return false
		}
	}
	return true
}

// isExactPin reports whether v pins one release: it starts with a digit
// (optionally after `v`), uses only `[A-Za-z0-9.+_-]`, and is not a range or
// wildcard (`1.x`, `1.*`, `^1`, `~1`, `>=1`) or a floating tag (`latest`).
func isExactPin(v string) bool {
	s := strings.TrimPrefix(v, "v")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isAlnum(c) || strings.IndexByte(".+_-", c) >= 0) {
			return false
		}
	}
	for _, part := range strings.Split(s, ".") {
		if part == "x" || part == "X" {
			return false
		}
	}
	return !strings.HasSuffix(strings.ToLower(s), "latest")
}

// integrations is the typed-adapter vocabulary upstream accepts, aliases
// included, after lower-casing and mapping `_` to `-`.
var integrations = map[string]bool{
	"none": true, "codebase-pack": true, "pack": true, "repomix": true,
	"code-graph": true, "graph": true, "callgraph": true,
	"code-symbols": true, "symbols": true, "lsp": true,
	"memory": true, "mem": true,
	"compression": true, "compress": true, "compressor": true,
}

func knownIntegration(s string) bool {
	return integrations[strings.ReplaceAll(strings.ToLower(s), "_", "-")]
}

// validate applies every post-decoding rule to m. Characters and sizes come
// first, so that a field refused for them is not refused again for its
// shape.
func (r *report) validate(m *Manifest) {
	r.texts(m)
	r.enums(m)
	r.structural(m)
}

func (r *report) text(path, s string, limit int) {
	if p := r.textProblem(s); p != "" {
		r.at(path, p)
		return
	}
	if len(s) > limit {
		r.at(path, "is longer than "+strconv.Itoa(limit)+" bytes")
	}
}

func (r *report) list(path string, xs []string, maxLen, limit int) {
	if len(xs) > maxLen {
		r.at(path, "has more than "+strconv.Itoa(maxLen)+" elements")
		return
	}
	for i, s := range xs {
		// The element's path is built only for an element refused.
		if r.textProblem(s) != "" || len(s) > limit {
			r.text(path+"["+strconv.Itoa(i)+"]", s, limit)
		}
	}
}

// strMap checks a map's size, keys and values. keyProblem names what is
// wrong with a key beyond its characters ("" when nothing); safe decides
// whether the key may appear in the path.
func (r *report) strMap(path string, mp map[string]string, safe func(string) bool, keyProblem func(string) string) {
	if len(mp) > MaxMapEntries {
		r.at(path, "has more than "+strconv.Itoa(MaxMapEntries)+" entries")
		return
	}
	var buf [16]string // most maps are small: no allocation for the keys
	keys := buf[:0]
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		// where is the path and line an error about k is reported at; it
		// is worked out only for a key or value refused.
		where := func() (string, int) {
			if safe(k) {
				kp := path + "." + k
				return kp, lineOf(r.m, kp)
			}
			line := r.m.keyLines[keyLineKey(path, k)]
			if line == 0 {
				line = lineOf(r.m, path)
			}
			return path, line
		}
		problem := keyProblem(k)
		switch {
		case r.textProblem(k) != "":
			problem = "a key " + r.textProblem(k)
		case k == "":
			problem = "a key is empty"
		case len(k) > MaxKeyBytes:
			problem = "a key is longer than " + strconv.Itoa(MaxKeyBytes) + " bytes"
		}
		if problem != "" {
			kp, line := where()
			r.add(kp, line, problem)
			continue
		}
		if p := r.textProblem(mp[k]); p != "" {
			kp, line := where()
			r.add(kp, line, p)
		} else if len(mp[k]) > MaxStringBytes {
			kp, line := where()
			r.add(kp, line, "is longer than "+strconv.Itoa(MaxStringBytes)+" bytes")
		}
	}
}

func (r *report) texts(m *Manifest) {
	a := &m.Addon
	r.text("addon.name", a.Name, MaxNameBytes)
	r.text("addon.display_name", a.DisplayName, MaxStringBytes)
	r.text("addon.version", a.Version, MaxStringBytes)
	r.text("addon.description", a.Description, MaxDescriptionBytes)
	r.text("addon.author", a.Author, MaxStringBytes)
	r.text("addon.homepage", a.Homepage, MaxStringBytes)
	r.text("addon.license", a.License, MaxStringBytes)
	r.list("addon.categories", a.Categories, MaxListLen, MaxStringBytes)
	r.text("addon.integration", a.Integration, MaxStringBytes)
	r.list("addon.keywords", a.Keywords, MaxListLen, MaxStringBytes)
	r.text("addon.min_lean_ctx", a.MinLeanCtx, MaxStringBytes)

	c := &m.MCP
	r.text("mcp.command", c.Command, MaxStringBytes)
	r.list("mcp.args", c.Args, MaxArgs, MaxArgBytes)
	r.strMap("mcp.env", c.Env, envKeySafe, func(k string) string {
		if strings.Contains(k, "=") {
			return "a key contains '=', which no environment can hold"
		}
		return ""
	})
	r.text("mcp.sha256", c.SHA256, MaxStringBytes)
	r.text("mcp.url", c.URL, MaxStringBytes)
	r.strMap("mcp.headers", c.Headers, headerKeySafe, func(k string) string {
		if !headerKeySafe(k) {
			return "a key is not a valid HTTP header name"
		}
		return ""
	})
	r.text("mcp.integration", c.Integration, MaxStringBytes)

	if caps := m.Capabilities; caps != nil {
		r.list("capabilities.env", caps.Env, MaxListLen, MaxKeyBytes)
		r.list("capabilities.exec", caps.ExecAllow, MaxListLen, MaxStringBytes)
	}
	if in := m.Install; in != nil {
		r.text("install.manager", in.Manager, MaxStringBytes)
		r.text("install.package", in.Package, MaxStringBytes)
		r.text("install.version", in.Version, MaxStringBytes)
		r.text("install.bin", in.Bin, MaxStringBytes)
		r.list("install.verify", in.Verify, MaxListLen, MaxStringBytes)
	}
	if p := m.Pricing; p != nil {
		r.text("pricing.model", p.Model, MaxStringBytes)
		r.text("pricing.currency", p.Currency, MaxStringBytes)
	}
	if len(m.Artifacts) > MaxArtifacts {
		r.at("artifacts", "has more than "+strconv.Itoa(MaxArtifacts)+" target triples")
	} else {
		triples := make([]string, 0, len(m.Artifacts))
		for k := range m.Artifacts {
			triples = append(triples, k)
		}
		sort.Strings(triples)
		for _, k := range triples {
			if !tripleSafe(k) {
				r.at("artifacts", "a target triple may hold only ASCII letters, digits, '_', '-' and '.'")
				continue
			}
			p, art := "artifacts."+k, m.Artifacts[k]
			r.text(p+".filename", art.Filename, MaxStringBytes)
			if art.Filename != "" && !plainFileName(art.Filename) {
				r.at(p+".filename", "must be a plain file name: no directory (/ or \\), no . or .., no drive or device name")
			}
			r.text(p+".url", art.URL, MaxStringBytes)
			r.text(p+".sha256", art.SHA256, MaxStringBytes)
		}
	}
	if len(m.Dependencies) > MaxDependencies {
		r.at("dependencies", "has more than "+strconv.Itoa(MaxDependencies)+" entries")
	} else {
		for i, d := range m.Dependencies {
			p := "dependencies[" + strconv.Itoa(i) + "]"
			r.text(p+".name", d.Name, MaxNameBytes)
			r.text(p+".version", d.Version, MaxStringBytes)
		}
	}
}

// enums re-checks the enum fields, for manifests built in code (the
// decoder refuses a bad enum as it reads it).
func (r *report) enums(m *Manifest) {
	switch m.MCP.Transport {
	case "", TransportStdio, TransportHTTP:
	default:
		r.at("mcp.transport", `must be "stdio" or "http"`)
	}
	for _, f := range []struct{ path, v string }{
		{"addon.integration", m.Addon.Integration},
		{"mcp.integration", m.MCP.Integration},
	} {
		if f.v != "" && !knownIntegration(f.v) {
			r.at(f.path, "must be one of codebase-pack, code-graph, code-symbols, memory, compression, none")
		}
	}
	if c := m.Capabilities; c != nil {
		if c.Network != NetworkNone && c.Network != NetworkFull {
			r.at("capabilities.network", `must be "none" or "full"`)
		}
		if c.Filesystem != FilesystemReadOnly && c.Filesystem != FilesystemReadWrite {
			r.at("capabilities.filesystem", `must be "read_only" or "read_write"`)
		}
		switch c.Exec {
		case ExecNone, ExecFull:
			if len(c.ExecAllow) > 0 {
				r.at("capabilities.exec", "lists binaries but is not an allowlist")
			}
		case ExecAllow:
		default:
			r.at("capabilities.exec", `must be "none", "full" or an array of binaries`)
		}
	}
	if p := m.Pricing; p != nil {
		if p.Model != "" && p.Model != PricingOneTime && p.Model != PricingUsage {
			r.at("pricing.model", `must be "one_time" or "usage"`)
		}
		for _, f := range []struct {
			path string
			v    int64
		}{{"pricing.price_cents", p.PriceCents}, {"pricing.usage_price_per_1k_cents", p.UsagePricePer1kCents}} {
			if f.v < 0 || f.v > math.MaxUint32 {
				r.at(f.path, "must be between 0 and 4294967295")
			}
		}
	}
}

// structural runs the validator rules and reports each failure at its
// field path.
func (r *report) structural(m *Manifest) {
	if rulesHold(m) {
		return
	}
	err := rulesValidator().Struct(rulesRequest(m))
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		if err != nil {
			r.at("", "cannot be validated")
		}
		return
	}
	for _, fe := range verrs {
		ns := fe.Namespace()
		if i := strings.IndexByte(ns, '.'); i >= 0 {
			ns = ns[i+1:]
		}
		msg, ok := ruleMessages[fe.Tag()]
		if !ok {
			msg = "is not valid"
		}
		r.at(ns, msg)
	}
}

// rulesRequest is the request the validator checks for m.
func rulesRequest(m *Manifest) rulesManifest {
	req := rulesManifest{Addon: rulesMeta{Name: m.Addon.Name}}
	if c := m.Capabilities; c != nil {
		req.Capabilities = &rulesCaps{Env: c.Env, Exec: c.ExecAllow}
	}
	if m.Install.Declared() {
		in := m.Install
		req.Install = &rulesInstall{Manager: in.Manager, Package: in.Package, Version: in.Version, Bin: in.Bin, Verify: in.Verify}
	}
	for _, d := range m.Dependencies {
		req.Dependencies = append(req.Dependencies, rulesDep{Name: d.Name})
	}
	return req
}

// rulesHold reports whether every rule of the validator tags holds for
// rulesRequest(m), with the same predicates. It is the common case, checked
// without reflection or building the request; false sends m through the
// validator, which then names each failure. A rule checked here must be at
// least as strict as its tag, never looser (TestRulesHoldAgreesWithValidator
// holds it to that).
func rulesHold(m *Manifest) bool {
	if !isSlug(m.Addon.Name) {
		return false
	}
	if c := m.Capabilities; c != nil {
		for _, e := range c.Env {
			if !isEnvName(e) {
				return false
			}
		}
		for _, e := range c.ExecAllow {
			if e == "" || !noSpace(e) {
				return false
			}
		}
	}
	if in := m.Install; in.Declared() {
		switch in.Manager {
		case ManagerUV, ManagerPip, ManagerCargo, ManagerNPM, ManagerBrew, ManagerDotnet:
		default:
			return false
		}
		if in.Package == "" || !noMeta(in.Package) || in.Version == "" || !noMeta(in.Version) || !isExactPin(in.Version) {
			return false
		}
		if in.Bin != "" && !noMeta(in.Bin) {
			return false
		}
		for _, e := range in.Verify {
			if !argNoMeta(e) {
				return false
			}
		}
	}
	for _, d := range m.Dependencies {
		if !isSlug(d.Name) {
			return false
		}
	}
	return true
}

func noSpace(s string) bool { return strings.IndexFunc(s, unicode.IsSpace) < 0 }

func noMeta(s string) bool { return noSpace(s) && !strings.ContainsAny(s, installMeta) }

func argNoMeta(s string) bool {
	return !strings.ContainsAny(s, argvMeta) && !strings.Contains(s, "$(")
}

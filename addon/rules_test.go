package addon

import (
	"testing"
)

// validRules is a rules request every rule accepts.
func validRules() rulesManifest {
	return rulesManifest{
		Addon:        rulesMeta{Name: "demo-2"},
		Capabilities: &rulesCaps{Env: []string{"HOME", "_X1"}, Exec: []string{"git", "/usr/bin/rg"}},
		Install: &rulesInstall{Manager: ManagerNPM, Package: "@scope/pkg", Version: "v1.2.3-rc.1+b5",
			Bin: "pkg", Verify: []string{"pkg", "--version"}},
		Dependencies: []rulesDep{{Name: "other"}},
	}
}

// TestRulesPassesAgreesWithValidator holds the reflection-free check to the
// validator tags: for each request, passes must be true exactly when the
// validator finds nothing.
func TestRulesPassesAgreesWithValidator(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *rulesManifest)
		want bool
	}{
		{"valid", func(*rulesManifest) {}, true},
		{"minimal", func(r *rulesManifest) { *r = rulesManifest{Addon: rulesMeta{Name: "a"}} }, true},
		{"no name", func(r *rulesManifest) { r.Addon.Name = "" }, false},
		{"name with upper case", func(r *rulesManifest) { r.Addon.Name = "Demo" }, false},
		{"name ends with dash", func(r *rulesManifest) { r.Addon.Name = "demo-" }, false},
		{"empty env name", func(r *rulesManifest) { r.Capabilities.Env = []string{""} }, false},
		{"env name starts with digit", func(r *rulesManifest) { r.Capabilities.Env = []string{"1X"} }, false},
		{"env name with dash", func(r *rulesManifest) { r.Capabilities.Env = []string{"A-B"} }, false},
		{"empty exec entry", func(r *rulesManifest) { r.Capabilities.Exec = []string{""} }, false},
		{"exec entry with space", func(r *rulesManifest) { r.Capabilities.Exec = []string{"a b"} }, false},
		{"exec entry with no-break space", func(r *rulesManifest) { r.Capabilities.Exec = []string{"a\u00a0b"} }, false},
		{"no capabilities", func(r *rulesManifest) { r.Capabilities = nil }, true},
		{"no install", func(r *rulesManifest) { r.Install = nil }, true},
		{"unknown manager", func(r *rulesManifest) { r.Install.Manager = "conda" }, false},
		{"manager upper case", func(r *rulesManifest) { r.Install.Manager = "NPM" }, false},
		{"no manager", func(r *rulesManifest) { r.Install.Manager = "" }, false},
		{"manager uv", func(r *rulesManifest) { r.Install.Manager = ManagerUV }, true},
		{"manager pip", func(r *rulesManifest) { r.Install.Manager = ManagerPip }, true},
		{"manager cargo", func(r *rulesManifest) { r.Install.Manager = ManagerCargo }, true},
		{"manager brew", func(r *rulesManifest) { r.Install.Manager = ManagerBrew }, true},
		{"manager dotnet", func(r *rulesManifest) { r.Install.Manager = ManagerDotnet }, true},
		{"package with semicolon", func(r *rulesManifest) { r.Install.Package = "a;b" }, false},
		{"package with tab", func(r *rulesManifest) { r.Install.Package = "a\tb" }, false},
		{"no package", func(r *rulesManifest) { r.Install.Package = "" }, false},
		{"no version", func(r *rulesManifest) { r.Install.Version = "" }, false},
		{"version latest", func(r *rulesManifest) { r.Install.Version = "latest" }, false},
		{"version range", func(r *rulesManifest) { r.Install.Version = "^1.2" }, false},
		{"version wildcard", func(r *rulesManifest) { r.Install.Version = "1.x" }, false},
		{"version with dollar", func(r *rulesManifest) { r.Install.Version = "1.2$" }, false},
		{"no bin", func(r *rulesManifest) { r.Install.Bin = "" }, true},
		{"bin with backtick", func(r *rulesManifest) { r.Install.Bin = "a`b" }, false},
		{"verify with pipe", func(r *rulesManifest) { r.Install.Verify = []string{"a|b"} }, false},
		{"verify with substitution", func(r *rulesManifest) { r.Install.Verify = []string{"$(id)"} }, false},
		{"verify with dollar and space", func(r *rulesManifest) { r.Install.Verify = []string{"$HOME x", ""} }, true},
		{"dependency without name", func(r *rulesManifest) { r.Dependencies = []rulesDep{{Name: "ok"}, {}} }, false},
		{"dependency bad slug", func(r *rulesManifest) { r.Dependencies = []rulesDep{{Name: "-x"}} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRules()
			tt.edit(&r)
			fromValidator := rulesValidator().Struct(r) == nil
			if fromValidator != tt.want {
				t.Fatalf("validator passes = %v, want %v (the case itself is wrong)", fromValidator, tt.want)
			}
			if got := r.passes(); got != tt.want {
				t.Errorf("passes() = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzRulesPasses checks passes against the validator on arbitrary values.
func FuzzRulesPasses(f *testing.F) {
	f.Add("demo", "HOME", "git", "npm", "pkg", "1.2.3", "", "--version", "dep")
	f.Add("", "1X", "a b", "conda", "a;b", "latest", "a`b", "$(id)", "-x")
	f.Fuzz(func(t *testing.T, name, env, exec, manager, pkg, version, bin, verify, dep string) {
		r := rulesManifest{
			Addon:        rulesMeta{Name: name},
			Capabilities: &rulesCaps{Env: []string{env}, Exec: []string{exec}},
			Install:      &rulesInstall{Manager: manager, Package: pkg, Version: version, Bin: bin, Verify: []string{verify}},
			Dependencies: []rulesDep{{Name: dep}},
		}
		want := rulesValidator().Struct(r) == nil
		if got := r.passes(); got != want {
			t.Fatalf("passes() = %v, validator says %v for %+v %+v %+v %+v", got, want, r.Addon, *r.Capabilities, *r.Install, r.Dependencies)
		}
	})
}

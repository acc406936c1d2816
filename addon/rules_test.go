package addon

import (
	"testing"
)

// validRules is a manifest every structural rule accepts.
func validRules() *Manifest {
	return &Manifest{
		Addon:        Meta{Name: "demo-2"},
		Capabilities: &Capabilities{Env: []string{"HOME", "_X1"}, Exec: ExecAllow, ExecAllow: []string{"git", "/usr/bin/rg"}},
		Install: &Install{Manager: ManagerNPM, Package: "@scope/pkg", Version: "v1.2.3-rc.1+b5",
			Bin: "pkg", Verify: []string{"pkg", "--version"}},
		Dependencies: []Dependency{{Name: "other"}},
	}
}

// TestRulesHoldAgreesWithValidator holds the reflection-free check to the
// validator tags: for each manifest, rulesHold must be true exactly when the
// validator finds nothing in its request.
func TestRulesHoldAgreesWithValidator(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Manifest)
		want bool
	}{
		{"valid", func(*Manifest) {}, true},
		{"minimal", func(r *Manifest) { *r = Manifest{Addon: Meta{Name: "a"}} }, true},
		{"no name", func(r *Manifest) { r.Addon.Name = "" }, false},
		{"name with upper case", func(r *Manifest) { r.Addon.Name = "Demo" }, false},
		{"name ends with dash", func(r *Manifest) { r.Addon.Name = "demo-" }, false},
		{"empty env name", func(r *Manifest) { r.Capabilities.Env = []string{""} }, false},
		{"env name starts with digit", func(r *Manifest) { r.Capabilities.Env = []string{"1X"} }, false},
		{"env name with dash", func(r *Manifest) { r.Capabilities.Env = []string{"A-B"} }, false},
		{"empty exec entry", func(r *Manifest) { r.Capabilities.ExecAllow = []string{""} }, false},
		{"exec entry with space", func(r *Manifest) { r.Capabilities.ExecAllow = []string{"a b"} }, false},
		{"exec entry with no-break space", func(r *Manifest) { r.Capabilities.ExecAllow = []string{"a\u00a0b"} }, false},
		{"no capabilities", func(r *Manifest) { r.Capabilities = nil }, true},
		{"no install", func(r *Manifest) { r.Install = nil }, true},
		{"unknown manager", func(r *Manifest) { r.Install.Manager = "conda" }, false},
		{"manager upper case", func(r *Manifest) { r.Install.Manager = "NPM" }, false},
		{"no manager", func(r *Manifest) { r.Install.Manager = "" }, false},
		{"install without package is not checked", func(r *Manifest) { r.Install = &Install{Manager: "conda", Version: "latest"} }, true},
		{"manager uv", func(r *Manifest) { r.Install.Manager = ManagerUV }, true},
		{"manager pip", func(r *Manifest) { r.Install.Manager = ManagerPip }, true},
		{"manager cargo", func(r *Manifest) { r.Install.Manager = ManagerCargo }, true},
		{"manager brew", func(r *Manifest) { r.Install.Manager = ManagerBrew }, true},
		{"manager dotnet", func(r *Manifest) { r.Install.Manager = ManagerDotnet }, true},
		{"package with semicolon", func(r *Manifest) { r.Install.Package = "a;b" }, false},
		{"package with tab", func(r *Manifest) { r.Install.Package = "a\tb" }, false},
		{"no version", func(r *Manifest) { r.Install.Version = "" }, false},
		{"version latest", func(r *Manifest) { r.Install.Version = "latest" }, false},
		{"version range", func(r *Manifest) { r.Install.Version = "^1.2" }, false},
		{"version wildcard", func(r *Manifest) { r.Install.Version = "1.x" }, false},
		{"version with dollar", func(r *Manifest) { r.Install.Version = "1.2$" }, false},
		{"no bin", func(r *Manifest) { r.Install.Bin = "" }, true},
		{"bin with backtick", func(r *Manifest) { r.Install.Bin = "a`b" }, false},
		{"verify with pipe", func(r *Manifest) { r.Install.Verify = []string{"a|b"} }, false},
		{"verify with substitution", func(r *Manifest) { r.Install.Verify = []string{"$(id)"} }, false},
		{"verify with dollar and space", func(r *Manifest) { r.Install.Verify = []string{"$HOME x", ""} }, true},
		{"dependency without name", func(r *Manifest) { r.Dependencies = []Dependency{{Name: "ok"}, {}} }, false},
		{"dependency bad slug", func(r *Manifest) { r.Dependencies = []Dependency{{Name: "-x"}} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validRules()
			tt.edit(m)
			fromValidator := rulesValidator().Struct(rulesRequest(m)) == nil
			if fromValidator != tt.want {
				t.Fatalf("validator passes = %v, want %v (the case itself is wrong)", fromValidator, tt.want)
			}
			if got := rulesHold(m); got != tt.want {
				t.Errorf("rulesHold = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzRulesHold checks rulesHold against the validator on arbitrary values.
func FuzzRulesHold(f *testing.F) {
	f.Add("demo", "HOME", "git", "npm", "pkg", "1.2.3", "", "--version", "dep")
	f.Add("", "1X", "a b", "conda", "a;b", "latest", "a`b", "$(id)", "-x")
	f.Fuzz(func(t *testing.T, name, env, exec, manager, pkg, version, bin, verify, dep string) {
		m := &Manifest{
			Addon:        Meta{Name: name},
			Capabilities: &Capabilities{Env: []string{env}, Exec: ExecAllow, ExecAllow: []string{exec}},
			Install:      &Install{Manager: manager, Package: pkg, Version: version, Bin: bin, Verify: []string{verify}},
			Dependencies: []Dependency{{Name: dep}},
		}
		want := rulesValidator().Struct(rulesRequest(m)) == nil
		if got := rulesHold(m); got != want {
			t.Fatalf("rulesHold = %v, validator says %v for %+v %+v %+v %+v", got, want, m.Addon, *m.Capabilities, *m.Install, m.Dependencies)
		}
	})
}

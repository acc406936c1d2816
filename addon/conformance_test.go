package addon

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/registryd/registryd/registry"
)

// vector is one entry of testdata/leanctx-vectors.json (a copy of
// shared/conformance/leanctx-vectors.json): a manifest and what upstream
// lean-ctx does with it. Only the fields this package answers for are read.
type vector struct {
	ID       string `json:"id"`
	TOML     string `json:"toml"`
	Expected struct {
		ValidateRejects bool   `json:"validate_rejects"`
		Tier            string `json:"tier"`
	} `json:"expected"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/leanctx-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestConformanceVectors runs every upstream vector through ParseTOML and
// requires the same accept/reject decision as upstream's validation.
func TestConformanceVectors(t *testing.T) {
	vs := loadVectors(t)
	if got, want := len(vs), 82; got != want {
		t.Fatalf("got %d vectors, want %d", got, want)
	}
	rejects := 0
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			m, err := ParseTOML([]byte(v.TOML))
			if v.Expected.ValidateRejects {
				rejects++
				var ve *registry.ValidationError
				if !errors.As(err, &ve) || len(ve.Fields) == 0 {
					t.Fatalf("ParseTOML accepted a manifest upstream rejects (err = %v)", err)
				}
				if !errors.Is(err, registry.ErrInvalid) {
					t.Errorf("error does not match registry.ErrInvalid: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTOML refused a manifest upstream accepts:\n%v", err)
			}
			if got, want := m.Addon.Verified, v.Expected.Tier == "verified"; got != want {
				t.Errorf("Verified = %v, want %v (tier %q)", got, want, v.Expected.Tier)
			}
			if err := Validate(m); err != nil {
				t.Errorf("a parsed manifest does not re-validate: %v", err)
			}
		})
	}
	if rejects != 11 {
		t.Errorf("got %d rejecting vectors, want 11 (M01–M11 but M05, and R06)", rejects)
	}
}

// TestConformanceRejectionsNameTheField pins where each upstream rejection
// is reported.
func TestConformanceRejectionsNameTheField(t *testing.T) {
	want := map[string]string{
		"M01": "addon.name",
		"M02": "addon.name",
		"M03": "capabilities.env[0]",
		"M04": "install.version",
		"M06": "capabilities.exec[1]",
		"M07": "install.manager",
		"M08": "install.version",
		"M09": "install.version",
		"M10": "install.package",
		"M11": "install.version",
		"R06": "install.version",
	}
	for _, v := range loadVectors(t) {
		path, ok := want[v.ID]
		if !ok {
			continue
		}
		t.Run(v.ID, func(t *testing.T) {
			_, err := ParseTOML([]byte(v.TOML))
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *registry.ValidationError", err)
			}
			if got := ve.Fields[0].Path; got != path {
				t.Errorf("path = %q, want %q (%v)", got, path, err)
			}
			if ve.Fields[0].Line == 0 {
				t.Errorf("no line for %s", ve.Fields[0])
			}
		})
	}
}

func TestParseRegistryFile(t *testing.T) {
	b, err := os.ReadFile("testdata/leanctx-addon-registry.json")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseRegistryFile(b)
	if err != nil {
		t.Fatalf("ParseRegistryFile: %v", err)
	}
	if got, want := len(ms), 21; got != want {
		t.Fatalf("got %d manifests, want %d", got, want)
	}
	// Each entry also parses on its own, to the same manifest.
	var file struct {
		Addons []json.RawMessage `json:"addons"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for i, raw := range file.Addons {
		m, err := ParseJSON(raw)
		if err != nil {
			t.Fatalf("ParseJSON(addons[%d]): %v", i, err)
		}
		if m.Addon.Name != ms[i].Addon.Name || m.Addon.Name == "" {
			t.Errorf("addons[%d]: name %q via ParseJSON, %q via ParseRegistryFile", i, m.Addon.Name, ms[i].Addon.Name)
		}
		if !m.HasPath("mcp") || !m.MCP.Declared {
			t.Errorf("addons[%d]: [mcp] not recorded", i)
		}
		if ms[i].Line("addon.name") <= ms[0].Line("addon.name") && i > 0 {
			t.Errorf("addons[%d]: line of addon.name %d is not after the first entry's", i, ms[i].Line("addon.name"))
		}
	}
}

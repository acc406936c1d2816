package addon

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// FuzzParseManifest feeds arbitrary bytes to ParseTOML or ParseJSON. Neither
// may panic; an accepted manifest must re-validate and record its [addon]
// table; a refusal must be a *registry.ValidationError whose every field
// prints without control, bidi or zero-width characters.
func FuzzParseManifest(f *testing.F) {
	for _, c := range badCases {
		f.Add([]byte(c.in), c.json)
	}
	for _, v := range loadVectors(f) {
		f.Add([]byte(v.TOML), false)
	}
	if b, err := os.ReadFile("testdata/leanctx-addon-registry.json"); err == nil {
		var file struct {
			Addons []json.RawMessage `json:"addons"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			f.Fatal(err)
		}
		for _, a := range file.Addons {
			f.Add([]byte(a), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		var (
			m   *Manifest
			err error
		)
		if asJSON {
			m, err = ParseJSON(data)
		} else {
			m, err = ParseTOML(data)
		}
		if err == nil {
			if m == nil {
				t.Fatal("nil manifest and nil error")
			}
			if verr := Validate(m); verr != nil {
				t.Fatalf("accepted manifest does not re-validate: %v", verr)
			}
			if !m.HasPath("addon") {
				t.Fatal("accepted manifest has no [addon] path")
			}
			return
		}
		if m != nil {
			t.Fatal("manifest returned with an error")
		}
		var ve *registry.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) == 0 {
			t.Fatalf("got %T %v, want a *registry.ValidationError with fields", err, err)
		}
		for _, fe := range ve.Fields {
			if err := safetext.Check(fe.String(), 0); err != nil {
				t.Fatalf("error field %q %v", fe.String(), err)
			}
			if printablePath(fe.Path) != fe.Path {
				t.Fatalf("path %q is not printable", fe.Path)
			}
		}
	})
}

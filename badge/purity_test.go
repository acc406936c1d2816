package badge

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports are the only packages the badge package itself may import:
// it renders from its inputs and touches no file, network, clock or
// environment.
var allowedImports = map[string]bool{
	"bytes": true, "crypto/sha256": true, "encoding/hex": true, "encoding/json": true,
	"encoding/xml": true, "fmt": true, "slices": true, "strconv": true, "strings": true,
	"unicode": true, "unicode/utf8": true,
	"github.com/registryd/registryd/registry": true,
	// safetext is a leaf that internal/purity keeps pure.
	"github.com/registryd/registryd/safetext": true,
}

func TestImportsArePure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if !allowedImports[path] {
				t.Errorf("%s imports %q: the badge package must stay free of I/O", name, path)
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no source files")
	}
}

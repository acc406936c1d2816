package purity

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// textRuleOwner is the one package that decides which characters may be
// shown (see its package doc).
const textRuleOwner = module + "/safetext"

// textRuleExempt are the files outside safetext that may name invisible
// characters, and why: they measure text, they do not decide whether it
// may be shown.
var textRuleExempt = map[string]string{
	"badge/width.go":                  "zero-width characters take no room in the width table; safetext has already decided they may be shown",
	"badge/internal/widthgen/main.go": "the generator skips characters that draw nothing when it measures the font",
}

// textRuleNames are the unicode identifiers a rule about showing text is
// written with.
var textRuleNames = map[string]bool{
	"IsPrint": true, "IsControl": true, "IsGraphic": true, "Cc": true, "Cf": true, "Co": true, "Zl": true, "Zp": true,
	"Bidi_Control": true, "Other_Default_Ignorable_Code_Point": true, "Noncharacter_Code_Point": true,
}

// invisibleLiteral reports whether v, the value of an integer or rune
// literal, is one of the characters a hand-written rule lists: the soft
// hyphen, the Arabic letter mark, zero-width characters, bidi controls,
// separators, the word joiner family and the byte order mark.
func invisibleLiteral(v int64) bool {
	return v == 0xAD || v == 0x61C || v >= 0x200B && v <= 0x200F || v >= 0x2028 && v <= 0x202E ||
		v >= 0x2060 && v <= 0x206F || v == 0xFEFF
}

// TestOneRuleForText: no package but safetext writes its own rule for which
// characters may be shown, so that every refusal, escape and cut agrees.
func TestOneRuleForText(t *testing.T) {
	pkgs := listPackages(t, "./...")
	var files []string
	for _, p := range pkgs {
		if p.ImportPath == textRuleOwner {
			continue
		}
		for _, f := range p.GoFiles {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	if len(files) == 0 {
		t.Fatal("found no source files")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		rel, err := filepath.Rel(root, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := textRuleExempt[filepath.ToSlash(rel)]; ok {
			continue
		}
		for _, v := range textRulesIn(t, name) {
			t.Errorf("%s: use safetext instead", v)
		}
	}
}

// textRulesIn reports every use in filename of a unicode identifier or a
// character literal that a rule about showing text is made of.
func textRulesIn(t *testing.T, filename string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", filename, err)
	}
	unicodeName := ""
	for _, imp := range file.Imports {
		if imp.Path.Value == `"unicode"` {
			unicodeName = "unicode"
			if imp.Name != nil {
				unicodeName = imp.Name.Name
			}
		}
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && unicodeName != "" && id.Name == unicodeName && textRuleNames[n.Sel.Name] {
				out = append(out, fmt.Sprintf("%s: unicode.%s", fset.Position(n.Pos()), n.Sel.Name))
			}
		case *ast.BasicLit:
			if v, ok := literalValue(n); ok && invisibleLiteral(v) {
				out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), n.Value))
			}
		}
		return true
	})
	return out
}

// literalValue returns the value of a hexadecimal integer literal or a rune
// literal: the way code names a character. Decimal numbers are data (the
// badge's generated width table).
func literalValue(lit *ast.BasicLit) (int64, bool) {
	switch lit.Kind {
	case token.INT:
		if !strings.HasPrefix(strings.ToLower(lit.Value), "0x") {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(lit.Value, "_", ""), 0, 64)
		return v, err == nil
	case token.CHAR:
		r, _, _, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		return int64(r), err == nil
	}
	return 0, false
}

func TestTextRulesDetected(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, src string
		want      int
	}{
		{"category table", "package p\nimport \"unicode\"\nvar x = unicode.Is(unicode.Cf, 'a')\n", 1},
		{"predicate", "package p\nimport u \"unicode\"\nvar x = u.IsPrint('a') || u.IsControl('b')\n", 2},
		{"hex ranges", "package p\nfunc f(r rune) bool { return r >= 0x202a && r <= 0x202e || r == 0xFEFF }\n", 3},
		{"rune literals", "package p\nfunc f(r rune) bool { return r == '\\u200b' || r == '\\u00ad' }\n", 2},
		{"letters are fine", "package p\nimport \"unicode\"\nvar x = unicode.IsLetter('a') && unicode.Is(unicode.So, 'b')\n", 0},
		{"other numbers", "package p\nvar x = []int{0x20, 0x7f, 8205 - 8205, 4096}\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".go")
			if err := writeFile(name, tt.src); err != nil {
				t.Fatal(err)
			}
			if got := textRulesIn(t, name); len(got) != tt.want {
				t.Errorf("got %d rules %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

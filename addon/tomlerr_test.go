package addon

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/registry"
)

// TestSyntaxSentences pins registryd's sentence for each common TOML syntax
// error, with its line and column. A decoder upgrade that rewords one of
// its messages shows up here as the fallback sentence.
func TestSyntaxSentences(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[addon\nname = \"x\"\n", "line 1, column 7: a table header is not closed: after a name comes '.' and another name, or the closing ']', but here comes the end of the line"},
		{"[addon?\n", "line 1, column 7: a table header is not closed: after a name comes '.' and another name, or the closing ']', but here comes '?'"},
		{"[a..b]\n", "line 1, column 4: a table header has an empty name, or an empty part between dots"},
		{"[[deps]\n", "line 1, column 7: an array-of-tables header is not closed with ']]': here comes the end of the line"},
		{"[addon]\nname = \"x\" extra\n", "line 2, column 11: a value must end its line (a comment may follow it), but here comes 'e'; put each key on a line of its own"},
		{"= 1\n", "line 1, column 1: a line starts with '=': the key before it is missing"},
		{".a = 1\n", "line 1, column 1: a key starts with '.': a dotted key needs a name on each side of every dot"},
		{"[addon]\nname", "line 2, column 4: the document ends after a key, before its '=' and value"},
		{"[addon]\nname x = 1\n", "line 2, column 6: a key must be followed by '=' and its value, but here comes 'x'; a key with blanks or other characters must be in quotes"},
		{"[addon]\nname =\n", "line 2, column 7: the value after '=' is not a TOML value: here comes the end of the line, where a \"string\" in quotes, a number, true or false, an [array] or an {inline table} should be"},
		{"[addon]\nname = x\n", "line 2, column 8: the value after '=' is not a TOML value: here comes 'x', where a \"string\" in quotes, a number, true or false, an [array] or an {inline table} should be"},
		{"[mcp]\nargs = [,1]\n", "line 2, column 9: an array or inline table has a comma with no value before it"},
		{"[mcp]\nargs = [\"a\" \"b\"]\n", "line 2, column 13: an array is not closed: its values are separated by ',' and it ends with ']', but here comes a double quote"},
		{"[mcp]\nenv = {A = \"1\" B = \"2\"}\n", "line 2, column 16: an inline table is not closed: its keys are separated by ',' and it ends with '}', but here comes 'B'"},
		{"[mcp]\ncommand = \"abc\n", "line 2, column 15: a string is not closed on the line it starts: a \"…\" or '…' string ends on the same line; use \"\"\"…\"\"\" for text over several lines"},
		{"[mcp]\ncommand = \"abc", "line 2, column 14: a string is not closed: the document ends before its closing '\"'"},
		{"[mcp]\ncommand = 'abc", "line 2, column 14: a literal string is not closed: the document ends before its closing quote"},
		{"[mcp]\ncommand = \"\"\"abc", "line 2, column 16: a multi-line string is not closed with \"\"\" before the end of the document"},
		{"[mcp]\ncommand = \"a\\qb\"\n", "line 2, column 12: a string has an escape sequence TOML does not know; write \\\\ for a backslash, or use a 'literal string', which has no escapes"},
		{"[addon]\nname = \"x\"\nname = \"y\"\n", "line 3, column 1: a key or table is defined twice; each may appear once"},
		{"[addon]\n[addon]\n", "line 2, column 2: a key or table is defined twice; each may appear once"},
		{"[pricing]\nprice_cents = 012\n", "line 2, column 15: a number is not a valid TOML integer (no leading zeros; '_' only between digits)"},
		{"[pricing]\nprice_cents = 99999999999999999999\n", "line 2, column 15: a number is too large for TOML"},
		{"[addon]\nversion = 1979-13-27\n", "line 2, column 11: a date or time is not valid"},
		{"[addon]\nversion = 1.0.0\n", "line 2, column 11: a number is not a valid TOML float; a version such as 1.0.0 is text: put it in quotes, \"1.0.0\""},
		{"[addon]\nname = \"x\" <script>\n", "line 2, column 11: a value must end its line (a comment may follow it), but here comes a character that is not allowed there; put each key on a line of its own"},
		{"[addon]\nname = \"x\" é\n", "line 2, column 11: a value must end its line (a comment may follow it), but here comes a character that is not allowed there; put each key on a line of its own"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseTOML([]byte(tc.in))
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 {
				t.Fatalf("got %v, want one field error", err)
			}
			if got, want := ve.Fields[0].Message, "TOML syntax error at "+tc.want; got != want {
				t.Errorf("message\n got %q\nwant %q", got, want)
			}
			if !strings.HasPrefix(tc.want, "line ") || ve.Fields[0].Line == 0 {
				t.Errorf("no line: %+v", ve.Fields[0])
			}
		})
	}
}

// TestSyntaxFallback checks the sentence for a message registryd does not
// know: neutral, and nothing unsafe of the decoder's words is printed.
func TestSyntaxFallback(t *testing.T) {
	got := syntaxSentence("brand new problem near '<script>' and \x1b[2J")
	if !strings.HasPrefix(got, "the document is not valid TOML at this point") {
		t.Errorf("fallback = %q", got)
	}
	if strings.ContainsAny(got, "<>\x1b") {
		t.Errorf("fallback %q echoes unsafe characters", got)
	}
	err := tomlError("", errors.New("not a toml.ParseError"))
	if !strings.Contains(err.Error(), "TOML syntax error") {
		t.Errorf("non-ParseError: %v", err)
	}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		t.Errorf("the decoder's error leaks through: %v", err)
	}
}

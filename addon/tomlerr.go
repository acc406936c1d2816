package addon

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/registry"
)

// tomlError turns a decoder error into a field error that reads as a
// sentence with the line and column of the problem, in registryd's words.
//
// BurntSushi/toml exports no error kinds, only a message and a position, so
// the common messages are recognised by their wording (syntaxSentences).
// A message not recognised, after an upgrade of the decoder for example,
// falls back to a neutral sentence with the decoder's own words made safe
// to print. Nothing of the document is echoed but one character, and only
// when it is a letter, a digit or harmless punctuation.
func tomlError(src string, err error) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &registry.ValidationError{Fields: []registry.FieldError{{Message: "TOML syntax error: the document is not valid TOML"}}}
	}
	line, col := pe.Position.Line, pe.Position.Col
	if start := pe.Position.Start; start >= 0 && start < len(src) {
		// The decoder counts a line break it has read as the start of the
		// next line; the byte offset says where the problem is.
		line = 1 + strings.Count(src[:start], "\n")
		col = 1 + utf8.RuneCountInString(src[strings.LastIndexByte(src[:start], '\n')+1:start])
	}
	where := "TOML syntax error at line " + strconv.Itoa(line)
	if col > 0 {
		where += ", column " + strconv.Itoa(col)
	}
	return &registry.ValidationError{Fields: []registry.FieldError{{
		Line: line, Message: where + ": " + syntaxSentence(pe.Message)}}}
}

// syntaxSentences maps the decoder's common messages (matched by a phrase
// they contain) to registryd's sentence; %s stands for what the decoder
// found where it expected something else.
var syntaxSentences = []struct{ phrase, sentence string }{
	{"to end table name", "a table header is not closed: after a name comes '.' and another name, or the closing ']', but here comes %s"},
	{"end of table array name delimiter", "an array-of-tables header is not closed with ']]': here comes %s"},
	{"table names cannot be empty", "a table header has an empty name, or an empty part between dots"},
	{"top-level item to end with a newline", "a value must end its line (a comment may follow it), but here comes %s; put each key on a line of its own"},
	{"key name appears blank", "a line starts with '=': the key before it is missing"},
	{"keys cannot start with a '.'", "a key starts with '.': a dotted key needs a name on each side of every dot"},
	{"expected key separator '='", "the document ends after a key, before its '=' and value"},
	{"expected '.' or '='", "a key must be followed by '=' and its value, but here comes %s; a key with blanks or other characters must be in quotes"},
	{"unexpected eof; expected value", "the document ends after '=', before the value"},
	{"expected value but found", "the value after '=' is not a TOML value: here comes %s, where a \"string\" in quotes, a number, true or false, an [array] or an {inline table} should be"},
	{"unexpected comma", "an array or inline table has a comma with no value before it"},
	{"or array terminator", "an array is not closed: its values are separated by ',' and it ends with ']', but here comes %s"},
	{"inline table terminator", "an inline table is not closed: its keys are separated by ',' and it ends with '}', but here comes %s"},
	{"newlines not allowed within inline tables", "an inline table { … } must stay on one line; use a [table] header for a longer table"},
	{"strings cannot contain newlines", "a string is not closed on the line it starts: a \"…\" or '…' string ends on the same line; use \"\"\"…\"\"\" for text over several lines"},
	{`expected '"'`, "a string is not closed: the document ends before its closing '\"'"},
	{`expected "'"`, "a literal string is not closed: the document ends before its closing quote"},
	{`expected '"""'`, "a multi-line string is not closed with \"\"\" before the end of the document"},
	{`expected "'''"`, "a multi-line literal string is not closed with ''' before the end of the document"},
	{"invalid escape", "a string has an escape sequence TOML does not know; write \\\\ for a backslash, or use a 'literal string', which has no escapes"},
	{"hexadecimal digits after", "a \\u or \\U escape in a string is not followed by its hexadecimal digits"},
	{"is not valid utf-8", "a \\u or \\U escape in a string names no valid character"},
	{"has already been defined", "a key or table is defined twice; each may appear once"},
	{"was already created", "a key is defined twice, once as a table and once otherwise"},
	{"is not a table", "a key that holds a value is also used as a table"},
	{"invalid integer", "a number is not a valid TOML integer (no leading zeros; '_' only between digits)"},
	{"invalid float", "a number is not a valid TOML float; a version such as 1.0.0 is text: put it in quotes, \"1.0.0\""},
	{"floats must start with a digit", "a number starts with '.': write 0.5, not .5"},
	{"not a binary number", "a 0b number has a digit other than 0 and 1"},
	{"not an octal number", "a 0o number has a digit other than 0 to 7"},
	{"not a hexadecimal number", "a 0x number has a digit other than 0 to 9 and a to f"},
	{"sign with non-decimal", "a 0x, 0o or 0b number cannot have a sign"},
	{"expected a digit", "a number is not complete: here comes %s where a digit should be"},
	{"is out of range", "a number is too large for TOML"},
	{"out of the safe", "a number is too large to be represented exactly"},
	{"invalid datetime", "a date or time is not valid"},
	{"control characters", "the document contains a control character"},
	{"invalid utf-8", "the document is not valid UTF-8"},
	{"unexpected eof", "the document ends in the middle of a value"},
}

// foundRE finds what the decoder says it found: a quoted character or EOF.
var foundRE = regexp.MustCompile(`(?:got|found) ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|EOF)`)

// syntaxSentence is registryd's sentence for a decoder message.
func syntaxSentence(msg string) string {
	lower := strings.ToLower(msg)
	for _, s := range syntaxSentences {
		if !strings.Contains(lower, s.phrase) {
			continue
		}
		if !strings.Contains(s.sentence, "%s") {
			return s.sentence
		}
		return strings.Replace(s.sentence, "%s", foundWords(msg), 1)
	}
	return "the document is not valid TOML at this point (the decoder says: " + quietMessage(msg) + ")"
}

// foundWords describes the character the decoder found, without echoing
// anything that could be unsafe to print.
func foundWords(msg string) string {
	m := foundRE.FindStringSubmatch(msg)
	if m == nil {
		return "something else"
	}
	if m[1] == "EOF" {
		return "the end of the document"
	}
	s, err := strconv.Unquote(m[1])
	if err != nil {
		if r, _, _, err := strconv.UnquoteChar(strings.Trim(m[1], "'"), '\''); err == nil {
			s = string(r)
		} else {
			return "a character that is not allowed there"
		}
	}
	switch {
	case s == "\n" || s == "\r":
		return "the end of the line"
	case s == " " || s == "\t":
		return "a blank"
	case len(s) == 1 && (isAlnum(s[0]) || strings.IndexByte("=.,[]{}:;#+-_*/!?@%()", s[0]) >= 0):
		return "'" + s + "'"
	case s == "'":
		return "a single quote"
	case s == `"`:
		return "a double quote"
	}
	return "a character that is not allowed there"
}

package assess

import "strings"

// Programs a PostgreSQL server runs for the SQL psql sends it. COPY … FROM
// PROGRAM 'CMD' and COPY … TO PROGRAM 'CMD' make the server run CMD with
// sh -c, as the operating-system user the server runs as (on the user's
// own machine, when the database is local). DO blocks and CREATE FUNCTION
// or PROCEDURE bodies written in an untrusted procedural language
// (plpython3u, plperlu, pltclu, plsh, plr) are programs the server runs
// with the same rights; a body in PL/pgSQL or SQL is SQL again, read the
// same way, with the string literals it hands to EXECUTE. Every form of
// PostgreSQL's string constants is read: '…' (with ” for a quote),
// E'…' with its backslash escapes and $tag$…$tag$. Comments, quoted
// identifiers and psql's own backslash commands are skipped; statements
// end at a semicolon outside quotes.

// sqlProgram is a program the server runs: its language's family, "copy"
// for COPY's command line and "plsh" for a plsh body, both run by a
// shell, and its text.
type sqlProgram struct{ lang, text string }

// untrustedLangs maps PostgreSQL's untrusted procedural languages to the
// family of the program a body in them is.
var untrustedLangs = map[string]string{
	"plpython3u": "python", "plpythonu": "python", "plpython2u": "python",
	"plperlu": "perl", "pltclu": "tclsh", "plsh": "plsh", "plr": "rscript",
}

// maxSQLNesting bounds the bodies and EXECUTE strings read within one
// another; maxSQLPrograms the programs read from one text.
const maxSQLNesting, maxSQLPrograms = 4, 16

// sqlPrograms returns the programs the SQL of text makes a PostgreSQL
// server run.
func sqlPrograms(text string) []sqlProgram {
	var out []sqlProgram
	readSQL(text, 0, &out)
	return out
}

// sqlToken is one token of a statement: a word (lower-cased), a string
// constant (its value) or a punctuation byte.
type sqlToken struct {
	kind byte // 'w' word, 's' string, or the punctuation byte
	text string
}

// readSQL reads the statements of text, appending what they run to out.
func readSQL(text string, nesting int, out *[]sqlProgram) {
	var stmt []sqlToken
	depth := 0 // parentheses
	for i := 0; i < len(text) && len(*out) < maxSQLPrograms; {
		ch := text[i]
		switch {
		case ch == ';':
			sqlStatement(stmt, nesting, out)
			stmt, depth = stmt[:0], 0
			i++
		case ch == '-' && strings.HasPrefix(text[i:], "--"):
			i = lineEnd(text, i)
		case ch == '/' && strings.HasPrefix(text[i:], "/*"):
			i = blockCommentEnd(text, i)
		case ch == '\\':
			i = lineEnd(text, i) // a psql backslash command takes the rest of the line
		case ch == '"':
			end := strings.IndexByte(text[i+1:], '"')
			if end < 0 {
				i = len(text)
				break
			}
			stmt = append(stmt, sqlToken{kind: 'w', text: strings.ToLower(text[i+1 : i+1+end])})
			i += end + 2
		case ch == '\'':
			s, next := sqlQuoted(text, i+1, false)
			stmt, i = append(stmt, sqlToken{kind: 's', text: s}), next
		case (ch == 'E' || ch == 'e') && i+1 < len(text) && text[i+1] == '\'' && !sqlWordByte(before(text, i)):
			s, next := sqlQuoted(text, i+2, true)
			stmt, i = append(stmt, sqlToken{kind: 's', text: s}), next
		case ch == '$' && !sqlWordByte(before(text, i)):
			if s, next, ok := sqlDollarQuoted(text, i); ok {
				stmt, i = append(stmt, sqlToken{kind: 's', text: s}), next
				break
			}
			i++
		case sqlWordByte(ch) && !(ch >= '0' && ch <= '9'):
			j := i
			for j < len(text) && sqlWordByte(text[j]) {
				j++
			}
			if depth == 0 {
				stmt = append(stmt, sqlToken{kind: 'w', text: strings.ToLower(text[i:j])})
			}
			i = j
		case ch == '(':
			depth++
			i++
		case ch == ')':
			depth = max(depth-1, 0)
			i++
		default:
			if depth == 0 && ch == ',' {
				stmt = append(stmt, sqlToken{kind: ch})
			}
			i++
		}
	}
	sqlStatement(stmt, nesting, out)
}

// sqlStatement judges one statement's tokens (its words outside
// parentheses and its string constants).
func sqlStatement(stmt []sqlToken, nesting int, out *[]sqlProgram) {
	if len(stmt) == 0 || stmt[0].kind != 'w' {
		return
	}
	word := func(i int, w string) bool { return i < len(stmt) && stmt[i].kind == 'w' && stmt[i].text == w }
	switch first := stmt[0].text; {
	case first == "copy":
		for i := 1; i+1 < len(stmt); i++ {
			if word(i, "program") && stmt[i+1].kind == 's' {
				*out = append(*out, sqlProgram{lang: "copy", text: stmt[i+1].text})
				return
			}
		}
	case first == "do" || first == "create" && sqlCreatesRoutine(stmt):
		lang, body, seenBody := "plpgsql", "", false
		if first == "create" {
			lang = "sql"
		}
		for i := 1; i < len(stmt); i++ {
			switch {
			case word(i, "language") && i+1 < len(stmt) && (stmt[i+1].kind == 'w' || stmt[i+1].kind == 's'):
				lang = strings.ToLower(stmt[i+1].text)
				i++
			case stmt[i].kind == 's' && !seenBody && (first == "do" || word(i-1, "as")):
				body, seenBody = stmt[i].text, true
			}
		}
		if !seenBody {
			return
		}
		if fam, ok := untrustedLangs[lang]; ok {
			*out = append(*out, sqlProgram{lang: fam, text: body})
		} else if (lang == "plpgsql" || lang == "sql") && nesting < maxSQLNesting {
			readSQL(body, nesting+1, out)
		}
	case first == "execute" && nesting > 0:
		// EXECUTE 'COPY …' in a PL/pgSQL body runs that SQL.
		if len(stmt) > 1 && stmt[1].kind == 's' && nesting < maxSQLNesting {
			readSQL(stmt[1].text, nesting+1, out)
		}
	default:
		// A statement of a PL/pgSQL body may follow BEGIN, a label or a
		// condition on the same statement: look for COPY or EXECUTE in it.
		if nesting == 0 {
			return
		}
		for i := 1; i < len(stmt); i++ {
			if word(i, "copy") || word(i, "execute") {
				sqlStatement(stmt[i:], nesting, out)
				return
			}
		}
	}
}

// sqlCreatesRoutine reports whether a CREATE statement makes a function
// or procedure (CREATE [OR REPLACE] FUNCTION|PROCEDURE).
func sqlCreatesRoutine(stmt []sqlToken) bool {
	for _, t := range stmt[1:min(len(stmt), 4)] {
		if t.kind == 'w' && (t.text == "function" || t.text == "procedure") {
			return true
		}
	}
	return false
}

// sqlWordByte reports whether b continues an SQL identifier or keyword.
func sqlWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// before is the byte before text[i], or 0 at the start.
func before(text string, i int) byte {
	if i == 0 {
		return 0
	}
	return text[i-1]
}

// lineEnd is the index after the line feed that ends the line holding
// text[i], or len(text).
func lineEnd(text string, i int) int {
	if end := strings.IndexByte(text[i:], '\n'); end >= 0 {
		return i + end + 1
	}
	return len(text)
}

// blockCommentEnd is the index after the /* … */ comment at text[i],
// which may nest, or len(text).
func blockCommentEnd(text string, i int) int {
	level := 0
	for i < len(text) {
		switch {
		case strings.HasPrefix(text[i:], "/*"):
			level++
			i += 2
		case strings.HasPrefix(text[i:], "*/"):
			level--
			i += 2
			if level == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// sqlQuoted reads a string constant whose text starts at text[i], after
// its opening quote: ” is a quote; with escapes (E'…'), so are \' and the
// backslash escapes of a line feed, a tab and a backslash. It returns the
// value and the index after the closing quote.
func sqlQuoted(text string, i int, escapes bool) (string, int) {
	var b strings.Builder
	for i < len(text) {
		ch := text[i]
		switch {
		case ch == '\'' && i+1 < len(text) && text[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case ch == '\'':
			return b.String(), i + 1
		case escapes && ch == '\\' && i+1 < len(text):
			switch e := text[i+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
			i += 2
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String(), i
}

// sqlDollarQuoted reads a dollar-quoted string constant ($$…$$ or
// $tag$…$tag$) at text[i].
func sqlDollarQuoted(text string, i int) (string, int, bool) {
	j := i + 1
	for j < len(text) && text[j] != '$' {
		if b := text[j]; !(b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 || j > i+1 && b >= '0' && b <= '9') {
			return "", 0, false
		}
		j++
	}
	if j >= len(text) {
		return "", 0, false
	}
	tag := text[i : j+1]
	end := strings.Index(text[j+1:], tag)
	if end < 0 {
		return text[j+1:], len(text), true
	}
	return text[j+1 : j+1+end], j + 1 + end + len(tag), true
}

package assess

import "strings"

// envWord is one word env -S splits off: lit is false when the word holds a
// ${NAME} that env replaces with a variable's value.
type envWord struct {
	text string
	lit  bool
}

// envSplit splits the string of env -S (--split-string) into words as GNU
// env does: blanks separate words; '…' is literal but for \\ and \'; "…"
// and unquoted text take the escapes \" \' \\ \$ \# \_ (a space in double
// quotes, a separator outside them) \c (the end of the string) \f \n \r \t
// \v; a # that starts a word starts a comment to the end; ${NAME} is a
// variable's value. A string env would refuse (an unknown escape, a quote
// left open) is split at blanks, so that its words are still judged.
func envSplit(s string) []envWord {
	var words []envWord
	var cur strings.Builder
	inWord, lit := false, true
	end := func() {
		if inWord {
			words = append(words, envWord{cur.String(), lit})
		}
		cur.Reset()
		inWord, lit = false, true
	}
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '\'') {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\\':
			if i+1 >= len(s) {
				return fieldWords(s)
			}
			i++
			switch e := s[i]; e {
			case '"', '\'', '\\', '$', '#':
				cur.WriteByte(e)
				inWord = true
			case '_':
				if quote == '"' {
					cur.WriteByte(' ')
				} else {
					end()
				}
			case 'c':
				if quote == '"' {
					return fieldWords(s) // \c inside double quotes is refused
				}
				end()
				return words
			case 'f', 'n', 'r', 't', 'v':
				cur.WriteByte("\f\n\r\t\v"[strings.IndexByte("fnrtv", e)])
				inWord = true
			default:
				return fieldWords(s)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				if c == '$' && i+1 < len(s) && s[i+1] == '{' {
					lit = false
				}
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case envBlank(rune(c)):
			end()
		case c == '#' && !inWord:
			end()
			return words
		default:
			if c == '$' && i+1 < len(s) && s[i+1] == '{' {
				lit = false
			}
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return fieldWords(s)
	}
	end()
	return words
}

// envBlank reports whether r separates env -S's words: ASCII blanks only.
func envBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// fieldWords splits s at blanks: envSplit's reading of a string env
// refuses.
func fieldWords(s string) []envWord {
	fs := strings.FieldsFunc(s, envBlank)
	out := make([]envWord, len(fs))
	for i, f := range fs {
		out[i] = envWord{f, !strings.Contains(f, "${")}
	}
	return out
}

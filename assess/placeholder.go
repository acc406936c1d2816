package assess

import "strings"

// maxPlaceholder is the longest placeholder name taken for one.
const maxPlaceholder = 64

// docPlaceholder is one documentation placeholder in a line, and where.
type docPlaceholder struct {
	name string
	off  int
}

// placeholders finds documentation placeholders in angle brackets
// (<YOUR_API_KEY>, <your-token>, <project id>) outside quotes in a line a
// shell reads, where the shell would take them for redirections. It returns
// the line with each placeholder's brackets and blanks turned into '_' (so
// that every byte keeps its offset) and the placeholders found. quotes are
// the quote characters of the shell; escape is its escape character (0:
// none).
func placeholders(line, quotes string, escape byte) (string, []docPlaceholder) {
	if strings.IndexByte(line, '<') < 0 {
		return line, nil
	}
	var out []byte
	var names []docPlaceholder
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case escape != 0 && c == escape:
			i++
		case strings.IndexByte(quotes, c) >= 0:
			quote = c
		case c == '<':
			n := placeholderAt(line[i:])
			if n == 0 {
				continue
			}
			if out == nil {
				out = []byte(line)
			}
			for j := i; j < i+n; j++ {
				if out[j] == '<' || out[j] == '>' || out[j] == ' ' {
					out[j] = '_'
				}
			}
			names = append(names, docPlaceholder{name: line[i+1 : i+n-1], off: i})
			i += n - 1
		}
	}
	if out == nil {
		return line, nil
	}
	return string(out), names
}

// placeholderAt returns the length of the placeholder s starts with, or 0:
// '<', a letter, then letters, digits, '_', '-', '.' and single blanks
// between words, then '>'.
func placeholderAt(s string) int {
	if len(s) < 3 || !isLetter(s[1]) {
		return 0
	}
	for i := 2; i < len(s) && i <= maxPlaceholder+1; i++ {
		c := s[i]
		switch {
		case c == '>':
			if s[i-1] == ' ' {
				return 0
			}
			return i + 1
		case c == ' ':
			if s[i-1] == ' ' {
				return 0
			}
		case !(isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'):
			return 0
		}
	}
	return 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// placeholderLeft reports the placeholders a shell line carries, at the
// path pathAt gives for their offset (nil: path).
func (a *auditor) placeholderLeft(path string, pathAt func(int) string, found []docPlaceholder) {
	for _, p := range found {
		at := path
		if pathAt != nil {
			at = pathAt(p.off)
		}
		a.add(CodeDocPlaceholder, at, "the documentation placeholder "+quoted(p.name)+
			" in angle brackets is left in a line a shell reads, which takes it for a redirection; put the value, or a ${VAR} the user fills in, in its place")
	}
}

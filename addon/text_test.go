package addon

import (
	"math/rand/v2"
	"testing"

	"github.com/registryd/registryd/safetext"
)

// TestPlainTextAgreesWithSafetext: plainText never passes what
// safetext.Check refuses (with the same layout controls), and passes
// exactly printable ASCII plus, for lines, tab, LF and CR; every byte is
// tried at every offset of a word, and random strings near the edges of
// those ranges and beyond ASCII.
func TestPlainTextAgreesWithSafetext(t *testing.T) {
	check := func(s string) {
		t.Helper()
		for _, lines := range []bool{false, true} {
			allow := safetext.Allow(0)
			if lines {
				allow = safetext.Lines | safetext.CR
			}
			want := true
			for i := 0; i < len(s); i++ {
				c := s[i]
				want = want && (c >= 0x20 && c < 0x7F || lines && (c == '\t' || c == '\n' || c == '\r'))
			}
			got := plainText(s, lines)
			if got != want {
				t.Fatalf("plainText(%q, %v) = %v, want %v", s, lines, got, want)
			}
			if got && safetext.Check(s, allow) != nil {
				t.Fatalf("plainText(%q, %v) passes what safetext.Check refuses: %v", s, lines, safetext.Check(s, allow))
			}
		}
	}
	check("")
	for c := range 256 {
		for n := 1; n <= 9; n++ {
			for pos := range n {
				b := []byte("abcdefghi"[:n])
				b[pos] = byte(c)
				check(string(b))
			}
		}
	}
	// Every byte at every offset of a word that also holds line feeds,
	// which the word test leaves to the byte table.
	for c := range 256 {
		for pos := range 8 {
			b := []byte("\nbc\nef\ngh\n")
			b[pos] = byte(c)
			check(string(b))
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", " ", "~", "\x7f", "\x1f", "\t", "\n", "\r", "\x00", "é", "\u202e", "\xff"}
	for range 50000 {
		var b []byte
		for range r.IntN(12) {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		check(string(b))
	}
}

func TestPlainFileName(t *testing.T) {
	for _, name := range []string{"mcp-x.tar.gz", "mcp_x-1.2.3-x86_64.zip", "server", ".hidden", "a..b", "console.log", "COM10", "nul-x.zip"} {
		if !plainFileName(name) {
			t.Errorf("plainFileName(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"", ".", "..", "../x", "a/b", `a\b`, "/abs", `C:\x.exe`, "C:x", "a:stream",
		"x.", "x ", "NUL", "nul.tar.gz", "Con", "con.d", "aux.zip", "COM1", "lpt9.bin", "COM¹", "CONOUT$"} {
		if plainFileName(name) {
			t.Errorf("plainFileName(%q) = true, want false", name)
		}
	}
}

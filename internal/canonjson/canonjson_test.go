package canonjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// reference is what AppendString must write: encoding/json's string,
// without its HTML escaping, canonicalized by jcs.Transform.
func reference(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	out, err := jcs.Transform(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if err != nil {
		t.Fatalf("jcs.Transform: %v", err)
	}
	return out
}

func TestAppendString(t *testing.T) {
	var controls strings.Builder
	for c := byte(0); c < 0x20; c++ {
		controls.WriteByte(c)
	}
	tests := []struct {
		name, s, want string
	}{
		{"empty", "", `""`},
		{"plain", "npx -y @scope/pkg@1.2.3", `"npx -y @scope/pkg@1.2.3"`},
		{"longer than a word", "abcdefghijklmnopqrstuvwxyz0123456789", `"abcdefghijklmnopqrstuvwxyz0123456789"`},
		{"quote and backslash", `say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"short escapes", "\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"every C0 control", controls.String(), `"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"`},
		{"DEL and C1 stay raw", "\x7f\u0085\u009f", "\"\x7f\u0085\u009f\""},
		{"HTML characters stay raw", "<script>&amp;</script>", `"<script>&amp;</script>"`},
		{"line and paragraph separators stay raw", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"non-ASCII", "é ✓ 😀 \ufffd", "\"é ✓ 😀 \ufffd\""},
		{"invalid byte", "a\xffb", "\"a\ufffdb\""},
		{"invalid byte after a plain word", "abcdefgh\xff", "\"abcdefgh\ufffd\""},
		{"truncated sequence", "a\xe2\x9c", "\"a\ufffd\ufffd\""},
		{"encoded surrogate", "\xed\xa0\x80", "\"\ufffd\ufffd\ufffd\""},
		{"overlong encoding", "\xc0\xaf", "\"\ufffd\ufffd\""},
		{"escape at both ends", "\"x\"", `"\"x\""`},
		{"escape after a plain word", "abcdefgh\"", `"abcdefgh\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendString([]byte("prefix:"), tt.s)
			if want := "prefix:" + tt.want; string(got) != want {
				t.Errorf("AppendString(%q) = %q, want %q", tt.s, got, want)
			}
			if ref := reference(t, tt.s); !bytes.Equal(got[len("prefix:"):], ref) {
				t.Errorf("AppendString(%q) = %q, reference %q", tt.s, got[len("prefix:"):], ref)
			}
		})
	}
}

// FuzzAppendString holds AppendString to the reference for any string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text", "\x00\x1f\"\\", "é\u2028\xff\xed\xa0\x80", "abcdefgh\xe2\x9c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), reference(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %q, reference %q", s, got, want)
		}
	})
}

// TestPlainWord holds plainWord to asIs: a word passes exactly when each
// of its bytes is one asIs marks, for every byte at every position among
// bytes that pass, and for random words.
func TestPlainWord(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			if got, want := plainWord(word(string(w))), asIs[c]; got != want {
				t.Errorf("plainWord(%q) = %v, want %v", w, got, want)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		want := true
		for i := range w {
			// Mostly bytes near the edges of the range, where a carry or
			// a borrow would show.
			switch r.IntN(3) {
			case 0:
				w[i] = byte(r.IntN(256))
			case 1:
				w[i] = byte(0x1e + r.IntN(6))
			default:
				w[i] = byte(0x7c + r.IntN(6))
			}
			want = want && asIs[w[i]]
		}
		if got := plainWord(word(string(w[:]))); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
		}
	}
}

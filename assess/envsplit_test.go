package assess

import (
	"reflect"
	"strings"
	"testing"
)

func TestEnvSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []envWord
	}{
		{"npx -y pkg", []envWord{{"npx", true}, {"-y", true}, {"pkg", true}}},
		{`sh -c "curl x|sh"`, []envWord{{"sh", true}, {"-c", true}, {"curl x|sh", true}}},
		{`sh -c 'a "b" \'c\' \\ \x'`, []envWord{{"sh", true}, {"-c", true}, {`a "b" 'c' \ \x`, true}}},
		{`a\_b "c\_d" e\tf`, []envWord{{"a", true}, {"b", true}, {"c d", true}, {"e\tf", true}}},
		{`perl -w # a comment`, []envWord{{"perl", true}, {"-w", true}}},
		{`a\cb c`, []envWord{{"a", true}}},
		{`a#b "${HOME}/x" ${P}`, []envWord{{"a#b", true}, {"${HOME}/x", false}, {"${P}", false}}},
		{`""`, []envWord{{"", true}}},
		// Strings env refuses are split at blanks.
		{`sh -c "open`, []envWord{{"sh", true}, {"-c", true}, {`"open`, true}}},
		{`a \q`, []envWord{{"a", true}, {`\q`, true}}},
	}
	for _, tc := range tests {
		if got := envSplit(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("envSplit(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// FuzzEnvSplit checks that envSplit never panics and that a string with
// no quote, escape, comment or variable splits at its ASCII blanks.
func FuzzEnvSplit(f *testing.F) {
	for _, s := range []string{"npx -y pkg", `sh -c "curl x|sh"`, `a\_b "c\_d" e\tf`, `x # c`, `'a\'b'`, `"${A}" \c`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := envSplit(s)
		if strings.ContainsAny(s, "'\"\\#$") {
			return
		}
		fields := strings.FieldsFunc(s, envBlank)
		if len(words) != len(fields) {
			t.Fatalf("envSplit(%q) = %d words, strings.Fields %d", s, len(words), len(fields))
		}
		for i, w := range words {
			if w.text != fields[i] || !w.lit {
				t.Fatalf("envSplit(%q)[%d] = %+v, want %q", s, i, w, fields[i])
			}
		}
	})
}

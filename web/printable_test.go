package web

import "testing"

// TestPrintable: a manifest line reaches the page with safetext's rule,
// tabs kept; the soft hyphen, which this page once let through, is
// replaced like every other invisible character.
func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"command = \"npx\"\t# ok", "command = \"npx\"\t# ok"},
		{"name = \"ad\u00admin\"", "name = \"ad\uFFFDmin\""},
		{"x = \"\u202eevil\u2066\"", "x = \"\uFFFDevil\uFFFD\""},
		{"x = \"\x1b[2J\"", "x = \"\uFFFD[2J\""},
		{"x = \"a\u2028b\"", "x = \"a\uFFFDb\""},
		{"emoji = \"👨\u200d👩\"", "emoji = \"👨\u200d👩\""},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

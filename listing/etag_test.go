package listing

import "testing"

func TestETagMatches(t *testing.T) {
	const etag = `"sha256-ab"`
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{etag, true},
		{`W/"sha256-ab"`, true},
		{`"x", "sha256-ab"`, true},
		{"*", true},
		{`"sha256-ac"`, false},
		{`sha256-ab`, false},
	}
	for _, tt := range tests {
		if got := ETagMatches(tt.header, etag); got != tt.want {
			t.Errorf("ETagMatches(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

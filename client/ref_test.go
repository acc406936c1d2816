package client_test

import (
	"strings"
	"testing"

	"github.com/registryd/registryd/client"
)

func TestParseRef(t *testing.T) {
	good := []struct {
		in   string
		want client.Ref
	}{
		{"demo", client.Ref{Name: "demo"}},
		{"demo@1.0.0", client.Ref{Name: "demo", Version: "1.0.0"}},
		{"demo@1.0.0-rc.1+build.5", client.Ref{Name: "demo", Version: "1.0.0-rc.1+build.5"}},
	}
	for _, tt := range good {
		got, err := client.ParseRef(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("String() = %q, want %q", got.String(), tt.in)
		}
	}
	bad := []string{"", "@1.0.0", "demo@", "demo@v1.0.0", "demo@1.0", "demo@1.0.0@2.0.0", "a/b", "de\x1bmo", "de\u202emo", strings.Repeat("a", 257)}
	for _, in := range bad {
		if got, err := client.ParseRef(in); err == nil {
			t.Errorf("ParseRef(%q) = %+v, want an error", in, got)
		} else if strings.ContainsAny(err.Error(), "\x1b\u202e") {
			t.Errorf("ParseRef(%q): the error echoes the input: %v", in, err)
		}
	}
}

func TestManifestRef(t *testing.T) {
	ref := client.ManifestRef([]byte("test"))
	const want = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	if ref.ManifestSHA256 != want || ref.Name != "" || ref.String() != "sha256:"+want {
		t.Errorf("ManifestRef = %+v (%s)", ref, ref)
	}
}

package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrom(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want Info
	}{
		{
			name: "release with VCS",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
				{Key: "-buildmode", Value: "exe"},
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
				{Key: "vcs.time", Value: "2026-03-01T10:00:00Z"},
				{Key: "vcs.modified", Value: "false"},
			}},
			want: Info{Version: "v1.4.0", Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-03-01T10:00:00Z", GoVersion: "go1.26.8"},
		},
		{
			name: "modified tree",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20260301100000-0123456789ab+dirty"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0123456789ab"},
				{Key: "vcs.modified", Value: "true"},
			}},
			want: Info{Version: "v0.0.0-20260301100000-0123456789ab+dirty", Revision: "0123456789ab", Modified: true, GoVersion: "go1.26.8"},
		},
		{
			name: "built with -buildvcs=false",
			bi:   debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}},
			want: Info{Version: Devel, GoVersion: "go1.26.8"},
		},
		{
			name: "no main module version, a modified flag without a revision",
			bi:   debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}},
			want: Info{Version: Devel, GoVersion: "go1.26.8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, From(&tt.bi)); diff != "" {
				t.Errorf("From (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		in   Info
		want string
	}{
		{
			name: "with VCS",
			in:   Info{Version: "v1.4.0", Revision: "abc", Time: "2026-03-01T10:00:00Z", Modified: true, GoVersion: "go1.26.8"},
			want: "registryd v1.4.0\nrevision  abc (with uncommitted changes)\ncommitted 2026-03-01T10:00:00Z\ngo        go1.26.8\n",
		},
		{
			name: "without VCS",
			in:   Info{Version: Devel, GoVersion: "go1.26.8"},
			want: "registryd (devel)\nrevision  unknown (built without version control information)\ngo        go1.26.8\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.Lines(); got != tt.want {
				t.Errorf("Lines() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRead reads the test binary's own information: whatever the build
// flags, it names the Go version and a module version.
func TestRead(t *testing.T) {
	i := Read()
	if i.GoVersion == "" || i.Version == "" {
		t.Errorf("Read() = %+v, want a Go version and a module version", i)
	}
}

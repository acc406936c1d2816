// Package buildinfo says which build of registryd is running: the module
// version, the revision and commit time of the sources it was built from,
// whether they had uncommitted changes, and the Go version, as the Go
// toolchain stamped them into the binary (runtime/debug.ReadBuildInfo).
//
// A binary built without version control information (go build
// -buildvcs=false, a source tree outside Git, go run) has no revision,
// time or modified flag; Info says so instead of guessing.
package buildinfo

import (
	"log/slog"
	"runtime/debug"
	"strings"
)

// Devel is the module version of a build the toolchain could not version.
const Devel = "(devel)"

// Info describes one build. The zero value is a build nothing is known
// about.
type Info struct {
	// Version is the main module's version: a release tag (v1.2.3), a
	// pseudo-version, or Devel.
	Version string `json:"version"`
	// Revision is the VCS revision (a Git commit hash), "" when the build
	// carries none.
	Revision string `json:"revision"`
	// Time is the revision's commit time (RFC 3339), "" when unknown.
	Time string `json:"time"`
	// Modified reports that the working tree had changes not in Revision;
	// it is false when Revision is unknown.
	Modified bool `json:"modified"`
	// GoVersion is the toolchain that built the binary (go1.26.8).
	GoVersion string `json:"go"`
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: Devel}
	}
	return From(bi)
}

// From extracts an Info from a build's information.
func From(bi *debug.BuildInfo) Info {
	i := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if i.Version == "" {
		i.Version = Devel
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	if i.Revision == "" {
		i.Modified = false
	}
	return i
}

// HasVCS reports whether the build carries a VCS revision.
func (i Info) HasVCS() bool { return i.Revision != "" }

// Lines renders i for a person, one fact a line, as `registryd version`
// prints it.
func (i Info) Lines() string {
	var b strings.Builder
	b.WriteString("registryd " + i.Version + "\n")
	if i.HasVCS() {
		rev := i.Revision
		if i.Modified {
			rev += " (with uncommitted changes)"
		}
		b.WriteString("revision  " + rev + "\n")
		if i.Time != "" {
			b.WriteString("committed " + i.Time + "\n")
		}
	} else {
		b.WriteString("revision  unknown (built without version control information)\n")
	}
	b.WriteString("go        " + i.GoVersion + "\n")
	return b.String()
}

// LogValue renders i as a group of log attributes.
func (i Info) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("version", i.Version),
		slog.String("revision", i.Revision),
		slog.String("time", i.Time),
		slog.Bool("modified", i.Modified),
		slog.String("go", i.GoVersion),
	)
}

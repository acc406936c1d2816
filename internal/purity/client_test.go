package purity

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// clientSide are the packages of this module that package client (what an
// install client runs on a user's machine) may depend on: the report it
// decodes and what that is built from, the formats it verifies (and the
// canonical JSON strings they are written with), and the rule for text it
// prints. Nothing of the server — storage, the workflow,
// the HTTP surface, the job queue, a database driver — so that importing
// the client brings none of it.
var clientSide = []string{"client", "transparency", "report", "assess", "addon", "envpolicy", "registry", "safetext", "internal/canonjson"}

func TestClientStaysClientSide(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot list dependencies")
	}
	deps := listPackages(t, "-deps", "./client")
	if len(deps) == 0 {
		t.Fatal("go list -deps ./client found nothing")
	}
	for _, v := range serverSideDeps(deps) {
		t.Error(v)
	}
}

// serverSideDeps lists the dependencies of package client that are not
// client side.
func serverSideDeps(deps []pkg) []string {
	var out []string
	for _, d := range deps {
		rel, ok := strings.CutPrefix(d.ImportPath, module+"/")
		switch {
		case ok:
			if !isClientSide(rel) {
				out = append(out, "client depends on "+d.ImportPath+", which is server side")
			}
		case strings.HasPrefix(d.ImportPath, "database/sql"), strings.HasPrefix(d.ImportPath, "github.com/jackc/"),
			strings.HasPrefix(d.ImportPath, "modernc.org/sqlite"), strings.HasPrefix(d.ImportPath, "github.com/riverqueue/"):
			out = append(out, "client depends on "+d.ImportPath+", a database or queue package")
		}
	}
	return out
}

func isClientSide(rel string) bool {
	for _, c := range clientSide {
		if rel == c || strings.HasPrefix(rel, c+"/") {
			return true
		}
	}
	return false
}

// TestServerSideDepsDetects proves the check can fail.
func TestServerSideDepsDetects(t *testing.T) {
	deps := []pkg{
		{ImportPath: module + "/client"}, {ImportPath: module + "/report"}, {ImportPath: "net/http"},
		{ImportPath: module + "/storage"}, {ImportPath: module + "/clientele"}, {ImportPath: "github.com/jackc/pgx/v5"},
	}
	want := []string{
		"client depends on " + module + "/storage, which is server side",
		"client depends on " + module + "/clientele, which is server side",
		"client depends on github.com/jackc/pgx/v5, a database or queue package",
	}
	if diff := cmp.Diff(want, serverSideDeps(deps)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

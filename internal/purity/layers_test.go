package purity

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The storage layering (docs/architecture.md). Each technology is imported
// by the one package made for it, so that a database or the job queue can
// be changed in one place and nothing above storage depends on them.
var (
	// technologies maps an import path prefix to the only packages of this
	// module (non-test files) allowed to import it directly, and why.
	technologies = []technology{
		{
			prefix: "database/sql",
			// SQL is written once, in the SQL layer; the database packages
			// hand it their connections.
			// storetest, test support imported only by tests, writes the
			// log's tables straight (SeedLog) for tests that need more
			// leaves than publishing can write in their time.
			allowed: []string{"storage/sqlstore", "storage/postgres", "storage/sqlite", "storage/storetest"},
		},
		{
			prefix: "github.com/jackc/pgx",
			// pgtest clones test databases; storetest seeds the log.
			allowed: []string{"storage/postgres", "internal/pgtest", "storage/storetest"},
		},
		{
			prefix:  "modernc.org/sqlite",
			allowed: []string{"storage/sqlite"},
		},
		{
			prefix: "github.com/pressly/goose",
			// the database packages apply migrations; the SQL layer tells
			// whether they are current.
			allowed: []string{"storage/sqlstore", "storage/postgres", "storage/sqlite"},
		},
		{
			prefix: "github.com/riverqueue/",
			// The queue is River in jobs/riverjobs; the database packages
			// give it their River driver, and pgtest migrates the template
			// database's River schema.
			allowed: []string{"jobs/riverjobs", "storage/postgres", "storage/sqlite", "internal/pgtest"},
		},
	}

	// riverFree are the packages that must not reach River through any
	// dependency: the storage contracts and the job vocabulary, and what
	// builds on them.
	riverFree = []string{"./storage", "./storage/sqlstore", "./jobs", "./ghingest", "./workflow", "./api", "./web"}
)

type technology struct {
	prefix  string
	allowed []string // paths relative to the module
}

func TestTechnologiesStayInTheirPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot list packages")
	}
	pkgs := listPackages(t, "./...")
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	for _, v := range technologyViolations(pkgs) {
		t.Error(v)
	}
}

// technologyViolations returns one message per direct import of a
// technology by a package not allowed to.
func technologyViolations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			for _, tech := range technologies {
				if (imp == tech.prefix || strings.HasPrefix(imp, tech.prefix)) && !slices.Contains(tech.allowed, rel) {
					out = append(out, fmt.Sprintf("%s imports %s: only %s may", p.ImportPath, imp, strings.Join(tech.allowed, ", ")))
				}
			}
		}
	}
	return out
}

func TestStorageDoesNotReachRiver(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot list dependencies")
	}
	for _, root := range riverFree {
		deps := listPackages(t, "-deps", root)
		if len(deps) == 0 {
			t.Fatalf("go list -deps %s found nothing", root)
		}
		var river []string
		for _, d := range deps {
			if strings.HasPrefix(d.ImportPath, "github.com/riverqueue/") {
				river = append(river, d.ImportPath)
			}
		}
		if len(river) > 0 {
			sort.Strings(river)
			t.Errorf("%s depends on River (%s): only jobs/riverjobs and the database packages may", root, strings.Join(river, ", "))
		}
	}
}

// TestTechnologyViolationsDetects proves the check can fail.
func TestTechnologyViolationsDetects(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: module + "/storage", Imports: []string{"context", "github.com/riverqueue/river"}},
		{ImportPath: module + "/api", Imports: []string{"database/sql", "github.com/jackc/pgx/v5/pgxpool"}},
		{ImportPath: module + "/storage/sqlite", Imports: []string{"database/sql", "modernc.org/sqlite", "github.com/jackc/pgx/v5"}},
		{ImportPath: module + "/storage/postgres", Imports: []string{"database/sql", "github.com/jackc/pgx/v5", "github.com/riverqueue/river/riverdriver/riverpgxv5"}},
	}
	got := technologyViolations(pkgs)
	want := []string{
		module + "/storage imports github.com/riverqueue/river: only jobs/riverjobs, storage/postgres, storage/sqlite, internal/pgtest may",
		module + "/api imports database/sql: only storage/sqlstore, storage/postgres, storage/sqlite, storage/storetest may",
		module + "/api imports github.com/jackc/pgx/v5/pgxpool: only storage/postgres, internal/pgtest, storage/storetest may",
		module + "/storage/sqlite imports github.com/jackc/pgx/v5: only storage/postgres, internal/pgtest, storage/storetest may",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

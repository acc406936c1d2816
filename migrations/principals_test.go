package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/migrations"
)

// TestPrincipalsMigration fills a database at version 4 the way registryd
// left it (tokens named Alice and alice, a REST submission, a pending grant
// of verified, versions that differ only in build metadata) and checks what
// 00005 makes of it, on both dialects.
func TestPrincipalsMigration(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		checkPrincipalsMigration(t, goose.DialectSQLite3, db, migrations.SQLite())
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.NewEmptyDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		checkPrincipalsMigration(t, goose.DialectPostgres, db, migrations.Postgres())
	})
}

func checkPrincipalsMigration(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS) {
	ctx := context.Background()
	p := upTo(t, dialect, db, fsys, 4)
	// Times: SQLite stores integer microseconds, PostgreSQL timestamptz.
	at := func(sec int) any {
		if dialect == goose.DialectSQLite3 {
			return int64(sec) * 1e6
		}
		return "2026-01-01T00:00:0" + string(rune('0'+sec)) + "Z"
	}
	// Statements number their parameters ?1, ?2, …, which PostgreSQL
	// spells $1, $2, ….
	bind := func(q string) string {
		if dialect == goose.DialectPostgres {
			return strings.ReplaceAll(q, "?", "$")
		}
		return q
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, bind(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO api_tokens (id, name, role, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)`, "tok_2", "alice", "maintainer", []byte{2}, at(2))
	exec(`INSERT INTO api_tokens (id, name, role, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)`, "tok_1", "Alice", "maintainer", []byte{1}, at(1))
	exec(`INSERT INTO api_tokens (id, name, role, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)`, "tok_3", "bob", "submitter", []byte{3}, at(3))
	for i, v := range []string{"1.0.0+a", "1.0.0", "1.0.0+b", "2.0.0"} {
		id := "sub_" + string(rune('a'+i))
		exec(`INSERT INTO submissions (id, addon, version, manifest, manifest_sha256, format, source, submitter, submitter_token, status, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`, id, "demo", v, []byte("m"), "00", "toml", "rest", "bob", "tok_3", "approved", at(i+1), at(i+1))
		exec(`INSERT INTO versions (addon, version, submission_id, published_at) VALUES (?1, ?2, ?3, ?4)`, "demo", v, id, at(i+1))
	}
	exec(`INSERT INTO verify_approvals (addon, maintainer, at) VALUES (?1, ?2, ?3)`, "demo", "ALICE", at(5))

	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatalf("up to 5: %v", err)
	}
	rows := func(q string) [][]string {
		t.Helper()
		rs, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		var out [][]string
		for rs.Next() {
			vals := make([]string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, vals)
		}
		return out
	}
	ps := rows(`SELECT id, name, key FROM principals ORDER BY key`)
	if len(ps) != 2 {
		t.Fatalf("principals = %v, want one for alice and one for bob", ps)
	}
	aliceID, bobID := ps[0][0], ps[1][0]
	if diff := cmp.Diff([][]string{{aliceID, "Alice", "alice"}, {bobID, "bob", "bob"}}, ps); diff != "" || !strings.HasPrefix(aliceID, "prn_") {
		t.Errorf("principals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"tok_1", aliceID}, {"tok_2", aliceID}, {"tok_3", bobID}},
		rows(`SELECT id, principal_id FROM api_tokens ORDER BY id`)); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{bobID}}, rows(`SELECT DISTINCT submitter_principal FROM submissions`)); diff != "" {
		t.Errorf("submitter principals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{aliceID}}, rows(`SELECT principal FROM verify_approvals`)); diff != "" {
		t.Errorf("verify approval principal (-want +got):\n%s", diff)
	}
	want := [][]string{{"1.0.0", "1.0.0+"}, {"1.0.0+a", "1.0.0"}, {"1.0.0+b", "1.0.0+b+"}, {"2.0.0", "2.0.0"}}
	if diff := cmp.Diff(want, rows(`SELECT version, version_key FROM versions ORDER BY version`)); diff != "" {
		t.Errorf("version keys (-want +got):\n%s", diff)
	}
	// The key is unique from now on.
	exec(`INSERT INTO submissions (id, addon, version, manifest, manifest_sha256, format, source, status, created_at, updated_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`, "sub_z", "demo", "2.0.0+z", []byte("m"), "00", "toml", "rest", "pending", at(6), at(6))
	if _, err := db.ExecContext(ctx, bind(`INSERT INTO versions (addon, version, version_key, submission_id, published_at)
		VALUES ('demo', '2.0.0+z', ?1, ?2, ?3)`), "2.0.0", "sub_z", at(6)); err == nil {
		t.Error("a second version with the key 2.0.0 was accepted")
	}
	if _, err := p.DownTo(ctx, 4); err != nil {
		t.Fatalf("down to 4: %v", err)
	}
}

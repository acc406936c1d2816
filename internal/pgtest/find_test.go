package pgtest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestFindWith(t *testing.T) {
	up := func(u string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return u, nil }
	}
	down := func(why string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return "", errors.New(why) }
	}
	okPrepare := func(context.Context, string) (string, error) { return "tpl", nil }
	badPrepare := func(context.Context, string) (string, error) { return "", errors.New("cannot migrate") }

	tests := []struct {
		name    string
		env     string
		sources []source
		prepare func(context.Context, string) (string, error)
		wantURL string
		wantHow string
		wantErr string // substring; "" for success
		skip    bool
	}{
		{"env wins", "postgres://env/postgres", []source{{"docker", up("postgres://docker/postgres")}}, okPrepare,
			"postgres://env/postgres", EnvURL, "", false},
		{"env set but broken fails, no fallback", "postgres://env/postgres", []source{{"docker", up("postgres://docker/postgres")}}, badPrepare,
			"", "", "cannot migrate", false},
		{"first source that starts", "", []source{{"docker", down("no Docker daemon answers")}, {"local binaries", up("postgres://local/postgres")}}, okPrepare,
			"postgres://local/postgres", "local binaries", "", false},
		{"none: skip with advice and reasons", "", []source{{"docker", down("no Docker daemon answers")}, {"local binaries", down("no initdb")}}, okPrepare,
			"", "", EnvURL, true},
		{"a started server that cannot be prepared is an error", "", []source{{"docker", up("postgres://docker/postgres")}}, badPrepare,
			"", "", "cannot migrate", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := findWith(context.Background(), tc.env, tc.sources, tc.prepare)
			if tc.wantErr == "" {
				if s.err != nil || s.adminURL != tc.wantURL || s.how != tc.wantHow || s.template != "tpl" {
					t.Errorf("got %+v, want url %q how %q template tpl", s, tc.wantURL, tc.wantHow)
				}
				return
			}
			if s.err == nil || !strings.Contains(s.err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", s.err, tc.wantErr)
			}
			if s.skip != tc.skip {
				t.Errorf("skip = %v, want %v", s.skip, tc.skip)
			}
			if tc.skip {
				for _, reason := range []string{"no Docker daemon answers", "no initdb"} {
					if !strings.Contains(s.err.Error(), reason) {
						t.Errorf("skip message %q does not say %q", s.err, reason)
					}
				}
			}
		})
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct {
		in, name, want string
		err            bool
	}{
		{"postgres://u@h:5432/postgres?sslmode=disable", "db1", "postgres://u@h:5432/db1?sslmode=disable", false},
		{"postgresql://u:p@h/postgres", "db2", "postgresql://u:p@h/db2", false},
		{"host=h user=u", "db", "", true},
	}
	for _, tc := range tests {
		got, err := withDatabase(tc.in, tc.name)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("withDatabase(%q, %q) = %q, %v; want %q (error %v)", tc.in, tc.name, got, err, tc.want, tc.err)
		}
	}
}

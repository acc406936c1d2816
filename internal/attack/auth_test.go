package attack

import (
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
)

const cleanManifest = `[addon]
name = "clean-tool"
version = "1.0.0"
description = "Reads files."

[mcp]
command = "/usr/local/bin/clean-tool"
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
`

// TestTokensAndRoles: no token, a made-up token and a revoked token are
// 401 everywhere a token is needed, and a role below the route's is 403.
func TestTokensAndRoles(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := Start(t, st, nil)
		sam := s.Token("sam", "submitter")
		revoked := s.Token("rex", "maintainer")
		out, errOut, code := s.Run("token", "list")
		if code != 0 {
			t.Fatalf("token list: exit %d: %s", code, errOut)
		}
		var revokedID string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 1 && strings.Contains(line, "rex") {
				revokedID = f[0]
			}
		}
		if _, errOut, code := s.Run("token", "revoke", revokedID); code != 0 {
			t.Fatalf("token revoke %q: exit %d: %s", revokedID, code, errOut)
		}

		for _, tc := range []struct {
			name, method, path, token string
			want                      int
		}{
			{"submit without token", "POST", "/v1/submissions", "", http.StatusUnauthorized},
			{"submit with a made-up token", "POST", "/v1/submissions", "rgd_made-up", http.StatusUnauthorized},
			{"submit with a revoked token", "POST", "/v1/submissions", revoked, http.StatusUnauthorized},
			{"audit log as submitter", "GET", "/v1/audit-log", sam, http.StatusForbidden},
			{"approve as submitter", "POST", "/v1/submissions/sub_x/approve", sam, http.StatusForbidden},
			{"verify as submitter", "PUT", "/v1/addons/clean-tool/verified", sam, http.StatusForbidden},
		} {
			r := s.Do(Request{Method: tc.method, Path: tc.path, Token: tc.token, ContentType: "application/toml", Body: strings.NewReader(cleanManifest)})
			if r.Status != tc.want {
				t.Errorf("%s: status %d, want %d: %s", tc.name, r.Status, tc.want, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
				t.Errorf("%s: Content-Type %q, want application/problem+json", tc.name, ct)
			}
		}
		if r := s.Do(Request{Method: "POST", Path: "/v1/submissions", Token: sam, ContentType: "application/toml", Body: strings.NewReader(cleanManifest)}); r.Status != http.StatusCreated {
			t.Errorf("submit with a valid token: status %d, want 201: %s", r.Status, r.Body)
		}
	})
}

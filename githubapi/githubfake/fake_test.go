package githubfake_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/githubapi/githubfake"
)

const tok = "ghs_fake"

type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, s *githubfake.Server, method, path, auth, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(s.URL, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("answer is not the expected JSON: %v\n%s", err, b)
	}
	return v
}

func TestAuthorization(t *testing.T) {
	s := githubfake.NewTest(t, tok)
	s.AddPullRequest("o", "r", 1)
	tests := []struct {
		name, auth string
		want       int
		wantMsg    string
	}{
		{"bearer", "Bearer " + tok, 200, ""},
		{"token scheme", "token " + tok, 200, ""},
		{"missing", "", 401, "Requires authentication"},
		{"wrong", "Bearer nope", 401, "Bad credentials"},
		{"basic", "Basic " + base64.StdEncoding.EncodeToString([]byte("x:"+tok)), 401, "Bad credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := do(t, s, "GET", "/repos/o/r/pulls/1/files", tt.auth, "")
			if a.status != tt.want {
				t.Fatalf("status %d, want %d", a.status, tt.want)
			}
			if tt.wantMsg != "" {
				if got := decode[map[string]string](t, a.body)["message"]; got != tt.wantMsg {
					t.Errorf("message %q, want %q", got, tt.wantMsg)
				}
			}
		})
	}
}

var linkRE = regexp.MustCompile(`<([^>]+)>; rel="(\w+)"`)

func links(t *testing.T, h http.Header) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range linkRE.FindAllStringSubmatch(h.Get("Link"), -1) {
		q := m[1][strings.IndexByte(m[1], '?')+1:]
		out[m[2]] = q
	}
	return out
}

func TestPagination(t *testing.T) {
	s := githubfake.NewTest(t, "")
	files := make([]githubfake.File, 250)
	for i := range files {
		files[i] = githubfake.File{Filename: "f" + strings.Repeat("x", i%5), Status: "added"}
	}
	s.AddPullRequest("o", "r", 9, files...)
	tests := []struct {
		query     string
		wantN     int
		wantLinks map[string]string
	}{
		{"", 30, map[string]string{"next": "page=2&per_page=30", "last": "page=9&per_page=30"}},
		{"?per_page=100", 100, map[string]string{"next": "page=2&per_page=100", "last": "page=3&per_page=100"}},
		{"?per_page=100&page=2", 100, map[string]string{"prev": "page=1&per_page=100", "next": "page=3&per_page=100", "last": "page=3&per_page=100", "first": "page=1&per_page=100"}},
		{"?per_page=100&page=3", 50, map[string]string{"prev": "page=2&per_page=100", "first": "page=1&per_page=100"}},
		{"?per_page=100&page=4", 0, map[string]string{"prev": "page=3&per_page=100", "first": "page=1&per_page=100"}},
		{"?per_page=500", 100, map[string]string{"next": "page=2&per_page=100", "last": "page=3&per_page=100"}},
		{"?per_page=250", 100, map[string]string{"next": "page=2&per_page=100", "last": "page=3&per_page=100"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			a := do(t, s, "GET", "/repos/o/r/pulls/9/files"+tt.query, "", "")
			if a.status != 200 {
				t.Fatalf("status %d", a.status)
			}
			got := decode[[]map[string]any](t, a.body)
			if len(got) != tt.wantN {
				t.Errorf("%d files, want %d", len(got), tt.wantN)
			}
			if diff := cmp.Diff(tt.wantLinks, links(t, a.header)); diff != "" {
				t.Errorf("Link (-want +got):\n%s", diff)
			}
			for _, f := range got {
				for _, k := range []string{"sha", "filename", "status", "additions", "deletions", "changes", "blob_url", "raw_url", "contents_url"} {
					if _, ok := f[k]; !ok {
						t.Fatalf("file entry lacks %q: %v", k, f)
					}
				}
			}
		})
	}
}

func TestContentsWireFormat(t *testing.T) {
	s := githubfake.NewTest(t, "")
	s.PutFile("o", "r", "main", "hello.txt", []byte("hello\n"))
	long := strings.Repeat("0123456789", 20)
	s.PutFile("o", "r", "main", "dir/long.txt", []byte(long))
	s.PutFile("o", "r", "main", "dir/sub/x.txt", []byte("x"))
	s.PutFile("o", "r", "main", "big.bin", make([]byte, 1<<20+1))

	a := do(t, s, "GET", "/repos/o/r/contents/hello.txt?ref=main", "", "")
	f := decode[map[string]any](t, a.body)
	// The blob name git gives "hello\n".
	want := map[string]any{"type": "file", "encoding": "base64", "size": float64(6), "name": "hello.txt", "path": "hello.txt",
		"sha": "ce013625030ba8dba906f756967f9e9ca394464a", "content": "aGVsbG8K\n"}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %v, want %v", k, f[k], v)
		}
	}
	if a.header.Get("X-RateLimit-Remaining") == "" || a.header.Get("X-RateLimit-Reset") == "" {
		t.Errorf("no rate-limit headers on a success: %v", a.header)
	}

	a = do(t, s, "GET", "/repos/o/r/contents/dir/long.txt?ref=main", "", "")
	content := decode[map[string]any](t, a.body)["content"].(string)
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		if len(l) != 60 {
			t.Errorf("base64 line of %d characters, want 60", len(l))
		}
	}
	if b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(content, "\n", "")); err != nil || string(b) != long {
		t.Errorf("content does not decode to the file: %v", err)
	}

	a = do(t, s, "GET", "/repos/o/r/contents/big.bin?ref=main", "", "")
	big := decode[map[string]any](t, a.body)
	if big["encoding"] != "none" || big["content"] != "" || big["size"] != float64(1<<20+1) {
		t.Errorf("file over 1 MB: encoding %v content %d chars size %v; want none, empty, the size", big["encoding"], len(big["content"].(string)), big["size"])
	}

	a = do(t, s, "GET", "/repos/o/r/contents/dir?ref=main", "", "")
	dir := decode[[]map[string]any](t, a.body)
	var got []string
	for _, e := range dir {
		got = append(got, e["type"].(string)+" "+e["path"].(string))
	}
	if diff := cmp.Diff([]string{"file dir/long.txt", "dir dir/sub"}, got); diff != "" {
		t.Errorf("directory listing (-want +got):\n%s", diff)
	}

	for _, p := range []string{"/repos/o/r/contents/nope?ref=main", "/repos/o/r/contents/hello.txt?ref=other", "/repos/x/y/contents/hello.txt"} {
		if a := do(t, s, "GET", p, "", ""); a.status != 404 || decode[map[string]string](t, a.body)["message"] != "Not Found" {
			t.Errorf("GET %s: %d %s, want GitHub's 404", p, a.status, a.body)
		}
	}
}

func TestStatusesAndComments(t *testing.T) {
	s := githubfake.NewTest(t, "")
	s.AddPullRequest("o", "r", 1)
	sha := strings.Repeat("a", 40)
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"status created", "POST", "/repos/o/r/statuses/" + sha, `{"state":"success","context":"c","description":"d","target_url":"https://x/"}`, 201},
		{"status bad state", "POST", "/repos/o/r/statuses/" + sha, `{"state":"green"}`, 422},
		{"status description too long", "POST", "/repos/o/r/statuses/" + sha, `{"state":"success","description":"` + strings.Repeat("x", 141) + `"}`, 422},
		{"status bad sha", "POST", "/repos/o/r/statuses/xyz", `{"state":"success"}`, 422},
		{"status bad JSON", "POST", "/repos/o/r/statuses/" + sha, `{`, 400},
		{"status unknown repo", "POST", "/repos/o/nope/statuses/" + sha, `{"state":"success"}`, 404},
		{"comment created", "POST", "/repos/o/r/issues/1/comments", `{"body":"hi"}`, 201},
		{"comment empty", "POST", "/repos/o/r/issues/1/comments", `{"body":""}`, 422},
		{"comment on unknown issue", "POST", "/repos/o/r/issues/2/comments", `{"body":"hi"}`, 404},
		{"edit unknown comment", "PATCH", "/repos/o/r/issues/comments/1", `{"body":"hi"}`, 404},
		{"compare without range", "GET", "/repos/o/r/compare/main", "", 404},
		{"unknown endpoint", "GET", "/repos/o/r/pulls/1/reviews", "", 404},
		{"unknown pull request", "GET", "/repos/o/r/pulls/99", "", 404},
		{"tree of an unknown commit", "GET", "/repos/o/r/git/trees/" + sha, "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := do(t, s, tt.method, tt.path, "", tt.body)
			if a.status != tt.want {
				t.Fatalf("status %d, want %d: %s", a.status, tt.want, a.body)
			}
			if a.header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", a.header.Get("Content-Type"))
			}
			m := decode[map[string]any](t, a.body)
			if tt.want >= 400 && m["message"] == nil {
				t.Errorf("error without a message: %s", a.body)
			}
			if tt.want == 422 && m["errors"] == nil {
				t.Errorf("422 without errors: %s", a.body)
			}
		})
	}
	st := s.Statuses("o", "r")
	if len(st) != 1 || st[0].State != "success" || st[0].Context != "c" || st[0].SHA != sha {
		t.Errorf("recorded statuses %+v, want the one created", st)
	}
	cs := s.Comments("o", "r", 1)
	if len(cs) != 1 || cs[0].Body != "hi" || cs[0].User != githubfake.BotLogin {
		t.Errorf("recorded comments %+v, want the one created", cs)
	}
	a := do(t, s, "PATCH", "/repos/o/r/issues/comments/"+strconv.FormatInt(cs[0].ID, 10), "", `{"body":"edited"}`)
	if a.status != 200 || decode[map[string]any](t, a.body)["body"] != "edited" {
		t.Errorf("edit: %d %s", a.status, a.body)
	}
}

func TestFailNextOrderAndHeaders(t *testing.T) {
	s := githubfake.NewTest(t, "")
	s.AddPullRequest("o", "r", 1)
	reset := time.Unix(1_900_000_000, 0)
	s.FailNext(githubfake.RoutePullFiles, 2, githubfake.TooManyRequests(5*time.Second))
	s.FailNext(githubfake.RoutePullFiles, 1, githubfake.PrimaryRateLimit(reset))
	s.FailNext(githubfake.RoutePullFiles, 1, githubfake.SecondaryRateLimit(9*time.Second))
	type got struct {
		Status                int
		RetryAfter, Remaining string
		Reset, Doc            string
	}
	want := []got{
		{429, "5", "4000", "", "https://docs.github.com/rest"},
		{429, "5", "4000", "", "https://docs.github.com/rest"},
		{403, "", "0", "1900000000", "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
		{403, "9", "4000", "", "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"},
		{200, "", "4999", "", ""},
	}
	for i, w := range want {
		a := do(t, s, "GET", "/repos/o/r/pulls/1/files", "", "")
		g := got{Status: a.status, RetryAfter: a.header.Get("Retry-After"), Remaining: a.header.Get("X-RateLimit-Remaining")}
		if w.Reset != "" {
			g.Reset = a.header.Get("X-RateLimit-Reset")
		}
		if a.status != 200 {
			g.Doc = decode[map[string]string](t, a.body)["documentation_url"]
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("answer %d (-want +got):\n%s", i, diff)
		}
	}
	if n := s.Calls(githubfake.RoutePullFiles); n != 5 {
		t.Errorf("Calls = %d, want 5", n)
	}
}

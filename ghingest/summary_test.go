package ghingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

func TestMDText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"addons/fs/lean-ctx-addon.toml", "addons/fs/lean-ctx-addon.toml"},
		{"a`b", "a?b"},
		{"a|b", "a?b"},
		{"<img src=x onerror=alert(1)>", "?img src=x onerror=alert(1)?"},
		{"x\ny", "x?y"},
		{"evil\u202etxt", "evil?txt"},
		{"a\\b&c", "a?b?c"},
		{strings.Repeat("a", 400), strings.Repeat("a", 300)},
	}
	for _, tc := range tests {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSafeText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"plain error", 100, "plain error"},
		{"bell\x07 and \x1b[31mred", 100, "bell\ufffd and \ufffd[31mred"},
		{"bidi\u202eflip", 100, "bidi\ufffdflip"},
		{"bad utf8 \xff", 100, "bad utf8 \ufffd"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abc…"},
		{"soft\u00adhyphen", 100, "soft\ufffdhyphen"},
	}
	for _, tc := range tests {
		if got := safeText(tc.in, tc.max); got != tc.want {
			t.Errorf("safeText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func res(path string, v registry.Verdict, danger, warn int) result {
	return result{path: path, sub: registry.Submission{ID: "sub_" + strings.ReplaceAll(path, "/", "_")},
		report: &report.Report{Addon: report.Addon{Name: "a", Version: "1.0.0"}, Verdict: v, Counts: report.Counts{Danger: danger, Warn: warn}}}
}

func TestStatus(t *testing.T) {
	w := &Worker{statusCtx: githubapi.DefaultStatusContext, public: "https://r.example"}
	tests := []struct {
		name    string
		results []result
		want    githubapi.Status
	}{
		{"pass", []result{res("p", registry.VerdictPass, 0, 0)},
			githubapi.Status{State: githubapi.StateSuccess, Description: "pass: a@1.0.0, 0 danger, 0 warn, 0 info", TargetURL: "https://r.example/v1/submissions/sub_p/report", Context: "registryd/audit"}},
		{"review is success", []result{res("p", registry.VerdictPass, 0, 0), res("r", registry.VerdictReview, 0, 2)},
			githubapi.Status{State: githubapi.StateSuccess, Description: "review: 2 manifests, 0 danger, 2 warn, 0 info", TargetURL: "https://r.example/v1/submissions/sub_r/report", Context: "registryd/audit"}},
		{"worst links", []result{res("r", registry.VerdictReview, 0, 1), res("f", registry.VerdictFail, 1, 0), res("p", registry.VerdictPass, 0, 0)},
			githubapi.Status{State: githubapi.StateFailure, Description: "fail: 3 manifests, 1 danger, 1 warn, 0 info", TargetURL: "https://r.example/v1/submissions/sub_f/report", Context: "registryd/audit"}},
		{"refusal wins", []result{res("f", registry.VerdictFail, 1, 0), {path: "x/<b>.toml", refusal: &refusal{field: "mcp.comand", message: "unknown key"}}},
			githubapi.Status{State: githubapi.StateFailure, Description: "refused: x/<b>.toml: mcp.comand: unknown key", Context: "registryd/audit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, w.status(tc.results)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommentHostilePaths: a file name cannot break out of its code span
// or table cell, and the comment stays within GitHub's limit however many
// manifests a pull request touches.
func TestCommentHostilePaths(t *testing.T) {
	w := &Worker{public: "https://r.example"}
	hostile := "addons/x`</code><img src=x onerror=alert(1)>|@everyone\u202e/lean-ctx-addon.toml"
	var results []result
	for i := range 60 {
		r := res(fmt.Sprintf("addons/%d/lean-ctx-addon.toml", i), registry.VerdictReview, 0, 1)
		r.report.Findings = make([]report.Finding, 15)
		for j := range r.report.Findings {
			r.report.Findings[j] = report.Finding{Level: registry.LevelWarn, Code: "unpinned", Path: "mcp.args[1]", Message: "floating <tag> | x"}
		}
		results = append(results, r)
	}
	results[0].path = hostile
	results[1] = result{path: hostile, refusal: &refusal{field: "mcp.`x`", message: "bad <b>"}}
	body := w.comment("ec26c3e57ca3a959ca5aad62de7213c562f8c821", results)
	if !strings.HasPrefix(body, CommentMarker+"\n") {
		t.Errorf("comment does not start with the marker")
	}
	for _, bad := range []string{"<img", "</code>", "\u202e", "<tag>", "<b>", "`x`"} {
		if strings.Contains(body, bad) {
			t.Errorf("comment contains %q", bad)
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "| `") && strings.Count(line, "|") != 8 {
			t.Errorf("table row has %d cell separators, want 8: %q", strings.Count(line, "|"), line)
		}
	}
	for _, want := range []string{"…and 10 more manifests.", "- …and 5 more", "overall **refused**", "(1 refused)"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if len(body) > githubapi.MaxCommentBytes {
		t.Errorf("comment is %d bytes, over GitHub's %d", len(body), githubapi.MaxCommentBytes)
	}
}

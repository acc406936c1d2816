package registry_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/registryd/registryd/registry"
)

func TestPaths(t *testing.T) {
	tests := []struct{ got, want string }{
		{registry.SubmissionPath("sub_1"), "/v1/submissions/sub_1"},
		{registry.SubmissionReportPath("sub_1"), "/v1/submissions/sub_1/report"},
		{registry.AddonPath("demo"), "/v1/addons/demo"},
		{registry.AddonReportPath("demo"), "/v1/addons/demo/report"},
		{registry.AddonBadgePath("demo"), "/v1/addons/demo/badge.svg"},
		{registry.VersionReportPath("demo", "1.0.0-rc.1+b.7"), "/v1/addons/demo/versions/1.0.0-rc.1+b.7/report"},
		{registry.VersionReportPath("demo", "../../../v1/audit-log?x="), "/v1/addons/demo/versions/..%2F..%2F..%2Fv1%2Faudit-log%3Fx=/report"},
		{registry.VersionReportPath("demo", ".."), "/v1/addons/demo/versions/%2E%2E/report"},
		{registry.VersionReportPath("demo", "."), "/v1/addons/demo/versions/%2E/report"},
		{registry.SuppressionPath("demo", "sup#1"), "/v1/addons/demo/suppressions/sup%231"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestPathSegmentRoundTrip: whatever a segment holds, a URL built with it
// resolves to the same path (no dot segment collapses), has no query or
// fragment, and its escaped segment decodes back to the value.
func TestPathSegmentRoundTrip(t *testing.T) {
	for _, v := range []string{"1.0.0", "1.0.0+a", "1.0.0-rc.1+b.7", "..", ".", "...", "a/b", "?x=1", "#top", "%2F", "a b", "ü", "../../../v1/audit-log?x="} {
		p := registry.VersionReportPath("demo", v)
		base, _ := url.Parse("https://registry.example/")
		ref, err := url.Parse(p)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		u := base.ResolveReference(ref)
		if u.RawQuery != "" || u.Fragment != "" {
			t.Errorf("%q: the link has a query %q or fragment %q", v, u.RawQuery, u.Fragment)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 7 || segs[1] != "v1" || segs[2] != "addons" || segs[4] != "versions" || segs[6] != "report" {
			t.Fatalf("%q: resolved to %q", v, u.EscapedPath())
		}
		got, err := url.PathUnescape(segs[5])
		if err != nil || got != v {
			t.Errorf("%q: segment %q decodes to %q (%v)", v, segs[5], got, err)
		}
	}
}

func TestBlockedError(t *testing.T) {
	var fs []registry.StoredFinding
	for i := range 12 {
		fs = append(fs, registry.StoredFinding{Finding: registry.Finding{Code: "shell_exec", Path: "mcp.args[" + string(rune('0'+i%10)) + "]"}})
	}
	fs[0].Path = ""
	err := &registry.BlockedError{Findings: fs}
	msg := err.Error()
	for _, want := range []string{"blocks publication: shell_exec at (manifest), shell_exec at mcp.args[1]", ", and 2 more;", "override and a reason"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Error() = %q, want it to contain %q", msg, want)
		}
	}
	if !errors.Is(err, registry.ErrConflict) || errors.Is(err, registry.ErrInvalid) {
		t.Error("a BlockedError must match ErrConflict only")
	}
}

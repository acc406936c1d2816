package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
)

// rewiredManifest is manifest(name, version) launching another program
// and granting it every execution.
func rewiredManifest(name, version string) string {
	m := strings.Replace(manifest(name, version), `command = "`+name+`-server"`, `command = "`+name+`-helper"`, 1)
	return m + "\n[capabilities]\nexec = \"full\"\n"
}

// verifyAddon grants verified to name with both maintainers.
func (e *env) verifyAddon(t *testing.T, name string) {
	t.Helper()
	for i, tok := range []string{e.maintainer, e.maintainer2} {
		r := e.do(t, req{method: "PUT", path: "/v1/addons/" + name + "/verified", token: tok, ctype: "application/json",
			body: jsonBody(map[string]any{"verified": true, "reason": "read the source"})})
		if want := []int{http.StatusAccepted, http.StatusOK}[i]; r.status != want {
			t.Fatalf("grant %d = %d, want %d\n%s", i+1, r.status, want, r.body)
		}
	}
}

// badgeMessage returns the message of name's shields.io endpoint badge.
func (e *env) badgeMessage(t *testing.T, name string) string {
	t.Helper()
	return e.do(t, req{method: "GET", path: "/v1/addons/" + name + "/badge.json"}).json(t)["message"].(string)
}

// TestVerifiedBoundToWiring is the attack of a new version that changes
// what runs: verified by two maintainers, the addon gets a new version
// from another submitter with another command and exec = "full", approved
// by one maintainer. The badge must stop saying verified, and the new
// version's report must be community, while the version that was verified
// keeps its tier. A version that changes only the description keeps
// verified.
func TestVerifiedBoundToWiring(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, manifest("weather", "1.0.0"))
		e.verifyAddon(t, "weather")
		if got := e.badgeMessage(t, "weather"); got != "verified" {
			t.Fatalf("badge after the grant = %q, want verified", got)
		}
		verifiedWiring := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).json(t)["wiring_sha256"].(string)
		e.publish(t, manifest("pending", "1.0.0"))
		first := e.do(t, req{method: "PUT", path: "/v1/addons/pending/verified", token: e.maintainer, ctype: "application/json",
			body: jsonBody(map[string]any{"verified": true, "reason": "first"})}).json(t)
		pendingWiring := e.do(t, req{method: "GET", path: "/v1/addons/pending/report"}).json(t)["wiring_sha256"]
		if w := first["approval"].(map[string]any)["wiring_sha256"]; w != pendingWiring {
			t.Errorf("the first approval approves wiring %v, want the latest version's %v", w, pendingWiring)
		}
		if w := e.do(t, req{method: "GET", path: "/v1/addons/pending"}).json(t)["pending_verification"].(map[string]any)["wiring_sha256"]; w != pendingWiring {
			t.Errorf("pending_verification.wiring_sha256 = %v, want %v", w, pendingWiring)
		}

		id := submissionID(t, e.submit(t, e.submitter2, rewiredManifest("weather", "2.0.0"), http.StatusCreated))
		pending := e.do(t, req{method: "GET", path: "/v1/submissions/" + id, token: e.maintainer}).json(t)
		if base := pending["wiring_base"].(map[string]any); base["version"] != "1.0.0" || base["wiring_sha256"] != verifiedWiring {
			t.Errorf("wiring_base = %v, want 1.0.0 with the verified wiring", base)
		}
		type change struct{ Field, Key, Change, Old, New string }
		var got []change
		for _, c := range pending["wiring_changes"].([]any) {
			m := c.(map[string]any)
			old, _ := m["old"].(string)
			nw, _ := m["new"].(string)
			got = append(got, change{m["field"].(string), m["key"].(string), m["change"].(string), old, nw})
		}
		want := []change{
			{"capabilities.env", "", "added", "", "[]"},
			{"capabilities.exec", "", "added", "", "full"},
			{"capabilities.exec_allow", "", "added", "", "[]"},
			{"capabilities.filesystem", "", "added", "", "read_only"},
			{"capabilities.network", "", "added", "", "none"},
			{"mcp.command", "", "changed", "weather-server", "weather-helper"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("wiring_changes (-want +got):\n%s", diff)
		}
		if w := pending["submission"].(map[string]any)["wiring_sha256"]; w == verifiedWiring || w == "" {
			t.Errorf("the new version's wiring_sha256 = %v, want a digest other than the verified one", w)
		}
		if tier := e.do(t, req{method: "GET", path: "/v1/submissions/" + id + "/report", token: e.maintainer}).json(t)["tier"]; tier != "community" {
			t.Errorf("the pending version's report tier = %v, want community", tier)
		}

		e.approve(t, e.maintainer, id, http.StatusOK)
		if got := e.badgeMessage(t, "weather"); strings.Contains(got, "verified") {
			t.Errorf("badge after a one-maintainer approval of a new wiring = %q, want no verified", got)
		}
		if svg := e.do(t, req{method: "GET", path: "/v1/addons/weather/badge.svg"}).body; strings.Contains(string(svg), "verified") {
			t.Errorf("badge.svg says verified after a new wiring:\n%s", svg)
		}
		latest := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).json(t)
		if latest["tier"] != "community" || latest["addon"].(map[string]any)["version"] != "2.0.0" {
			t.Errorf("latest report: tier %v, version %v; want community, 2.0.0", latest["tier"], latest["addon"])
		}
		if tier := e.do(t, req{method: "GET", path: "/v1/addons/weather/versions/1.0.0/report"}).json(t)["tier"]; tier != "verified" {
			t.Errorf("the verified version's report tier = %v, want verified", tier)
		}
		a := e.do(t, req{method: "GET", path: "/v1/addons/weather"}).json(t)["addon"].(map[string]any)
		if a["tier"] != "community" || a["verified_wiring_sha256"] != verifiedWiring || a["latest_wiring_sha256"] == verifiedWiring {
			t.Errorf("addon = tier %v, verified wiring %v, latest wiring %v", a["tier"], a["verified_wiring_sha256"], a["latest_wiring_sha256"])
		}
		tiers := map[string]any{}
		for _, v := range e.do(t, req{method: "GET", path: "/v1/addons/weather/versions"}).json(t)["items"].([]any) {
			tiers[v.(map[string]any)["version"].(string)] = v.(map[string]any)["tier"]
		}
		if diff := cmp.Diff(map[string]any{"1.0.0": "verified", "2.0.0": "community"}, tiers); diff != "" {
			t.Errorf("version tiers (-want +got):\n%s", diff)
		}
		if got := addonsOf(t, e.do(t, req{method: "GET", path: "/v1/addons?tier=verified"}), "name"); len(got) != 0 {
			t.Errorf("?tier=verified = %v, want none", got)
		}

		// The converse: a new version that changes only the description.
		e.publish(t, manifest("calm", "1.0.0"))
		e.verifyAddon(t, "calm")
		calm := strings.Replace(manifest("calm", "1.1.0"), "A test addon for calm.", "A calmer description.", 1)
		id = submissionID(t, e.submit(t, e.submitter2, calm, http.StatusCreated))
		if changes := e.do(t, req{method: "GET", path: "/v1/submissions/" + id, token: e.maintainer}).json(t)["wiring_changes"].([]any); len(changes) != 0 {
			t.Errorf("wiring_changes of a description change = %v, want none", changes)
		}
		e.approve(t, e.maintainer, id, http.StatusOK)
		if got := e.badgeMessage(t, "calm"); got != "verified" {
			t.Errorf("badge after a description change = %q, want verified", got)
		}
		if tier := e.do(t, req{method: "GET", path: "/v1/addons/calm/report"}).json(t)["tier"]; tier != "verified" {
			t.Errorf("report tier after a description change = %v, want verified", tier)
		}
	})
}

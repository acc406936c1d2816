package web_test

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/web"
)

// stdioManifest runs a command with hostile arguments and sets environment
// variables whose values the public page must never show.
const stdioManifest = `[addon]
name = "runner"
version = "1.2.3"
description = "Runs a local server."

[mcp]
command = "runner-server"
args = ["--stdio", "\"><svg onload=alert(9)>", "--label=<b>x</b>"]

[mcp.env]
API_TOKEN = "s3cr3t-env-value-1"
LOG_FORMAT = "json-env-value-2"
`

// httpManifest reaches a URL with request headers whose values the public
// page must never show.
const httpManifest = `[addon]
name = "remote"
version = "0.4.0"
description = "Talks to a remote server."

[mcp]
transport = "http"
url = "https://mcp.example.org/v1?team=<i>core</i>"

[mcp.headers]
Authorization = "Bearer s3cr3t-header-value-3"
X-Trace = "trace-header-value-4"
`

// testVerifierKey has the shape of a verifier key; the pages only show it.
const testVerifierKey = "registry.example+0a1b2c3d+AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcdefg="

// TestAddonPageShowsWhatItRuns checks the public addon page: the
// transport, the command and every argument or the URL, the names of the
// environment variables and headers and never their values (raw or
// escaped), hostile text as escaped text, a link that serves the exact
// manifest, the verifier key and the `registryd check` snippet that pins
// it, and the report before the badge snippets.
func TestAddonPageShowsWhatItRuns(t *testing.T) {
	const key = testVerifierKey
	e := newEnv(t, func(d *web.Deps) {
		d.PublicURL = "https://registry.example"
		d.VerifierKeys = []string{key}
	})
	e.publish(stdioManifest)
	e.publish(httpManifest)
	b := e.browser()
	// html/template writes '+' as a character reference.
	shownKey := strings.ReplaceAll(key, "+", "&#43;")
	secrets := []string{"s3cr3t-env-value-1", "json-env-value-2", "s3cr3t-header-value-3", "trace-header-value-4"}

	for _, tc := range []struct {
		path       string
		want, dont []string
	}{
		{"/addons/runner", []string{
			`id="runs-transport">stdio<`,
			`<code id="runs-command">runner-server</code>`,
			`<li><code>--stdio</code></li>`,
			`<li><code>&#34;&gt;&lt;svg onload=alert(9)&gt;</code></li>`,
			`<li><code>--label=&lt;b&gt;x&lt;/b&gt;</code></li>`,
			`<code>API_TOKEN</code>, <code>LOG_FORMAT</code>`,
			`id="runs-headers">none<`,
			`href="/v1/addons/runner/versions/1.2.3/manifest"`,
			shownKey,
			`registryd check --registry https://registry.example --key ` + shownKey + ` runner@1.2.3`,
		}, []string{"<svg onload", "<b>x</b>", "runs-url"}},
		{"/addons/remote", []string{
			`id="runs-transport">http<`,
			`<code id="runs-url">https://mcp.example.org/v1?team=&lt;i&gt;core&lt;/i&gt;</code>`,
			`<code>Authorization</code>, <code>X-Trace</code>`,
			`id="runs-env">none<`,
			`href="/v1/addons/remote/versions/0.4.0/manifest"`,
			`registryd check --registry https://registry.example --key ` + shownKey + ` remote@0.4.0`,
		}, []string{"<i>core", "runs-command", "runs-args"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := b.get(tc.path)
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, d := range tc.dont {
				if strings.Contains(p.body, d) {
					t.Errorf("page shows %q", d)
				}
			}
			for _, s := range secrets {
				if strings.Contains(p.body, s) || strings.Contains(p.body, html.EscapeString(s)) {
					t.Errorf("page shows the value %q", s)
				}
			}
			report, badge := strings.Index(p.body, `id="verdict"`), strings.Index(p.body, `id="badge-markdown"`)
			if report < 0 || badge < 0 || report > badge {
				t.Errorf("report at %d, badge snippets at %d: want the report first", report, badge)
			}
			runs, install := strings.Index(p.body, `id="runs"`), strings.Index(p.body, `id="install-snippet"`)
			if runs < 0 || install < 0 || runs > report || install > report {
				t.Errorf("what it runs at %d, install snippet at %d, report at %d: want both before the report", runs, install, report)
			}
		})
	}

	// The link serves the manifest's exact bytes.
	res, err := http.Get(e.srv.URL + "/v1/addons/runner/versions/1.2.3/manifest")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(got) != stdioManifest {
		t.Errorf("manifest link = %d\n%s\nwant the submitted bytes", res.StatusCode, got)
	}
}

// TestAddonPageWithoutKey checks that a registry with no verifier key
// says so, and offers no snippet that could not verify.
func TestAddonPageWithoutKey(t *testing.T) {
	e := newEnv(t)
	e.publish(stdioManifest)
	p := e.browser().get("/addons/runner")
	if !strings.Contains(p.body, `id="no-verifier-key"`) || strings.Contains(p.body, "registryd check") {
		t.Errorf("page without a key: want the no-key notice and no check snippet\n%s", p.body)
	}
	if !strings.Contains(p.body, `<code id="runs-command">runner-server</code>`) {
		t.Error("page without a key lacks what the addon runs")
	}
}

// TestHostileEnvValueNeverPublic holds the public page of the hostile
// addon to showing its environment variable's name and not its value,
// which only maintainers see in the manifest source.
func TestHostileEnvValueNeverPublic(t *testing.T) {
	e := newEnv(t)
	e.publish(hostileManifest)
	p := e.browser().get("/addons/hostile")
	if !strings.Contains(p.body, "<code>X_PAYLOAD</code>") {
		t.Error("the page lacks the variable's name")
	}
	if strings.Contains(p.body, "iframe") {
		t.Error("the page shows the variable's value")
	}
}

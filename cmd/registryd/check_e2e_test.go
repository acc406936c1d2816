package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/transparency"
)

// TestCheckEndToEnd runs `registryd check` against the real server (run()
// on a real listener, signing with a key from `registryd key generate`) on
// each database, and holds each exit status to its cause: a verified
// report the policy allows is 0; a fail verdict under block_fail and a
// community addon under verified_only are 1; and 2 for a report or
// envelope with one byte changed on the way, a report signed by another
// key, a server restored from an older backup (a smaller tree, then
// another tree of the same size), two servers with one key and diverging
// logs, a checkpoint older than --max-age, and a registry that is down.
func TestCheckEndToEnd(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) { checkEndToEnd(t, b) })
}

// installSnippet finds the addon page's `registryd check` snippet.
var installSnippet = regexp.MustCompile(`<pre class="snippet" id="install-snippet">([^<]*)</pre>`)

// registryEnv is the environment of a server on a fresh database of b
// that signs with keyFile. The checkpoint is signed again only hourly, so
// that a test can watch it age.
func registryEnv(t *testing.T, b fixture.Backend, keyFile string) map[string]string {
	t.Helper()
	env := b.Env(t)
	env["REGISTRYD_SIGNING_KEY_FILE"] = keyFile
	env["REGISTRYD_CHECKPOINT_INTERVAL"] = "1h"
	env["REGISTRYD_RATE_LIMIT"] = "0"
	env["REGISTRYD_CACHEABLE_RATE_LIMIT"] = "0"
	return env
}

// registryFixture is one registry server with the tokens that publish on
// it.
type registryFixture struct {
	t             *testing.T
	env           map[string]string
	srv           *server
	c             *client
	sam, alice    string // submitter, maintainer
	bob           string // a second maintainer
	vkey, keyFile string
}

func newRegistry(t *testing.T, b fixture.Backend, keyFile, vkey string) *registryFixture {
	t.Helper()
	r := &registryFixture{t: t, env: registryEnv(t, b, keyFile), vkey: vkey, keyFile: keyFile}
	getenv := envOf(r.env)
	r.sam, _ = createToken(t, getenv, "sam", "submitter")
	r.alice, _ = createToken(t, getenv, "alice", "maintainer")
	r.bob, _ = createToken(t, getenv, "bob", "maintainer")
	r.start()
	return r
}

// start starts the server on r.env's database.
func (r *registryFixture) start() {
	r.t.Helper()
	r.srv = startServer(r.t, envOf(r.env))
	r.c = &client{t: r.t, base: r.srv.url}
}

// publish submits manifest as sam and approves it as alice, overriding a
// fail verdict when override is set, and waits until the log's signed
// checkpoint covers the publication: the store signs it shortly after the
// append, not with it, and a client that fetched the checkpoint before
// would see the log as it was.
func (r *registryFixture) publish(manifest string, override bool) {
	r.t.Helper()
	var created struct {
		Submission struct{ ID string } `json:"submission"`
	}
	r.c.decode(r.c.expect("POST", "/v1/submissions", r.sam, "application/toml", manifest, nil, http.StatusCreated), &created)
	body := `{"reason":"reviewed"}`
	if override {
		body = `{"reason":"published to test the install policy","override":true}`
	}
	before := r.logSize()
	r.c.expect("POST", "/v1/submissions/"+created.Submission.ID+"/approve", r.alice, "application/json", body, nil, http.StatusOK)
	for deadline := time.Now().Add(patience); r.logSize() <= before; {
		if time.Now().After(deadline) {
			r.t.Fatalf("the log's checkpoint still covers %d entries, as before the publication", before)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logSize is the size of the tree the server's signed checkpoint covers
// (0 before the log has one).
func (r *registryFixture) logSize() uint64 {
	r.t.Helper()
	resp, err := r.c.http.Get(r.srv.url + "/v1/log/checkpoint")
	if err != nil {
		r.t.Fatalf("GET /v1/log/checkpoint: %v", err)
	}
	defer resp.Body.Close()
	signed, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		r.t.Fatalf("GET /v1/log/checkpoint: %v", err)
	case resp.StatusCode == http.StatusNotFound:
		return 0
	case resp.StatusCode != http.StatusOK:
		r.t.Fatalf("GET /v1/log/checkpoint: %s\n%s", resp.Status, signed)
	}
	key, err := transparency.ParseVerifierKey(r.vkey)
	if err != nil {
		r.t.Fatal(err)
	}
	cp, _, err := transparency.OpenCheckpoint(signed, key.Name(), key)
	if err != nil {
		r.t.Fatalf("the checkpoint: %v", err)
	}
	return cp.Size
}

// checked is one run of `registryd check`.
type checked struct {
	code           int
	stdout, stderr string
}

// check runs `registryd check --format json` against registry with the
// state directory state.
func check(t *testing.T, registry, vkey, state string, args ...string) checked {
	t.Helper()
	argv := append([]string{"check", "--registry", registry, "--key", vkey, "--state", state, "--format", "json", "--timeout", "20s"}, args...)
	code, stdout, stderr := runCLI(t, "", argv...)
	return checked{code, stdout, stderr}
}

// want fails t unless the run exited with code and its standard error
// (or, for 0 and 1, its JSON output) contains every one of words.
func (c checked) want(t *testing.T, what string, code int, words ...string) {
	t.Helper()
	if c.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, c.code, code, c.stdout, c.stderr)
		return
	}
	out := c.stderr
	if code != 2 {
		out = c.stdout
	}
	for _, w := range words {
		if !strings.Contains(out, w) {
			t.Errorf("%s: exit %d as wanted, but %q is not in\n%s", what, code, w, out)
		}
	}
}

func checkEndToEnd(t *testing.T, b fixture.Backend) {
	keyFile := filepath.Join(t.TempDir(), "signing.key")
	vkey := generateKey(t, "registry.test", keyFile)
	reg := newRegistry(t, b, keyFile, vkey)
	reg.publish(demoManifest, false)
	reg.publish(fixture.FailingManifest("piped", "0.1.0"), true)
	manifestFile := filepath.Join(t.TempDir(), "lean-ctx-addon.toml")
	if err := os.WriteFile(manifestFile, []byte(demoManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	// One client, one state directory, throughout: what it saw on each
	// server is what the later servers are held to.
	state := t.TempDir()

	t.Run("allowed", func(t *testing.T) {
		check(t, reg.srv.url, vkey, state, "demo@1.0.0").want(t, "demo@1.0.0", 0, `"outcome":"allowed"`)
		check(t, reg.srv.url, vkey, state, "demo").want(t, "demo (latest)", 0, `"outcome":"allowed"`)
		check(t, reg.srv.url, vkey, state, manifestFile).want(t, "the manifest file", 0, `"outcome":"allowed"`)

		// The addon page's snippet pins the server's key and checks the
		// latest version; run as it is shown, it allows it.
		page := string(reg.c.expect("GET", "/addons/demo", "", "", "", nil, http.StatusOK).body)
		m := installSnippet.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the addon page has no install snippet:\n%s", page)
		}
		argv := strings.Fields(html.UnescapeString(m[1]))
		if want := []string{"registryd", "check", "--registry", reg.srv.url, "--key", vkey, "demo@1.0.0"}; !slices.Equal(argv, want) {
			t.Fatalf("snippet %q, want %q", argv, want)
		}
		code, stdout, stderr := runCLI(t, "", append(argv[1:len(argv)-1], "--state", state, argv[len(argv)-1])...)
		if code != 0 || !strings.Contains(stdout, "allowed") {
			t.Errorf("the page's snippet: exit %d\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("denied", func(t *testing.T) {
		check(t, reg.srv.url, vkey, state, "piped@0.1.0").want(t, "fail under block_fail", 1, `"outcome":"denied"`)
		check(t, reg.srv.url, vkey, state, "--policy", "open", "piped@0.1.0").want(t, "fail under open", 0, `"outcome":"allowed"`)
		check(t, reg.srv.url, vkey, state, "--policy", "verified_only", "demo@1.0.0").want(t, "community under verified_only", 1, `"outcome":"denied"`, "community")
		check(t, reg.srv.url, vkey, state, "nothing-here").want(t, "not published", 1, `"outcome":"denied"`)
	})

	t.Run("tampered", func(t *testing.T) {
		_, attackerKey := transparencySigner(t, "registry.test")
		for _, tc := range []struct {
			name   string
			tamper func(t *testing.T, envelope []byte) []byte
			words  []string
		}{
			{"untouched", func(_ *testing.T, b []byte) []byte { return b }, nil},
			{"a byte of the report", flipPayloadByte, []string{"signature"}},
			{"a byte of the signature", flipSignatureByte, []string{"signature"}},
			{"a byte of the envelope's text", flipEnvelopeByte, []string{"signature"}},
			{"signed by another key", func(t *testing.T, b []byte) []byte { return resign(t, b, attackerKey) }, []string{"signature"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				proxy := tamperingProxy(t, reg.srv.url, func(path string, body []byte) []byte {
					if strings.HasSuffix(path, "/report.dsse") {
						return tc.tamper(t, body)
					}
					return body
				})
				for _, target := range []string{"demo@1.0.0", "piped@0.1.0", manifestFile} {
					got := check(t, proxy, vkey, state, target)
					if tc.words == nil {
						want := 0
						if target == "piped@0.1.0" {
							want = 1
						}
						got.want(t, target+" through an honest proxy", want)
						continue
					}
					got.want(t, target, 2, tc.words...)
				}
			})
		}
	})

	t.Run("verified", func(t *testing.T) {
		reg.c.expect("PUT", "/v1/addons/demo/verified", reg.alice, "application/json", `{"verified":true,"reason":"known author"}`, nil, http.StatusAccepted)
		reg.c.expect("PUT", "/v1/addons/demo/verified", reg.bob, "application/json", `{"verified":true,"reason":"agreed"}`, nil, http.StatusOK)
		check(t, reg.srv.url, vkey, state, "--policy", "verified_only", "demo@1.0.0").want(t, "verified under verified_only", 0, `"outcome":"allowed"`, "verified")
	})

	t.Run("diverging logs", func(t *testing.T) {
		// Another server with the same key and its own database, which
		// published demo after something else: its log is another
		// history than the one this client saw.
		// It publishes more than this client has seen, so that its tree
		// is larger and must prove that it extends the one seen.
		other := newRegistry(t, b, keyFile, vkey)
		for _, name := range []string{"elsewhere", "elsewhen", "elsewho", "elsewhy"} {
			other.publish(fixture.FailingManifest(name, "0.0.1"), true)
		}
		other.publish(demoManifest, false)
		other.publish(fixture.FailingManifest("piped", "0.1.0"), true)
		check(t, other.srv.url, vkey, t.TempDir(), "demo@1.0.0").want(t, "a client new to the other server", 0)
		check(t, other.srv.url, vkey, state, "demo@1.0.0").want(t, "the other server", 2, "fork")
		check(t, other.srv.url, vkey, state, manifestFile).want(t, "the other server, by manifest", 2, "fork")
	})

	t.Run("stale", func(t *testing.T) {
		// Nothing is appended and the checkpoint is signed again only
		// hourly: wait until it is more than two seconds old.
		origin, err := transparency.ParseVerifierKey(vkey)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(patience)
		for {
			signed := reg.c.expect("GET", "/v1/log/checkpoint", "", "", "", nil, http.StatusOK).body
			cp, _, err := transparency.OpenCheckpoint(signed, origin.Name(), origin)
			if err != nil {
				t.Fatalf("the checkpoint: %v", err)
			}
			if time.Since(cp.Time()) > 3*time.Second {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the checkpoint signed at %s is still fresh", cp.Time())
			}
			time.Sleep(200 * time.Millisecond)
		}
		check(t, reg.srv.url, vkey, state, "--max-age", "2s", "demo@1.0.0").want(t, "older than --max-age", 2, "maximum age")
		check(t, reg.srv.url, vkey, state, "--max-age", "1h", "demo@1.0.0").want(t, "within --max-age", 0)
	})

	t.Run("rolled back", func(t *testing.T) {
		// A backup of the database as the client saw it; then the log
		// grows, and the client sees it grow.
		reg.srv.stop()
		backup := copyDatabase(t, b, reg.env)
		reg.start()
		reg.publish(strings.Replace(demoManifest, `version = "1.0.0"`, `version = "1.1.0"`, 1), false)
		check(t, reg.srv.url, vkey, state, "demo@1.1.0").want(t, "the grown log", 0)
		reg.srv.stop()

		// The server restored from the backup signs a smaller tree.
		restored := &registryFixture{t: t, env: backup, vkey: vkey, keyFile: keyFile, sam: reg.sam, alice: reg.alice, bob: reg.bob}
		restored.start()
		check(t, restored.srv.url, vkey, state, "demo@1.0.0").want(t, "the restored server", 2, "rollback")
		// Then it grows again, by something else, past the size the
		// client saw: a larger tree that does not extend it.
		for _, name := range []string{"replaced", "replacing", "replacer"} {
			restored.publish(fixture.FailingManifest(name, "1.0.0"), true)
		}
		check(t, restored.srv.url, vkey, state, "demo@1.0.0").want(t, "the restored server, grown apart", 2, "fork")
		check(t, restored.srv.url, vkey, t.TempDir(), "demo@1.0.0").want(t, "a client new to the restored server", 0)

		t.Run("down", func(t *testing.T) {
			restored.srv.stop()
			check(t, restored.srv.url, vkey, state, "demo@1.0.0").want(t, "registry down", 2, "could not be reached")
		})
	})
}

// copyDatabase copies the database of env, whose server is stopped, and
// returns the environment of a server on the copy.
func copyDatabase(t *testing.T, b fixture.Backend, env map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	switch b.Name {
	case "postgres":
		out["REGISTRYD_DATABASE_URL"] = pgtest.CopyDatabase(t, env["REGISTRYD_DATABASE_URL"])
	case "sqlite":
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(env["REGISTRYD_DATA_DIR"])); err != nil {
			t.Fatalf("copy the SQLite database: %v", err)
		}
		out["REGISTRYD_DATA_DIR"] = dir
	default:
		t.Fatalf("no backup for %s", b.Name)
	}
	return out
}

// tamperingProxy serves target's answers through tamper, which may change
// the body of the answer to a request for path.
func tamperingProxy(t *testing.T, target string, tamper func(path string, body []byte) []byte) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(u)
		pr.Out.Host = pr.In.Host
		pr.Out.Header.Del("Accept-Encoding") // bodies to change, not to decompress
	}}
	rp.ModifyResponse = func(res *http.Response) error {
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		body = tamper(res.Request.URL.Path, body)
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	p := httptest.NewServer(rp)
	t.Cleanup(p.Close)
	return p.URL
}

// envelopeJSON is a DSSE envelope as the registry serves it.
type envelopeJSON struct {
	Payload     []byte `json:"payload"`
	PayloadType string `json:"payloadType"`
	Signatures  []struct {
		KeyID string `json:"keyid"`
		Sig   []byte `json:"sig"`
	} `json:"signatures"`
}

func decodeEnvelope(t *testing.T, b []byte) envelopeJSON {
	t.Helper()
	var e envelopeJSON
	if err := json.Unmarshal(b, &e); err != nil || len(e.Payload) == 0 || len(e.Signatures) == 0 {
		t.Fatalf("not an envelope (%v):\n%s", err, b)
	}
	return e
}

func encodeEnvelope(t *testing.T, e envelopeJSON) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flipPayloadByte changes one byte of the signed report.
func flipPayloadByte(t *testing.T, b []byte) []byte {
	e := decodeEnvelope(t, b)
	e.Payload[len(e.Payload)/2] ^= 0x01
	return encodeEnvelope(t, e)
}

// flipSignatureByte changes one byte of the first signature.
func flipSignatureByte(t *testing.T, b []byte) []byte {
	e := decodeEnvelope(t, b)
	e.Signatures[0].Sig[0] ^= 0x01
	return encodeEnvelope(t, e)
}

// flipEnvelopeByte changes one byte of the envelope as served, inside its
// base64 payload, keeping it a base64 character.
func flipEnvelopeByte(t *testing.T, b []byte) []byte {
	out := bytes.Clone(b)
	i := bytes.Index(out, []byte(`"payload":"`))
	if i < 0 {
		t.Fatalf("no payload in\n%s", b)
	}
	i += len(`"payload":"`) + 10
	if out[i] == 'A' {
		out[i] = 'B'
	} else {
		out[i] = 'A'
	}
	return out
}

// transparencySigner returns a new signer named name (the registry's own
// name: only the key differs) and its verifier key.
func transparencySigner(t *testing.T, name string) (string, *transparency.Signer) {
	t.Helper()
	skey, vkey, err := transparency.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := transparency.ParseSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return vkey, s
}

// resign replaces the envelope's signatures with signer's over the same
// report.
func resign(t *testing.T, b []byte, signer *transparency.Signer) []byte {
	e := decodeEnvelope(t, b)
	out, err := transparency.SignEnvelope(e.Payload, signer)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

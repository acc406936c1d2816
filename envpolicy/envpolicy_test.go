package envpolicy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/envpolicy"
	"github.com/registryd/registryd/internal/sharedtest"
)

// The list is a security control: removing a member must turn a test red.
// These tables repeat the list on purpose, so that a deletion in one place
// is caught by the other.
var wantNames = []string{
	"NODE_OPTIONS", "NODE_PATH", "NODE_V8_COVERAGE", "PERL5LIB", "PERL5OPT",
	"RUBYLIB", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"CLASSPATH", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "PS4", "ZDOTDIR",
	"PATHEXT", "COMSPEC", "NODE_EXTRA_CA_CERTS", "LESSOPEN", "PERLLIB",
	"HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "USERPROFILE", "HOMEDRIVE",
	"HOMEPATH", "APPDATA", "LOCALAPPDATA", "KUBECONFIG", "AWS_CONFIG_FILE",
	"AWS_SHARED_CREDENTIALS_FILE", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
	"DOCKER_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CONFIG_DIR",
	"AZURE_AUTH_LOCATION", "CLOUDSDK_CONFIG",
	"CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", "TF_CLI_CONFIG_FILE", "PATH",
	"DOTNET_STARTUP_HOOKS", "COR_ENABLE_PROFILING", "CORECLR_ENABLE_PROFILING",
	"PHPRC", "PHP_INI_SCAN_DIR", "ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS",
	"ELIXIR_ERL_OPTIONS", "GCONV_PATH", "OPENSSL_CONF", "OPENSSL_ENGINES",
	"OPENSSL_MODULES", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER",
	"R_LIBS", "R_LIBS_USER", "JULIA_LOAD_PATH", "JULIA_DEPOT_PATH", "TCLLIBPATH",
	"GEM_PATH", "GEM_HOME", "PSMODULEPATH", "MAVEN_OPTS", "GRADLE_OPTS", "JAVA_OPTS",
	"ELECTRON_RUN_AS_NODE", "NODE_REPL_EXTERNAL_MODULE", "BUN_OPTIONS",
	"PIP_CONFIG_FILE", "UV_CONFIG_FILE", "CONDARC", "YARN_RC_FILENAME",
	"VIMINIT", "GVIMINIT", "EXINIT", "VIMRUNTIME", "PSQLRC", "IRBRC", "SCREENRC", "SYSSCREENRC",
	"IPYTHONDIR", "JUPYTER_CONFIG_DIR", "EMACSLOADPATH", "GUILE_LOAD_PATH", "GUILE_LOAD_COMPILED_PATH",
	"ERL_LIBS", "LFTP_HOME",
	"ANT_OPTS", "SBT_OPTS", "JVM_OPTS", "LEIN_JVM_OPTS", "CLJ_JVM_OPTS", "JBANG_JAVA_OPTIONS", "JRUBY_OPTS",
	"CATALINA_OPTS", "ES_JAVA_OPTS", "KAFKA_OPTS", "HADOOP_OPTS", "SPARK_SUBMIT_OPTS",
	"PERL5DB", "PERLDB_OPTS", "MAKEFILES", "WGETRC", "CURL_HOME",
	"DOCKER_CLI_PLUGIN_EXTRA_DIRS", "RIPGREP_CONFIG_PATH", "LESSKEYIN", "LESSKEY",
}

var wantPrefixes = []string{"DYLD_", "LD_", "GIT_", "PYTHON", "NPM_CONFIG_", "BASH_FUNC_",
	"COR_PROFILER", "CORECLR_PROFILER", "LUA_INIT", "LUA_PATH", "LUA_CPATH"}

func TestListsArePinned(t *testing.T) {
	if got, want := len(envpolicy.Names()), 114; got != want {
		t.Errorf("len(Names()) = %d, want %d", got, want)
	}
	if got, want := len(envpolicy.Prefixes()), 11; got != want {
		t.Errorf("len(Prefixes()) = %d, want %d", got, want)
	}
	if diff := cmp.Diff(wantNames, envpolicy.Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantPrefixes, envpolicy.Prefixes()); diff != "" {
		t.Errorf("Prefixes() mismatch (-want +got):\n%s", diff)
	}
}

func TestEveryMemberIsForbidden(t *testing.T) {
	for _, n := range wantNames {
		for _, k := range []string{n, strings.ToLower(n)} {
			if !envpolicy.Forbidden(k) {
				t.Errorf("Forbidden(%q) = false, want true", k)
			}
		}
		// An exact name is not a prefix: one more letter is another name.
		if n != "PATH" && envpolicy.Forbidden(n+"X") && !hasForbiddenPrefix(n+"X") {
			t.Errorf("Forbidden(%q) = true, want false (names match exactly)", n+"X")
		}
	}
	for _, p := range wantPrefixes {
		for _, k := range []string{p, p + "ANYTHING", strings.ToLower(p) + "x"} {
			if !envpolicy.Forbidden(k) {
				t.Errorf("Forbidden(%q) = false, want true", k)
			}
		}
	}
}

func hasForbiddenPrefix(k string) bool {
	for _, p := range wantPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// The returned slices are copies: a caller cannot edit the policy.
func TestAccessorsReturnCopies(t *testing.T) {
	n := envpolicy.Names()
	n[0] = "CHANGED"
	p := envpolicy.Prefixes()
	p[0] = "CHANGED"
	if envpolicy.Names()[0] == "CHANGED" || envpolicy.Prefixes()[0] == "CHANGED" {
		t.Fatal("accessors expose the policy's own storage")
	}
	if !envpolicy.Forbidden("NODE_OPTIONS") {
		t.Fatal("policy changed through an accessor")
	}
}

type vectors struct {
	Keys []struct {
		Key       string `json:"key"`
		Forbidden bool   `json:"forbidden"`
		Source    string `json:"source"`
	} `json:"keys"`
	Blocks []struct {
		Env        map[string]string `json:"env"`
		Violations []struct {
			Path      string `json:"path"`
			KeyEchoed bool   `json:"key_echoed"`
		} `json:"violations"`
		Note string `json:"note"`
	} `json:"blocks"`
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	var v vectors
	if err := json.Unmarshal(sharedtest.File(t, "conformance", "envpolicy-vectors.json"), &v); err != nil {
		t.Fatalf("decode envpolicy-vectors.json: %v", err)
	}
	return v
}

func TestConformanceKeys(t *testing.T) {
	v := loadVectors(t)
	if got, want := len(v.Keys), 49; got != want {
		t.Fatalf("got %d key vectors, want %d", got, want)
	}
	for _, k := range v.Keys {
		if got := envpolicy.Forbidden(k.Key); got != k.Forbidden {
			t.Errorf("Forbidden(%q) = %v, want %v (%s)", k.Key, got, k.Forbidden, k.Source)
		}
	}
}

func TestConformanceBlocks(t *testing.T) {
	v := loadVectors(t)
	for i, b := range v.Blocks {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got := envpolicy.Check(b.Env)
			if len(got) != len(b.Violations) {
				t.Fatalf("Check reported %d violations, want %d (%s)", len(got), len(b.Violations), b.Note)
			}
			for j, g := range got {
				if !envpolicy.Forbidden(g.Key) {
					t.Errorf("violation %d: %q is not forbidden", j, g.Key)
				}
				if g.EchoSafe != b.Violations[j].KeyEchoed {
					t.Errorf("violation %d: EchoSafe = %v, want %v", j, g.EchoSafe, b.Violations[j].KeyEchoed)
				}
				if !g.EchoSafe && g.Path("env") != "env" {
					t.Errorf("violation %d: path %q names an unsafe key", j, g.Path("env"))
				}
			}
			// Where the block has at most MaxReported violations the order
			// cannot differ from upstream's beyond sorting: compare paths.
			if len(b.Violations) < envpolicy.MaxReported {
				for j, g := range got {
					if p := g.Path("env"); p != b.Violations[j].Path {
						t.Errorf("violation %d: path %q, want %q", j, p, b.Violations[j].Path)
					}
				}
			}
		})
	}
}

func TestCheckIsBoundedAndSorted(t *testing.T) {
	env := map[string]string{}
	for i := 0; i < 40; i++ {
		env[fmt.Sprintf("LD_%02d", i)] = "x"
	}
	env["OK"] = "x"
	got := envpolicy.Check(env)
	want := []envpolicy.Violation{}
	for i := 0; i < envpolicy.MaxReported; i++ {
		want = append(want, envpolicy.Violation{Key: fmt.Sprintf("LD_%02d", i), EchoSafe: true})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check mismatch (-want +got):\n%s", diff)
	}
	if got := envpolicy.Check(nil); len(got) != 0 {
		t.Errorf("Check(nil) = %v, want none", got)
	}
}

func TestCheckKeysDeduplicates(t *testing.T) {
	got := envpolicy.CheckKeys([]string{"PATH", "FOO", "PATH", "ld_preload"})
	want := []envpolicy.Violation{{Key: "PATH", EchoSafe: true}, {Key: "ld_preload", EchoSafe: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckKeys mismatch (-want +got):\n%s", diff)
	}
}

func TestEchoSafe(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"NODE_OPTIONS", true},
		{"_x", true},
		{"a1", true},
		{"9LIVES", false},
		{"", false},
		{"BASH_FUNC_x%%", false},
		{"A-B", false},
		{"A B", false},
		{"GIT_\x1b[2J", false},
		{"GIT_\u202edrow", false},
		{"claßpath", false},
		{"Ａ", false},
	}
	for _, tt := range tests {
		if got := envpolicy.EchoSafe(tt.key); got != tt.want {
			t.Errorf("EchoSafe(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func FuzzForbidden(f *testing.F) {
	for _, k := range append(append([]string{}, wantNames...), "claßpath", "gıt_dir", "ſhellopts", "aws_config_ﬁle", "9LIVES", "\xff") {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := envpolicy.Forbidden(key)
		// Case mapping must not change the answer: a key and its ASCII
		// upper- and lower-case forms are judged alike.
		if up := strings.ToUpper(key); up != key && isASCII(key) && envpolicy.Forbidden(up) != got {
			t.Errorf("Forbidden(%q) = %v but Forbidden(%q) differs", key, got, up)
		}
		if envpolicy.EchoSafe(key) {
			for _, r := range key {
				if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
					t.Errorf("EchoSafe(%q) = true with rune %q", key, r)
				}
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func ExampleForbidden() {
	fmt.Println(envpolicy.Forbidden("NODE_OPTIONS"), envpolicy.Forbidden("node_options"), envpolicy.Forbidden("claßpath"), envpolicy.Forbidden("LOG_LEVEL"))
	// Output: true true true false
}

func TestSelector(t *testing.T) {
	for _, k := range []string{"AWS_PROFILE", "aws_profile", "KUBECONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "HOME", "APPDATA"} {
		if !envpolicy.Selector(k) || !envpolicy.Forbidden(k) {
			t.Errorf("Selector(%q) = %v, Forbidden = %v; want both true", k, envpolicy.Selector(k), envpolicy.Forbidden(k))
		}
	}
	for _, k := range []string{"NODE_OPTIONS", "LD_PRELOAD", "PATH", "PYTHONPATH", "GIT_DIR", "MY_PROFILE", ""} {
		if envpolicy.Selector(k) {
			t.Errorf("Selector(%q) = true, want false", k)
		}
	}
	// The 20 selectors are all among the forbidden names.
	count := 0
	for _, n := range envpolicy.Names() {
		if envpolicy.Selector(n) {
			count++
		}
	}
	if count != 20 {
		t.Errorf("%d forbidden names are selectors, want 20", count)
	}
}

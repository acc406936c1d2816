// Package envpolicy is the one denylist of environment variable names that an
// addon's declared child environment may not set: names that turn a trusted
// binary into a different program (interpreter and loader option injection,
// module paths, other runtimes' startup hooks and option variables, the git,
// loader, python and npm configuration namespaces, config-home and
// credential selectors, and PATH).
//
// Matching is case-insensitive with full Unicode case mapping, the way a
// Windows host or a JavaScript `toUpperCase` would see the name: `claßpath`
// is CLASSPATH and `gıt_dir` is GIT_DIR. The package is pure and safe for
// concurrent use.
package envpolicy

import (
	"sort"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// MaxReported is how many forbidden keys Check reports for one environment
// block; the rest are left for the author's next attempt.
const MaxReported = 8

// forbiddenNames are refused exactly (after case mapping).
var forbiddenNames = [...]string{
	// interpreter and loader option injection, module paths
	"NODE_OPTIONS",
	"NODE_PATH",
	"NODE_V8_COVERAGE",
	"PERL5LIB",
	"PERL5OPT",
	"RUBYLIB",
	"RUBYOPT",
	"JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS",
	"CLASSPATH",
	"BASH_ENV",
	"ENV",
	"IFS",
	"SHELLOPTS",
	"PS4",
	// the rc-file hook of zsh, the default macOS shell
	"ZDOTDIR",
	// Windows executable resolution and the Windows shell itself
	"PATHEXT",
	"COMSPEC",
	// TLS trust and pager hooks
	"NODE_EXTRA_CA_CERTS",
	"LESSOPEN",
	"PERLLIB",
	// config-home redirection
	"HOME",
	"XDG_CONFIG_HOME",
	"XDG_CONFIG_DIRS",
	"USERPROFILE",
	"HOMEDRIVE",
	"HOMEPATH",
	"APPDATA",
	"LOCALAPPDATA",
	// credential and config selectors of cloud and cluster CLIs
	"KUBECONFIG",
	"AWS_CONFIG_FILE",
	"AWS_SHARED_CREDENTIALS_FILE",
	"AWS_PROFILE",
	"AWS_DEFAULT_PROFILE",
	"DOCKER_CONFIG",
	"GOOGLE_APPLICATION_CREDENTIALS",
	"AZURE_CONFIG_DIR",
	"AZURE_AUTH_LOCATION",
	"CLOUDSDK_CONFIG",
	"CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
	"TF_CLI_CONFIG_FILE",
	// executable resolution
	"PATH",
	// startup hooks, option variables and module paths of other runtimes:
	// .NET (a startup hook is loaded into every app, profiling loads the
	// profiler's library), PHP's ini files (auto_prepend_file), Erlang and
	// Elixir emulator flags (-eval), glibc's gconv modules, OpenSSL's config
	// (which loads engines and providers), R's profile and environ files
	// and libraries, Julia's, Tcl's and Ruby gems' load paths, PowerShell's
	// module path, and the JVM option variables of Maven, Gradle and the
	// launch scripts that read JAVA_OPTS
	"DOTNET_STARTUP_HOOKS",
	"COR_ENABLE_PROFILING",
	"CORECLR_ENABLE_PROFILING",
	"PHPRC",
	"PHP_INI_SCAN_DIR",
	"ERL_AFLAGS",
	"ERL_FLAGS",
	"ERL_ZFLAGS",
	"ELIXIR_ERL_OPTIONS",
	"GCONV_PATH",
	"OPENSSL_CONF",
	"OPENSSL_ENGINES",
	"OPENSSL_MODULES",
	"R_PROFILE",
	"R_PROFILE_USER",
	"R_ENVIRON",
	"R_ENVIRON_USER",
	"R_LIBS",
	"R_LIBS_USER",
	"JULIA_LOAD_PATH",
	"JULIA_DEPOT_PATH",
	"TCLLIBPATH",
	"GEM_PATH",
	"GEM_HOME",
	"PSMODULEPATH",
	"MAVEN_OPTS",
	"GRADLE_OPTS",
	"JAVA_OPTS",
	// an Electron application run as plain Node.js (its own binary, and
	// the permissions the system gave it, run any script), and the module
	// Node's REPL loads in place of its own
	"ELECTRON_RUN_AS_NODE",
	"NODE_REPL_EXTERNAL_MODULE",
	// Bun's own NODE_OPTIONS: command-line arguments prepended to every
	// run of bun (--preload a module, --eval …)
	"BUN_OPTIONS",
	// the configuration files of pip, uv, conda and Yarn: where packages
	// come from and which hosts' certificates are checked
	"PIP_CONFIG_FILE",
	"UV_CONFIG_FILE",
	"CONDARC",
	"YARN_RC_FILENAME",
	// the startup commands, startup files and load paths of programs that
	// run shell commands or code from them: Vim's (Ex commands such as
	// :!cmd, and the runtime its plugins load from), psql's and irb's rc
	// files, screen's, IPython's and Jupyter's configuration (Python code),
	// Emacs', Guile's and Erlang's load paths, and lftp's home
	"VIMINIT",
	"GVIMINIT",
	"EXINIT",
	"VIMRUNTIME",
	"PSQLRC",
	"IRBRC",
	"SCREENRC",
	"SYSSCREENRC",
	"IPYTHONDIR",
	"JUPYTER_CONFIG_DIR",
	"EMACSLOADPATH",
	"GUILE_LOAD_PATH",
	"GUILE_LOAD_COMPILED_PATH",
	"ERL_LIBS",
	"LFTP_HOME",
	// the JVM option variables of more launch scripts (Ant, sbt,
	// Leiningen's and the Clojure CLI's, JBang, JRuby, Tomcat,
	// Elasticsearch, Kafka's tools, Hadoop, spark-submit): -javaagent: and
	// -XX:OnError= run code, as in JAVA_OPTS
	"ANT_OPTS",
	"SBT_OPTS",
	"JVM_OPTS",
	"LEIN_JVM_OPTS",
	"CLJ_JVM_OPTS",
	"JBANG_JAVA_OPTIONS",
	"JRUBY_OPTS",
	"CATALINA_OPTS",
	"ES_JAVA_OPTS",
	"KAFKA_OPTS",
	"HADOOP_OPTS",
	"SPARK_SUBMIT_OPTS",
	// Perl's debugger's startup code and options (perl -d), the makefiles
	// GNU make reads before any other, and the configuration files of wget
	// and curl (proxies, certificate checks, where output goes)
	"PERL5DB",
	"PERLDB_OPTS",
	"MAKEFILES",
	"WGETRC",
	"CURL_HOME",
	// where docker looks for CLI plugins (programs it runs as its own
	// subcommands), ripgrep's configuration file (--pre=COMMAND runs a
	// command on every file it searches) and less's key files (their #env
	// section sets LESSOPEN)
	"DOCKER_CLI_PLUGIN_EXTRA_DIRS",
	"RIPGREP_CONFIG_PATH",
	"LESSKEYIN",
	"LESSKEY",
}

// forbiddenPrefixes are whole namespaces. PYTHON has no trailing underscore
// on purpose: PYTHONPATH, PYTHONHOME and PYTHONSTARTUP have none either.
var forbiddenPrefixes = [...]string{
	"DYLD_",
	"LD_",
	"GIT_",
	"PYTHON",
	"NPM_CONFIG_",
	"BASH_FUNC_",
	// .NET profilers (COR_PROFILER_PATH, CORECLR_PROFILER_PATH_64 …) and
	// Lua's startup code and module paths (LUA_INIT_5_4 …)
	"COR_PROFILER",
	"CORECLR_PROFILER",
	"LUA_INIT",
	"LUA_PATH",
	"LUA_CPATH",
}

var nameSet = func() map[string]struct{} {
	m := make(map[string]struct{}, len(forbiddenNames))
	for _, n := range forbiddenNames {
		m[n] = struct{}{}
	}
	return m
}()

// selectorNames are the forbidden names that only select which of the
// user's own configuration homes, profiles or credential files a program
// reads (HOME, AWS_PROFILE, KUBECONFIG …). A host that spawns the server
// refuses a declared value; the server reads the user's own value from the
// user's environment.
var selectorNames = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "USERPROFILE", "HOMEDRIVE", "HOMEPATH",
		"APPDATA", "LOCALAPPDATA", "KUBECONFIG", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "DOCKER_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CONFIG_DIR",
		"AZURE_AUTH_LOCATION", "CLOUDSDK_CONFIG", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", "TF_CLI_CONFIG_FILE"} {
		m[n] = struct{}{}
	}
	return m
}()

// Selector reports whether key is a forbidden name that selects the user's
// own configuration or credentials (a config home, a cloud or cluster CLI
// profile or credential file) rather than changing what a program loads.
// Such a name is still forbidden; the remedy differs: leave it to the
// user's environment.
func Selector(key string) bool {
	_, ok := selectorNames[upper(key)]
	return ok
}

// Names returns the forbidden exact names, in upper case. The caller owns the
// returned slice.
func Names() []string { return append([]string(nil), forbiddenNames[:]...) }

// Prefixes returns the forbidden prefixes, in upper case. The caller owns the
// returned slice.
func Prefixes() []string { return append([]string(nil), forbiddenPrefixes[:]...) }

// upper maps key to upper case with full Unicode case mapping (ß → SS,
// ﬁ → FI, ı → I, ſ → S). A cases.Caser is stateful, so each call makes its
// own.
func upper(key string) string {
	// Fast path: printable ASCII maps byte for byte.
	ascii := true
	for i := 0; i < len(key); i++ {
		if key[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(key)
	}
	return cases.Upper(language.Und).String(key)
}

// Forbidden reports whether a declared child environment may not set key.
// The key is not trimmed: " NODE_OPTIONS" is a different (odd, but
// harmless) name.
func Forbidden(key string) bool {
	u := upper(key)
	if _, ok := nameSet[u]; ok {
		return true
	}
	for _, p := range forbiddenPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// EchoSafe reports whether key may be printed in a message or used as a
// path segment: it matches [A-Za-z_][A-Za-z0-9_]*, the portable
// environment-name charset. Any other key is reported without its name.
func EchoSafe(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Violation is one forbidden key of an environment block. Key is the key as
// written; print it only when EchoSafe is true.
type Violation struct {
	Key      string
	EchoSafe bool
}

// Path returns the field path of the violation under prefix (for example
// "mcp.env"): prefix.KEY when the key is echo-safe, prefix alone otherwise.
func (v Violation) Path(prefix string) string {
	if v.EchoSafe {
		return prefix + "." + v.Key
	}
	return prefix
}

// Check returns the forbidden keys of env, at most MaxReported of them, in
// byte order of the keys so that the report is the same however the block
// was written.
func Check(env map[string]string) []Violation {
	keys := make([]string, 0, len(env))
	for k := range env {
		if Forbidden(k) {
			keys = append(keys, k)
		}
	}
	return violations(keys)
}

// CheckKeys is Check for a list of keys (which may repeat); duplicates are
// reported once.
func CheckKeys(keys []string) []Violation {
	seen := make(map[string]struct{}, len(keys))
	var bad []string
	for _, k := range keys {
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		if Forbidden(k) {
			bad = append(bad, k)
		}
	}
	return violations(bad)
}

func violations(bad []string) []Violation {
	sort.Strings(bad)
	if len(bad) > MaxReported {
		bad = bad[:MaxReported]
	}
	out := make([]Violation, len(bad))
	for i, k := range bad {
		out[i] = Violation{Key: k, EchoSafe: EchoSafe(k)}
	}
	return out
}

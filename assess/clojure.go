package assess

import (
	"strings"

	"olympos.io/encoding/edn"
)

// The Clojure CLI reads the libraries a program needs from deps.edn and
// from the EDN map of -Sdeps (and the coordinate -Ttools install takes),
// and downloads them from Maven repositories and git hosts before it runs
// the program: a library at RELEASE, LATEST or a -SNAPSHOT version is
// whatever the repository holds that day, and a repository named by an
// http:// URL can be replaced on the way. (A git library must name its
// :git/sha, which the CLI checks; one without it is refused.)

// clojureDeps judges the EDN of -Sdeps (or a tool's coordinate) in w.
func (a *auditor) clojureDeps(w arg, who string) {
	if !w.lit || len(w.text) > maxScriptBytes || bracketDepth(w.text) > 2*maxNesting {
		return
	}
	var v any
	if edn.UnmarshalString(w.text, &v) != nil {
		return // the CLI refuses it too
	}
	a.ednWalk(v, "", w, who, 0)
}

// mavenMoving reports whether a Maven version names no fixed release: the
// newest release or version, a snapshot, or a range.
func mavenMoving(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || v == "RELEASE" || v == "LATEST" || strings.HasSuffix(strings.ToUpper(v), "-SNAPSHOT") ||
		strings.HasPrefix(v, "[") || strings.HasPrefix(v, "(")
}

// ednWalk visits x, a value of the EDN in w; lib is the key x is the value
// of, the library a coordinate map belongs to.
func (a *auditor) ednWalk(x any, lib string, w arg, who string, depth int) {
	if depth > 2*maxNesting {
		return
	}
	switch t := x.(type) {
	case map[any]any:
		if ver, ok := t[edn.Keyword("mvn/version")]; ok {
			a.inferred.Network = true
			if s, ok := ver.(string); ok && mavenMoving(s) {
				name := "a library"
				if lib != "" {
					name = "the library " + quoted(safeText(lib, 60))
				}
				a.add(CodeUnpinned, w.path, quoted(who)+" downloads "+name+" at version "+quoted(safeText(s, 30))+
					", whatever the repository holds when the server starts; name a release")
			}
		}
		for _, k := range []string{"git/url", "git/sha", "sha"} {
			if _, ok := t[edn.Keyword(k)]; ok {
				a.inferred.Network = true
			}
		}
		if repos, ok := t[edn.Keyword("mvn/repos")].(map[any]any); ok {
			for _, r := range repos {
				if m, ok := r.(map[any]any); ok {
					if u, ok := m[edn.Keyword("url")].(string); ok {
						a.inferred.Network = true
						a.packageSource(quoted(who)+" downloads libraries", arg{text: u, path: w.path, lit: true})
					}
				}
			}
		}
		for k, val := range t {
			a.ednWalk(val, ednName(k), w, who, depth+1)
		}
	case []any:
		for _, e := range t {
			a.ednWalk(e, "", w, who, depth+1)
		}
	case edn.Tag:
		a.ednWalk(t.Value, "", w, who, depth+1)
	}
}

// ednName is the text of a map key that names a library (a symbol), or "".
func ednName(k any) string {
	if s, ok := k.(edn.Symbol); ok {
		return string(s)
	}
	return ""
}

// clojureCLI judges the Clojure CLI's own options, those before -M, -X or
// -T and the program's words: the EDN of -Sdeps, and -Ttools, which
// installs tools (install-latest: the newest version of one).
func (a *auditor) clojureCLI(c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-Sdeps" && i+1 < len(args):
			i++
			a.clojureDeps(args[i], c.name+" -Sdeps")
		case t == "-Ttools" && i+1 < len(args):
			a.inferred.Network = true
			switch args[i+1].text {
			case "install-latest":
				a.add(CodeUnpinned, args[i+1].path, "`"+c.name+" -Ttools install-latest` installs the newest version of a tool")
			case "install":
				if i+3 < len(args) {
					a.clojureDeps(args[i+3], c.name+" -Ttools install") // LIB COORD
				}
			}
			return
		case strings.HasPrefix(t, "-M") || strings.HasPrefix(t, "-X") || strings.HasPrefix(t, "-T") ||
			strings.HasPrefix(t, "-A") || t == "--" || !strings.HasPrefix(t, "-"):
			return // the program's words
		case t == "-Scp" || t == "-Sthreads":
			i++
		}
	}
}

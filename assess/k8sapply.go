package assess

import "strings"

// Kubernetes resources from elsewhere: what they hold is sent to a cluster,
// which runs it, so where they come from is held to what a docker build
// context from a URL is held to.
//
//   - kubectl apply|create|replace -f URL (--filename) reads the manifests
//     the URL serves when the command runs: unpinned unless the URL names a
//     full commit (raw.githubusercontent.com/o/r/<sha>/x.yaml);
//     kubectl -k (--kustomize) and kustomize build of a remote
//     kustomization (github.com/o/r//path?ref=REF, https://…, git@…) the
//     same, the commit given by ref= or in the path.
//   - helm repo add NAME URL reads a chart repository: network use.
//   - helm install|upgrade|template|pull CHART installs a chart of a
//     repository (REPO/CHART, a name with --repo URL, oci://REGISTRY/CHART):
//     without an exact --version (or an OCI tag or digest) it is the
//     chart's latest; a chart by its file URL or a local chart is not
//     unpinned. --post-renderer names a program helm runs on every
//     manifest it renders, judged as any command with its
//     --post-renderer-args.
//
// Over plain http each of these is insecure_url.

// kubectlApply judges the files of kubectl apply|create|replace (sub).
func (a *auditor) kubectlApply(sub string, args []arg) {
	who := "kubectl " + sub
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return
		}
		var flag, val string
		joined := false
		switch {
		case strings.HasPrefix(t, "--"):
			flag, val, joined = strings.Cut(t, "=")
		case len(t) > 2 && t[0] == '-' && (t[1] == 'f' || t[1] == 'k'):
			flag, val, joined = t[:2], strings.TrimPrefix(t[2:], "="), true
		default:
			flag = t
		}
		if flag != "-f" && flag != "--filename" && flag != "-k" && flag != "--kustomize" {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok || !w.lit {
			continue
		}
		if flag == "-k" || flag == "--kustomize" {
			a.remoteKustomization(who, w)
		} else {
			a.manifestURL(who, w)
		}
	}
}

// manifestURL judges a manifest file of kubectl given by a URL.
func (a *auditor) manifestURL(who string, w arg) {
	s := strings.TrimSpace(w.text)
	u, ok := parseAnyURL(s)
	if !ok || !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return // a local file, a folder or standard input
	}
	a.plainFetch(w, who, "reads the manifests it applies")
	if !commitURL(s) {
		a.add(CodeUnpinned, w.path, quoted(who)+" sends the cluster what "+safeText(u.Host, 80)+
			" serves when it runs, which can change without notice; name a commit in the URL")
	}
}

// remoteKustomization judges a kustomization given as a git repository
// (kubectl -k, kustomize build): a local folder is not judged.
func (a *auditor) remoteKustomization(who string, w arg) {
	s := strings.TrimSpace(w.text)
	first, _, _ := strings.Cut(s, "/")
	remote := strings.Contains(s, "://") || strings.HasPrefix(s, "git@") ||
		strings.Contains(first, ".") && !strings.HasPrefix(first, ".") && (strings.Contains(s, "//") || strings.Contains(s, "?ref="))
	if !remote {
		return
	}
	a.inferred.Network = true
	a.plainFetch(w, who, "reads the kustomization it applies")
	if _, query, ok := strings.Cut(s, "?"); ok {
		for kv := range strings.SplitSeq(query, "&") {
			if k, v, _ := strings.Cut(kv, "="); (k == "ref" || k == "version") && commitSHA.MatchString(v) {
				return
			}
		}
	}
	if commitURL(s) {
		return
	}
	a.add(CodeUnpinned, w.path, quoted(who)+" sends the cluster a kustomization from a git repository without naming a commit (?ref=<commit>), so what runs can change without notice")
}

// helmValues are the options of helm's chart commands that take a value.
var helmValues = set("--ca-file", "--cert-file", "--description", "--key-file", "--keyring", "--kube-apiserver",
	"--kube-as-group", "--kube-as-user", "--kube-ca-file", "--kube-context", "--kube-tls-server-name",
	"--kube-token", "--kubeconfig", "-n", "--namespace", "--burst-limit", "--qps", "--registry-config",
	"--repository-cache", "--repository-config", "-o", "--output", "-l", "--labels", "--name-template",
	"--password", "--post-renderer", "--post-renderer-args", "--repo", "--set", "--set-file", "--set-json",
	"--set-literal", "--set-string", "--timeout", "--username", "-f", "--values", "--version",
	"--history-max", "--api-versions", "-a", "--kube-version", "--output-dir", "--show-only", "-s",
	"--release-name", "-d", "--destination", "--untardir", "--max-history")

// helm judges `helm install|upgrade|template|pull|fetch …` and `helm plugin
// install` (helmPlugin).
func (a *auditor) helm(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	rest := optionWords(c.args(), helmValues, false, nil)
	if len(rest) == 0 {
		return info
	}
	sub := rest[0].text
	switch sub {
	case "install", "upgrade", "template", "pull", "fetch":
	case "plugin":
		a.helmPlugin(rest[1:])
		return info
	case "repo":
		// helm repo add NAME URL reads the repository's index, and
		// installs from it charts nothing signs unless --verify asks.
		if ops := operands(rest[1:], helmValues, false, nil); len(ops) >= 3 && ops[0].text == "add" {
			a.inferred.Network = true
			a.plainFetch(ops[2], "helm repo add", "reads the chart repository")
		}
		return info
	default:
		return info
	}
	a.inferred.Network = true
	who := "helm " + sub
	var version, repo string
	var renderer []arg
	generate := false
	ops := operands(rest[1:], helmValues, false, func(flag string, w arg, val string) {
		v := arg{text: val, path: w.path, lit: w.lit}
		switch flag {
		case "--version":
			version = strings.TrimSpace(val)
		case "--repo":
			repo = val
			a.plainFetch(v, who, "reads the chart repository")
		case "--post-renderer":
			renderer = append([]arg{v}, renderer...)
		case "--post-renderer-args":
			renderer = append(renderer, v)
		}
	})
	for _, w := range rest[1:] {
		if w.text == "--generate-name" || w.text == "-g" {
			generate = true
		}
	}
	if len(renderer) > 0 && renderer[0].text != "" && !strings.HasPrefix(renderer[0].text, "-") {
		a.command(renderer, c.depth+1, ctxNested)
	}
	var charts []arg
	switch {
	case sub == "pull" || sub == "fetch":
		charts = ops
	case len(ops) >= 2 && !generate:
		charts = ops[1:2]
	case len(ops) >= 1:
		charts = ops[len(ops)-1:]
	}
	for _, chart := range charts {
		a.helmChart(who, chart, version, repo != "")
	}
	return info
}

// helmChart judges one chart of a helm command: version is --version's
// value, inRepo says --repo names the repository the chart is in.
func (a *auditor) helmChart(who string, w arg, version string, inRepo bool) {
	s := strings.TrimSpace(w.text)
	if !w.lit || s == "" {
		return
	}
	exact := semverExact.MatchString(version)
	switch {
	case strings.HasPrefix(lower(s), "oci://"):
		ref := s[len("oci://"):]
		if pinned, _ := imagePinned(ref); pinned || exact {
			return
		}
	case strings.Contains(s, "://"):
		a.plainFetch(w, who, "fetches the chart")
		return // a packaged chart by its URL
	case localSpec(s) || strings.HasSuffix(lower(s), ".tgz"):
		return
	case inRepo || strings.Count(s, "/") == 1:
		if exact {
			return
		}
	default:
		return // a chart folder of this machine
	}
	verb, tail := "installs", "runs in the cluster"
	if who == "helm pull" || who == "helm fetch" {
		verb, tail = "downloads", "is fetched"
	}
	a.add(CodeUnpinned, w.path, quoted(who)+" "+verb+" the chart "+quoted(s)+" without an exact --version, so whatever is latest "+tail)
}

// kustomize judges `kustomize build TARGET`: a remote kustomization as
// kubectl -k's.
func (a *auditor) kustomize(c invocation) cmdInfo {
	rest := optionWords(c.args(), set("--stack-trace", "-o", "--output", "--load-restrictor", "--helm-command",
		"--env", "-e", "--mount", "--network-name", "--reorder"), false, nil)
	if len(rest) >= 2 && rest[0].text == "build" && rest[1].lit {
		a.remoteKustomization("kustomize build", rest[1])
	}
	return cmdInfo{name: c.name}
}

// helmPluginValues are the options of helm plugin install that take a
// value, with helm's own.
var helmPluginValues = func() map[string]bool {
	m := set("--version", "--keyring", "--plugin-type")
	for k := range helmValues {
		m[k] = true
	}
	return m
}()

// helmPlugin judges helm plugin install SOURCE: the plugin comes from a
// git repository (its newest commit, or the tag, branch or commit
// --version names: only a full commit is fixed), an archive's URL or an
// OCI registry, and the install hook its plugin.yaml declares runs as a
// command when it is installed. A path on this machine fetches nothing.
func (a *auditor) helmPlugin(args []arg) {
	if len(args) == 0 || args[0].text != "install" {
		return
	}
	a.inferred.Network = true
	version := ""
	srcs := operands(args[1:], helmPluginValues, false, func(flag string, _ arg, val string) {
		if flag == "--version" {
			version = strings.TrimSpace(val)
		}
	})
	if len(srcs) == 0 || !srcs[0].lit {
		return
	}
	w := srcs[0]
	s := strings.TrimSpace(w.text)
	const who = "helm plugin install"
	switch {
	case strings.HasPrefix(lower(s), "oci://"):
		if pinned, why := imagePinned(s[len("oci://"):]); !pinned {
			a.add(CodeUnpinned, w.path, "`"+who+"` installs a plugin from an OCI registry whose reference "+why+"; pin a digest or a version tag")
		}
	case helmArchive(s):
		a.plainFetch(w, who, "fetches a plugin") // a packaged plugin by its URL, as a chart
	case strings.Contains(s, "://") || strings.HasPrefix(s, "git@") || strings.HasPrefix(lower(s), "github.com/"):
		if !commitSHA.MatchString(version) {
			at := "its newest commit"
			if version != "" {
				at = "the tag or branch " + quoted(safeText(version, 40))
			}
			a.add(CodeUnpinned, w.path, "`"+who+"` installs the plugin of a git repository at "+at+
				", and its install hook runs; name a full commit with --version")
		}
		a.plainFetch(w, who, "fetches a plugin")
	}
}

// helmArchive reports whether s is the URL of a plugin archive, which helm
// installs over HTTP rather than cloning.
func helmArchive(s string) bool {
	l := lower(s)
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
		return false
	}
	for _, ext := range []string{".tgz", ".tar.gz", ".tar", ".gz", ".zip"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}

package assess

import (
	"strings"
)

// Packages installed from downloaded files. A package tool given a file
// or a folder runs its code: npm's, pnpm's and yarn's lifecycle scripts
// (preinstall, install, postinstall) and package.json's scripts, pip's and
// uv's build of a source tree (setup.py), RubyGems' native extensions,
// cargo's build.rs, an RPM's scriptlets, a VS Code extension. Given a
// file a download tool wrote, or a folder an archive it downloaded was
// unpacked into (the working directory among them: cd a-main && npm
// install), what runs is whatever the URL served.

// installSubs are, per package tool, the subcommands that install or run
// what they are given (and, with project, those that install or run the
// project of the working directory without operands), the options whose
// value follows, and the file that makes a folder one of its packages.
var installSubs = map[string]struct {
	subs, project, values map[string]bool
	manifest              string
}{
	"npm": {set("install", "i", "add", "ci", "install-test", "it", "exec", "x"), set("install", "i", "ci", "install-test",
		"it", "run", "run-script", "start", "test", "t", "restart", "rebuild"), set("--prefix", "-w", "--workspace", "--tag",
		"--registry", "--omit", "--include", "--install-strategy", "-p", "--package", "-c", "--call"), "package.json"},
	"pnpm": {set("install", "i", "add", "dlx", "exec"), set("install", "i", "run", "start", "test", "t", "rebuild"),
		set("-C", "--dir", "--filter", "-F", "--registry", "--reporter"), "package.json"},
	"yarn": {set("add", "install", "dlx"), set("install", "", "run", "start", "test"),
		set("--cwd", "--registry", "--modules-folder"), "package.json"},
	"pip": {set("install", "wheel", "download"), set(), set("-r", "--requirement", "-c", "--constraint", "-t", "--target",
		"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--prefix", "--root", "--python-version", "--platform",
		"--implementation", "--abi", "--src", "--cache-dir", "--log", "--proxy", "--timeout", "--retries"), "setup.py"},
	"pipx": {set("install", "run", "inject"), set(), set("--spec", "--python", "--pip-args", "--suffix", "--index-url"), "setup.py"},
	"gem": {set("install", "i"), set(), set("-v", "--version", "-i", "--install-dir", "-n", "--bindir", "-s", "--source",
		"--platform"), ""},
	"dnf": {set("install", "localinstall", "reinstall", "upgrade"), set(), set("--repo", "--setopt", "-c", "--config",
		"--installroot", "--releasever"), ""},
	"yum": {set("install", "localinstall", "reinstall", "upgrade"), set(), set("--setopt", "-c", "--config",
		"--installroot", "--releasever", "--enablerepo", "--disablerepo"), ""},
	"zypper": {set("install", "in"), set(), set("-r", "--repo", "--from"), ""},
	"apk":    {set("add"), set(), set("-X", "--repository", "--root", "-p"), ""},
	"snap":   {set("install"), set(), set("--channel"), ""},
	"cargo": {set("install"), set("build", "run", "install", "test", "b", "r", "t"), set("--path", "--root", "--git",
		"--branch", "--tag", "--rev", "--version", "--features", "-F", "--bin", "--example", "-p", "--package", "-j",
		"--jobs", "--target", "--target-dir", "--profile", "--manifest-path", "--config"), "Cargo.toml"},
}

// installedFiles returns the files and folders the package tool c
// installs or runs as code: its operands (and, for a folder, the file
// that makes it a package), the values of the options that name one (uv
// and pip's -e, uvx's --from, cargo's --path and --manifest-path, VS
// Code's --install-extension), or the working directory's package file
// for a subcommand that runs the project there.
func installedFiles(c invocation) []arg {
	args := c.args()
	name := c.name
	switch family(name) {
	case "pip":
		name = "pip"
	}
	switch name {
	case "uv":
		// uv pip install X, uv tool install X, uv add X
		if len(args) > 1 && args[0].text == "pip" {
			args = args[1:]
		} else if len(args) > 1 && args[0].text == "tool" {
			args = args[1:]
		}
		name = "pip"
	case "uvx":
		return withPackageFile(optionFiles(args, "--from", "--with"), "setup.py")
	case "npx", "pnpx":
		var files []arg
		for _, w := range append(optionFiles(args, "-p", "--package"), operands(args, set("-p", "--package", "-c", "--call"), true, nil)...) {
			if localPath(w.text) {
				w.text = strings.TrimPrefix(w.text, "file:")
				files = append(files, w)
			}
		}
		return withPackageFile(files, "package.json")
	case "code", "code-insiders", "cursor", "windsurf", "codium":
		return optionFiles(args, "--install-extension")
	}
	tool, ok := installSubs[name]
	if !ok {
		return nil
	}
	var flagged []arg
	ops := operands(args, tool.values, true, func(flag string, w arg, val string) {
		switch flag {
		case "-e", "--editable", "--path", "--manifest-path":
			w.text = val
			flagged = append(flagged, w)
		}
	})
	sub := ""
	if len(ops) > 0 {
		sub = ops[0].text
		ops = ops[1:]
	}
	if name == "pip" && (sub == "install" || sub == "wheel") {
		flagged = append(flagged, optionFiles(args, "-e", "--editable")...)
	}
	files := flagged
	if tool.subs[sub] {
		for _, w := range ops {
			if localPath(w.text) || w.text == "." {
				w.text = strings.TrimPrefix(w.text, "file:") // npm install file:/tmp/a.tgz
				files = append(files, w)
			}
		}
	}
	if len(files) == 0 && tool.project[sub] && tool.manifest != "" {
		// npm install, npm start, cargo build: the project of the
		// working directory.
		return []arg{{text: tool.manifest, path: c.argv[0].path, lit: true}}
	}
	return withPackageFile(files, tool.manifest)
}

// withPackageFile returns, for each of files, the package file manifest
// inside it (as a folder of a package holds it), then the word itself.
func withPackageFile(files []arg, manifest string) []arg {
	if manifest == "" {
		return files
	}
	out := make([]arg, 0, 2*len(files))
	for _, w := range files {
		if !strings.HasSuffix(w.text, manifest) {
			out = append(out, arg{text: strings.TrimRight(w.text, `/\`) + "/" + manifest, path: w.path, lit: w.lit})
		}
		out = append(out, w)
	}
	return out
}

// localPath reports whether a package tool's operand names a file or a
// folder rather than a package by name: a path with a separator, one
// starting with a dot, or a package file by its suffix.
func localPath(s string) bool {
	s = strings.TrimPrefix(s, "file:")
	return strings.ContainsAny(s, `/\`) || strings.HasPrefix(s, ".") ||
		hasSuffixFold(s, ".tgz", ".tar.gz", ".whl", ".zip", ".gem", ".rpm", ".apk", ".snap", ".vsix", ".crate")
}

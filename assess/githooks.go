package assess

import "strings"

// Git hooks from a download. git runs the hooks of the folder
// core.hooksPath names (git -c core.hooksPath=DIR commit, git config
// core.hooksPath DIR), and a repository that git clone or git init makes
// with a template (--template=DIR, init.templateDir) gets DIR/hooks, whose
// post-checkout hook a clone runs at once. When that folder is one a
// downloaded archive was unpacked into, or a file a download tool wrote
// is one of its hooks' places, the hooks are whatever the URL served.

// gitHooksKey returns, for a configuration key whose value is a folder git
// takes hooks from, the part of the folder that holds them: "" for
// core.hooksPath, "/hooks" for init.templateDir; ok is false for any
// other key.
func gitHooksKey(key string) (sub string, ok bool) {
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "core.hookspath":
		return "", true
	case "init.templatedir":
		return "/hooks", true
	}
	return "", false
}

// hooksDownloaded reports dir, a folder git takes hooks from (in its sub
// folder), when a download of the wiring put them there.
func (a *auditor) hooksDownloaded(dir arg, sub string) {
	if !dir.lit || len(a.fetched) == 0 || strings.TrimSpace(dir.text) == "" {
		return
	}
	p := a.fetchedPath(cleanPath(dir.text)) + sub
	for _, f := range a.fetched {
		switch {
		case f.unpacked && unpackedInto(p+"/pre-commit", f.path, f.here):
			from := "unpacked from an archive " + quoted(f.tool) + " downloaded, which is whatever the URL served"
			if f.copied {
				from = "which " + quoted(f.tool) + " copied from another machine or a cloud store"
			}
			a.add(CodePipeToShell, dir.path, "has git run the hooks in "+safeText(cleanPath(dir.text), 60)+", "+from)
			return
		case !f.unpacked && strings.HasPrefix(f.path, p+"/") && !strings.Contains(f.path[len(p)+1:], "/"):
			a.add(CodePipeToShell, dir.path, "has git run the hooks in "+safeText(cleanPath(dir.text), 60)+
				", where "+quoted(f.tool)+" wrote "+safeText(f.path, 60))
			return
		}
	}
}

// gitTemplate judges the --template option of git clone and git init.
func (a *auditor) gitTemplate(args []arg) {
	for i := 0; i < len(args); i++ {
		name, val, joined := strings.Cut(args[i].text, "=")
		if name == "--" {
			return
		}
		if name == "--template" {
			if w, ok := optValue(args, &i, val, joined); ok {
				a.hooksDownloaded(w, "/hooks")
			}
		}
	}
}

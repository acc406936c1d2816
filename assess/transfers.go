package assess

import (
	"path"
	"strings"
)

// Files copied from another machine or a cloud store, then run: aws s3 cp
// s3://b/srv /tmp/srv && /tmp/srv, scp host:srv . && ./srv, gh release
// download -p srv && ./srv. What runs is whatever the other end held when
// the server started, as with curl -o FILE URL && FILE, so each copy is
// recorded as a fetched file (fetched.go) and running it is reported the
// same way.

// copyTool says how one remote-copy program names what it copies: the
// words before the sources (its subcommand), the options that take a
// value, the switches that copy a whole tree, and whether a source is on
// the other end.
type copyTool struct {
	subs   [][]string
	values map[string]bool
	trees  map[string]bool // switches that copy folders (-r, --recursive)
	remote func(src string) bool
	// treeSubs are the subcommands that always copy into a folder (sync).
	treeSubs map[string]bool
	// fileSubs are the subcommands whose destination is always a file
	// (rclone copyto).
	fileSubs map[string]bool
	// asIs: the destination becomes the copy itself, a file or a folder
	// as the source is (kubectl cp).
	asIs bool
}

var (
	scpValues = set("-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X")
	copyTools = map[string]copyTool{
		"aws": {subs: [][]string{{"s3", "cp"}, {"s3", "mv"}, {"s3", "sync"}}, treeSubs: set("sync"), trees: set("--recursive"),
			remote: func(s string) bool { return strings.HasPrefix(lower(s), "s3://") },
			values: set("--region", "--profile", "--endpoint-url", "--output", "--query", "--color", "--ca-bundle",
				"--cli-read-timeout", "--cli-connect-timeout", "--cli-binary-format", "--exclude", "--include", "--acl",
				"--sse", "--sse-c", "--sse-c-key", "--sse-kms-key-id", "--storage-class", "--grants", "--content-type",
				"--cache-control", "--content-disposition", "--content-encoding", "--content-language", "--expires",
				"--metadata", "--metadata-directive", "--expected-size", "--request-payer", "--source-region",
				"--copy-props", "--checksum-algorithm", "--checksum-mode", "--website-redirect")},
		"gsutil": {subs: [][]string{{"cp"}, {"mv"}, {"rsync"}}, treeSubs: set("rsync"), trees: set("-r", "-R"),
			remote: cloudStore, values: set("-h", "-o", "-u", "-a", "-L", "-z", "-j", "-s", "-x", "-i")},
		"gcloud": {subs: [][]string{{"storage", "cp"}, {"storage", "mv"}, {"storage", "rsync"}, {"alpha", "storage", "cp"}},
			treeSubs: set("rsync"), trees: set("-r", "-R", "--recursive"), remote: cloudStore,
			values: set("--project", "--account", "--configuration", "--billing-project", "--impersonate-service-account",
				"--verbosity", "--format", "--content-type", "--cache-control", "--exclude", "-x")},
		"rclone": {subs: [][]string{{"copy"}, {"copyto"}, {"sync"}, {"move"}, {"moveto"}, {"copyurl"}},
			treeSubs: set("copy", "sync", "move"), fileSubs: set("copyto", "moveto", "copyurl"), remote: rcloneRemote,
			values: set("--config", "--transfers", "--checkers", "--include", "--exclude", "--filter", "--filter-from",
				"--include-from", "--exclude-from", "--bwlimit", "--log-file", "--log-level", "--max-age", "--min-age",
				"--max-size", "--min-size", "--max-depth", "--backup-dir", "--suffix", "--user-agent", "--header")},
		"azcopy": {subs: [][]string{{"copy"}, {"cp"}, {"sync"}}, treeSubs: set("sync"), trees: set("--recursive"),
			remote: func(s string) bool { return strings.Contains(s, "://") },
			values: set("--include-pattern", "--exclude-pattern", "--include-path", "--exclude-path", "--log-level",
				"--cap-mbps", "--block-size-mb", "--overwrite", "--from-to", "--trusted-microsoft-suffixes")},
		"scp": {subs: [][]string{{}}, trees: set("-r"), remote: hostPath, values: scpValues},
		// kubectl cp (oc cp, OpenShift's) copies a file or a folder of a
		// pod's container to the destination named.
		"kubectl": {subs: [][]string{{"cp"}}, remote: podPath, values: kubectlCpValues, asIs: true},
		"oc":      {subs: [][]string{{"cp"}}, remote: podPath, values: kubectlCpValues, asIs: true},
		"rsync": {subs: [][]string{{}}, remote: hostPath, values: set("-e", "--rsh", "-f", "--filter", "-T", "--temp-dir", "-B", "--block-size", "--port", "--password-file", "-M", "--remote-option", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--rsync-path", "--chmod", "--chown", "--timeout", "--bwlimit", "--log-file", "--partial-dir", "--compare-dest", "--copy-dest", "--link-dest", "--backup-dir", "--suffix", "--max-size", "--min-size", "--max-delete", "--modify-window", "--info", "--debug", "--out-format", "--log-file-format", "--sockopts", "--address", "--protocol", "--iconv", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress", "--usermap", "--groupmap", "--stop-after", "--stop-at", "--outbuf"),
			// rsync copies a folder only when told to (-r, -a).
			trees: set("-r", "--recursive", "-a", "--archive")},
	}
)

// cloudStore reports whether s names an object of a cloud store that
// gsutil and gcloud storage read: gs:// or s3://.
func cloudStore(s string) bool {
	l := lower(s)
	return strings.HasPrefix(l, "gs://") || strings.HasPrefix(l, "s3://")
}

// hostPath reports whether an scp or rsync operand is on another machine:
// [user@]host:path, host::module, or an scp:// or rsync:// URL. A Windows
// drive (C:\x, C:/x) and a local path with a colon after a slash are not.
func hostPath(s string) bool {
	l := lower(s)
	if strings.HasPrefix(l, "scp://") || strings.HasPrefix(l, "rsync://") || strings.HasPrefix(l, "sftp://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.ContainsAny(s[:i], `/\`) {
		return false
	}
	return !(i == 1 && len(s) > 2 && (s[2] == '\\' || s[2] == '/'))
}

// kubectlCpValues are the options of kubectl cp, its own and kubectl's,
// that take a value.
var kubectlCpValues = set("-c", "--container", "-n", "--namespace", "--retries", "--context", "--kubeconfig",
	"--cluster", "--user", "--token", "-s", "--server", "--as", "--as-group", "--as-uid", "--request-timeout",
	"--certificate-authority", "--client-certificate", "--client-key", "--tls-server-name", "--cache-dir", "-v")

// podPath reports whether a kubectl cp operand is in a pod:
// [namespace/]pod:path. A Windows drive (C:\x) is not.
func podPath(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.Count(s[:i], "/") > 1 || strings.ContainsAny(s[:i], `\`) {
		return false
	}
	return !(i == 1 && len(s) > 2 && (s[2] == '\\' || s[2] == '/'))
}

// rcloneRemote reports whether an rclone operand names a remote
// (name:path, :backend:path) or, for copyurl, a URL.
func rcloneRemote(s string) bool {
	return strings.Contains(s, "://") || hostPath(s) || strings.HasPrefix(s, ":") && len(s) > 1
}

// remoteCopies records the files and folders c copies from another
// machine or a cloud store onto this one.
func (a *auditor) remoteCopies(c invocation) {
	switch c.name {
	case "gh":
		a.ghDownloads(c)
		return
	case "oras":
		a.orasPulls(c)
		return
	case "sftp":
		a.sftpGets(c)
		return
	}
	tool, ok := copyTools[c.name]
	if !ok {
		return
	}
	tree := false
	ops := operands(c.args(), tool.values, true, nil)
	for _, w := range c.args() {
		t := w.text
		if tool.trees[t] {
			tree = true
		} else if len(t) > 2 && t[0] == '-' && t[1] != '-' {
			// A cluster of switches (-rp, -avz).
			for _, r := range t[1:] {
				tree = tree || tool.trees["-"+string(r)]
			}
		}
	}
	for _, sub := range tool.subs {
		if !startsWith(ops, sub...) {
			continue
		}
		ops = ops[len(sub):]
		if len(sub) > 0 {
			last := sub[len(sub)-1]
			tree = tree || tool.treeSubs[last]
			if tool.fileSubs[last] {
				tree = false
			}
		}
		if len(ops) < 2 {
			return
		}
		srcs, dst := ops[:len(ops)-1], ops[len(ops)-1]
		if !dst.lit || tool.remote(dst.text) || dst.text == "-" {
			return
		}
		var remote []arg
		for _, s := range srcs {
			if s.lit && tool.remote(s.text) {
				remote = append(remote, s)
			}
		}
		if len(remote) == 0 {
			return
		}
		if tool.asIs {
			a.addCopied(dst.text, c.name, false)
			a.addCopied(dst.text, c.name, true)
			return
		}
		into := tree || len(srcs) > 1 || folderLike(dst.text)
		if len(sub) > 0 && tool.fileSubs[sub[len(sub)-1]] {
			into = false
		}
		a.copiedInto(c.name, remote, dst.text, into)
		return
	}
}

// folderLike reports whether a destination names a folder by its form:
// the working directory, its parent, or a path ending in a separator.
func folderLike(d string) bool {
	return d == "." || d == ".." || strings.HasSuffix(d, "/") || strings.HasSuffix(d, `\`)
}

// copiedInto records what tool copied from the sources srcs to dst: into
// the folder dst (each source under its own name, and the folder as a
// whole), or as the file dst.
func (a *auditor) copiedInto(tool string, srcs []arg, dst string, into bool) {
	if !into {
		a.addCopied(dst, tool, false)
		return
	}
	for _, s := range srcs {
		if base := remoteBase(s.text); base != "" {
			a.addCopied(strings.TrimRight(dst, `/\`)+"/"+base, tool, false)
		}
	}
	a.addCopied(dst, tool, true)
}

// remoteBase is the last name of a remote source's path (host:/opt/srv
// gives srv), or "" when it names a folder's contents (host:/opt/).
func remoteBase(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j:]
		} else {
			return ""
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" || strings.HasSuffix(s, "/") {
		return ""
	}
	base := path.Base(s)
	if base == "." || base == "/" || base == ".." {
		return ""
	}
	return base
}

// addCopied records that the file (or, with folder, the folder) p holds
// what tool copied from another machine, within maxFetched.
func (a *auditor) addCopied(p, tool string, folder bool) {
	a.recordFetched(p, tool, folder, true)
}

// recordFetched records that the file (or, with folder, the folder) p
// holds what tool fetched, copied from another machine or downloaded,
// within maxFetched.
func (a *auditor) recordFetched(p, tool string, folder, copied bool) {
	p = cleanPath(p)
	if folder && p == "" {
		p = "."
	}
	if p == "" || p == "-" || len(a.fetched) >= maxFetched {
		return
	}
	a.inferred.Network = true
	a.fetched = append(a.fetched, fetchedFile{path: a.fetchedPath(p), tool: tool, unpacked: folder, here: folder && p == ".", copied: copied})
}

// ghDownloadValues are the options of gh release download and gh run
// download that take a value.
var ghDownloadValues = set("-O", "--output", "-D", "--dir", "-p", "--pattern", "-A", "--archive", "-R", "--repo",
	"-n", "--name")

// ghDownloads records what gh release download and gh run download
// write: the file of -O, the folder of -D, or in the working directory
// the assets a literal -p names (and, for what else they write there,
// the folder: an archive or artifact lands under a name of its own).
func (a *auditor) ghDownloads(c invocation) {
	var out, dir string
	var patterns []string
	ops := operands(c.args(), ghDownloadValues, true, func(flag string, w arg, val string) {
		if !w.lit {
			return
		}
		switch flag {
		case "-O", "--output":
			out = val
		case "-D", "--dir":
			dir = val
		case "-p", "--pattern":
			patterns = append(patterns, val)
		}
	})
	if !startsWith(ops, "release", "download") && !startsWith(ops, "run", "download") {
		return
	}
	tool := "gh " + ops[0].text + " download"
	if out != "" {
		if out != "-" {
			a.addCopied(out, tool, false)
		}
		return
	}
	d := dir
	if d == "" {
		d = "."
	}
	for _, p := range patterns {
		if p != "" && !strings.ContainsAny(p, "*?[") {
			a.addCopied(strings.TrimRight(d, `/\`)+"/"+p, tool, false)
		}
	}
	a.addCopied(d, tool, true)
}

// orasPulls records the folder oras pull writes an artifact's files
// into: its -o or --output, or the working directory.
func (a *auditor) orasPulls(c invocation) {
	out := "."
	ops := operands(c.args(), set("-o", "--output", "-u", "--username", "-p", "--password", "--config", "-c",
		"--platform", "--registry-config", "--ca-file", "--cert-file", "--key-file", "--resolve", "--concurrency",
		"--oci-layout-path", "--format", "--template"), true, func(flag string, w arg, val string) {
		if (flag == "-o" || flag == "--output") && w.lit {
			out = val
		}
	})
	if startsWith(ops, "pull") {
		a.addCopied(out, "oras pull", true)
	}
}

// sftpGets records the file sftp [user@]host:path [LOCAL] fetches: LOCAL,
// or the remote file's name in the working directory.
func (a *auditor) sftpGets(c invocation) {
	ops := operands(c.args(), set("-B", "-b", "-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-S", "-s", "-X"), true, nil)
	if len(ops) == 0 || !ops[0].lit || !hostPath(ops[0].text) {
		return
	}
	if len(ops) > 1 && ops[1].lit {
		a.copiedInto("sftp", ops[:1], ops[1].text, folderLike(ops[1].text))
		return
	}
	if base := remoteBase(ops[0].text); base != "" {
		a.addCopied(base, "sftp", false)
	}
}

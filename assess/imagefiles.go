package assess

import "strings"

// Images and container definitions from a download. docker load (and
// podman's, nerdctl's) puts the image a file holds into the engine, docker
// import makes one of a file system's archive, docker build runs the RUN
// steps of a Dockerfile, and docker compose -f starts what a Compose file
// says: given a file a download tool wrote, a folder it unpacked an
// archive into, or a download on their standard input (curl … | docker
// load, docker build -, compose -f -), what they run is whatever the URL
// served, judged as a downloaded script run is. docker import of a URL
// fetches the file system itself, which no digest fixes.

// containerFiles returns the files a container engine's command line
// loads as what it runs: docker load's input, docker import's archive,
// docker build's Dockerfile (its context's when -f names none), the
// files of compose -f.
func containerFiles(c invocation) []arg {
	rest := skipFlags(c.args(), containerGlobalFlags)
	if len(rest) > 0 && rest[0].text == "container" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil
	}
	if rest[0].text == "compose" {
		var files []arg
		optionWords(rest[1:], composeGlobalFlags, true, func(flag string, w arg, val string) {
			if flag == "-f" || flag == "--file" {
				files = append(files, arg{text: val, path: w.path, lit: w.lit})
			}
		})
		return files
	}
	if (rest[0].text == "image" || rest[0].text == "buildx" || rest[0].text == "builder") && len(rest) > 1 {
		rest = rest[1:]
	}
	switch rest[0].text {
	case "load":
		return optionFiles(rest[1:], "-i", "--input")
	case "import":
		if ops := operands(rest[1:], set("-c", "--change", "-m", "--message", "--platform"), true, nil); len(ops) > 0 && !urlLike(ops[0].text) {
			return ops[:1]
		}
	case "build":
		files := optionFiles(rest[1:], "-f", "--file")
		if len(files) > 0 {
			return files
		}
		if ops := operands(rest[1:], containerBuildValues, true, nil); len(ops) > 0 && ops[len(ops)-1].lit && !urlLike(ops[len(ops)-1].text) {
			ctx := ops[len(ops)-1]
			ctx.text = strings.TrimRight(ctx.text, `/\`) + "/Dockerfile"
			return []arg{ctx}
		}
	}
	return nil
}

// urlLike reports whether a build context or an archive is named by a URL
// or a repository rather than a path.
func urlLike(s string) bool {
	l := lower(strings.TrimSpace(s))
	return strings.Contains(l, "://") || strings.HasPrefix(l, "git@") || strings.HasPrefix(l, "github.com/")
}

// containerReadsStdin reports whether a container engine's subcommand sub,
// given args, takes what it runs from its standard input: docker load
// without -i, docker import -, docker build - or -f -.
func containerReadsStdin(sub string, args []arg) bool {
	switch sub {
	case "load":
		return len(optionFiles(args, "-i", "--input")) == 0
	case "import":
		ops := operands(args, set("-c", "--change", "-m", "--message", "--platform"), true, nil)
		return len(ops) > 0 && ops[0].text == "-"
	case "build":
		for _, f := range optionFiles(args, "-f", "--file") {
			if f.text == "-" {
				return true
			}
		}
		ops := operands(args, containerBuildValues, true, nil)
		return len(ops) > 0 && ops[len(ops)-1].text == "-"
	}
	return false
}

// containerImport judges docker import of a URL: the engine fetches the
// file system's archive, which nothing pins.
func (a *auditor) containerImport(tool string, args []arg) {
	ops := operands(args, set("-c", "--change", "-m", "--message", "--platform"), true, nil)
	if len(ops) == 0 || !ops[0].lit || !urlLike(ops[0].text) {
		return
	}
	a.inferred.Network = true
	a.add(CodeUnpinned, ops[0].path, quoted(tool+" import")+" makes an image of a file system fetched by its URL, which can change without notice")
	a.plainFetch(ops[0], tool, "fetches a file system")
}

package assess

import (
	"strings"
)

// Runners of files. Beyond shells, interpreters and installers, programs
// that load a file they are given as code run a download as surely:
// java -jar /tmp/a.jar (or its class path, or a .java source), dotnet
// /tmp/a.dll, go run /tmp/a.go, deno run /tmp/a.ts, awk -f, sed -f (GNU
// sed's e command runs a shell), make -f, and make -C DIR or make in a
// folder an archive was unpacked into (its Makefile's recipes are shell
// commands).

// runnerFiles returns the words of c, a runner of files, that name a file
// it loads as code.
func runnerFiles(c invocation) []arg {
	args := c.args()
	switch c.name {
	case "java", "javaw":
		return javaFiles(args)
	case "dotnet":
		ops := operands(args, nil, true, nil)
		if len(ops) > 0 && ops[0].text == "exec" {
			ops = ops[1:]
		}
		if len(ops) > 0 && hasSuffixFold(ops[0].text, ".dll", ".exe") {
			return ops[:1]
		}
	case "go":
		ops := operands(args, set("-C", "-o", "-p", "-tags", "-ldflags", "-gcflags", "-mod", "-exec"), true, nil)
		if len(ops) > 1 && ops[0].text == "run" {
			var files []arg
			for _, w := range ops[1:] {
				if !hasSuffixFold(w.text, ".go") {
					break // the program's own arguments
				}
				files = append(files, w)
			}
			return files
		}
	case "deno":
		preloads := optionFiles(args, "--preload", "--require")
		rest := skipFlags(args, denoValueFlags)
		if len(rest) > 1 && (rest[0].text == "run" || rest[0].text == "serve") {
			rest = skipFlags(rest[1:], denoValueFlags)
		}
		if len(rest) > 0 && !strings.Contains(rest[0].text, ":") {
			preloads = append(preloads, rest[0]) // a local module (jsr:, npm: and URLs are deno.go's)
		}
		return preloads
	case "awk", "gawk", "mawk", "nawk", "sed", "gsed":
		return optionFiles(args, "-f", "--file")
	case "make", "gmake":
		files := optionFiles(args, "-f", "--file", "--makefile")
		if len(files) > 0 {
			return files
		}
		dir := ""
		for _, w := range optionFiles(args, "-C", "--directory") {
			dir = w.text // the last -C (one relative to an earlier -C is read as written)
		}
		name := "Makefile"
		if dir != "" {
			name = strings.TrimRight(dir, `/\`) + "/Makefile"
		}
		return []arg{{text: name, path: c.argv[0].path, lit: true}}
	case "vim", "nvim", "vi", "gvim", "view", "ex":
		if vimExMode(c) {
			return optionFiles(args, "-S", "-u") // a script of Vim's commands, which run shells
		}
		return optionFiles(args, "-S", "-u", "-s") // -s: keys typed in Normal mode, :!cmd among them
	case "gdb":
		return optionFiles(args, "-x", "--command", "-ix", "--init-command")
	case "lldb":
		return optionFiles(args, lldbFiles...) // cmdreaders.go
	case "emacs":
		return optionFiles(args, "-l", "--load", "--script", "-x", "-scriptload")
	case "tmux":
		return tmuxFiles(args)
	case "screen":
		return optionFiles(args, "-c")
	case "ssh", "scp", "autossh":
		return optionFiles(args, "-F") // ProxyCommand, LocalCommand, Match exec
	case "sftp":
		return optionFiles(args, "-F", "-b") // -b: a batch of commands, !cmd among them
	case "dc":
		return dcFiles(args)
	case "ghci", "irb", "groovysh", "ocaml", "kotlinc", "gnuplot", "lftp", "m4", "sqlplus":
		return readerFiles(c) // cmdreaders.go
	case "r":
		return optionFiles(args, "-f", "--file") // R -f FILE
	case "psql", "mysql", "mariadb", "sqlite3", "duckdb":
		return readDB(c).files // dbshell.go
	case "docker", "podman", "nerdctl", "finch":
		return containerFiles(c) // imagefiles.go
	case "mongosh", "mongo":
		_, files, _ := readMongo(args)
		return files
	case "rundll32", "regsvr32", "regasm", "regsvcs", "installutil", "mshta", "wscript", "cscript", "msbuild",
		"control", "import-module", "ipmo", "invoke-item", "ii":
		return windowsRunnerFiles(c)
	}
	return installedFiles(c)
}

// windowsRunnerFiles returns the files Windows' runners of code load:
// rundll32's DLL (before the comma that names its entry point),
// regsvr32's, RegAsm's, RegSvcs' and InstallUtil's assemblies and DLLs
// (their registration code runs), mshta's HTML application, the Windows
// Script Host's scripts (wscript, cscript), MSBuild's project (its inline
// tasks are code), a Control Panel item (control FILE.cpl), and
// PowerShell's Import-Module and Invoke-Item.
func windowsRunnerFiles(c invocation) []arg {
	args := c.args()
	var files []arg
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := lower(w.text)
		switch {
		case (c.name == "import-module" || c.name == "ipmo" || c.name == "invoke-item" || c.name == "ii") && strings.HasPrefix(t, "-"):
			name, val, colon := strings.Cut(t, ":")
			if len(name) > 1 && (strings.HasPrefix("-name", name) || strings.HasPrefix("-path", name) || strings.HasPrefix("-literalpath", name)) {
				if v, ok := optValue(args, &i, val, colon); ok {
					files = append(files, v)
				}
			} else if !colon && i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") &&
				(strings.HasPrefix("-minimumversion", name) || strings.HasPrefix("-requiredversion", name) || strings.HasPrefix("-prefix", name)) {
				i++
			}
			continue
		case strings.HasPrefix(t, "/") && !strings.Contains(t[1:], "/") || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "//"):
			continue // a switch (/s, /u, /i:x, //nologo, -p:x)
		}
		if c.name == "rundll32" {
			w.text, _, _ = strings.Cut(w.text, ",") // a.dll,Entry
			return append(files, w)
		}
		files = append(files, w)
		if c.name != "regsvr32" && c.name != "installutil" && c.name != "regasm" && c.name != "regsvcs" {
			return files // the script or project, then its own arguments
		}
	}
	return files
}

// javaFiles returns what java loads code from: the jar of -jar, the
// entries of the class path (-cp, -classpath, --class-path), or a source
// file run as a program (java Main.java).
func javaFiles(args []arg) []arg {
	var files []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, joined := strings.Cut(t, "=")
		switch {
		case t == "-jar":
			if i+1 < len(args) {
				return append(files, args[i+1])
			}
			return files
		case t == "-cp" || t == "-classpath" || name == "--class-path":
			if !joined {
				if i+1 >= len(args) {
					return files
				}
				i++
				val = args[i].text
			}
			for _, e := range strings.FieldsFunc(val, func(r rune) bool { return r == ':' || r == ';' }) {
				files = append(files, arg{text: e, path: args[i].path, lit: args[i].lit})
			}
		case t == "-p" || t == "--module-path" || t == "--add-modules" || t == "-m" || t == "--module":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			if hasSuffixFold(t, ".java") {
				files = append(files, args[i])
			}
			return files // the main class or source, then its arguments
		}
	}
	return files
}

// optionFiles returns the values of the options names (-f FILE, -fFILE
// for a short one, --file=FILE or --file FILE) among args.
func optionFiles(args []arg, names ...string) []arg {
	var files []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
	names:
		for _, n := range names {
			switch {
			case t == n && i+1 < len(args):
				i++
				files = append(files, args[i])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(t, n+"="):
				files = append(files, arg{text: t[len(n)+1:], path: args[i].path, lit: args[i].lit})
			case len(n) == 2 && len(t) > 2 && strings.HasPrefix(t, n) && t[1] != '-':
				files = append(files, arg{text: t[2:], path: args[i].path, lit: args[i].lit})
			default:
				continue
			}
			break names
		}
	}
	return files
}

// hasSuffixFold reports whether s ends in one of suffixes, in any case.
func hasSuffixFold(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if len(s) >= len(x) && strings.EqualFold(s[len(s)-len(x):], x) {
			return true
		}
	}
	return false
}

// preloadFiles returns the files an interpreter of family fam loads as
// code before its program, from the options before the program: node's,
// bun's, tsx's and ts-node's -r, --require, --import, --loader and
// --preload, ruby's -r, python's -m (the module's file, or its
// __main__.py, from the working directory), and perl's -M and -m modules
// in the folders of its -I.
func preloadFiles(fam string, args []arg) []arg {
	var files []arg
	var perlDirs, perlMods []arg
	add := func(w arg, text string) { files = append(files, arg{text: text, path: w.path, lit: w.lit}) }
options:
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, val, joined := strings.Cut(t, "=")
			switch {
			case moduleOptionNames[name] && joined:
				add(args[i], val)
			case moduleOptionNames[name] && i+1 < len(args):
				i++
				add(args[i], args[i].text)
			case (valueOptions[name] || familyValueOptions[fam][name]) && !joined:
				i++
			}
			continue
		}
		letters := t[1:]
		for j := 0; j < len(letters); j++ {
			c := letters[j]
			if strings.IndexByte(inlineCodeFlags[fam], c) >= 0 {
				break options // inline code is the program
			}
			if strings.IndexByte(inlineValueFlags[fam], c) < 0 {
				continue
			}
			w, v := args[i], letters[j+1:]
			if v == "" && !nextWordValue(fam, c) {
				break // perl -i, -0: no value
			}
			if v == "" {
				if i+1 >= len(args) {
					break options
				}
				i++
				w, v = args[i], args[i].text
			}
			switch {
			case c == 'r' && fam != "perl" && fam != "python":
				add(w, v)
			case c == 'm' && fam == "python":
				mod := strings.ReplaceAll(v, ".", "/")
				add(w, mod+".py")
				add(w, mod+"/__main__.py")
				break options // the module is the program
			case c == 'I' && fam == "perl":
				perlDirs = append(perlDirs, arg{text: v, path: w.path, lit: w.lit})
			case (c == 'M' || c == 'm') && fam == "perl":
				perlMods = append(perlMods, arg{text: v, path: w.path, lit: w.lit})
			}
			break
		}
	}
	for _, d := range perlDirs {
		for _, m := range perlMods {
			name, _, _ := strings.Cut(strings.TrimPrefix(m.text, "-"), "=")
			add(arg{path: m.path, lit: d.lit && m.lit}, strings.TrimRight(d.text, `/\`)+"/"+strings.ReplaceAll(name, "::", "/")+".pm")
		}
	}
	return files
}

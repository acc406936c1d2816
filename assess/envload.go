package assess

import (
	"strings"
)

// Downloads loaded through the environment. Some variables name files
// that programs load as code when they start: the dynamic linker's
// preload lists (LD_PRELOAD, DYLD_INSERT_LIBRARIES), the script a
// non-interactive bash or sh reads first (BASH_ENV, ENV), Python's
// startup file (PYTHONSTARTUP, for an interactive interpreter), Node's
// --require and --import in NODE_OPTIONS, Ruby's -r in RUBYOPT and the
// JVM's -javaagent: in JAVA_TOOL_OPTIONS. One that names a file a download
// tool wrote loads the download into what runs.

// envLoaded returns the files the variable key, set to value, makes
// programs load as code.
func envLoaded(key, value string) []string {
	switch strings.ToUpper(key) {
	case "LD_PRELOAD":
		return strings.FieldsFunc(value, func(r rune) bool { return r == ':' || r == ' ' })
	case "DYLD_INSERT_LIBRARIES":
		return strings.Split(value, ":")
	case "BASH_ENV", "ENV", "PYTHONSTARTUP":
		return []string{strings.TrimSpace(value)}
	case "NODE_OPTIONS":
		return optionValues(strings.Fields(value), "-r", "--require", "--import", "--loader", "--experimental-loader")
	case "RUBYOPT":
		return optionValues(strings.Fields(value), "-r")
	case "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS":
		var files []string
		for _, f := range strings.Fields(value) {
			if v, ok := strings.CutPrefix(f, "-javaagent:"); ok {
				files = append(files, strings.SplitN(v, "=", 2)[0])
			}
		}
		return files
	}
	return nil
}

// optionValues returns the values of the options names among words (-r
// FILE, -rFILE for a short one, --require=FILE or --require FILE).
func optionValues(words []string, names ...string) []string {
	args := make([]arg, len(words))
	for i, w := range words {
		args[i] = arg{text: w, lit: true}
	}
	var out []string
	for _, w := range optionFiles(args, names...) {
		out = append(out, w.text)
	}
	return out
}

// envLoadsDownload reports a variable set to load a file a download tool
// of the wiring wrote (LD_PRELOAD=/tmp/a.so after curl -o /tmp/a.so URL).
func (a *auditor) envLoadsDownload(key string, value arg) {
	if len(a.fetched) == 0 || !value.lit {
		return
	}
	for _, p := range envLoaded(key, value.text) {
		if p == "" {
			continue
		}
		if f := a.downloadAt(p); f != nil {
			what := "the file " + quoted(f.tool) + " downloaded, which is whatever the URL served when the server started"
			switch {
			case f.copied:
				what = "the file " + quoted(f.tool) + " copied from another machine or a cloud store, which is whatever that held when the server started"
			case f.unpacked:
				what = "a file of an archive " + quoted(f.tool) + " downloaded, which is whatever the URL served when the server started"
			}
			a.add(CodePipeToShell, value.path, "loads "+safeText(cleanPath(p), 60)+" as code through "+safeText(key, 40)+": "+what)
			return
		}
	}
}

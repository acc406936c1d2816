package assess

import "regexp"

// Inline programs that download code and run it: the language's own
// spelling of curl … | sh. exec(urlopen(URL).read()) in Python, eval of
// what fetch, https.get or axios return in JavaScript, eval(URI.open(URL)
// .read) in Ruby, eval get(URL) in Perl, eval(file_get_contents(URL)) and
// include of a URL in PHP, source(URL) and eval(parse(text =
// readLines(URL))) in R, include(download(URL)) in Julia, load of what a
// download command prints in Lua, and an awk program that reads a
// download command's output with getline and prints into a shell. Each
// pattern asks for the call that runs code and the one that downloads in
// the same statement (or, for awk, the same program), so that a program
// that downloads data and evaluates something else is not taken for one.

// fetchRuns are, per language, the statements that run downloaded code.
var fetchRuns = map[string][]*regexp.Regexp{
	"python": {
		regexp.MustCompile(`\b(?:exec|eval|compile)\s*\([^;\n]*\b(?:urlopen|urlretrieve|requests\.(?:get|post|request)|httpx\.(?:get|post)|urllib3\.request|http\.client)\b`),
	},
	"node": {
		regexp.MustCompile(`\b(?:eval|Function|runInThisContext|runInNewContext|runInContext|Script)\s*\([^;\n]*\b(?:fetch|https?\.get|axios(?:\.get)?)\s*\(`),
		regexp.MustCompile(`\b(?:fetch|axios(?:\.get)?)\s*\([^;\n]*\.then\s*\(\s*(?:eval|Function|new\s+Function)\b`),
		regexp.MustCompile(`\bimport\s*\(\s*['"` + "`" + `]https?://`),
	},
	"ruby": {
		regexp.MustCompile(`\b(?:eval|instance_eval|class_eval|module_eval)\b\s*\(?[^;\n]*(?:\bURI\.open|\bURI\.parse\([^;\n]*\)\.open|\bNet::HTTP\.get|\bopen\s*\(\s*['"]https?://|\bHTTParty\.get|\bFaraday\.get)`),
	},
	"perl": {
		regexp.MustCompile(`\beval\b\s*\(?\s*(?:LWP::Simple::)?get\s*\(`),
		regexp.MustCompile(`\beval\b\s*\(?[^;\n]*\b(?:HTTP::Tiny->new->get|\$ua->get|LWP::UserAgent->new->get)\b`),
	},
	"php": {
		regexp.MustCompile(`\b(?:eval|assert)\s*\([^;\n]*\b(?:file_get_contents|fopen|readfile|curl_exec)\s*\(\s*(?:['"](?:https?|ftp)://|\$)`),
		regexp.MustCompile(`\b(?:include|include_once|require|require_once)\b\s*\(?\s*['"](?:https?|ftp)://`),
	},
	"rscript": {
		regexp.MustCompile(`\b(?:source|sys\.source|source_url|source_gist)\s*\(\s*(?:file\s*=\s*)?(?:['"]https?://|url\s*\()`),
		regexp.MustCompile(`\beval\s*\(\s*parse\s*\([^;\n]*\b(?:readLines|url|GET|download\.file)\s*\(`),
	},
	"julia": {
		regexp.MustCompile(`\b(?:include|evalfile)\s*\(\s*(?:Downloads\.)?download\s*\(`),
		regexp.MustCompile(`\b(?:include_string|eval)\s*\([^;\n]*\b(?:HTTP\.get|(?:Downloads\.)?download)\s*\(`),
	},
	"lua": {
		regexp.MustCompile(`\b(?:load|loadstring|dofile)\s*\([^;\n]*(?:\bio\.popen\s*\(\s*['"](?:curl|wget)\b|\bhttp\.request\b|\bsocket\.http\b)`),
	},
}

// awkFetches and awkIntoShell are an awk program's download command read
// with getline and its print or printf into a shell.
var (
	awkFetches   = regexp.MustCompile(`"[^"\n]*\b(?:curl|wget|fetch|aria2c)\b[^"\n]*"\s*\|\s*getline`)
	awkIntoShell = regexp.MustCompile(`\bprintf?\b[^;\n|]*\|\s*"(?:/bin/|/usr/bin/)?(?:sh|bash|zsh|dash|ksh|ash)(?:\s+-[a-z]*)?\s*"`)
)

// runsDownloadedCode reports an inline program of language lang, run by
// the interpreter name, that downloads code and runs it.
func (a *auditor) runsDownloadedCode(name, lang, code, path string) {
	what := ""
	if lang == "awk" {
		if awkFetches.MatchString(code) && awkIntoShell.MatchString(code) {
			what = "prints what a download command writes into a shell"
		}
	} else {
		for _, re := range fetchRuns[lang] {
			if re.MatchString(code) {
				what = "downloads code and runs it"
				break
			}
		}
	}
	if what == "" {
		return
	}
	a.inferred.Exec, a.inferred.Network = true, true
	a.add(CodePipeToShell, path, "the inline "+quoted(name)+" program "+what+", which is whatever the URL served when the server started")
}

package assess

import "regexp"

// Inline programs that download code and run it: the language's own
// spelling of curl … | sh. exec(urlopen(URL).read()) in Python, eval of
// what fetch, https.get or axios return in JavaScript, eval(URI.open(URL)
// .read) in Ruby, eval get(URL) in Perl, eval(file_get_contents(URL)) and
// include of a URL in PHP, source(URL) and eval(parse(text =
// readLines(URL))) in R, include(download(URL)) in Julia, load of what a
// download command prints in Lua, and an awk program that reads a
// download command's output with getline and prints into a shell. The
// call that runs code and the one that downloads must be in one statement,
// or the download must be assigned to a variable the call is then given
// (code = urlopen(URL).read(); exec(code)), so that a program that
// downloads data and evaluates something else is not taken for one.

// codeFetch is, for one language, what running downloaded code looks
// like: statements that do both (direct); the calls that download (fetch,
// a fragment of a pattern); and the calls that run code, whose first
// group is a variable they are given (runVar).
type codeFetch struct {
	direct []*regexp.Regexp
	assign *regexp.Regexp // a variable (group 1) set from a download in one statement
	runVar *regexp.Regexp
}

// newCodeFetch builds a language's patterns from its fragments.
func newCodeFetch(fetch, runVar string, direct ...string) codeFetch {
	cf := codeFetch{
		assign: regexp.MustCompile(`(\$?[A-Za-z_]\w*)\s*(?:<-|=)[^=>][^;\n]*?(?:` + fetch + `)`),
		runVar: regexp.MustCompile(runVar),
	}
	for _, d := range direct {
		cf.direct = append(cf.direct, regexp.MustCompile(d))
	}
	return cf
}

const (
	pyFetch   = `\b(?:urlopen|requests\.(?:get|post|request)|httpx\.(?:get|post)|urllib3\.request|http\.client)\b`
	jsFetch   = `\b(?:fetch|https?\.get|axios(?:\.get)?)\s*\(`
	rbFetch   = `\bURI\.open\b|\bURI\.parse\([^;\n]*\)\.open\b|\bNet::HTTP\.get\b|\bopen\s*\(\s*['"]https?://|\bHTTParty\.get\b|\bFaraday\.get\b`
	plFetch   = `\bget\s*\(` // LWP::Simple's get, and the get method of HTTP::Tiny and LWP::UserAgent
	phpFetch  = `\b(?:file_get_contents|fopen|readfile)\s*\(\s*(?:['"](?:https?|ftp)://|\$)|\bcurl_exec\s*\(`
	rFetch    = `\breadLines\s*\(\s*(?:['"]https?://|url\s*\()|\b(?:httr::)?GET\s*\(|\bdownload\.file\s*\(`
	jlFetch   = `\bHTTP\.get\s*\(|\b(?:Downloads\.)?download\s*\(`
	luaFetch  = `\bio\.popen\s*\(\s*['"](?:curl|wget)\b|\bhttp\.request\b|\bsocket\.http\b`
	wordVar   = `\s*(\$?[A-Za-z_]\w*)`
	openParen = `\s*\(`
)

// fetchRuns are, per language, the patterns of running downloaded code.
var fetchRuns = map[string]codeFetch{
	"python": newCodeFetch(pyFetch, `\b(?:exec|eval|compile)`+openParen+wordVar,
		`\b(?:exec|eval|compile)\s*\([^;\n]*`+pyFetch),
	"node": newCodeFetch(jsFetch, `\b(?:eval|Function|runInThisContext|runInNewContext|runInContext|Script)`+openParen+wordVar,
		`\b(?:eval|Function|runInThisContext|runInNewContext|runInContext|Script)\s*\([^;\n]*`+jsFetch,
		`\b(?:fetch|axios(?:\.get)?)\s*\([^;\n]*\.then\s*\(\s*(?:eval|Function|new\s+Function)\b`,
		`\bimport\s*\(\s*['"`+"`"+`]https?://`),
	"ruby": newCodeFetch(rbFetch, `\b(?:eval|instance_eval|class_eval|module_eval)\b\s*\(?`+wordVar,
		`\b(?:eval|instance_eval|class_eval|module_eval)\b\s*\(?[^;\n]*(?:`+rbFetch+`)`),
	"perl": newCodeFetch(plFetch, `\beval\b\s*\(?`+wordVar,
		`\beval\b\s*\(?\s*(?:LWP::Simple::)?get\s*\(`,
		`\beval\b\s*\(?[^;\n]*\b(?:HTTP::Tiny->new->get|\$ua->get|LWP::UserAgent->new->get)\b`),
	"php": newCodeFetch(phpFetch, `\b(?:eval|assert)`+openParen+wordVar,
		`\b(?:eval|assert)\s*\([^;\n]*(?:`+phpFetch+`)`,
		`\b(?:include|include_once|require|require_once)\b\s*\(?\s*['"](?:https?|ftp)://`),
	"rscript": newCodeFetch(rFetch, `\beval\s*\(\s*parse\s*\(\s*(?:text\s*=)?`+wordVar,
		`\b(?:source|sys\.source|source_url|source_gist)\s*\(\s*(?:file\s*=\s*)?(?:['"]https?://|url\s*\()`,
		`\beval\s*\(\s*parse\s*\([^;\n]*(?:`+rFetch+`)`),
	"julia": newCodeFetch(jlFetch, `\b(?:include|evalfile|include_string)`+openParen+wordVar,
		`\b(?:include|evalfile)\s*\(\s*(?:Downloads\.)?download\s*\(`,
		`\b(?:include_string|eval)\s*\([^;\n]*(?:`+jlFetch+`)`),
	"lua": newCodeFetch(luaFetch, `\b(?:load|loadstring|dofile)`+openParen+wordVar,
		`\b(?:load|loadstring|dofile)\s*\([^;\n]*(?:`+luaFetch+`)`),
}

// awkFetches and awkIntoShell are an awk program's download command read
// with getline and its print or printf into a shell.
var (
	awkFetches   = regexp.MustCompile(`"[^"\n]*\b(?:curl|wget|fetch|aria2c)\b[^"\n]*"\s*\|\s*getline`)
	awkIntoShell = regexp.MustCompile(`\bprintf?\b[^;\n|]*\|\s*"(?:/bin/|/usr/bin/)?(?:sh|bash|zsh|dash|ksh|ash)(?:\s+-[a-z]*)?\s*"`)
)

// maxFetchVars bounds the variables set from a download that one inline
// program is read for.
const maxFetchVars = 8

// runsDownloadedCode reports an inline program of language lang, run by
// the interpreter name, that downloads code and runs it.
func (a *auditor) runsDownloadedCode(name, lang, code, path string) {
	what := ""
	if lang == "awk" {
		if awkFetches.MatchString(code) && awkIntoShell.MatchString(code) {
			what = "prints what a download command writes into a shell"
		}
	} else if cf, ok := fetchRuns[lang]; ok && cf.runs(code) {
		what = "downloads code and runs it"
	}
	if what == "" {
		return
	}
	a.inferred.Exec, a.inferred.Network = true, true
	a.add(CodePipeToShell, path, "the inline "+quoted(name)+" program "+what+", which is whatever the URL served when the server started")
}

// runs reports whether code runs what it downloads: in one statement, or
// through a variable set from the download.
func (cf codeFetch) runs(code string) bool {
	for _, re := range cf.direct {
		if re.MatchString(code) {
			return true
		}
	}
	var vars []string
	for _, m := range cf.assign.FindAllStringSubmatch(code, maxFetchVars) {
		vars = append(vars, m[1])
	}
	if len(vars) == 0 {
		return false
	}
	for _, m := range cf.runVar.FindAllStringSubmatch(code, maxInlineCalls) {
		for _, v := range vars {
			if m[1] == v {
				return true
			}
		}
	}
	return false
}

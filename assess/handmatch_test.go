package assess

import (
	"regexp"
	"testing"
)

// The matchers written by hand for speed are held to the regular
// expressions they replace, on every input.

// placeholderPattern is what untemplate replaces.
var placeholderPattern = regexp.MustCompile(`\$\{[^{}]*\}|\{\{[^{}]*\}\}`)

var pep440Seeds = []string{
	"1", "1.2.3", "v1.0", "V2", "1.0a1", "1.0alpha", "1.0adev", "1.0.post1", "1.0post", "1.0.dev", "1.0rc1.post2.dev3",
	"1.0preview2", "1.0pre", "1.0c", "1.0+local.7", "1.0+", "1.0.", ".1", "1..2", "1.0a1b2", "1.0.a1", "1.0-1", "1.0*",
	"1.0.poſt1", "1.0+K", "", "v", "1.0 ", "1.0.DEV", "1.0RC1", "1.0+ab.CD", "1.0.post.dev", "1.0postdevpost", "1.0b.dev",
}

func TestPEP440Exact(t *testing.T) {
	for _, v := range pep440Seeds {
		if got, want := pep440Exact(v), pep440Pattern.MatchString(v); got != want {
			t.Errorf("pep440Exact(%q) = %v, the pattern says %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{"1.2.3": true, "1.0rc1.post2.dev3": true, "1.0+local.7": true, "1.0.": false, "1.2.*": false} {
		if got := pep440Exact(v); got != want {
			t.Errorf("pep440Exact(%q) = %v, want %v", v, got, want)
		}
	}
}

func FuzzPEP440Exact(f *testing.F) {
	for _, v := range pep440Seeds {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := pep440Exact(v), pep440Pattern.MatchString(v); got != want {
			t.Errorf("pep440Exact(%q) = %v, the pattern says %v", v, got, want)
		}
	})
}

var untemplateSeeds = []string{
	"https://x/${A}/{{b}}", "${}", "{{}}", "{{{a}}", "${${a}}", "{{a}", "${a", "$${a}}", "{{a}}}", "a{{b}}c${d}e",
	"${a{b}}", "{{a}b}}", "plain", "${", "{{", "x${y}", "{{ .Values.key }}/${ENV}",
}

func TestUntemplate(t *testing.T) {
	for _, s := range untemplateSeeds {
		if got, want := untemplate(s), placeholderPattern.ReplaceAllString(s, tmplMark); got != want {
			t.Errorf("untemplate(%q) = %q, the pattern gives %q", s, got, want)
		}
	}
	if got, want := untemplate("https://${HOST}/{{path}}"), "https://"+tmplMark+"/"+tmplMark; got != want {
		t.Errorf("untemplate = %q, want %q", got, want)
	}
}

func FuzzUntemplate(f *testing.F) {
	for _, s := range untemplateSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := untemplate(s), placeholderPattern.ReplaceAllString(s, tmplMark); got != want {
			t.Errorf("untemplate(%q) = %q, the pattern gives %q", s, got, want)
		}
	})
}

package ghingest

import (
	"fmt"
	"strings"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// CommentMarker is the hidden line that identifies registryd's summary
// comment on a pull request, so that it is edited rather than added again.
const CommentMarker = "<!-- registryd:audit -->"

// Bounds of the summary comment.
const (
	maxCommentRows     = 50 // manifests listed
	maxCommentFindings = 10 // findings listed per manifest
)

func verdictRank(v registry.Verdict) int {
	switch v {
	case registry.VerdictFail:
		return 3
	case registry.VerdictReview:
		return 2
	case registry.VerdictPass:
		return 1
	}
	return 0
}

// reportURL links to a submission's report, or "" without a public URL.
func (w *Worker) reportURL(id string) string {
	if w.public == "" || id == "" {
		return ""
	}
	return w.public + registry.SubmissionReportPath(id)
}

// status is the commit status for a pull request's manifests: failure
// naming the first refused file and field when any was refused; else
// failure for a fail verdict and success for review and pass, described
// with the verdict and the counts, linked to the worst report.
func (w *Worker) status(results []result) githubapi.Status {
	st := githubapi.Status{Context: w.statusCtx}
	for _, r := range results {
		if r.refusal != nil {
			st.State = githubapi.StateFailure
			st.Description = "refused: " + r.path + ": " + r.refusal.String()
			return st
		}
	}
	var worst *result
	var danger, warn, info int
	for i := range results {
		r := &results[i]
		c := r.report.Counts
		danger, warn, info = danger+c.Danger, warn+c.Warn, info+c.Info
		if worst == nil || verdictRank(r.report.Verdict) > verdictRank(worst.report.Verdict) {
			worst = r
		}
	}
	v := worst.report.Verdict
	st.State = githubapi.StateSuccess
	if v == registry.VerdictFail {
		st.State = githubapi.StateFailure
	}
	what := fmt.Sprintf("%d manifests", len(results))
	if len(results) == 1 {
		what = worst.report.Addon.Name + "@" + worst.report.Addon.Version
	}
	st.Description = fmt.Sprintf("%s: %s, %d danger, %d warn, %d info", v, what, danger, warn, info)
	st.TargetURL = w.reportURL(worst.sub.ID)
	return st
}

// comment renders the summary comment: one row per manifest with its
// verdict, counts and report link, then the findings and refusals. Every
// text that comes from a repository goes through mdText.
func (w *Worker) comment(sha string, results []result) string {
	var b strings.Builder
	b.WriteString(CommentMarker + "\n")
	b.WriteString("### registryd audit\n\n")
	verdict := "pass"
	refusedN := 0
	for _, r := range results {
		switch {
		case r.refusal != nil:
			refusedN++
		case verdictRank(r.report.Verdict) > verdictRank(registry.Verdict(verdict)):
			verdict = string(r.report.Verdict)
		}
	}
	if refusedN > 0 {
		verdict = "refused"
	}
	short := sha
	if len(short) > 12 {
		short = short[:12]
	}
	fmt.Fprintf(&b, "Commit `%s`: %d manifest(s), overall **%s**", mdText(short), len(results), verdict)
	if refusedN > 0 {
		fmt.Fprintf(&b, " (%d refused)", refusedN)
	}
	b.WriteString(".\n\n")
	b.WriteString("| Manifest | Addon | Verdict | Danger | Warn | Info | Report |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for i, r := range results {
		if i == maxCommentRows {
			fmt.Fprintf(&b, "\n…and %d more manifests.\n", len(results)-maxCommentRows)
			break
		}
		if r.refusal != nil {
			fmt.Fprintf(&b, "| `%s` | – | refused | – | – | – | – |\n", mdText(r.path))
			continue
		}
		link := "–"
		if u := w.reportURL(r.sub.ID); u != "" {
			link = "[report](" + u + ")"
		}
		c := r.report.Counts
		fmt.Fprintf(&b, "| `%s` | %s@%s | %s | %d | %d | %d | %s |\n", mdText(r.path), mdText(r.report.Addon.Name),
			mdText(r.report.Addon.Version), r.report.Verdict, c.Danger, c.Warn, c.Info, link)
	}
	for i, r := range results {
		if i == maxCommentRows {
			break
		}
		switch {
		case r.refusal != nil:
			fmt.Fprintf(&b, "\n**`%s`** was refused", mdText(r.path))
			if r.refusal.field != "" {
				fmt.Fprintf(&b, " at `%s`", mdText(r.refusal.field))
			}
			fmt.Fprintf(&b, ": %s\n", mdText(r.refusal.message))
		case len(r.report.Findings) > 0:
			fmt.Fprintf(&b, "\n**`%s`**\n\n", mdText(r.path))
			for j, f := range r.report.Findings {
				if j == maxCommentFindings {
					fmt.Fprintf(&b, "- …and %d more\n", len(r.report.Findings)-maxCommentFindings)
					break
				}
				sup := ""
				if f.Suppressed != nil {
					sup = " (suppressed)"
				}
				fmt.Fprintf(&b, "- %s `%s` at `%s`: %s%s\n", f.Level, mdText(f.Code), mdText(f.Path), mdText(f.Message), sup)
			}
		}
	}
	b.WriteString("\nThe review is a maintainer's; merging into the default branch publishes these versions.\n")
	out := b.String()
	if len(out) > githubapi.MaxCommentBytes {
		out = out[:githubapi.MaxCommentBytes-200]
		out = strings.ToValidUTF8(out, "") + "\n\n…(cut to GitHub's comment size limit)\n"
	}
	return out
}

// mdText makes s safe inside a Markdown code span or table cell: it keeps
// printable ASCII except the characters that end a span, split a cell or
// open markup (` | < > \ &), and replaces everything else with "?". A file
// name cannot then inject links, HTML, mentions that render as markup, or
// invisible text into the comment.
func mdText(s string) string {
	if len(s) > 300 {
		s = s[:300]
	}
	return safetext.ASCII(s, "`|<>\\&", '?')
}

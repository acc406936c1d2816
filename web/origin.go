package web

import (
	"strconv"
	"strings"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// origin is where a submission came from, as the pages show it: a label
// for its source, and what and where the upstream is (Link is "" when
// there is no safe link to it).
type origin struct {
	Label string
	Text  string
	Link  string
}

// originOf describes sub's source. Links are built with the registry's path
// helpers from an https base only, every text passes through safetext, and
// the templates escape both.
func originOf(sub registry.Submission) origin {
	switch sub.Source {
	case registry.SourceGitHub:
		o := origin{Label: "GitHub push"}
		if g := sub.GitHub; g != nil {
			o.Text = originText(g.Repo)
			if g.PR > 0 {
				o.Label = "GitHub pull request"
				o.Text += " #" + strconv.Itoa(g.PR)
				if owner, repo, ok := strings.Cut(g.Repo, "/"); ok {
					o.Link = httpsOnly("https://github.com/" + registry.PathSegment(owner) + "/" + registry.PathSegment(repo) + "/pull/" + strconv.Itoa(g.PR))
				}
			}
		}
		return o
	case registry.SourceMCPRegistry:
		o := origin{Label: "MCP Registry import"}
		if u := sub.Upstream; u != nil {
			o.Text = originText(u.Name + " " + u.Version)
			if base := httpsOnly(u.URL); base != "" {
				o.Link = strings.TrimRight(base, "/") + registry.MCPServerVersionPath(u.Name, u.Version)
			}
		}
		return o
	case registry.SourceLeanCtx:
		o := origin{Label: "lean-ctx file"}
		if u := sub.Upstream; u != nil {
			o.Text = originText(u.URL + ": " + u.Name)
		}
		return o
	}
	return origin{Label: "REST"}
}

// originText is s with every character safetext does not let be shown on
// one line replaced, cut to 200 characters.
func originText(s string) string {
	return safetext.TruncateRunes(safetext.Replace(s, 0, '?'), 200)
}

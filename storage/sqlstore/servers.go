package sqlstore

import (
	"context"
	"strings"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// The published versions as the MCP Registry API serves them: each
// version with its addon, the submission that was published, its report
// and the addon's upstream binding, in one query.
var (
	serverCols = prefixCols("a.", addonCols) + `,
		v.addon, v.version, v.submission_id, v.published_at, v.published_by, s.wiring_sha256, ` +
		prefixCols("s.", submissionCols) + `, rp.bytes, rp.sha256, rp.ruleset, COALESCE(u.upstream_name, '')`
	serversFrom = ` FROM versions v
		JOIN addons a ON a.name = v.addon
		JOIN submissions s ON s.id = v.submission_id
		JOIN reports rp ON rp.submission_id = v.submission_id
		LEFT JOIN upstream_bindings u ON u.addon = v.addon`
)

// prefixCols prefixes every column of a comma-separated list with p.
func prefixCols(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

func (r reader) scanServer(row Row) (storage.PublishedServer, error) {
	var ps storage.PublishedServer
	addonDst, finishAddon := r.addonFields(&ps.Addon)
	subDst, finishSub := r.submissionFields(&ps.Submission)
	v := &ps.Version
	dst := append(addonDst, &v.Addon, &v.Version, &v.SubmissionID, r.d.ScanTime(&v.PublishedAt), &v.PublishedBy, &v.WiringSHA256)
	dst = append(dst, subDst...)
	dst = append(dst, &ps.Report.Bytes, &ps.Report.SHA256, &ps.Report.Ruleset, &ps.Upstream)
	if err := row.Scan(dst...); err != nil {
		return ps, err
	}
	finishAddon()
	ps.Report.SubmissionID = v.SubmissionID
	ps.Report.Bytes = nonNilBytes(ps.Report.Bytes)
	return ps, finishSub()
}

// PublishedServers lists the published versions matching f, ordered by
// addon name and then version, one page at a time.
func (r reader) PublishedServers(ctx context.Context, f storage.ServerFilter, p storage.Page) ([]storage.PublishedServer, string, error) {
	var a args
	var where []string
	if f.Addon != "" {
		where = append(where, "v.addon = "+a.add(f.Addon))
	}
	if f.Query != "" {
		upstream := r.d.ContainsFold("u.upstream_name", a.add(containsPattern(f.Query)))
		where = append(where, "(("+strings.Join(r.addonSearch(&a, "a.", f.Query), " AND ")+") OR "+upstream+")")
	}
	if f.UpdatedSince != nil {
		t := r.d.Time(*f.UpdatedSince)
		where = append(where, "(v.published_at >= "+a.add(t)+" OR a.updated_at >= "+a.add(t)+")")
	}
	switch f.Version {
	case "":
	case storage.LatestVersion:
		where = append(where, "v.version = a.latest_version")
	default:
		where = append(where, "v.version_key = "+a.add(registry.VersionKey(f.Version)))
	}
	if !f.IncludeRemoved {
		where = append(where, "NOT a.removed")
	}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		addon, version, _ := strings.Cut(c.Key, "\x00")
		where = append(where, "(v.addon, v.version) > ("+a.add(addon)+", "+a.add(version)+")")
	}
	limit := p.Bounded()
	out, err := list(r, ctx, "list published servers", r.scanServer, `SELECT `+serverCols+serversFrom+
		whereSQL(where)+` ORDER BY v.addon, v.version LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, limit, func(ps storage.PublishedServer) storage.Cursor {
		return storage.Cursor{Key: ps.Version.Addon + "\x00" + ps.Version.Version}
	})
	return out, next, nil
}

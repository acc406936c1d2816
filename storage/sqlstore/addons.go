package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

const addonCols = `name, display_name, description, homepage, latest_version, latest_verdict,
	verified, verified_by, verified_at, verified_reason, removed, removed_at, created_at, updated_at,
	latest_wiring_sha256, verified_wiring_sha256, keywords, categories`

const qAddon = `SELECT ` + addonCols + ` FROM addons WHERE name = $1`

func (r reader) scanAddon(row Row) (registry.Addon, error) {
	var a registry.Addon
	dst, finish := r.addonFields(&a)
	if err := row.Scan(dst...); err != nil {
		return a, err
	}
	finish()
	return a, nil
}

// addonFields returns the scan destinations of addonCols into a, and the
// function that completes a once they are scanned.
func (r reader) addonFields(a *registry.Addon) ([]any, func()) {
	var verdict string
	return []any{&a.Name, &a.DisplayName, &a.Description, &a.Homepage, &a.LatestVersion, &verdict,
			&a.Verified, r.d.ScanList(&a.VerifiedBy), r.d.ScanNullTime(&a.VerifiedAt), &a.VerifiedReason, &a.Removed,
			r.d.ScanNullTime(&a.RemovedAt), r.d.ScanTime(&a.CreatedAt), r.d.ScanTime(&a.UpdatedAt),
			&a.LatestWiring, &a.VerifiedWiring, r.d.ScanList(&a.Keywords), r.d.ScanList(&a.Categories)},
		func() {
			a.LatestVerdict = registry.Verdict(verdict)
			a.VerifiedBy = nonNilStrings(a.VerifiedBy)
			a.Keywords = nonNilStrings(a.Keywords)
			a.Categories = nonNilStrings(a.Categories)
		}
}

// Addon returns the addon called name, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Addon(ctx context.Context, name string) (registry.Addon, error) {
	a, err := r.scanAddon(r.c.QueryRow(ctx, qAddon+r.lock, name))
	if err != nil {
		return a, r.err(fmt.Sprintf("addon %q", name), err)
	}
	return a, nil
}

// filterWhere returns the WHERE terms of f's tier, verdict and other
// filters without its search text: the terms each search query adds its
// own conditions on the text to.
func (r reader) filterWhere(a *args, f storage.AddonFilter) ([]string, error) {
	f.Query = ""
	where, err := r.addonWhere(a, f)
	if err != nil {
		return nil, fmt.Errorf("search addons: %w", err)
	}
	return where, nil
}

// addonWhere returns the WHERE terms selecting the addons f matches,
// values bound through a. An unknown Tier is a validation error naming the
// field "tier".
func (r reader) addonWhere(a *args, f storage.AddonFilter) ([]string, error) {
	var where []string
	if f.Query != "" {
		where = append(where, r.addonSearch(a, "", f.Query)...)
	}
	switch f.Tier {
	case "":
	case registry.TierVerified, registry.TierCommunity:
		// The column is registry.Addon.Tier(), written by PutAddon.
		where = append(where, "tier = "+a.add(string(f.Tier)))
	default:
		return nil, invalid("tier", "is not a known tier")
	}
	if f.Verdict != "" {
		where = append(where, "latest_verdict = "+a.add(string(f.Verdict)))
	}
	if f.UpdatedSince != nil {
		where = append(where, "updated_at >= "+a.add(r.d.Time(*f.UpdatedSince)))
	}
	if !f.IncludeRemoved {
		where = append(where, "NOT removed")
	}
	return where, nil
}

// Addons lists addons matching f in f's order, one page at a time. Query
// matches a literal substring of the lowercased search text (see
// searchText); an unknown Tier is a validation error naming the field
// "tier", an unknown Order one naming "order".
func (r reader) Addons(ctx context.Context, f storage.AddonFilter, p storage.Page) ([]registry.Addon, string, error) {
	var a args
	where, err := r.addonWhere(&a, f)
	if err != nil {
		return nil, "", fmt.Errorf("list addons: %w", err)
	}
	var c storage.Cursor
	if p.Cursor != "" {
		if c, err = storage.DecodeCursor(p.Cursor); err != nil {
			return nil, "", err
		}
	}
	var order string
	cursor := func(a registry.Addon) storage.Cursor { return storage.Cursor{Key: a.Name} }
	if f.Order == storage.ByRelevance {
		if f.Query != "" {
			if p.Cursor == "" {
				return r.addonsByRelevance(ctx, f, nil, p)
			}
			return r.addonsByRelevance(ctx, f, &c, p)
		}
		f.Order = storage.ByName
	}
	switch f.Order {
	case storage.ByName:
		order = "name"
		if p.Cursor != "" {
			where = append(where, "name > "+a.add(c.Key))
		}
	case storage.RecentlyUpdated:
		order = "updated_at DESC, name DESC"
		if p.Cursor != "" {
			where = append(where, "(updated_at, name) < ("+a.add(r.d.Time(c.At))+", "+a.add(c.Key)+")")
		}
		cursor = func(a registry.Addon) storage.Cursor { return storage.Cursor{At: a.UpdatedAt, Key: a.Name} }
	default:
		return nil, "", fmt.Errorf("list addons: %w", invalid("order", "is not a known order"))
	}
	limit := p.Bounded()
	out, err := list(r, ctx, "list addons", r.scanAddon, `SELECT `+addonCols+` FROM addons`+whereSQL(where)+
		` ORDER BY `+order+` LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, limit, cursor)
	return out, next, nil
}

// Search text. An addon's search_text is its name and display name, its
// keywords and categories, and its description, lowercased and in three
// parts separated by searchSep (items within a part by "\n"), so that a
// LIKE pattern can tell in which part a query occurs: a substring found
// before two separators is in the first part. A query is lowercased the
// same way and matched as a literal substring, so that both stores match
// and rank alike, whatever their collations and case folding.
const searchSep = "\x1f"

// searchText returns what the addon search looks in for a.
func searchText(a registry.Addon) string {
	clean := strings.NewReplacer(searchSep, " ")
	part := func(items ...string) string { return clean.Replace(strings.ToLower(strings.Join(items, "\n"))) }
	tags := append(append([]string{}, a.Keywords...), a.Categories...)
	return part(a.Name, a.DisplayName) + searchSep + part(tags...) + searchSep + part(a.Description)
}

// addonSearch returns the conditions selecting the addons (columns
// prefixed with prefix, such as "a.") whose search text holds q: the
// database's substring index when it has one for q, and the match itself.
func (r reader) addonSearch(a *args, prefix, q string) []string {
	q = strings.ToLower(q)
	var conds []string
	if idx := r.d.SearchIndex(prefix, q, a.add); idx != "" {
		conds = append(conds, idx)
	}
	return append(conds, r.d.Like(prefix+"search_text", a.add(containsPattern(q))))
}

// searchRankSQL returns the SQL rank of an addon for the lowercased query
// q, as storage.ByRelevance orders: 0 the name is q, 1 the name starts
// with q, 2 the name or display name holds it, 3 a keyword or category, 4
// the description. It is evaluated only on rows that match q. The name is
// compared byte for byte (substr counts characters on both stores), so
// that ranks 0 and 1 are exactly the names that prefixRange reads.
func (r reader) searchRankSQL(a *args, q string) string {
	lit := likeLiteral(q)
	return `CASE WHEN name = ` + a.add(q) +
		` THEN 0 WHEN substr(name, 1, ` + a.add(utf8.RuneCountInString(q)) + `) = ` + a.add(q) +
		` THEN 1 WHEN ` + r.d.Like("search_text", a.add("%"+lit+"%"+searchSep+"%"+searchSep+"%")) +
		` THEN 2 WHEN ` + r.d.Like("search_text", a.add("%"+lit+"%"+searchSep+"%")) +
		` THEN 3 ELSE 4 END`
}

// prefixEnd returns the least string above every string that starts with
// q, byte by byte: q with its last byte raised by one. ok is false when that
// byte is not ASCII below DEL, where raising it could make invalid UTF-8.
func prefixEnd(q string) (end string, ok bool) {
	if q == "" || q[len(q)-1] >= 0x7f {
		return "", false
	}
	return q[:len(q)-1] + string(rune(q[len(q)-1]+1)), true
}

// rankedAddon is an addon of a search with its relevance rank.
type rankedAddon struct {
	addon registry.Addon
	rank  int
}

// The bounds of a search's reads past the names that start with the query
// (ranks 2 to 4, and 0 and 1 when step 1 cannot read them), in rows for a
// page of limit addons; see addonsByRelevance.
//
// searchCandidates is how many matches a page reads at most through the
// substring index to learn that they are few: under it every match is
// read and ranked; at it the matches are many, and the page walks the
// names in order instead. searchWalk is how many names that walk reads at
// most, for all ranks of a page together.
func searchCandidates(limit int) int { return 16 * (limit + 1) }
func searchWalk(limit int) int       { return 128 * (limit + 1) }

// searchScan is how many trigram postings a page of limit addons reads at
// most past the names that start with the query (gramRanks). A page that
// has read them stops there, with the addons it found, fewer than limit or
// none, and a cursor at the last posting read: so a page's cost does not
// grow with the postings between two matches, which grow with the
// registry where a rank's matches are rare or absent.
func searchScan(limit int) int { return 16 * (limit + 1) }

// rankPos is a position in a search's order: after the addon called key in
// rank rank, or at the start of rank when key is "".
type rankPos struct {
	rank int
	key  string
}

// addonsByRelevance lists the addons matching f, whose Query is not empty,
// in storage.ByRelevance's order, after cursor c when there is one. It
// reads in two steps, so that a page's cost is bounded by the page, not by
// the number of matches, wherever the matches are many:
//
//  1. Ranks 0 and 1 (the name is the query, or starts with it) are the
//     names between the query and its successor (prefixEnd): they are read
//     first, through the index of names in order, and the read stops at the
//     page's end.
//  2. When they do not fill the page, the other ranks are read. A query of
//     three characters or more reads them rank by rank through the
//     postings of its trigrams in name order (gramRanks, addon_grams):
//     each rank through the trigram rarest past the page's position in
//     the rank's part, checking each posting's addon against the rank's
//     condition and f, and skipping a rank none of whose names hold every
//     trigram. A shorter query, which has no trigram, reads at most
//     searchCandidates matches through the substring index
//     (rankedMatches); when there are fewer, they are all there is,
//     ranked and sorted; when there are more, the names are walked in
//     order (walkRanks), at most searchWalk of them for the page, and the
//     rest is read through the substring index after all, unbounded.
//
// Each way yields the same addons in the same order, so cursors carry from
// one to the other.
func (r reader) addonsByRelevance(ctx context.Context, f storage.AddonFilter, c *storage.Cursor, p storage.Page) ([]registry.Addon, string, error) {
	q := strings.ToLower(f.Query)
	limit := p.Bounded()
	name := r.d.Bytewise("name")
	var out []rankedAddon
	from := rankPos{}
	if c != nil {
		from = rankPos{c.Rank, c.Key}
	}
	if end, ok := prefixEnd(q); ok && from.rank <= 1 {
		var a args
		where, err := r.filterWhere(&a, f)
		if err != nil {
			return nil, "", err
		}
		where = append(where, name+" >= "+a.add(q), name+" < "+a.add(end))
		if c != nil {
			where = append(where, name+" > "+a.add(c.Key))
		}
		rows, err := list(r, ctx, "search addons", r.scanAddon, `SELECT `+addonCols+` FROM addons`+whereSQL(where)+
			` ORDER BY `+name+` LIMIT `+a.add(limit+1), a...)
		if err != nil {
			return nil, "", err
		}
		for _, x := range rows {
			rank := 1
			if x.Name == q {
				rank = 0
			}
			out = append(out, rankedAddon{x, rank})
		}
		if len(out) > limit {
			return rankedPage(out, limit, nil)
		}
		from = rankPos{rank: 2}
	}
	need := limit + 1 - len(out)
	budget := searchScan(limit)
	if grams := queryGrams(q); grams != nil {
		rows, stop, err := r.gramRanks(ctx, f, q, grams, from, need, budget)
		if err != nil {
			return nil, "", err
		}
		return rankedPage(append(out, rows...), limit, stop)
	}
	rows, many, err := r.rankedMatches(ctx, f, q, from, need, searchCandidates(limit))
	if err != nil {
		return nil, "", err
	}
	var stop *rankPos
	if many {
		if rows, stop, err = r.walkRanks(ctx, f, q, from, need, searchCandidates(limit), searchWalk(limit)); err != nil {
			return nil, "", err
		}
	}
	return rankedPage(append(out, rows...), limit, stop)
}

// rankedMatches returns the first need addons matching f (whose query,
// lowercased, is q) from position from on, read through the substring
// index, ranked and sorted. When bound is above zero it reads at most bound
// matches of all ranks, and many is true when there are that many: its
// rows are then not the answer.
func (r reader) rankedMatches(ctx context.Context, f storage.AddonFilter, q string, from rankPos, need, bound int) (rows []rankedAddon, many bool, err error) {
	var a args
	where, err := r.addonWhere(&a, f)
	if err != nil {
		return nil, false, fmt.Errorf("search addons: %w", err)
	}
	name := r.d.Bytewise("name")
	rank := r.searchRankSQL(&a, q)
	var past string // the position's condition
	switch {
	case from.key != "":
		past = `search_rank > ` + a.add(from.rank) + ` OR (search_rank = ` + a.add(from.rank) + ` AND ` + name + ` > ` + a.add(from.key) + `)`
	case from.rank > 0:
		past = `search_rank >= ` + a.add(from.rank)
	default:
		past = `1 = 1`
	}
	matches := `SELECT ` + addonCols + `, ` + rank + ` AS search_rank FROM addons` + whereSQL(where)
	var query string
	if bound > 0 {
		// The first bound matches the index yields, whatever their rank,
		// are counted, and those before the position sorted last, so
		// that the count comes back even when none is past it.
		query = `SELECT ` + addonCols + `, search_rank, candidates, before FROM (SELECT ` + addonCols + `, search_rank, ` +
			`count(*) OVER () AS candidates, CASE WHEN ` + past + ` THEN 0 ELSE 1 END AS before FROM (` + matches +
			` LIMIT ` + a.add(bound) + `) matched) ranked ORDER BY before, search_rank, ` + name
	} else {
		query = `SELECT ` + addonCols + `, search_rank, 0, 0 FROM (` + matches + `) ranked WHERE ` + past +
			` ORDER BY search_rank, ` + name
	}
	query += ` LIMIT ` + a.add(need)
	candidates := 0
	scan := func(row Row) (rankedAddon, error) {
		var x rankedAddon
		var before int
		dst, finish := r.addonFields(&x.addon)
		if err := row.Scan(append(dst, &x.rank, &candidates, &before)...); err != nil {
			return x, err
		}
		finish()
		if before == 1 {
			x.rank = -1
		}
		return x, nil
	}
	rows, err = list(r, ctx, "search addons", scan, query, a...)
	if err != nil {
		return nil, false, err
	}
	if bound > 0 && candidates >= bound {
		return nil, true, nil
	}
	// Rows before the position come last: drop them.
	for i, x := range rows {
		if x.rank < 0 {
			return rows[:i], false, nil
		}
	}
	return rows, false, nil
}

// walkRanks returns the first need addons matching f (whose query,
// lowercased, is q) from position from on, rank by rank. A rank whose part
// of the search text has an index of its own (Dialect.PartIndex) is read
// through it when it has fewer than bound matches. Otherwise the names are
// walked in order and each is checked against the rank's condition, so that
// the cost follows the names read, not the matches. The walks read at most
// budget names in all; where they have not filled the page by then, stop
// is where the walk stopped (the page ends there, short).
func (r reader) walkRanks(ctx context.Context, f storage.AddonFilter, q string, from rankPos, need, bound, budget int) (out []rankedAddon, stop *rankPos, err error) {
	for pos := from; pos.rank <= 4; pos = (rankPos{rank: pos.rank + 1}) {
		rows, few, err := r.rankMatches(ctx, f, q, pos, need, bound)
		if err != nil {
			return nil, nil, err
		}
		if few {
			if out, need = append(out, rows...), need-len(rows); need == 0 {
				return out, nil, nil
			}
			continue
		}
		hits, read, last, err := r.walkRank(ctx, f, q, pos, need, budget)
		if err != nil {
			return nil, nil, err
		}
		if out, need = append(out, hits...), need-len(hits); need == 0 {
			return out, nil, nil
		}
		if read == budget { // stopped by the budget, at last
			return out, &rankPos{rank: pos.rank, key: last}, nil
		}
		budget -= read // the rank's last name is read
	}
	return out, nil, nil
}

// rankMatches reads the matches of rank from.rank through the index of
// the rank's own part of the search text, when the store has one
// (Dialect.PartIndex) and they are fewer than bound (any number when bound
// is 0): few is then true, and rows are the first need of them after
// from.key, by name.
func (r reader) rankMatches(ctx context.Context, f storage.AddonFilter, q string, from rankPos, need, bound int) (rows []rankedAddon, few bool, err error) {
	if from.rank != 2 && from.rank != 3 {
		return nil, false, nil
	}
	var a args
	part := r.d.PartIndex(from.rank-1, q, containsPattern(q), a.add)
	if part == "" {
		return nil, false, nil
	}
	where, err := r.filterWhere(&a, f)
	if err != nil {
		return nil, false, err
	}
	// The part holding q implies the search text does, which the rank's
	// condition assumes.
	where = append(where, part, r.searchRankSQL(&a, q)+" = "+a.add(from.rank))
	name := r.d.Bytewise("name")
	past := "1 = 1"
	if from.key != "" {
		past = name + " > " + a.add(from.key)
	}
	matches := `SELECT ` + addonCols + ` FROM addons` + whereSQL(where)
	if bound > 0 {
		matches += ` LIMIT ` + a.add(bound)
	}
	query := `SELECT ` + addonCols + `, candidates, before FROM (SELECT ` + addonCols + `, count(*) OVER () AS candidates, ` +
		`CASE WHEN ` + past + ` THEN 0 ELSE 1 END AS before FROM (` + matches + `) matched) counted ORDER BY before, ` +
		name + ` LIMIT ` + a.add(need)
	candidates := 0
	scan := func(row Row) (rankedAddon, error) {
		x := rankedAddon{rank: from.rank}
		var before int
		dst, finish := r.addonFields(&x.addon)
		if err := row.Scan(append(dst, &candidates, &before)...); err != nil {
			return x, err
		}
		finish()
		if before == 1 {
			x.rank = -1
		}
		return x, nil
	}
	if rows, err = list(r, ctx, "search addons", scan, query, a...); err != nil {
		return nil, false, err
	}
	if bound > 0 && candidates >= bound {
		return nil, false, nil
	}
	for i, x := range rows {
		if x.rank < 0 {
			return rows[:i], true, nil
		}
	}
	return rows, true, nil
}

// walkRank reads at most budget names after from.key in order (from the
// first when it is ""), and returns the first need of them whose addons
// match f in rank from.rank, how many names it read, and the last of them.
func (r reader) walkRank(ctx context.Context, f storage.AddonFilter, q string, from rankPos, need, budget int) (hits []rankedAddon, read int, last string, err error) {
	var a args
	where, err := r.filterWhere(&a, f)
	if err != nil {
		return nil, 0, "", err
	}
	where = append(where, r.d.Like("search_text", a.add(containsPattern(q))), r.searchRankSQL(&a, q)+" = "+a.add(from.rank))
	name := r.d.Bytewise("name")
	window := `SELECT name, search_text, tier, latest_verdict, removed, updated_at FROM addons`
	if from.key != "" {
		window += ` WHERE ` + name + ` > ` + a.add(from.key)
	}
	window += ` ORDER BY ` + name + ` LIMIT ` + a.add(budget)
	// Every name of the window is numbered, and its last one marked (lead
	// looks one name ahead, so the names are read as they are needed);
	// the matches of the rank are kept, and the window's last name, which
	// says how far it went. The read stops at the need-th match.
	walked := `SELECT name, row_number() OVER w AS walked, CASE WHEN lead(name) OVER w IS NULL THEN 1 ELSE 0 END AS last_name, ` +
		`CASE WHEN ` + strings.Join(where, " AND ") + ` THEN 1 ELSE 0 END AS hit FROM (` + window + `) win WINDOW w AS (ORDER BY ` + name + `)`
	query := `SELECT ` + qualified("a.", addonCols) + `, k.walked, k.last_name, k.hit FROM (SELECT name, walked, last_name, hit FROM (` +
		walked + `) x WHERE hit = 1 OR last_name = 1 ORDER BY ` + name + ` LIMIT ` + a.add(need) + `) k JOIN addons a ON a.name = k.name ORDER BY ` +
		r.d.Bytewise("k.name")
	type walkedRow struct {
		rankedAddon
		walked, last, hit int
	}
	scan := func(row Row) (walkedRow, error) {
		var x walkedRow
		dst, finish := r.addonFields(&x.addon)
		if err := row.Scan(append(dst, &x.walked, &x.last, &x.hit)...); err != nil {
			return x, err
		}
		finish()
		x.rank = from.rank
		return x, nil
	}
	rows, err := list(r, ctx, "search addons", scan, query, a...)
	if err != nil {
		return nil, 0, "", err
	}
	for _, x := range rows {
		if x.hit == 1 {
			hits = append(hits, x.rankedAddon)
		}
		if x.last == 1 {
			read, last = x.walked, x.addon.Name
		}
	}
	return hits, read, last, nil
}

// qualified prefixes each column of the comma-separated list cols with
// prefix.
func qualified(prefix, cols string) string {
	fields := strings.Split(cols, ",")
	for i, c := range fields {
		fields[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(fields, ", ")
}

// rankedPage returns the first limit addons of rows and the cursor after
// them when there are more; or, when the reads stopped short of the page's
// end at stop (not nil), the rows and a cursor at stop.
func rankedPage(rows []rankedAddon, limit int, stop *rankPos) ([]registry.Addon, string, error) {
	rows, next := page(rows, limit, func(x rankedAddon) storage.Cursor { return storage.Cursor{Key: x.addon.Name, Rank: x.rank} })
	if next == "" && stop != nil {
		next = storage.Cursor{Key: stop.key, Rank: stop.rank}.Encode()
	}
	out := make([]registry.Addon, len(rows))
	for i, x := range rows {
		out[i] = x.addon
	}
	return out, next, nil
}

// CountAddons returns how many addons Addons lists for f, counting no
// further than max: more is true when over max match, and n is then max.
// It reads through the same indexes as Addons, so its cost grows with
// min(matches, max), not with the registry.
func (r reader) CountAddons(ctx context.Context, f storage.AddonFilter, max int) (n int, more bool, err error) {
	if max < 0 {
		max = 0
	}
	var a args
	where, err := r.addonWhere(&a, f)
	if err != nil {
		return 0, false, fmt.Errorf("count addons: %w", err)
	}
	err = r.c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM addons`+whereSQL(where)+` LIMIT `+a.add(max+1)+`) matched`, a...).Scan(&n)
	if err != nil {
		return 0, false, r.err("count addons", err)
	}
	if n > max {
		return max, true, nil
	}
	return n, false, nil
}

// PutAddon inserts a or overwrites every field of the addon with its name.
func (t *tx) PutAddon(ctx context.Context, a registry.Addon) error {
	if a.Name == "" {
		return fmt.Errorf("put addon: %w", invalid("name", "is empty"))
	}
	// The postings follow the search text: rewritten only when it changes.
	text, old := searchText(a), ""
	if err := t.c.QueryRow(ctx, `SELECT search_text FROM addons WHERE name = $1`, a.Name).Scan(&old); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return t.err(fmt.Sprintf("put addon %q", a.Name), err)
	}
	_, err := t.c.Exec(ctx, `INSERT INTO addons (`+addonCols+`, search_text, tier)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
		ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name, description = excluded.description,
			homepage = excluded.homepage, latest_version = excluded.latest_version,
			latest_verdict = excluded.latest_verdict, verified = excluded.verified,
			verified_by = excluded.verified_by, verified_at = excluded.verified_at,
			verified_reason = excluded.verified_reason, removed = excluded.removed,
			removed_at = excluded.removed_at, created_at = excluded.created_at, updated_at = excluded.updated_at,
			latest_wiring_sha256 = excluded.latest_wiring_sha256, verified_wiring_sha256 = excluded.verified_wiring_sha256,
			keywords = excluded.keywords, categories = excluded.categories, search_text = excluded.search_text,
			tier = excluded.tier`,
		a.Name, a.DisplayName, a.Description, a.Homepage, a.LatestVersion, string(a.LatestVerdict),
		a.Verified, t.d.List(a.VerifiedBy), nullTime(t.d, a.VerifiedAt), a.VerifiedReason, a.Removed,
		nullTime(t.d, a.RemovedAt), t.d.Time(a.CreatedAt), t.d.Time(a.UpdatedAt), a.LatestWiring, a.VerifiedWiring,
		t.d.List(a.Keywords), t.d.List(a.Categories), text, string(a.Tier()))
	if err != nil {
		return t.err(fmt.Sprintf("put addon %q", a.Name), err)
	}
	if text != old {
		return t.putGrams(ctx, a.Name, text, old)
	}
	return nil
}

// putGrams writes the postings of the addon called name (addon_grams) for
// its search text text, where it had those of old ("" for none): the
// postings old had and text has not are deleted, those text has and old
// had not inserted.
func (t *tx) putGrams(ctx context.Context, name, text, old string) error {
	op := fmt.Sprintf("put the search postings of addon %q", name)
	type posting struct {
		gram string
		part int
	}
	postings := func(text string) map[posting]bool {
		m := map[posting]bool{}
		if text == "" {
			return m
		}
		for i, part := range strings.SplitN(text, searchSep, 3) {
			for _, g := range searchGrams(part) {
				m[posting{g, i + 1}] = true
			}
		}
		return m
	}
	had, has := postings(old), postings(text)
	var gone [3][]string
	for p := range had {
		if !has[p] {
			gone[p.part-1] = append(gone[p.part-1], p.gram)
		}
	}
	for i, grams := range gone {
		if len(grams) == 0 {
			continue
		}
		if _, err := t.c.Exec(ctx, `DELETE FROM addon_grams WHERE part = $1 AND `+t.d.Bytewise("name")+` = $2 AND `+t.d.AnyOf("gram", "$3"),
			i+1, name, t.d.List(grams)); err != nil {
			return t.err(op, err)
		}
	}
	var ps []posting
	for p := range has {
		if !had[p] {
			ps = append(ps, p)
		}
	}
	return chunks(len(ps), func(lo, hi int) error {
		var a args
		n := a.add(name)
		rows := make([]string, 0, hi-lo)
		for _, p := range ps[lo:hi] {
			rows = append(rows, "("+n+", "+a.add(p.gram)+", "+strconv.Itoa(p.part)+")")
		}
		if _, err := t.c.Exec(ctx, `INSERT INTO addon_grams (name, gram, part) VALUES `+strings.Join(rows, ", "), a...); err != nil {
			return t.err(op, err)
		}
		return nil
	})
}

// SetLatestVerdicts writes the latest verdict of each addon of vs, in a
// statement per rowsPerStatement addons; registry.ErrNotFound when one does
// not exist.
func (t *tx) SetLatestVerdicts(ctx context.Context, vs map[string]registry.Verdict) error {
	names := slices.Sorted(maps.Keys(vs))
	op := fmt.Sprintf("set the latest verdicts of %d addons", len(names))
	return chunks(len(names), func(lo, hi int) error {
		a := make([]any, 0, 2*(hi-lo))
		for _, n := range names[lo:hi] {
			a = append(a, n, string(vs[n]))
		}
		n, err := t.c.Exec(ctx, `UPDATE addons SET latest_verdict = v.column2
			FROM (VALUES `+valuesSQL(hi-lo, 2, 1, "")+`) AS v WHERE addons.name = v.column1`, a...)
		if err != nil {
			return t.err(op, err)
		}
		if int(n) != hi-lo {
			return fmt.Errorf("%s: %d of them: %w", op, hi-lo-int(n), registry.ErrNotFound)
		}
		return nil
	})
}

// searchGrams returns the distinct trigrams (three characters) of s, in
// the order they first occur: the postings of a part of the search text
// (addon_grams, migration 00025, which computes them the same way).
func searchGrams(s string) []string {
	r := []rune(s)
	var out []string
	seen := map[string]bool{}
	for i := 0; i+3 <= len(r); i++ {
		if g := string(r[i : i+3]); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// queryGrams returns the trigrams of the lowercased query q whose
// postings its search may read, or nil when it has none to read: under
// three characters, or holding the parts' separator (it would then span
// parts). They are the trigrams that cover q without overlapping, and its
// last: overlapping ones say little more about where q is, and each costs
// a probe of the index.
func queryGrams(q string) []string {
	if strings.Contains(q, searchSep) {
		return nil
	}
	r := []rune(q)
	if len(r) < 3 {
		return nil
	}
	var out []string
	add := func(g string) {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	for i := 0; i+3 <= len(r); i += 3 {
		add(string(r[i : i+3]))
	}
	add(string(r[len(r)-3:]))
	return out
}

// gramProbe is how many postings of each trigram gramRanks counts, past a
// page's position, to pick the one to read: for a page of limit addons.
func gramProbe(limit int) int { return 2 * (limit + 1) }

// rankPart is the part of the search text that holds a match of rank.
func rankPart(rank int) int { return max(rank-1, 1) }

// gramRanks returns the first need addons matching f (whose query,
// lowercased, is q, with trigrams grams) from position from on, rank by
// rank, each rank read through the postings of one trigram of q in the
// rank's part (addon_grams): a match of the rank holds every trigram of q
// there, so the postings of any one of them, in name order from the
// position, hold every match, and each is checked against the rank's
// condition (searchRankSQL) and f. The trigram read is the rarest past the
// position (rarestGram), and a rank none of whose postings are past it is
// not read at all. The names that start with q (ranks 0 and 1) are skipped
// from rank 2 on, as a range of names, when step 1 read them. So a page
// reads about the postings between its first and last match of the
// trigram least common among the names there, not every match; and at
// most budget postings in all: when it has read them before it found need
// addons, stop is the position of the last posting read, where the next
// page starts.
func (r reader) gramRanks(ctx context.Context, f storage.AddonFilter, q string, grams []string, from rankPos, need, budget int) (out []rankedAddon, stop *rankPos, err error) {
	// Every rank's trigram is picked at once, in one query: a page
	// reads its ranks in as few round trips as it can.
	var probes []gramProbeAt
	for rank := from.rank; rank <= 4; rank++ {
		at := gramProbeAt{part: rankPart(rank)}
		if rank == from.rank {
			at.after = from.key
		}
		probes = append(probes, at)
	}
	picked, err := r.rarestGrams(ctx, grams, probes, gramProbe(need))
	if err != nil {
		return nil, nil, err
	}
	for pos := from; pos.rank <= 4 && need > 0; pos = (rankPos{rank: pos.rank + 1}) {
		gram := picked[pos.rank-from.rank]
		if gram == "" {
			continue
		}
		for _, seg := range gramSegments(q, pos) {
			rows, last, err := r.gramRank(ctx, f, q, gram, grams, pos.rank, seg, need, &budget)
			if err != nil {
				return nil, nil, err
			}
			if out, need = append(out, rows...), need-len(rows); need == 0 {
				return out, nil, nil
			}
			if budget <= 0 {
				return out, &rankPos{rank: pos.rank, key: last}, nil
			}
		}
	}
	return out, nil, nil
}

// gramSegment is a range of names, in name order: after after ("" for
// from the first), from from on (when not ""), before to (when not ""),
// up to and including the value of the SQL expression through (when not
// "").
type gramSegment struct{ after, from, to, through string }

// cond returns the segment's conditions on the column col.
func (g gramSegment) cond(a *args, col string) string {
	var c []string
	if g.after != "" {
		c = append(c, col+" > "+a.add(g.after))
	}
	if g.from != "" {
		c = append(c, col+" >= "+a.add(g.from))
	}
	// A window's last posting (through) lies before to: the one bound
	// then stands alone, as SQLite ends an index's range at one upper
	// bound only and checks any other on each row of the range, to its
	// end.
	if g.to != "" && g.through == "" {
		c = append(c, col+" < "+a.add(g.to))
	}
	if g.through != "" {
		c = append(c, col+" <= "+g.through)
	}
	if len(c) == 0 {
		return ""
	}
	return " AND " + strings.Join(c, " AND ")
}

// gramSegments returns the ranges of names rank pos.rank is read in, in
// order, from pos.key: every name after it, but from rank 2 on without the
// names that start with q (read by step 1 when prefixEnd can bound them),
// whose rank is 0 or 1 and which a query with many of them would
// otherwise read again for each later rank.
func gramSegments(q string, pos rankPos) []gramSegment {
	end, ok := prefixEnd(q)
	if pos.rank < 2 || !ok {
		return []gramSegment{{after: pos.key}}
	}
	var segs []gramSegment
	if pos.key < q {
		segs = append(segs, gramSegment{after: pos.key, to: q})
	}
	if pos.key < end {
		return append(segs, gramSegment{from: end})
	}
	return append(segs, gramSegment{after: pos.key})
}

// gramProbeAt is where rarestGrams counts postings: in part, after the
// name after ("" for all).
type gramProbeAt struct {
	part  int
	after string
}

// rarestGrams counts, for each place of at and each of grams, the
// postings there, at most probe of them, and returns for each place the
// gram with the fewest; between those with probe or more, the one whose
// probe-th posting is furthest in name order, where the postings are
// sparsest. It returns "" for a place where one gram has none: no name
// there holds every trigram in the part.
func (r reader) rarestGrams(ctx context.Context, grams []string, at []gramProbeAt, probe int) ([]string, error) {
	var a args
	name := r.d.Bytewise("name")
	k := a.add(probe)
	gp := make([]string, len(grams))
	for i, g := range grams {
		gp[i] = a.add(g)
	}
	var qs []string
	for j, w := range at {
		past := ""
		if w.after != "" {
			past = ` AND ` + name + ` > ` + a.add(w.after)
		}
		for i := range grams {
			qs = append(qs, fmt.Sprintf(`SELECT %d AS j, %d AS i, count(*) AS n, max(g%d_%d) AS last FROM (SELECT `+name+` AS g%d_%d FROM addon_grams `+
				`WHERE gram = `+gp[i]+` AND part = %d`+past+` ORDER BY `+name+` LIMIT `+k+`) AS c%d_%d`, j, i, j, i, j, i, w.part, j, i))
		}
	}
	type count struct {
		j, i, n int
		last    *string
	}
	counts, err := list(r, ctx, "search addons", func(row Row) (count, error) {
		var c count
		return c, row.Scan(&c.j, &c.i, &c.n, &c.last)
	}, strings.Join(qs, ` UNION ALL `), a...)
	if err != nil {
		return nil, err
	}
	best := make([]*count, len(at))
	empty := make([]bool, len(at))
	for x := range counts {
		c := &counts[x]
		if c.n == 0 {
			empty[c.j] = true
			continue
		}
		if b := best[c.j]; b == nil || c.n < b.n || c.n == b.n && *c.last > *b.last {
			best[c.j] = c
		}
	}
	out := make([]string, len(at))
	for j, b := range best {
		if !empty[j] && b != nil {
			out[j] = grams[b.i]
		}
	}
	return out, nil
}

// gramRank returns the first need addons matching f in rank rank within
// seg, reading the postings of gram in the rank's part in name order, and
// the name of the last posting it read. It reads one window, in one
// statement: the next w postings of gram in seg, w being what is left of
// *budget (which the postings read are counted off), but at least the
// page and one more posting, so that a page that stops has read past its
// position. Of the window's names, those of addons that match (the rank's
// condition and f) are read by primary key, in name order, up to need:
// the candidates' rules and rows are read only until the page is full,
// while reading the postings' key alone is cheap, so a window as large as
// the budget costs little more than a small one where matches are dense,
// and spares the statements of further windows where they are sparse (a
// statement costs more than a hundred postings read).
//
// The window keeps only the postings whose names may still be a match,
// which the postings' index and the filters' indexes tell without reading
// the addon's row (gramCandidates): so a rank whose postings are mostly
// addons of an earlier rank (a description repeating a name that holds
// the query), or of addons a filter rejects, costs a scan of the index
// rather than a read of each row. (As one join with the rows, PostgreSQL
// misjudged how many postings match and read every match through the
// substring index instead: the candidates are a subquery with its own
// LIMIT.)
func (r reader) gramRank(ctx context.Context, f storage.AddonFilter, q, gram string, grams []string, rank int, seg gramSegment, need int, budget *int) (out []rankedAddon, last string, err error) {
	w := max(*budget, need+1)
	var a args
	where, err := r.filterWhere(&a, f)
	if err != nil {
		return nil, "", err
	}
	where = append(where, r.d.Like("search_text", a.add(containsPattern(q))), r.searchRankSQL(&a, q)+" = "+a.add(rank))
	gname := r.d.Bytewise("g.name")
	// The window: how many postings it holds, and the last. Its
	// candidates are the postings up to the last that pass
	// gramCandidates' rules.
	window := `SELECT count(*) AS raw_n, max(n) AS raw_last FROM (SELECT ` + gname + ` AS n FROM addon_grams g WHERE g.gram = ` +
		a.add(gram) + ` AND g.part = ` + a.add(rankPart(rank)) + seg.cond(&a, gname) + ` ORDER BY ` + gname + ` LIMIT ` + a.add(w) + `) win`
	bounded := seg
	bounded.through = `(SELECT raw_last FROM (` + window + `) b)`
	cands := r.gramCandidates(&a, f, q, gram, grams, rank, bounded) + ` ORDER BY ` + gname + ` LIMIT ` + a.add(w)
	// The matches, then one more row for the window's figures. Its
	// addon columns are those of any addon and are not read: a row of a
	// UNION must have the matches' columns, and the window may hold no
	// match.
	query := `SELECT ` + addonCols + `, 1 AS hit, 0 AS raw_n, '' AS raw_last FROM (SELECT ` + qualified("a.", addonCols) + ` FROM (` + cands +
		`) k JOIN (SELECT ` + addonCols + `, CASE WHEN ` + strings.Join(where, " AND ") + ` THEN 1 ELSE 0 END AS hit FROM addons) a ` +
		`ON a.name = k.name WHERE a.hit = 1 ORDER BY ` + r.d.Bytewise("k.name") + ` LIMIT ` + a.add(need) + `) m ` +
		`UNION ALL SELECT ` + qualified("c.", addonCols) + `, 0, s.raw_n, s.raw_last FROM (` + window + `) s ` +
		`JOIN (SELECT ` + addonCols + ` FROM addons LIMIT 1) c ON s.raw_n > 0`
	type windowRow struct {
		rankedAddon
		hit, rawN int
		rawLast   string
	}
	rows, err := list(r, ctx, "search addons", func(row Row) (windowRow, error) {
		x := windowRow{rankedAddon: rankedAddon{rank: rank}}
		dst, finish := r.addonFields(&x.addon)
		if err := row.Scan(append(dst, &x.hit, &x.rawN, &x.rawLast)...); err != nil {
			return x, err
		}
		finish()
		return x, nil
	}, query, a...)
	if err != nil {
		return nil, "", err
	}
	n := 0
	for _, x := range rows {
		if x.hit == 1 {
			out = append(out, x.rankedAddon)
		} else {
			n, last = x.rawN, x.rawLast
		}
	}
	// A UNION ALL's rows come in no order SQL promises.
	slices.SortFunc(out, func(x, y rankedAddon) int { return strings.Compare(x.addon.Name, y.addon.Name) })
	*budget -= n
	return out, last, nil
}

// gramCandidates returns the query of the names, as g.name, whose postings
// of gram in rank's part lie in seg and whose addons may match f in rank:
// every posting of gram there, but for those the index of postings or of
// the filters rules out without the addon's row. A name lacking one of
// the query's other trigrams in the part is not a match there; from rank 3
// on, a name that holds q is of rank 2 at most (its part 1 holds the name,
// lowercased; ASCII case folded by SQLite's LIKE, or not by PostgreSQL's,
// either way the name holds q lowercased); and a tier or verdict asked for
// is read from its index ((tier, name), (latest_verdict, name)). What is
// left is checked on the row, so every rule here only saves reads: the
// rows found are the same with or without it.
func (r reader) gramCandidates(a *args, f storage.AddonFilter, q, gram string, grams []string, rank int, seg gramSegment) string {
	part := a.add(rankPart(rank))
	gname := r.d.Bytewise("g.name")
	conds := []string{`g.gram = ` + a.add(gram), `g.part = ` + part}
	if c := seg.cond(a, gname); c != "" {
		conds = append(conds, strings.TrimPrefix(c, " AND "))
	}
	if rank >= 3 {
		conds = append(conds, `NOT (`+r.d.Like("g.name", a.add(containsPattern(q)))+`)`)
	}
	// The filter first (FirstThen): a filter that few addons pass spares
	// the probes of the other trigrams.
	var filters []string
	if f.Tier != "" {
		filters = append(filters, `x.tier = `+a.add(string(f.Tier)))
	}
	if f.Verdict != "" {
		filters = append(filters, `x.latest_verdict = `+a.add(string(f.Verdict)))
	}
	filtered := ""
	if len(filters) > 0 {
		filtered = `EXISTS (SELECT 1 FROM addons x WHERE x.name = g.name AND ` + strings.Join(filters, " AND ") + `)`
	}
	// Without a filter most postings that hold the other trigrams are
	// matches, so a batch probes about its own size: each check is an
	// index probe. With one, a batch may read many postings for each
	// match, and PostgreSQL's merge of the trigrams' postings in name
	// order costs less than a probe each; the segment's bounds are given
	// on the other trigrams' postings too, so that the merge starts where
	// the segment does.
	var others []string
	for _, o := range grams {
		if o == gram {
			continue
		}
		bound := r.d.ProbeEach()
		if len(filters) > 0 {
			// Not through the window's end, which would read the window
			// again: the merge ends with the segment's own postings.
			from := seg
			from.through = ""
			bound = from.cond(a, r.d.Bytewise("o.name"))
		}
		others = append(others, `EXISTS (SELECT 1 FROM addon_grams o WHERE o.gram = `+a.add(o)+` AND o.part = `+part+
			` AND `+r.d.Bytewise("o.name")+` = `+gname+bound+`)`)
	}
	switch {
	case filtered != "" && len(others) > 0:
		conds = append(conds, r.d.FirstThen(filtered, strings.Join(others, " AND ")))
	case filtered != "":
		conds = append(conds, filtered)
	default:
		conds = append(conds, others...)
	}
	return `SELECT g.name AS name FROM addon_grams g WHERE ` + strings.Join(conds, " AND ")
}

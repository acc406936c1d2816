package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// searchSpecs are the addons of the search tests: "git" is found in each
// part of the search text, so the relevance ranks are all exercised.
var searchSpecs = []struct {
	name, display, desc string
	keywords            []string
	categories          []string
	verdict             registry.Verdict
	removed             bool
}{
	{"git", "Git", "the plain one", nil, nil, registry.VerdictPass, false},
	{"git-tools", "Tools", "", nil, nil, registry.VerdictReview, false},
	{"github", "GitHub", "issues and pull requests", []string{"issues"}, []string{"vcs"}, registry.VerdictPass, false},
	{"legit", "Legit", "", nil, nil, registry.VerdictPass, false},
	{"helper", "The GIT Helper", "", nil, nil, registry.VerdictFail, false},
	{"vcs", "Versions", "", []string{"Git", "hg"}, nil, registry.VerdictPass, false},
	{"scm", "Source", "", nil, []string{"GIT-hosting"}, registry.VerdictPass, false},
	{"other", "Other", "Works with Git repositories", nil, nil, registry.VerdictPass, false},
	{"gone", "Gone git", "", nil, nil, registry.VerdictPass, true},
	{"unrelated", "Weather", "forecasts", []string{"rain"}, []string{"data"}, registry.VerdictPass, false},
	{"unicode", "ÜNÏCODE Tool", `says "hello" and 100% _ \ `, []string{"Ωmega"}, nil, registry.VerdictPass, false},
}

func testAddonSearch(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for i, sp := range searchSpecs {
			a := addon(sp.name, i)
			a.DisplayName, a.Description, a.LatestVerdict, a.Removed = sp.display, sp.desc, sp.verdict, sp.removed
			a.Keywords, a.Categories = sp.keywords, sp.categories
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := s.Addon(ctx, "github")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"issues"}, got.Keywords); diff != "" {
		t.Errorf("Addon(github).Keywords (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"vcs"}, got.Categories); diff != "" {
		t.Errorf("Addon(github).Categories (-want +got):\n%s", diff)
	}

	relevance := func(q string) storage.AddonFilter { return storage.AddonFilter{Query: q, Order: storage.ByRelevance} }
	tests := []struct {
		name string
		f    storage.AddonFilter
		want []string
	}{
		// Whole name, name prefix, name or display name, keyword or
		// category, description; by name within each.
		{"ranked", relevance("git"), []string{"git", "git-tools", "github", "helper", "legit", "scm", "vcs", "other"}},
		{"ranked, any case", relevance("GiT"), []string{"git", "git-tools", "github", "helper", "legit", "scm", "vcs", "other"}},
		{"ranked, with removed", storage.AddonFilter{Query: "git", Order: storage.ByRelevance, IncludeRemoved: true},
			[]string{"git", "git-tools", "github", "gone", "helper", "legit", "scm", "vcs", "other"}},
		{"ranked and filtered", storage.AddonFilter{Query: "git", Order: storage.ByRelevance, Verdict: registry.VerdictPass},
			[]string{"git", "github", "legit", "scm", "vcs", "other"}},
		{"by name", storage.AddonFilter{Query: "git"}, []string{"git", "git-tools", "github", "helper", "legit", "other", "scm", "vcs"}},
		{"two characters", relevance("gi"), []string{"git", "git-tools", "github", "helper", "legit", "scm", "vcs", "other"}},
		{"one character", relevance("ü"), []string{"unicode"}},
		{"keyword", relevance("issues"), []string{"github"}},
		{"keyword, by name", storage.AddonFilter{Query: "hg"}, []string{"vcs"}},
		{"category", relevance("hosting"), []string{"scm"}},
		{"category before description", relevance("vcs"), []string{"vcs", "github"}},
		{"keyword before description", relevance("rain"), []string{"unrelated"}},
		{"not across parts", relevance("versions git"), []string{}},
		{"not across items", relevance("issues vcs"), []string{}},
		{"unicode case", relevance("ünïcode"), []string{"unicode"}},
		{"unicode keyword", relevance("ωMEGA"), []string{"unicode"}},
		{"ends in a character beyond ASCII", relevance("Ω"), []string{"unicode"}},
		{"a name and more", relevance("github"), []string{"github"}},
		{"a name's prefix past the page", storage.AddonFilter{Query: "git-", Order: storage.ByRelevance}, []string{"git-tools", "scm"}},
		{"quotes are literal", relevance(`"hello"`), []string{"unicode"}},
		{"wildcards are literal", relevance(`100% _ \`), []string{"unicode"}},
		{"percent alone", relevance("%"), []string{"unicode"}},
		{"no match", relevance("nothing-like-this"), []string{}},
		{"no query ranks by name", storage.AddonFilter{Order: storage.ByRelevance, Verdict: registry.VerdictReview}, []string{"git-tools"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []int{1, 2, 3, 50} {
				got := []string{}
				cursor := ""
				for range 20 {
					page, next, err := s.Addons(ctx, tc.f, storage.Page{Cursor: cursor, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(page, addonName)...)
					if cursor = next; next == "" {
						break
					}
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Addons(%+v), %d a page (-want +got):\n%s", tc.f, limit, diff)
				}
			}
			n, more, err := s.CountAddons(ctx, tc.f, 100)
			if err != nil || n != len(tc.want) || more {
				t.Errorf("CountAddons(%+v) = %d, %v, %v; want %d, false", tc.f, n, more, err, len(tc.want))
			}
		})
	}

	// A new version's text replaces the old one in the search.
	inTx(t, s, func(tx storage.Tx) error {
		a, err := tx.Addon(ctx, "github")
		if err != nil {
			return err
		}
		a.Keywords, a.Description = []string{"forge"}, "pull requests"
		return tx.PutAddon(ctx, a)
	})
	for q, want := range map[string][]string{"issues": {}, "forge": {"github"}, "pull requests": {"github"}} {
		page, _, err := s.Addons(ctx, relevance(q), storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, ids(page, addonName)); diff != "" {
			t.Errorf("after the update, Addons(q=%q) (-want +got):\n%s", q, diff)
		}
	}
}

// testAddonSearchCursor checks that a ranked page's cursor continues
// within its rank: the page boundary falls between two ranks and inside
// one, at every position.
func testAddonSearchCursor(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var want []string
	inTx(t, s, func(tx storage.Tx) error {
		// Twelve addons in four ranks, three each, whose names sort
		// against their ranks.
		for i := range 3 {
			for _, sp := range []struct{ name, display, desc string }{
				{fmt.Sprintf("z-kit-%d", i), "", ""},                   // name substring: 2
				{fmt.Sprintf("kit-%d", i), "", ""},                     // name prefix: 1
				{fmt.Sprintf("a-%d", i), "", "a kit"},                  // description: 4
				{fmt.Sprintf("m-%d", i), fmt.Sprintf("Kit %d", i), ""}, // display name: 2
			} {
				a := addon(sp.name, i)
				a.DisplayName, a.Description = sp.display, sp.desc
				if err := tx.PutAddon(ctx, a); err != nil {
					return err
				}
			}
		}
		return nil
	})
	want = []string{"kit-0", "kit-1", "kit-2", "m-0", "m-1", "m-2", "z-kit-0", "z-kit-1", "z-kit-2", "a-0", "a-1", "a-2"}
	f := storage.AddonFilter{Query: "KIT", Order: storage.ByRelevance}
	for first := 1; first < len(want); first++ {
		page, next, err := s.Addons(ctx, f, storage.Page{Limit: first})
		if err != nil {
			t.Fatal(err)
		}
		rest, _, err := s.Addons(ctx, f, storage.Page{Cursor: next, Limit: storage.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		got := append(ids(page, addonName), ids(rest, addonName)...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("first page of %d, then the rest (-want +got):\n%s", first, diff)
		}
	}
}

// testAddonSearchMany holds a search of many matches to the order of the
// few: a page of limit addons reads at most 16 (limit+1) matches through
// the substring index before it walks the names in order instead, rank by
// rank, at most 128 (limit+1) of them, and then reads the rest of the
// matches through the index. Pages of 1 to 7 addons over some 900 cross
// those bounds: ranks whose matches are many, rare or absent among the
// names, walks that end at the last name and walks that stop short, with
// cursors carried from pages of one size (and one way) to pages of another.
// The order wanted is worked out here from the ranks' definitions.
func testAddonSearchMany(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var all []registry.Addon
	stems := []string{"alpha", "toolkit", "bravo", "charlie", "delta", "kit"}
	for i := range 600 {
		a := addon(fmt.Sprintf("%s-%03d", stems[i%6], i), i)
		a.DisplayName, a.Description = "Plain", "nothing to see"
		if i%7 == 0 {
			a.DisplayName = "The Kit"
		}
		if i%9 == 4 {
			a.DisplayName = "Kitä Box"
		}
		if i%11 == 0 {
			a.Keywords = []string{"kitchen"}
		}
		if i%37 == 0 {
			a.Categories = []string{"starter-KITS"}
		}
		if i%4 == 1 {
			a.Description = "ships a kit"
		}
		if i%5 == 0 {
			a.LatestVerdict = registry.VerdictFail
		}
		a.Removed = i%13 == 0
		all = append(all, a)
	}
	for i, n := range []string{"kit", "kitä", "kitäs-1", "kitchen-sink"} {
		a := addon(n, 600+i)
		a.DisplayName, a.Description = "Plain", "nothing to see"
		all = append(all, a)
	}
	// "widget" is inside some 300 names, never at their start, and each of
	// their descriptions repeats the display name, as the seeded registry's
	// do: the last page of "widget" must show that no description holds it
	// beyond these, and a verdict or tier that few of them have must be
	// found among them. Around them, what may look like a match and is not,
	// or is of another rank than its name suggests.
	services := []string{"git", "jira", "slack", "zoom"}
	for i := range 300 {
		a := addon(fmt.Sprintf("%s-widget-%03d", services[i%4], i), 700+i)
		a.DisplayName = fmt.Sprintf("%s Widget %d", strings.ToUpper(services[i%4][:1])+services[i%4][1:], i)
		a.Description = "Reads messages in " + a.DisplayName + " with retries."
		if i%29 == 3 {
			a.LatestVerdict = registry.VerdictFail
		}
		if i%41 == 5 || i == 177 { // 177 fails too
			a.Verified, a.LatestWiring, a.VerifiedWiring = true, wiring("w"), wiring("w")
		}
		if i%10 == 0 {
			a.Keywords = []string{"widgets"}
		}
		a.Removed = i%50 == 7
		all = append(all, a)
	}
	for i, x := range []struct{ name, display, description string }{
		{"gadget-box", "Gadget Widget", "Reads Gadget Widget."},        // rank 2 by its display name only
		{"widx-getz", "Widx Getz", "a widget inside"},                  // every trigram in part 1, the query only in part 3
		{"mega-Widget-1", "Mega", "the Widget again"},                  // rank 2 whatever the case of its name
		{"zz-last", "Plain", "ends with a widget"},                     // rank 4, the last name
		{"aa-first", "Plain", "a widgetless widget-free text: widget"}, // rank 4, the first name
	} {
		a := addon(x.name, 1000+i)
		a.DisplayName, a.Description = x.display, x.description
		if i == 1 {
			a.LatestVerdict = registry.VerdictFail
		}
		all = append(all, a)
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, a := range all {
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})

	// rank is an addon's rank for the lowercased query q, -1 for none.
	rank := func(a registry.Addon, q string) int {
		low := strings.ToLower
		switch {
		case a.Name == q:
			return 0
		case strings.HasPrefix(a.Name, q):
			return 1
		case strings.Contains(low(a.Name+"\n"+a.DisplayName), q):
			return 2
		case strings.Contains(low(strings.Join(append(append([]string{}, a.Keywords...), a.Categories...), "\n")), q):
			return 3
		case strings.Contains(low(a.Description), q):
			return 4
		}
		return -1
	}
	want := func(f storage.AddonFilter) []string {
		q := strings.ToLower(f.Query)
		type ranked struct {
			name string
			rank int
		}
		var rs []ranked
		for _, a := range all {
			if r := rank(a, q); r >= 0 && (f.IncludeRemoved || !a.Removed) && (f.Verdict == "" || a.LatestVerdict == f.Verdict) &&
				(f.Tier == "" || a.Tier() == f.Tier) {
				rs = append(rs, ranked{a.Name, r})
			}
		}
		sort.Slice(rs, func(i, j int) bool {
			if rs[i].rank != rs[j].rank {
				return rs[i].rank < rs[j].rank
			}
			return rs[i].name < rs[j].name
		})
		out := []string{}
		for _, r := range rs {
			out = append(out, r.name)
		}
		return out
	}

	relevance := func(q string) storage.AddonFilter { return storage.AddonFilter{Query: q, Order: storage.ByRelevance} }
	short := map[string]int{} // pages that stopped short, by query/verdict/tier
	for _, f := range []storage.AddonFilter{
		relevance("kit"), // ranks 0 to 4: many, then rare, then many again
		relevance("it-"), // many inside names, no prefix
		relevance("kitchen"),
		relevance("KITS"),
		relevance("ki"),   // no trigram
		relevance("kitä"), // ends beyond ASCII: no step through the names' range
		relevance("box"),
		{Query: "kit", Order: storage.ByRelevance, Verdict: registry.VerdictFail},
		{Query: "kit", Order: storage.ByRelevance, IncludeRemoved: true},
		{Query: "a", Order: storage.ByRelevance, Verdict: registry.VerdictPass},
		relevance("widget"), // inside many names, repeated by their descriptions
		relevance("Widget 2"),
		{Query: "widget", Order: storage.ByRelevance, Verdict: registry.VerdictFail}, // few pass
		{Query: "widget", Order: storage.ByRelevance, Tier: registry.TierVerified},   // fewer pass
		{Query: "widget", Order: storage.ByRelevance, IncludeRemoved: true},
		{Query: "widget", Order: storage.ByRelevance, Verdict: registry.VerdictFail, Tier: registry.TierVerified},
	} {
		want := want(f)
		if len(want) == 0 {
			t.Fatalf("Addons(%+v): the test wants no addons", f)
		}
		// Every page size over the short results; over the long ones (the
		// widgets'), a mix of small and large pages and pages of 50, which
		// cross every rank's boundary as well at a fraction of the reads.
		pagings := [][]int{{1, 7, 2, 50, 3, 1, 1, 5}, {2}, {3}, {7}, {50}}
		if len(want) > 100 {
			pagings = [][]int{{1, 7, 2, 50, 3, 1, 1, 5}, {50}}
		}
		if f == relevance("widget") { // the last page of one reads every description's postings
			pagings = append(pagings, []int{1})
		}
		for _, limits := range pagings {
			got := []string{}
			cursor := ""
			for i := 0; ; i++ {
				limit := limits[i%len(limits)]
				page, next, err := s.Addons(ctx, f, storage.Page{Cursor: cursor, Limit: limit})
				if err != nil {
					t.Fatal(err)
				}
				// A page may stop short, even empty, where it has read its
				// share of the index; its cursor then goes on from there.
				if len(page) > limit || next != "" && next == cursor || i > len(all) {
					t.Fatalf("Addons(%+v), page %d of %d: %d addons, next %q after %q", f, i, limit, len(page), next, cursor)
				}
				if next != "" && len(page) < limit {
					short[f.Query+"/"+string(f.Verdict)+"/"+string(f.Tier)]++
				}
				got = append(got, ids(page, addonName)...)
				if cursor = next; next == "" || len(got) > len(want) {
					break
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Addons(%+v), pages of %v (-want +got):\n%s", f, limits, diff)
			}
		}
		n, more, err := s.CountAddons(ctx, f, 1000)
		if err != nil || n != len(want) || more {
			t.Errorf("CountAddons(%+v) = %d, %v, %v; want %d, false", f, n, more, err, len(want))
		}
	}
	// Where a page of one addon must read past some 300 postings to learn
	// that no description holds "widget" beyond the names that do, or to
	// find the few that fail, it stops short instead, through the
	// trigrams' postings; so do the walks of a query too short to have a
	// trigram where its matches are rare among the names.
	for _, k := range []string{"widget//", "widget/fail/", "widget//verified", "a/pass/"} {
		if short[k] == 0 {
			t.Errorf("no page of %q stopped short: %v", k, short)
		}
	}
}

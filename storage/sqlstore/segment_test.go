package sqlstore

import (
	"strings"
	"testing"
)

// TestGramSegmentUpperBound holds a window's candidates to one upper bound
// on the name: SQLite ends an index's range at one of them and checks any
// other on every row to the range's end, so that with both a segment's
// end and the window's last posting, a page read every posting of the
// segment past its window (all of a common trigram's postings before the
// query's prefix names, for a page that needed a few hundred).
func TestGramSegmentUpperBound(t *testing.T) {
	for _, tc := range []struct {
		seg  gramSegment
		want string
	}{
		{gramSegment{after: "a", to: "q"}, " AND n > $1 AND n < $2"},
		{gramSegment{after: "a", to: "q", through: "(last)"}, " AND n > $1 AND n <= (last)"},
		{gramSegment{from: "r", through: "(last)"}, " AND n >= $1 AND n <= (last)"},
		{gramSegment{to: "q", through: "(last)"}, " AND n <= (last)"},
		{gramSegment{}, ""},
	} {
		var a args
		got := tc.seg.cond(&a, "n")
		if got != tc.want {
			t.Errorf("%+v: cond = %q, want %q", tc.seg, got, tc.want)
		}
		if strings.Count(got, "<") > 1 {
			t.Errorf("%+v: %q bounds the name from above twice", tc.seg, got)
		}
	}
}

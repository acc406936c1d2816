package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
)

// The search finds a published version's keywords and categories, ranks
// its matches best first, pages through them, and refuses a cursor of
// another search.
func TestSearchRanksAndPages(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		with := func(m, line string) string {
			return strings.Replace(m, `license = "MIT"`, `license = "MIT"`+"\n"+line, 1)
		}
		e.publish(t, with(manifest("alpha", "1.0.0"), `keywords = ["Toolkit"]`))
		e.publish(t, strings.Replace(manifest("beta", "1.0.0"), "A test addon for beta.", "Bundles a kit of helpers.", 1))
		e.publish(t, with(manifest("gamma", "1.0.0"), `categories = ["kits"]`))
		e.publish(t, manifest("kit", "1.0.0"))
		e.publish(t, manifest("kit-pro", "1.0.0"))
		e.publish(t, manifest("weather", "1.0.0"))

		var got []string
		path := "/v1/addons?q=KIT&limit=2"
		var first string
		for pages := 0; path != ""; pages++ {
			if pages > 5 {
				t.Fatal("more pages than matches")
			}
			r := e.do(t, req{method: "GET", path: path})
			if r.status != http.StatusOK {
				t.Fatalf("GET %s = %d %s", path, r.status, r.body)
			}
			var l struct {
				Items []struct{ Name string }
				Next  *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(r.body, &l); err != nil {
				t.Fatal(err)
			}
			for _, it := range l.Items {
				got = append(got, it.Name)
			}
			path = ""
			if l.Next != nil {
				if first == "" {
					first = *l.Next
				}
				path = "/v1/addons?q=KIT&limit=2&cursor=" + url.QueryEscape(*l.Next)
			}
		}
		// The whole name, a name's start, a keyword and a category (by
		// name), a description.
		if diff := cmp.Diff([]string{"kit", "kit-pro", "alpha", "gamma", "beta"}, got); diff != "" {
			t.Errorf("?q=KIT over all pages (-want +got):\n%s", diff)
		}
		r := e.do(t, req{method: "GET", path: "/v1/addons?q=toolkit&cursor=" + url.QueryEscape(first)})
		if p := r.problem(t); r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Path != "cursor" {
			t.Errorf("a cursor of another search = %d %s, want 400 naming cursor", r.status, r.body)
		}
	})
}

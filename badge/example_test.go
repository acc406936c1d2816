package badge_test

import (
	"fmt"
	"strings"

	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/registry"
)

func ExampleForAddon() {
	for _, b := range []badge.Badge{
		badge.ForAddon(registry.TierVerified, registry.VerdictPass, true, ""),
		badge.ForAddon(registry.TierCommunity, registry.VerdictReview, true, ""),
		badge.ForAddon(registry.TierVerified, registry.VerdictFail, true, "mcp"),
		badge.ForAddon("", "", false, ""),
	} {
		fmt.Printf("%s | %s | %s\n", b.Label, b.Message, b.Color)
	}
	// Output:
	// addon | verified | brightgreen
	// addon | community · review | yellow
	// mcp | verified · fail | red
	// addon | not found | lightgrey
}

func ExampleEndpoint() {
	b := badge.ForAddon(registry.TierCommunity, registry.VerdictPass, true, "")
	fmt.Printf("%s", badge.Endpoint(b))
	// Output:
	// {"schemaVersion":1,"label":"addon","message":"community · pass","color":"green"}
}

func ExampleETag() {
	svg := badge.Render(badge.ForAddon(registry.TierVerified, registry.VerdictPass, true, ""), badge.StyleFlat)
	etag := badge.ETag(svg)
	fmt.Println(etag[:8], len(etag))
	// Output:
	// "sha256- 73
}

func ExampleRender() {
	style, err := badge.ParseStyle("flat-square")
	if err != nil {
		fmt.Println(err)
		return
	}
	svg := badge.Render(badge.Badge{Label: "addon", Message: "verified", Color: "brightgreen"}, style)
	first, _, _ := strings.Cut(string(svg), "\n")
	fmt.Println(first)
	// Output:
	// <svg xmlns="http://www.w3.org/2000/svg" width="97" height="20" role="img" aria-label="addon: verified"><title>addon: verified</title>
}

// Package badge renders an addon's trust badge: a shields.io-style SVG
// ("flat" or "flat-square") and the shields.io endpoint JSON, both from
// plain inputs, with no I/O.
//
// Text is measured with a width table of DejaVu Sans at 11px generated from
// the font (see internal/widthgen), and the SVG names DejaVu Sans first, so
// the boxes fit the text a browser draws. Every string that reaches the
// output is sanitized: control, bidirectional-override and other invisible
// format characters become U+FFFD, and the text is XML-escaped. Output is a
// pure function of the input: equal inputs give equal bytes.
package badge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// Badge is what a badge says. The zero Label renders a badge with the
// message alone.
type Badge struct {
	// Label is the left, grey part ("addon").
	Label string
	// Message is the right, coloured part ("community · pass").
	Message string
	// Color is the message background: a shields.io colour name
	// (brightgreen, green, yellowgreen, yellow, orange, red, blue,
	// lightgrey, grey) or a 3- or 6-digit hex colour with or without "#"
	// ("#4c1", "4c1", "#44cc11"). Anything else is drawn as lightgrey.
	Color string
}

// Media types of the two renderings, for the Content-Type header.
const (
	ContentTypeSVG      = "image/svg+xml; charset=utf-8"
	ContentTypeEndpoint = "application/json; charset=utf-8"
)

// DefaultLabel is the label ForAddon uses when given none.
const DefaultLabel = "addon"

// MaxTextRunes bounds the label and the message: longer text is cut to
// MaxTextRunes-1 characters followed by "…", so a badge has a bounded size.
const MaxTextRunes = 64

// Messages ForAddon puts on a badge.
const (
	MessageVerified = "verified"
	MessageNotFound = "not found"
	MessageUnknown  = "unknown"
)

// Colour names ForAddon uses.
const (
	ColorVerified = "brightgreen"
	ColorPass     = "green"
	ColorReview   = "yellow"
	ColorFail     = "red"
	ColorNotFound = "lightgrey"
)

// namedColors maps the shields.io colour names to the hex colours drawn for
// them.
var namedColors = map[string]string{
	"brightgreen": "#4c1",
	"green":       "#97ca00",
	"yellowgreen": "#a4a61d",
	"yellow":      "#dfb317",
	"orange":      "#fe7d37",
	"red":         "#e05d44",
	"blue":        "#007ec6",
	"lightgrey":   "#9f9f9f",
	"grey":        "#555",
}

// ForAddon returns the badge of an addon: its tier and verdict, or "not
// found" in lightgrey when found is false. label replaces DefaultLabel when
// not empty.
//
// A verified addon that passes says "verified" in bright green. A verified
// addon with a review or fail verdict says so ("verified · review" in
// yellow, "verified · fail" in red): the tier never hides a failing audit.
// Community addons say "community · pass" (green), "community · review"
// (yellow) or "community · fail" (red). An unknown tier or verdict gives
// "unknown" in lightgrey.
func ForAddon(tier registry.Tier, verdict registry.Verdict, found bool, label string) Badge {
	if label == "" {
		label = DefaultLabel
	}
	if !found {
		return Badge{Label: label, Message: MessageNotFound, Color: ColorNotFound}
	}
	if !tier.Valid() || !verdict.Valid() {
		return Badge{Label: label, Message: MessageUnknown, Color: ColorNotFound}
	}
	if tier == registry.TierVerified && verdict == registry.VerdictPass {
		return Badge{Label: label, Message: MessageVerified, Color: ColorVerified}
	}
	color := ColorPass
	switch verdict {
	case registry.VerdictReview:
		color = ColorReview
	case registry.VerdictFail:
		color = ColorFail
	}
	return Badge{Label: label, Message: string(tier) + " · " + string(verdict), Color: color}
}

// Style is a badge's visual style. The zero value is StyleFlat.
type Style uint8

// The styles.
const (
	// StyleFlat has rounded corners and a light gradient and text shadow.
	StyleFlat Style = iota
	// StyleFlatSquare has square corners, no gradient and no shadow.
	StyleFlatSquare
)

// String returns the shields.io name of s ("flat", "flat-square").
func (s Style) String() string {
	if s == StyleFlatSquare {
		return "flat-square"
	}
	return "flat"
}

// ParseStyle maps a shields.io style name to its Style; the empty string is
// StyleFlat. Any other name returns an error wrapping registry.ErrInvalid
// that does not echo the name.
func ParseStyle(name string) (Style, error) {
	switch name {
	case "", "flat":
		return StyleFlat, nil
	case "flat-square":
		return StyleFlatSquare, nil
	}
	return StyleFlat, fmt.Errorf("style: want flat or flat-square: %w", registry.ErrInvalid)
}

// ETag returns a strong entity tag for body: `"sha256-<hex>"`, quotes
// included, ready for the ETag header.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"sha256-` + hex.EncodeToString(sum[:]) + `"`
}

// endpoint is the shields.io endpoint document, fields in its order.
type endpoint struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// Endpoint returns b as a shields.io endpoint document
// ({"schemaVersion":1,"label":…,"message":…,"color":…}) followed by a
// newline. Text is sanitized and bounded as in Render; Color is the colour
// name, or the hex colour without "#", or "lightgrey" when b.Color is not a
// colour. HTML-significant characters are escaped as \u003c and the like.
func Endpoint(b Badge) []byte {
	doc := endpoint{
		SchemaVersion: 1,
		Label:         sanitize(b.Label),
		Message:       sanitize(b.Message),
		Color:         endpointColor(b.Color),
	}
	out, err := json.Marshal(doc)
	if err != nil {
		// Marshalling a struct of strings cannot fail.
		panic(err)
	}
	return append(out, '\n')
}

// endpointColor returns the colour for the endpoint document.
func endpointColor(c string) string {
	if _, ok := namedColors[c]; ok {
		return c
	}
	if hex, ok := hexColor(c); ok {
		return hex[1:]
	}
	return ColorNotFound
}

// color returns the hex colour drawn for c, lightgrey when c is none.
func color(c string) string {
	if h, ok := namedColors[c]; ok {
		return h
	}
	if h, ok := hexColor(c); ok {
		return h
	}
	return namedColors[ColorNotFound]
}

// hexColor normalizes a 3- or 6-digit hex colour, with or without "#", to
// lower case with "#".
func hexColor(c string) (string, bool) {
	c = strings.TrimPrefix(c, "#")
	if len(c) != 3 && len(c) != 6 {
		return "", false
	}
	for i := 0; i < len(c); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c[i])) {
			return "", false
		}
	}
	return "#" + strings.ToLower(c), true
}

// rgb returns the channels of a normalized hex colour.
func rgb(h string) (r, g, b int) {
	h = h[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	v, _ := strconv.ParseUint(h, 16, 32)
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)
}

// light reports whether dark text reads better than white on h: its YIQ
// brightness is above the threshold shields.io uses.
func light(h string) bool {
	r, g, b := rgb(h)
	return (r*299+g*587+b*114)/1000 > 175
}

// sanitize makes s safe and bounded for a badge: every character that
// safetext does not let be shown (controls, bidi and other format
// characters, separators, noncharacters, private-use and unassigned code
// points, invalid UTF-8) becomes U+FFFD; a zero width joiner inside an emoji
// sequence stays. Text longer than MaxTextRunes is cut and ends in "…".
func sanitize(s string) string {
	return safetext.TruncateRunes(safetext.Replace(s, 0, utf8.RuneError), MaxTextRunes)
}

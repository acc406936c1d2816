package badge

import (
	"slices"
	"unicode"
)

// advanceRun is one run of consecutive code points in the width table; see
// advanceRuns in widths_gen.go.
type advanceRun struct {
	lo, hi rune
	off    uint16
}

// fontSize is the badge text size in pixels, as shields.io uses it.
const fontSize = 11

// emojiAdvance is the width of one emoji in font units of a 2048-unit em.
// Browsers draw emoji from a colour emoji font, not from the badge font;
// Noto Color Emoji, the one Linux and Android ship, advances 2550/2048 em.
const emojiAdvance = 2550

// wideAdvance is the width of an East Asian Wide or Fullwidth character the
// table lacks: one em, as CJK fonts draw them.
const wideAdvance = unitsPerEm

// tableAdvance returns the advance of r in font units and whether the width
// table has r.
func tableAdvance(r rune) (int, bool) {
	if r < 0x7F && r >= 0x20 {
		// Basic Latin is the first run; skip the search for it.
		return int(advances[r-0x20]), true
	}
	i, found := slices.BinarySearchFunc(advanceRuns[:], r, func(run advanceRun, r rune) int {
		switch {
		case run.hi < r:
			return -1
		case run.lo > r:
			return 1
		}
		return 0
	})
	if !found {
		return 0, false
	}
	run := advanceRuns[i]
	return int(advances[int(run.off)+int(r-run.lo)]), true
}

// kern returns the kerning adjustment between a and b in font units.
func kern(a, b rune) int {
	if a >= 1<<16 || b >= 1<<16 {
		return 0
	}
	key := uint32(a)<<16 | uint32(b)
	if i, ok := slices.BinarySearch(kernKeys[:], key); ok {
		return int(kernDeltas[i])
	}
	return 0
}

// zeroWidth reports whether r takes no room of its own: combining and
// enclosing marks, variation selectors and the zero-width joiners.
func zeroWidth(r rune) bool {
	if r < 0x300 {
		// No mark or zero-width character lies below the combining
		// diacritics; most badge text is here.
		return false
	}
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me)
}

// wide reports whether r is East Asian Wide or Fullwidth (Unicode UAX #11),
// which CJK fonts draw one em wide.
func wide(r rune) bool {
	for _, w := range wideRanges {
		if r < w[0] {
			return false
		}
		if r <= w[1] {
			return true
		}
	}
	return false
}

// wideRanges are the East Asian Wide and Fullwidth blocks, ascending.
var wideRanges = [...][2]rune{
	{0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF},
	{0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F}, {0xAC00, 0xD7A3},
	{0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
	{0xFFE0, 0xFFE6}, {0x1B000, 0x1B2FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
}

// emojiPresentation reports whether r is drawn as an emoji by default
// (Unicode Emoji_Presentation), so that a browser takes it from a colour
// emoji font whatever font the text asks for.
func emojiPresentation(r rune) bool {
	if r < 0x231A {
		return false
	}
	for _, e := range emojiRanges {
		if r < e[0] {
			return false
		}
		if r <= e[1] {
			return true
		}
	}
	return false
}

// emojiRanges are the Emoji_Presentation code points, ascending.
var emojiRanges = [...][2]rune{
	{0x231A, 0x231B}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3},
	{0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE},
	{0x26C4, 0x26C5}, {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA},
	{0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA}, {0x26FD, 0x26FD},
	{0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C},
	{0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50},
	{0x2B55, 0x2B55},
	{0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A},
	{0x1F1E6, 0x1F1FF}, {0x1F201, 0x1F201}, {0x1F21A, 0x1F21A}, {0x1F22F, 0x1F22F},
	{0x1F232, 0x1F236}, {0x1F238, 0x1F23A}, {0x1F250, 0x1F251}, {0x1F300, 0x1F320},
	{0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
	{0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
	{0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
	{0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
	{0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
	{0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
	{0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
	{0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF},
}

const (
	zwj            = 0x200D
	vs15           = 0xFE0E // text presentation selector
	vs16           = 0xFE0F // emoji presentation selector
	keycap         = 0x20E3
	regionalFirst  = 0x1F1E6
	regionalLast   = 0x1F1FF
	modifierFirst  = 0x1F3FB // emoji skin tone modifiers
	modifierLast   = 0x1F3FF
	pictographLow  = 0x1F000
	pictographHigh = 0x1FAFF
)

// textAdvance returns the width of s at the badge font size in font units of
// a 2048-unit em. s must already be sanitized (see sanitize).
//
// Characters are measured in this order: zero-width characters and marks
// count nothing; emoji, including a character turned into one by U+FE0F and
// a whole ZWJ sequence, flag pair or skin-tone modified emoji, count one
// emoji advance; then the DejaVu Sans table with its kerning; then East Asian
// Wide characters count one em; pictographs the font lacks count as emoji;
// anything else counts the font's average advance.
func textAdvance(s string) int {
	total := 0
	var (
		prev      rune // the previous character measured from the table, for kerning
		last      int  // the advance counted for the previous base character
		lastEmoji bool // the previous base character was drawn as an emoji
		joining   bool // a ZWJ follows an emoji: the next emoji joins it
		regional  bool // an unpaired regional indicator precedes
	)
	for _, r := range s {
		switch {
		case r == zwj:
			joining = lastEmoji
			continue
		case r == vs16:
			// The preceding character becomes an emoji.
			if !lastEmoji && last > 0 {
				total += emojiAdvance - last
				last, lastEmoji, prev = emojiAdvance, true, 0
			}
			continue
		case r == keycap:
			continue
		case zeroWidth(r):
			continue
		}
		var adv int
		isEmoji := false
		switch {
		case r >= modifierFirst && r <= modifierLast && lastEmoji:
			adv, isEmoji = 0, true
		case r >= regionalFirst && r <= regionalLast:
			isEmoji = true
			if regional {
				adv, regional = 0, false // the second half of a flag
			} else {
				adv, regional = emojiAdvance, true
			}
		case emojiPresentation(r):
			adv, isEmoji = emojiAdvance, true
		default:
			if a, ok := tableAdvance(r); ok {
				adv = a + kern(prev, r)
				total += adv
				prev, last, lastEmoji, joining, regional = r, a, false, false, false
				continue
			}
			switch {
			case wide(r):
				adv = wideAdvance
			case r >= pictographLow && r <= pictographHigh:
				adv, isEmoji = emojiAdvance, true
			default:
				adv = averageAdvance
			}
		}
		if isEmoji && joining {
			adv = 0
		}
		if r < regionalFirst || r > regionalLast {
			regional = false
		}
		total += adv
		prev, joining, lastEmoji = 0, false, isEmoji
		if adv > 0 {
			last = adv
		}
	}
	return total
}

// tenths converts a width in font units to tenths of a pixel at the badge
// font size, rounded to nearest.
func tenths(units int) int {
	return (units*fontSize*10 + unitsPerEm/2) / unitsPerEm
}

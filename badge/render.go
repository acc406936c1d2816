package badge

import (
	"bytes"
	"encoding/xml"
	"strconv"
)

// Layout, in pixels unless named otherwise.
const (
	height      = 20
	padding     = 5 // each side of a text
	labelColor  = "#555"
	fontFamily  = "DejaVu Sans,Verdana,Geneva,sans-serif"
	textY       = 140 // baseline in tenths of a pixel
	shadowY     = 150
	darkText    = "#333"
	darkShadow  = "#ccc"
	lightText   = "#fff"
	lightShadow = "#010101"
)

// part is one laid-out half of a badge.
type part struct {
	text   string // sanitized
	length int    // text width in tenths of a pixel: the textLength
	x      int    // left edge of the box in pixels
	width  int    // box width in pixels
	fill   string // box colour
}

func layout(text, fill string, x int) part {
	l := tenths(textAdvance(text))
	return part{text: text, length: l, x: x, width: (l+9)/10 + 2*padding, fill: fill}
}

// Render returns b drawn as an SVG document in style, an unknown style being
// drawn as StyleFlat. The document has role="img", an aria-label and a
// <title> that read "label: message", a 20px height and a width that fits
// the text as DejaVu Sans 11px draws it; every text element carries
// textLength, so other fonts are fitted to the same box. Text is sanitized
// (see Badge and MaxTextRunes) and XML-escaped; the colour is resolved as
// documented on Badge.Color. Equal inputs give equal bytes.
// Render is safe for concurrent use.
func Render(b Badge, style Style) []byte {
	label := sanitize(b.Label)
	msg := sanitize(b.Message)
	fill := color(b.Color)

	var parts []part
	x := 0
	if label != "" {
		p := layout(label, labelColor, 0)
		parts = append(parts, p)
		x = p.width
	}
	parts = append(parts, layout(msg, fill, x))
	last := parts[len(parts)-1]
	width := last.x + last.width

	accessible := msg
	if label != "" {
		accessible = label + ": " + msg
	}

	var w bytes.Buffer
	w.Grow(1200 + 4*len(label) + 4*len(msg))
	w.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="`)
	w.WriteString(strconv.Itoa(width))
	w.WriteString(`" height="20" role="img" aria-label="`)
	escape(&w, accessible)
	w.WriteString(`"><title>`)
	escape(&w, accessible)
	w.WriteString("</title>\n")

	flat := style != StyleFlatSquare
	if flat {
		w.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` + "\n")
		w.WriteString(`<clipPath id="r"><rect width="`)
		w.WriteString(strconv.Itoa(width))
		w.WriteString(`" height="20" rx="3" fill="#fff"/></clipPath>` + "\n")
		w.WriteString(`<g clip-path="url(#r)">`)
	} else {
		w.WriteString(`<g shape-rendering="crispEdges">`)
	}
	for _, p := range parts {
		w.WriteString(`<rect`)
		if p.x > 0 {
			w.WriteString(` x="`)
			w.WriteString(strconv.Itoa(p.x))
			w.WriteString(`"`)
		}
		w.WriteString(` width="`)
		w.WriteString(strconv.Itoa(p.width))
		w.WriteString(`" height="20" fill="`)
		w.WriteString(p.fill)
		w.WriteString(`"/>`)
	}
	if flat {
		w.WriteString(`<rect width="`)
		w.WriteString(strconv.Itoa(width))
		w.WriteString(`" height="20" fill="url(#s)"/>`)
	}
	w.WriteString("</g>\n")

	w.WriteString(`<g fill="#fff" text-anchor="middle" font-family="` + fontFamily + `" text-rendering="geometricPrecision" font-size="110">` + "\n")
	for _, p := range parts {
		fg, shadow := lightText, lightShadow
		if light(p.fill) {
			fg, shadow = darkText, darkShadow
		}
		center := strconv.Itoa(p.x*10 + p.width*5)
		length := strconv.Itoa(p.length)
		if flat {
			w.WriteString(`<text aria-hidden="true" x="` + center + `" y="` + strconv.Itoa(shadowY) + `" fill="` + shadow + `" fill-opacity=".3" transform="scale(.1)" textLength="` + length + `">`)
			escape(&w, p.text)
			w.WriteString("</text>")
		}
		w.WriteString(`<text x="` + center + `" y="` + strconv.Itoa(textY) + `" transform="scale(.1)" fill="` + fg + `" textLength="` + length + `">`)
		escape(&w, p.text)
		w.WriteString("</text>\n")
	}
	w.WriteString("</g></svg>\n")
	return w.Bytes()
}

// escape writes s XML-escaped for text and attribute values alike.
func escape(w *bytes.Buffer, s string) {
	// EscapeText writes to a bytes.Buffer, which cannot fail.
	_ = xml.EscapeText(w, []byte(s))
}

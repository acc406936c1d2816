package web

import (
	"fmt"
	"time"
)

// when is an instant as the pages show it, in a <time> element: Text is
// what the reader sees, Exact the full time shown on hover, and DateTime
// the machine-readable value of the datetime attribute.
type when struct {
	DateTime, Exact, Text string
}

// at shows t as a date and a minute, in UTC.
func at(t time.Time) when {
	t = t.UTC()
	return when{DateTime: t.Format(time.RFC3339), Exact: t.Format("2006-01-02 15:04:05 UTC"), Text: t.Format("2006-01-02 15:04 UTC")}
}

// age shows how long before now t was: "just now", "12 min ago", "5 h
// ago", "3 days ago".
func age(t, now time.Time) when {
	w := at(t)
	switch d := now.Sub(t); {
	case d < time.Minute:
		w.Text = "just now"
	case d < time.Hour:
		w.Text = fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		w.Text = fmt.Sprintf("%d h ago", int(d/time.Hour))
	default:
		w.Text = fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
	return w
}

package web

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{-time.Hour, "just now"}, // a clock behind the database's
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1 min ago"},
		{59*time.Minute + 59*time.Second, "59 min ago"},
		{time.Hour, "1 h ago"},
		{47*time.Hour + 59*time.Minute, "47 h ago"},
		{48 * time.Hour, "2 days ago"},
		{400 * 24 * time.Hour, "400 days ago"},
	}
	for _, tt := range tests {
		if got := age(now.Add(-tt.ago), now).Text; got != tt.want {
			t.Errorf("age(now-%s) = %q, want %q", tt.ago, got, tt.want)
		}
	}
	w := age(time.Date(2026, 11, 29, 9, 8, 7, 0, time.FixedZone("UTC+1", 3600)), now)
	if w.DateTime != "2026-11-29T08:08:07Z" || w.Exact != "2026-11-29 08:08:07 UTC" {
		t.Errorf("age's instant = %+v, want it in UTC", w)
	}
}

func TestCountAddons(t *testing.T) {
	tests := []struct {
		n    int
		more bool
		want string
	}{
		{0, false, "no addons"},
		{1, false, "1 addon"},
		{2, false, "2 addons"},
		{999, false, "999 addons"},
		{1000, false, "1,000 addons"},
		{1234567, false, "1,234,567 addons"},
		{1000, true, "more than 1,000 addons"},
	}
	for _, tt := range tests {
		if got := countAddons(tt.n, tt.more); got != tt.want {
			t.Errorf("countAddons(%d, %v) = %q, want %q", tt.n, tt.more, got, tt.want)
		}
	}
}

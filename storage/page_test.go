package storage_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

func TestBounded(t *testing.T) {
	tests := []struct{ limit, want int }{
		{-5, storage.DefaultLimit},
		{0, storage.DefaultLimit},
		{1, 1},
		{3, 3},
		{storage.MaxLimit, storage.MaxLimit},
		{storage.MaxLimit + 1, storage.MaxLimit},
	}
	for _, tc := range tests {
		if got := (storage.Page{Limit: tc.limit}).Bounded(); got != tc.want {
			t.Errorf("Page{Limit: %d}.Bounded() = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	tests := []storage.Cursor{
		{At: time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.UTC), Key: "sub_01"},
		{At: time.UnixMicro(0).UTC(), Key: "name-with-ü and \"quotes\""},
		{At: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Key: "zero-time"},
		{At: time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC), Key: "sub_02", Rank: 2},
	}
	for _, c := range tests {
		enc := c.Encode()
		if strings.ContainsAny(enc, "+/=?&#% ") {
			t.Errorf("Encode(%+v) = %q, not URL-safe", c, enc)
		}
		got, err := storage.DecodeCursor(enc)
		if err != nil {
			t.Fatalf("DecodeCursor(%q): %v", enc, err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestDecodeCursorMalformed(t *testing.T) {
	valid := storage.Cursor{Key: "k"}.Encode()
	tests := []string{
		"",
		"!!!",
		"e30",                // {}: no key
		"bnVsbA",             // null
		"W10",                // []
		valid[:len(valid)-3], // truncated
		valid + "====",       // padding
		"\x1b[2J",            // terminal escape
		strings.Repeat("A", 2000),
	}
	for _, s := range tests {
		_, err := storage.DecodeCursor(s)
		if !errors.Is(err, registry.ErrInvalid) {
			t.Errorf("DecodeCursor(%q) = %v, want ErrInvalid", s, err)
			continue
		}
		if strings.Contains(err.Error(), "\x1b") {
			t.Errorf("error echoes the input: %q", err)
		}
		var ve *registry.ValidationError
		if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Path != "cursor" {
			t.Errorf("DecodeCursor(%q) error does not name the field cursor: %v", s, err)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(storage.Cursor{At: time.Unix(1, 0), Key: "k"}.Encode())
	f.Add("e30")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := storage.DecodeCursor(s)
		if err != nil {
			return
		}
		// Whatever decodes must encode and decode to the same cursor.
		again, err := storage.DecodeCursor(c.Encode())
		if err != nil || !again.At.Equal(c.At) || again.Key != c.Key {
			t.Errorf("re-decoding %+v gave %+v, %v", c, again, err)
		}
	})
}

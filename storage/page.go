package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/registryd/registryd/registry"
)

// Bounded returns p.Limit clamped to [1, MaxLimit], or DefaultLimit when it
// is zero or negative.
func (p Page) Bounded() int {
	switch {
	case p.Limit <= 0:
		return DefaultLimit
	case p.Limit > MaxLimit:
		return MaxLimit
	}
	return p.Limit
}

// Cursor is a decoded list position: the sort key of the last row of the
// previous page. At is used by lists ordered by time (UTC, microsecond
// precision); Key is the row's unique key (an ID or a name) that breaks ties.
// Rank is the position of a list's leading sort key when that key is a
// small number (a verdict's severity), 0 otherwise.
type Cursor struct {
	At   time.Time
	Key  string
	Rank int
}

type cursorWire struct {
	T int64  `json:"t"`
	K string `json:"k"`
	R int    `json:"r,omitempty"`
}

// Encode returns c as an opaque URL-safe string.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(cursorWire{T: c.At.UnixMicro(), K: c.Key, R: c.Rank})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a string made by Cursor.Encode. It returns an error
// wrapping registry.ErrInvalid (a *registry.ValidationError naming the field
// "cursor") for anything else; the empty string is not a cursor and is
// refused too, so callers test for "" first.
func DecodeCursor(s string) (Cursor, error) {
	bad := func() (Cursor, error) {
		return Cursor{}, fmt.Errorf("decode cursor: %w", &registry.ValidationError{
			Fields: []registry.FieldError{{Path: "cursor", Message: "is not a cursor this server returned"}},
		})
	}
	if s == "" || len(s) > 1024 {
		return bad()
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return bad()
	}
	var w cursorWire
	if err := json.Unmarshal(b, &w); err != nil || w.K == "" {
		return bad()
	}
	return Cursor{At: time.UnixMicro(w.T).UTC(), Key: w.K, Rank: w.R}, nil
}

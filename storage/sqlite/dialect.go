package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/registryd/registryd/registry"
)

// dialect is SQLite's sqlstore.Dialect: times as integer microseconds,
// lists as JSON text, no row locks (a transaction holds the write lock from
// its start), LIKE folding ASCII case, and errors told apart by result
// code.
type dialect struct{}

func (dialect) Name() string      { return "sqlite" }
func (dialect) ForUpdate() string { return "" }

func (dialect) Claim(string, bool) string { return "" }

func (dialect) AnyOf(col, param string) string {
	return col + " IN (SELECT value FROM json_each(" + param + "))"
}

func (dialect) ContainsFold(col, param string) string { return col + " LIKE " + param + ` ESCAPE '\'` }
func (dialect) Like(col, param string) string         { return col + " LIKE " + param + ` ESCAPE '\'` }

// Bytewise is the column itself: SQLite's BINARY collation, every text
// column's default here, compares bytes.
func (dialect) Bytewise(col string) string { return col }

// SearchIndex narrows to the addons whose search_text the FTS5 trigram
// table addon_search (migration 00009) finds q in, as a phrase: a phrase of
// trigrams at consecutive positions is the substring itself. A query of
// fewer than three characters has no trigram, so it adds nothing and the
// caller's LIKE reads every addon.
func (dialect) SearchIndex(prefix, q string, bind func(any) string) string {
	if utf8.RuneCountInString(q) < 3 {
		return ""
	}
	phrase := `"` + strings.ReplaceAll(q, `"`, `""`) + `"`
	return prefix + `name IN (SELECT i.name FROM addon_search s JOIN addon_search_ids i ON i.id = s.rowid
		WHERE addon_search MATCH ` + bind(phrase) + `)`
}

// PartIndex is none: the FTS5 table indexes the whole search text.
func (dialect) PartIndex(int, string, string, func(any) string) string { return "" }

// Time encodes t as UTC microseconds since the Unix epoch.
func (dialect) Time(t time.Time) any { return t.UnixMicro() }

func (dialect) ScanTime(dst *time.Time) any      { return microsTime{dst} }
func (dialect) ScanNullTime(dst **time.Time) any { return microsNullTime{dst} }

// List encodes s as a JSON array; nil is stored as [].
func (dialect) List(s []string) any {
	if len(s) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (dialect) ScanList(dst *[]string) any { return jsonList{dst} }

func (dialect) Constraint(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return registry.ErrConflict
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return registry.ErrNotFound
		}
	}
	return nil
}

// Retryable reports a database that stayed busy (another process held the
// write lock past busy_timeout).
func (dialect) Retryable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

func (dialect) WritesInWith() bool { return false }

func (dialect) ProbeEach() string { return "" }

func (dialect) FirstThen(first, then string) string {
	return "CASE WHEN " + first + " THEN " + then + " ELSE 0 END"
}

// microsTime scans integer microseconds into a time.Time in UTC.
type microsTime struct{ dst *time.Time }

func (m microsTime) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("time column holds %T, want integer microseconds", src)
	}
	*m.dst = time.UnixMicro(v).UTC()
	return nil
}

// microsNullTime scans nullable integer microseconds into a *time.Time.
type microsNullTime struct{ dst **time.Time }

func (m microsNullTime) Scan(src any) error {
	if src == nil {
		*m.dst = nil
		return nil
	}
	var t time.Time
	if err := (microsTime{&t}).Scan(src); err != nil {
		return err
	}
	*m.dst = &t
	return nil
}

// jsonList scans a JSON array of strings; the result is never nil.
type jsonList struct{ dst *[]string }

func (l jsonList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("list column holds %T, want JSON text", src)
	}
	out := []string{}
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("list column holds malformed JSON: %w", err)
	}
	if out == nil {
		out = []string{}
	}
	*l.dst = out
	return nil
}

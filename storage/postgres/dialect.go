package postgres

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/registryd/registryd/registry"
)

// dialect is PostgreSQL's sqlstore.Dialect: timestamptz and text[]
// columns, FOR UPDATE row locks, ILIKE, a trigram index for search, and errors told apart by SQLSTATE.
type dialect struct{}

func (dialect) Name() string      { return "postgres" }
func (dialect) ForUpdate() string { return " FOR UPDATE" }

func (dialect) Claim(tables string, wait bool) string {
	c := " FOR NO KEY UPDATE"
	if tables != "" {
		c += " OF " + tables
	}
	if !wait {
		c += " SKIP LOCKED"
	}
	return c
}

func (dialect) AnyOf(col, param string) string { return col + " = ANY(" + param + ")" }

func (dialect) ContainsFold(col, param string) string { return col + " ILIKE " + param }
func (dialect) Like(col, param string) string         { return col + " LIKE " + param }

// Bytewise compares and orders in the "C" collation, whatever the
// database's: addons_name_bytes (migration 00016) serves it for names.
func (dialect) Bytewise(col string) string { return col + ` COLLATE "C"` }

// SearchIndex adds nothing: the trigram index on addons.search_text
// (migration 00009) serves the LIKE that matches it.
func (dialect) SearchIndex(string, string, func(any) string) string { return "" }

// PartIndex matches the part through its trigram index (migration 00022,
// on the same expression), for a query of three characters or more that
// does not hold the parts' separator.
func (dialect) PartIndex(part int, q, pattern string, bind func(any) string) string {
	if utf8.RuneCountInString(q) < 3 || strings.Contains(q, "\x1f") {
		return ""
	}
	return "split_part(search_text, chr(31), " + strconv.Itoa(part) + ") LIKE " + bind(pattern)
}

// Time truncates to the microsecond PostgreSQL keeps.
func (dialect) Time(t time.Time) any { return t.UTC().Truncate(time.Microsecond) }

func (dialect) ScanTime(dst *time.Time) any      { return utcTime{dst} }
func (dialect) ScanNullTime(dst **time.Time) any { return utcNullTime{dst} }

func (dialect) List(s []string) any {
	if s == nil {
		return []string{}
	}
	return s
}

func (dialect) ScanList(dst *[]string) any { return dst }

func (dialect) Constraint(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return registry.ErrConflict
		case "23503": // foreign_key_violation
			return registry.ErrNotFound
		}
	}
	return nil
}

func (dialect) Retryable(err error) bool {
	var pe *pgconn.PgError
	// serialization_failure, deadlock_detected
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

func (dialect) WritesInWith() bool { return true }

func (dialect) ProbeEach() string { return " OFFSET 0" }

func (dialect) FirstThen(first, then string) string { return first + " AND " + then }

// utcTime scans a timestamptz into a time.Time in UTC (pgx gives local
// time).
type utcTime struct{ dst *time.Time }

func (u utcTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		return errors.New("NULL in a NOT NULL time column")
	}
	*u.dst = v.Time.UTC()
	return nil
}

// utcNullTime scans a nullable timestamptz into a *time.Time in UTC.
type utcNullTime struct{ dst **time.Time }

func (u utcNullTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		*u.dst = nil
		return nil
	}
	t := v.Time.UTC()
	*u.dst = &t
	return nil
}

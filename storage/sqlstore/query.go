package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/storage"
)

// args collects the bound parameters of a query assembled from optional
// clauses: add binds a value and returns its placeholder, so the SQL only
// ever holds placeholders, never values.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// whereSQL joins conditions with AND into a WHERE clause ("" for none).
func whereSQL(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// cursorAfter adds to where the condition selecting the rows after the
// cursor of page p in the order "cols op (at, key)", for lists ordered by a
// time and a unique key; it returns the error of a malformed cursor.
func (r reader) cursorAfter(a *args, where []string, cols, op, cursor string) ([]string, error) {
	if cursor == "" {
		return where, nil
	}
	c, err := storage.DecodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	return append(where, "("+cols+") "+op+" ("+a.add(r.d.Time(c.At))+", "+a.add(c.Key)+")"), nil
}

// page trims a result fetched with limit+1 rows to limit and returns the
// cursor of its last row when more rows follow.
func page[T any](rows []T, limit int, key func(T) storage.Cursor) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, key(rows[limit-1]).Encode()
}

// collect scans every row with scan and closes rows; the result is never
// nil.
func collect[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// list runs a query returning rows of T and collects them, wrapping any
// error for op.
func list[T any](r reader, ctx context.Context, op string, scan func(Row) (T, error), query string, a ...any) ([]T, error) {
	rows, err := r.c.Query(ctx, query, a...)
	if err != nil {
		return nil, r.err(op, err)
	}
	out, err := collect(rows, scan)
	if err != nil {
		return nil, r.err(op, err)
	}
	return out, nil
}

// containsPattern makes q a LIKE pattern (escape character \) that matches
// it as a literal substring.
func containsPattern(q string) string {
	return "%" + likeLiteral(q) + "%"
}

// likeLiteral escapes q's LIKE wildcards (escape character \), so that it
// matches itself only.
func likeLiteral(q string) string {
	return likeEscaper.Replace(q)
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// nullTime encodes an optional instant: nil is SQL NULL.
func nullTime(d Dialect, t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.Time(*t)
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// rowsPerStatement bounds the rows of one multi-row statement, well under
// both databases' limits on bound parameters (65,535 on PostgreSQL, 32,766
// on SQLite) for the few columns the batch writes bind, and so that the
// texts of a batch's statements (one per distinct row count) stay few in
// the statement caches.
const rowsPerStatement = 250

// valuesSQL returns the VALUES rows of a multi-row statement: n rows of
// cols placeholders each, numbered from first, with lit (such as
// ", false"), when not empty, appended to each row.
func valuesSQL(n, cols, first int, lit string) string {
	var b strings.Builder
	p := first
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(p))
			p++
		}
		b.WriteString(lit)
		b.WriteByte(')')
	}
	return b.String()
}

// chunks calls fn with each successive [lo, hi) range of at most
// rowsPerStatement of n rows, stopping at the first error.
func chunks(n int, fn func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += rowsPerStatement {
		if err := fn(lo, min(lo+rowsPerStatement, n)); err != nil {
			return err
		}
	}
	return nil
}

package sqlstore

import "time"

// Dialect is what PostgreSQL and SQLite spell differently, and nothing
// else: the layer's queries are written once, in the SQL both accept, and
// ask the dialect only for these. Its methods are called while queries are
// built and rows scanned, so they must be cheap and must not allocate
// where they can avoid it; a Dialect is safe for concurrent use.
type Dialect interface {
	// Name prefixes the store's errors ("postgres", "sqlite").
	Name() string

	// ForUpdate is the clause appended to a transaction's reads that a
	// decision depends on, so that concurrent deciders serialize: " FOR
	// UPDATE" on PostgreSQL, "" where a transaction holds a lock that
	// already excludes every other writer (SQLite's BEGIN IMMEDIATE).
	ForUpdate() string

	// Claim is the clause appended to a transaction's read that claims
	// rows for work several processes share: " FOR NO KEY UPDATE OF
	// tables" on PostgreSQL (tables lists the query's aliases whose rows
	// are locked, "" for every table), followed unless wait by " SKIP
	// LOCKED", so that each claims rows the others do not hold, without
	// waiting; "" on SQLite, where the transaction already excludes every
	// other writer. NO KEY UPDATE is the lock an UPDATE of the rows takes:
	// it waits for (or skips) their writers, and not for transactions
	// that only insert rows referring to them.
	Claim(tables string, wait bool) string

	// AnyOf returns a condition that is true when column col equals one
	// of the list of strings bound to param (encoded with List):
	// col = ANY(param) on PostgreSQL, col IN (SELECT value FROM
	// json_each(param)) on SQLite. One query text serves any number of
	// values.
	AnyOf(col, param string) string

	// ContainsFold returns a condition that is true when column col
	// contains the LIKE pattern bound to param (a $n placeholder; see
	// containsPattern, whose escape character is \), ignoring case:
	// ILIKE on PostgreSQL; LIKE … ESCAPE '\' on SQLite, which folds ASCII
	// case only.
	ContainsFold(col, param string) string

	// Like returns a condition that is true when column col matches the
	// LIKE pattern bound to param, whose escape character is \. It is
	// meant for text that registryd lowercased itself (addons.search_text):
	// LIKE on PostgreSQL, whose trigram index serves it; LIKE … ESCAPE
	// '\' on SQLite, whose LIKE also folds ASCII case, which lowercased
	// text and patterns make moot.
	Like(col, param string) string

	// Bytewise returns column col compared and ordered byte by byte (code
	// point by code point, for UTF-8), whatever the database's collation:
	// col COLLATE "C" on PostgreSQL, col on SQLite. The addon search orders
	// names so on both stores, and reads the names that start with a query
	// as the range of names between it and its successor.
	Bytewise(col string) string

	// SearchIndex returns a condition that narrows the addons (columns
	// prefixed with prefix, such as "a.") to those whose search_text may
	// contain q, read from the database's substring index, binding values
	// through bind; or "" when there is none to add. It may return more
	// addons than contain q, never fewer: the caller matches search_text
	// itself. PostgreSQL needs none (its trigram index serves the LIKE);
	// SQLite returns a MATCH on its FTS5 trigram table when q has three
	// characters or more, which that index can find.
	SearchIndex(prefix, q string, bind func(any) string) string

	// PartIndex returns a condition that is true for the addons whose
	// search_text's part (1: name and display name, 2: keywords and
	// categories) holds the lowercased q (pattern is its LIKE pattern,
	// containsPattern), served by an index of that part, binding values
	// through bind; or "" when there is none. PostgreSQL
	// has one for q of three characters or more (migration 00022); SQLite
	// none.
	PartIndex(part int, q, pattern string, bind func(any) string) string

	// Time encodes an instant for a write or a comparison. ScanTime and
	// ScanNullTime return scan destinations that set *dst to the stored
	// instant in UTC (nil for NULL). PostgreSQL keeps timestamptz,
	// SQLite integer microseconds since the Unix epoch; both keep
	// microseconds, and Time truncates to them.
	Time(t time.Time) any
	ScanTime(dst *time.Time) any
	ScanNullTime(dst **time.Time) any

	// List encodes a list of strings for a write; ScanList returns a scan
	// destination that sets *dst (never nil). PostgreSQL keeps text[],
	// SQLite a JSON array in a text column.
	List(s []string) any
	ScanList(dst *[]string) any

	// Constraint tells which kind of constraint err violated:
	// registry.ErrConflict for a unique or primary key,
	// registry.ErrNotFound for a foreign key (a row referring to a missing
	// one), nil for anything else. It reads the database's error code,
	// never its message.
	Constraint(err error) error
	// Retryable reports whether a transaction that failed with err may
	// succeed when run again: a serialization failure or a deadlock on
	// PostgreSQL, a database busy past its timeout on SQLite.
	Retryable(err error) bool

	// WritesInWith reports whether one statement may hold a data-modifying
	// WITH (an UPDATE whose RETURNING rows decide an INSERT), so that two
	// dependent writes cost one round trip: true on PostgreSQL; false on
	// SQLite, which has no such WITH and no round trip to save.
	WritesInWith() bool

	// ProbeEach returns what ends an EXISTS subquery that must be run as
	// one index probe per outer row, in the order the query is written,
	// rather than joined with the outer rows: " OFFSET 0" on PostgreSQL,
	// whose planner otherwise may turn the EXISTS into a merge join that
	// scans the subquery's index from its start (all of a common
	// trigram's postings to check a few names); "" on SQLite, which
	// probes per row anyway.
	ProbeEach() string

	// FirstThen returns a condition true where first and then hold,
	// then evaluated only on the rows first holds on, so that a test few
	// rows pass spares the others' probes: CASE on SQLite, whose planner
	// may evaluate a WHERE clause's EXISTS terms in another order than
	// written; first AND then on PostgreSQL, whose planner chooses how to
	// join each EXISTS and would lose that choice inside a CASE.
	FirstThen(first, then string) string
}

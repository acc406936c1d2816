// Package storage defines registryd's persistence in the domain's terms and
// opens one of its two implementations: PostgreSQL (storage/postgres) for
// production and several replicas, or an embedded SQLite database
// (storage/sqlite) for a laptop.
//
// Every write a request makes goes through Store.InTx, so it commits whole or
// not at all. Reports are stored as their canonical bytes and handed back
// unchanged.
package storage

import (
	"context"
	"crypto/rand"
	"errors"
	"time"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/transparency"
)

// Page selects one page of a list. Cursor is the opaque string a previous
// page returned as next ("" for the first page); Limit is bounded by the
// store to [1, MaxLimit] and defaults to DefaultLimit when zero.
type Page struct {
	Cursor string
	Limit  int
}

// List bounds.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// SubmissionFilter narrows the review queue. Zero fields match everything.
type SubmissionFilter struct {
	Status         registry.SubmissionStatus
	Verdict        registry.Verdict
	Source         registry.Source
	Addon          string
	SubmitterToken string // only this token's submissions (a submitter sees its own)
	// Order is the list's order; the zero value is OldestFirst. A cursor
	// continues the order it was made in.
	Order SubmissionOrder
}

// SubmissionOrder is the order of a list of submissions. Each breaks ties
// by ID.
type SubmissionOrder string

// The orders of a list of submissions.
const (
	// OldestFirst lists by creation time, the longest waiting first.
	OldestFirst SubmissionOrder = ""
	// NewestFirst lists by creation time, the latest first.
	NewestFirst SubmissionOrder = "newest"
	// WorstFirst lists by verdict, fail then review then pass, and by
	// creation time within a verdict, oldest first.
	WorstFirst SubmissionOrder = "verdict"
)

// QueueEntry is a submission as the review queue lists it: with its
// report's findings counted and the version it updates.
type QueueEntry struct {
	registry.Submission
	// Danger, Warn and Info count the current report's findings of each
	// level, suppressed ones not included.
	Danger, Warn, Info int
	// Updates is the addon's version this submission updates: the one
	// published most recently before it was decided (before now while
	// it is pending), or "" for an addon that had none.
	Updates string
}

// AddonFilter narrows the published registry. Zero fields match everything.
type AddonFilter struct {
	// Query selects the addons whose name, display name, keywords,
	// categories or description hold it as a substring, ignoring case
	// (both lowercased with strings.ToLower). ByRelevance ranks them.
	Query          string
	Tier           registry.Tier
	Verdict        registry.Verdict // of the latest published version
	UpdatedSince   *time.Time       // for mirrors: addons changed at or after this instant
	IncludeRemoved bool
	// Order is the list's order; the zero value is ByName. A cursor
	// continues the order it was made in.
	Order AddonOrder
}

// LatestVersion is the ServerFilter.Version that selects each addon's
// latest published version.
const LatestVersion = "latest"

// ServerFilter narrows the published versions that registryd serves in the
// MCP Registry API's shape. Zero fields match everything.
type ServerFilter struct {
	Addon string // only this addon's versions
	// Query matches as AddonFilter.Query does, or a case-insensitive
	// substring of the upstream server name the addon is bound to.
	Query string
	// UpdatedSince keeps versions published, or of addons changed (tier,
	// suppressions, removal), at or after this instant.
	UpdatedSince *time.Time
	// Version is LatestVersion for each addon's latest version, or a
	// version, which selects the version with its registry.VersionKey.
	Version        string
	IncludeRemoved bool
}

// PublishedServer is one published version with what the MCP Registry API
// answers about it: the addon, the version, the submission that was
// published (its manifest and origin), its current report, and the
// upstream server name the addon is bound to ("" when it is not).
type PublishedServer struct {
	Addon      registry.Addon
	Version    registry.Version
	Submission registry.Submission
	Report     registry.Report
	Upstream   string
}

// AddonOrder is the order of a list of addons.
type AddonOrder string

// The orders of a list of addons.
const (
	// ByName lists by name.
	ByName AddonOrder = ""
	// RecentlyUpdated lists the addons changed last first, then by name
	// in reverse.
	RecentlyUpdated AddonOrder = "updated"
	// ByRelevance lists the addons that match the filter's Query best
	// first, by where the query is found: the whole name, then the start
	// of the name, then anywhere in the name or display name, then in a
	// keyword or category, then in the description; by name within each.
	// Both stores rank alike, so they list alike. Without a Query it is
	// ByName.
	ByRelevance AddonOrder = "relevance"
)

// AuditFilter narrows the audit log. Zero fields match everything.
type AuditFilter struct {
	Actor  string // exactly this actor
	Action string // exactly this action, such as "submission.approve"
	// Addon selects the entries about the addon of this name and about
	// its submissions (targets "addon/NAME" and "submission/ID").
	Addon string
}

// Reader is every read the server makes outside a transaction. Methods
// return an error wrapping registry.ErrNotFound when the thing does not
// exist, and registry.ErrInvalid for a malformed cursor. Lists return a
// non-nil (possibly empty) slice and the cursor of the next page, or "" on
// the last page.
type Reader interface {
	Submission(ctx context.Context, id string) (registry.Submission, error)
	Submissions(ctx context.Context, f SubmissionFilter, p Page) ([]registry.Submission, string, error)
	// ReviewQueue lists what Submissions lists for f and p, each with
	// what the review queue shows of it beyond its record.
	ReviewQueue(ctx context.Context, f SubmissionFilter, p Page) ([]QueueEntry, string, error)
	// Report returns the current report of a submission.
	Report(ctx context.Context, submissionID string) (registry.Report, error)
	Findings(ctx context.Context, submissionID string) ([]registry.StoredFinding, error)

	Addon(ctx context.Context, name string) (registry.Addon, error)
	Addons(ctx context.Context, f AddonFilter, p Page) ([]registry.Addon, string, error)
	// CountAddons returns how many addons Addons lists for f, counting no
	// further than max: more is true when over max match (n is then max).
	// It costs in proportion to min(matches, max).
	CountAddons(ctx context.Context, f AddonFilter, max int) (n int, more bool, err error)
	Versions(ctx context.Context, addon string, p Page) ([]registry.Version, string, error)
	// Version returns the published addon@version.
	Version(ctx context.Context, addon, version string) (registry.Version, error)
	// PublishedReport returns the report of addon@version, or of the latest
	// published version when version is "". It is the hot path of install
	// clients: one indexed query.
	PublishedReport(ctx context.Context, addon, version string) (registry.Report, error)
	// VersionByManifest returns the published version made from the
	// submission whose manifest bytes have the sha256 manifestSHA256
	// (lowercase hex), whatever its addon's tier or removal; an error
	// wrapping registry.ErrNotFound when no published version has it. The
	// manifest names its addon and version, so at most one published
	// version has given bytes. One indexed query.
	VersionByManifest(ctx context.Context, manifestSHA256 string) (registry.Version, error)
	// PublishedReportDigest returns the sha256 (lowercase hex, the report's
	// ETag without its decoration) of the report PublishedReport would
	// return for the same arguments, without reading the report's bytes,
	// so that a revalidation can be answered from it alone. It fails as
	// PublishedReport does: registry.ErrNotFound when not published.
	PublishedReportDigest(ctx context.Context, addon, version string) (string, error)
	Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error)
	// AddonsWithExpiredSuppressions returns, in name order and each once,
	// the addons that have a suppression whose expiry is at or before now
	// (registry.Suppression.Active is false): what a sweep must render
	// again. One query over the suppressions, whatever the number of addons.
	AddonsWithExpiredSuppressions(ctx context.Context, now time.Time) ([]string, error)
	VerifyApproval(ctx context.Context, addon string) (registry.VerifyApproval, error)
	// CountStaleReports returns how many reports were made by a ruleset
	// other than ruleset or are marked stale: what re-assessment has left
	// to do. It reads every report's ruleset.
	CountStaleReports(ctx context.Context, ruleset string) (int, error)

	// The transparency log and the signed reports: see Log.
	Log

	// AuditLog lists the entries f matches, newest first.
	AuditLog(ctx context.Context, f AuditFilter, p Page) ([]registry.AuditEntry, string, error)
	// AuditChoices returns the distinct actors and the distinct actions of
	// the audit log, each in the database's order, for its filters. Its
	// cost grows with the number of distinct values, not of entries.
	AuditChoices(ctx context.Context) (actors, actions []string, err error)
	// TokenByHash and Tokens fill each token's Principal (ID and Name).
	TokenByHash(ctx context.Context, hash []byte) (registry.Token, error)
	Tokens(ctx context.Context) ([]registry.Token, error)
	Delivery(ctx context.Context, id string) (registry.Delivery, error)
	Deliveries(ctx context.Context, p Page) ([]registry.Delivery, string, error)

	// PublishedServers lists published versions matching f, ordered by
	// addon name and then version (byte order), one page at a time.
	PublishedServers(ctx context.Context, f ServerFilter, p Page) ([]PublishedServer, string, error)
	// UpstreamBinding returns the binding of the upstream server called
	// name.
	UpstreamBinding(ctx context.Context, name string) (registry.UpstreamBinding, error)
	// UpstreamSync returns the import's high-water mark for the upstream
	// registry at url.
	UpstreamSync(ctx context.Context, url string) (registry.UpstreamSync, error)
}

// Tx is one transaction. Reads inside a Tx that a decision depends on lock
// what they read (FOR UPDATE on PostgreSQL; SQLite transactions take the
// write lock when they begin), so two concurrent deciders serialize and
// exactly one sees the old state.
type Tx interface {
	Submission(ctx context.Context, id string) (registry.Submission, error)
	// SubmissionsOfAddon returns every submission of an addon, oldest first.
	SubmissionsOfAddon(ctx context.Context, addon string) ([]registry.Submission, error)
	Addon(ctx context.Context, name string) (registry.Addon, error)
	// Version returns the published version of addon that is the same
	// version as version: equal registry.VersionKey, so 1.0.0+b finds a
	// published 1.0.0+a.
	Version(ctx context.Context, addon, version string) (registry.Version, error)
	Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error)
	VerifyApproval(ctx context.Context, addon string) (registry.VerifyApproval, error)
	// ClaimStaleReports claims one batch of stale reports for re-rendering:
	// up to limit submissions, after the cursor after (the zero Cursor
	// starts at the beginning), in the order of their creation and ID,
	// whose report was made by a ruleset other than ruleset or was marked
	// by MarkReportsStale; with, in the same few queries, the state of
	// their addons. The claimed submissions and reports, and the addons in
	// the batch's Addons, are locked until commit. Unless wait, a report
	// another transaction holds is not waited for: on PostgreSQL it is
	// left out (SKIP LOCKED), so that replicas re-rendering at once each
	// take their own reports and none waits on another. With wait, the
	// claim waits for each such report's holder to end, and claims the
	// report if it is still stale then. An addon another transaction
	// holds is never waited for: it is named in Busy, so that no claim
	// waits on a maintainer's decision (which locks the addon first).
	// Rows are locked in the claim's order, each submission before its
	// report; a transaction that writes several of an addon's reports
	// locks them in the same order, or a waiting claim and it may
	// deadlock.
	ClaimStaleReports(ctx context.Context, ruleset string, after Cursor, limit int, wait bool) (StaleBatch, error)
	// MarkReportsStale marks every report stale, so that ClaimStaleReports
	// claims it whatever its ruleset, and returns how many it marked. A
	// report stored afterwards (PutReport, PutReports) is no longer stale.
	MarkReportsStale(ctx context.Context) (int, error)
	// ClaimSearchBackfill claims up to limit of the addons whose keywords
	// and categories may be missing from the search (those stored before
	// migration 00009, listed by 00016), in name order, each with its
	// latest published submission: Names lists every claimed name, Addons
	// those whose addon exists, locked until commit. On PostgreSQL a name
	// another transaction holds is left out (SKIP LOCKED), so replicas
	// running the backfill at once share it.
	ClaimSearchBackfill(ctx context.Context, limit int) (SearchBackfill, error)
	// DoneSearchBackfill takes names off that list.
	DoneSearchBackfill(ctx context.Context, names []string) error

	// CreateSubmission inserts s; ErrConflict if its ID exists.
	CreateSubmission(ctx context.Context, s registry.Submission) error
	// UpdateSubmission writes s's status, verdict, risk and decision fields.
	UpdateSubmission(ctx context.Context, s registry.Submission) error
	// PutReport stores (or replaces) the report of r.SubmissionID and its
	// findings projection. When the submission is a published version, it
	// also stores the report's DSSE envelope, signed by every key of the
	// store's Signing, and appends the report's leaf to the transparency
	// log when the transaction commits (see Log); a report identical to the
	// one the version's current leaf names appends nothing. CreateVersion
	// does the same for the report its submission already has. These two
	// are the only ways into the log: whoever stores a published version's
	// report signs and logs it, and every leaf a transaction appends goes
	// into the tree at once, just before it commits; a checkpoint of the
	// new tree is signed after the commit, within a second (see Log).
	// Publishing a submission created in the same transaction before
	// storing its report writes the report once, with its envelope, where
	// the other order writes it and then again with its envelope.
	PutReport(ctx context.Context, r registry.Report, findings []registry.StoredFinding) error
	// PutReports does what PutReport does for each of rs, in a few
	// statements whatever their number; it writes nothing when one of them
	// is refused.
	PutReports(ctx context.Context, rs []ReportWrite) error
	// SetVerdicts writes the verdict, risk and wiring digest of each
	// submission of vs, with UpdatedAt at; ErrNotFound when one does not
	// exist.
	SetVerdicts(ctx context.Context, at time.Time, vs []VerdictWrite) error
	// SetLatestVerdicts writes the LatestVerdict of each addon of vs (by
	// name) and nothing else of it; ErrNotFound when one does not exist.
	SetLatestVerdicts(ctx context.Context, vs map[string]registry.Verdict) error
	// PutAddon inserts or updates a.
	PutAddon(ctx context.Context, a registry.Addon) error
	// CreateVersion publishes v; ErrConflict when the addon has a version
	// with the same registry.VersionKey.
	CreateVersion(ctx context.Context, v registry.Version) error
	PutVerifyApproval(ctx context.Context, a registry.VerifyApproval) error
	DeleteVerifyApproval(ctx context.Context, addon string) error
	// CreateSuppression inserts s; ErrConflict when the addon already has
	// one for the same code and path.
	CreateSuppression(ctx context.Context, s registry.Suppression) error
	// DeleteSuppression removes and returns it; ErrNotFound if absent.
	DeleteSuppression(ctx context.Context, addon, id string) (registry.Suppression, error)
	AppendAudit(ctx context.Context, e registry.AuditEntry) error

	// EnsurePrincipal returns the principal whose Key is p.Key, inserting p
	// when there is none; concurrent calls for one key agree on one
	// principal.
	EnsurePrincipal(ctx context.Context, p registry.Principal) (registry.Principal, error)
	// CreateToken inserts t, which belongs to the principal t.Principal.ID;
	// ErrNotFound when that principal does not exist.
	CreateToken(ctx context.Context, t registry.Token) error
	// RevokeToken marks a token revoked at at; ErrNotFound if absent.
	RevokeToken(ctx context.Context, id string, at time.Time) error

	// CreateDelivery records d; it returns false (and no error) when a
	// delivery with d.ID already exists, so a redelivery creates no work.
	CreateDelivery(ctx context.Context, d registry.Delivery) (bool, error)
	UpdateDelivery(ctx context.Context, d registry.Delivery) error

	// SubmissionsByUpstream returns every submission imported from source
	// with the upstream name and version, oldest first.
	SubmissionsByUpstream(ctx context.Context, source registry.Source, name, version string) ([]registry.Submission, error)
	// UpstreamBindings returns the bindings of addon and of the upstream
	// server called name: none, one, or two when each is bound elsewhere.
	// It locks them until commit.
	UpstreamBindings(ctx context.Context, addon, name string) ([]registry.UpstreamBinding, error)
	// BindUpstream records b; ErrConflict when its addon or its upstream
	// name is bound already.
	BindUpstream(ctx context.Context, b registry.UpstreamBinding) error
	UpstreamSync(ctx context.Context, url string) (registry.UpstreamSync, error)
	// PutUpstreamSync inserts or replaces the high-water mark of s.URL.
	PutUpstreamSync(ctx context.Context, s registry.UpstreamSync) error

	// Enqueue adds a job in this transaction: it exists if and only if the
	// transaction commits.
	jobs.Enqueuer
}

// StaleReport is a submission whose report ClaimStaleReports claimed.
type StaleReport struct {
	Submission registry.Submission
	// Ruleset is the ruleset its current report was made by.
	Ruleset string
}

// SearchBackfill is a batch claimed by Tx.ClaimSearchBackfill.
type SearchBackfill struct {
	Names  []string
	Addons []BackfillAddon
}

// BackfillAddon is an addon with the submission of its latest version:
// Manifest and Format are empty when it has none.
type BackfillAddon struct {
	Addon    registry.Addon
	Manifest []byte
	Format   string
}

// StaleBatch is what ClaimStaleReports claims: stale reports and the state
// of their addons.
type StaleBatch struct {
	// Reports are the claimed submissions, in the order of their creation
	// and ID; empty when no stale report follows the cursor.
	Reports []StaleReport
	// Next is the cursor after the last of Reports.
	Next Cursor
	// Addons holds, by name, the addons of Reports that exist, locked.
	Addons map[string]registry.Addon
	// Suppressions holds, by addon name, the suppressions of each addon
	// in Addons, expired ones included, ordered by code, path and ID.
	Suppressions map[string][]registry.Suppression
	// Busy names the addons of Reports that exist but another transaction
	// holds (PostgreSQL only): their reports must be left for a later
	// batch, since their state may be changing.
	Busy map[string]bool
}

// ReportWrite is one report for PutReports: the report and its findings
// projection, in order.
type ReportWrite struct {
	Report   registry.Report
	Findings []registry.StoredFinding
}

// VerdictWrite is what SetVerdicts writes of one submission.
type VerdictWrite struct {
	ID      string
	Verdict registry.Verdict
	Risk    registry.Level
	Wiring  string
}

// Store is a registryd database.
type Store interface {
	Reader
	Sessions
	// InTx runs fn in one transaction, committing when fn returns nil and
	// rolling back otherwise (fn's error is returned as is). It retries fn on
	// a serialization failure, so fn must not have effects outside tx.
	InTx(ctx context.Context, fn func(Tx) error) error
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// RefreshCheckpoint signs a checkpoint of the log's current tree, with
	// a fresh timestamp, when the stored one is missing, of a smaller tree
	// (appended to by a process that stopped before signing it), older than
	// maxAge, or lacks the signature of one of the store's keys (a key
	// added by a rotation). It returns whether it signed. Replicas may all
	// call it: the check is repeated under the log's lock, so one of them
	// signs.
	RefreshCheckpoint(ctx context.Context, maxAge time.Duration) (bool, error)
	// SignEnvelopes signs the published reports whose envelope is missing
	// (a version published before the log existed) or lacks the signature
	// of one of the store's keys (after a rotation), batch reports per
	// transaction, logging those that have no current leaf, and returns how
	// many it signed (with its error, those it signed before the error).
	// It passes over the reports other transactions hold when it reaches
	// them: a replica calling it at the same time shares the work.
	SignEnvelopes(ctx context.Context, batch int) (int, error)
	// Migrated reports whether every embedded migration has been applied.
	Migrated(ctx context.Context) (bool, error)
	// StartJobs starts workers on this database that run the jobs of
	// handlers (see package jobs), and returns a function that stops them,
	// letting running jobs finish until its ctx is done and cancelling them
	// after.
	StartJobs(ctx context.Context, handlers ...jobs.Handler) (stop func(context.Context) error, err error)
	// JobDepth returns how many jobs are in each state that is not final
	// (available, pending, retryable, running, scheduled), for the metrics.
	JobDepth(ctx context.Context) (map[string]int, error)
	// Pools returns what the database connection pools hold at this
	// moment, for the metrics. It performs no I/O.
	Pools() []PoolStats
	// Lock waits until it holds the exclusive lock named key, or ctx is
	// done (then it returns ctx's error), and returns a context derived
	// from ctx that is done once the lock is no longer held, and the
	// function that releases it; calling that more than once is harmless.
	// It serializes work that has effects outside the database (a comment
	// posted on GitHub) across every process running on the store, so the
	// holder does that work under the returned context, and checks it
	// before each effect: when the lock is lost, the context's cause wraps
	// ErrLockLost, and the next holder gets the lock only after this
	// context is done. On PostgreSQL it is a session advisory lock held on
	// a connection of its own, with a lease renewed on that connection
	// (storage/postgres lock.go), so a lock lost with its connection (a
	// database restart) ends its context within a fifth of the lease and
	// passes to another process once the lease has run out; on SQLite,
	// whose database one server process serves, it is held in this process
	// and never lost. Hold it briefly: it pins a connection.
	Lock(ctx context.Context, key string) (held context.Context, unlock func(), err error)
	Close() error
}

// Log is the transparency log of published reports (docs/trust.md): an
// RFC 6962 Merkle tree with one leaf (transparency.Leaf) each time a
// published version's report is rendered, its latest signed checkpoint, and
// the signed envelopes of the reports. Every method but SigningKeys reads
// the database; each answer is consistent in itself (a proof and the
// checkpoint it proves against come from one state of the log).
//
// Appending signs nothing: the store signs a checkpoint of the grown tree
// after the appending transaction commits, at most a few times a second
// and within a second of the append. Every read serves the tree of the
// latest signed checkpoint (the proofs, the tiles and bundles), never a
// larger unsigned one.
type Log interface {
	// SigningKeys returns the verifier keys the store signs with, the
	// active key first. It performs no I/O.
	SigningKeys() []transparency.VerifierKey
	// PublishedEnvelope returns the DSSE envelope of the report that
	// PublishedReport returns for the same arguments; registry.ErrNotFound
	// when the version is not published or its report has no envelope
	// yet.
	PublishedEnvelope(ctx context.Context, addon, version string) (Envelope, error)
	// PublishedEnvelopeDigest returns the SHA256 of the envelope
	// PublishedEnvelope would return. The envelope is not stored whole (its
	// signatures are, beside the report), so this reads and assembles it.
	PublishedEnvelopeDigest(ctx context.Context, addon, version string) (string, error)
	// Checkpoint returns the latest signed checkpoint; registry.ErrNotFound
	// when none has been signed yet (see Store.RefreshCheckpoint).
	Checkpoint(ctx context.Context) (Checkpoint, error)
	// InclusionProof proves the current leaf of addon@version (the latest
	// published version when version is "") against the latest signed
	// checkpoint; registry.ErrNotFound when the version is not published
	// or has no leaf yet. When no signed checkpoint covers the leaf yet,
	// it signs one of the current tree first.
	InclusionProof(ctx context.Context, addon, version string) (Inclusion, error)
	// ConsistencyProof returns the RFC 9162 consistency proof from the tree
	// of size from to the tree of size to. It fails with
	// registry.ErrInvalid (a *registry.ValidationError naming "from" or
	// "to") unless from <= to <= the latest signed checkpoint's size.
	ConsistencyProof(ctx context.Context, from, to uint64) ([][]byte, error)
	// LogTile returns the first width hashes (1 to 256) of the C2SP
	// tlog-tiles tile at level of index, concatenated: the hashes of the
	// complete subtrees of 256**level leaves numbered index*256 to
	// index*256+width-1. registry.ErrNotFound when the latest signed
	// checkpoint's tree is not that large yet. What it returns never
	// changes once it exists.
	LogTile(ctx context.Context, level uint8, index uint64, width int) ([]byte, error)
	// LogEntries returns the leaves index*256 to index*256+width-1 (width
	// 1 to 256) in their text form, in order: the entries of a C2SP
	// tlog-tiles entry bundle. registry.ErrNotFound when the latest signed
	// checkpoint's tree does not hold them all yet.
	LogEntries(ctx context.Context, index uint64, width int) ([][]byte, error)
}

// Envelope is a published report's DSSE envelope: its canonical JSON
// bytes and their SHA256 (lowercase hex), which is its ETag.
type Envelope struct {
	Bytes  []byte
	SHA256 string
}

// Checkpoint is the latest signed checkpoint of the log.
type Checkpoint struct {
	Size uint64
	Root []byte
	// Signed is the signed note, served byte for byte.
	Signed []byte
	// SignedAt is its Timestamp.
	SignedAt time.Time
}

// Inclusion is the inclusion proof of one leaf in the tree of a signed
// checkpoint: GET …/proof's answer.
type Inclusion struct {
	LeafIndex  uint64
	TreeSize   uint64
	Leaf       []byte // the leaf's text form (transparency.Leaf.Marshal)
	Hashes     [][]byte
	Checkpoint []byte // the signed note of the checkpoint of TreeSize
}

// ErrLockLost is the cause of a lock's context (Store.Lock) when the lock
// was lost while held.
var ErrLockLost = errors.New("lock lost")

// Signing is what a store signs published reports and checkpoints with.
type Signing struct {
	// Signers sign every envelope and checkpoint, in order. The first is
	// the active key; its name is the log's origin. Empty means an
	// ephemeral key (see Ephemeral).
	Signers []*transparency.Signer
	// Now stamps checkpoints; nil means time.Now.
	Now func() time.Time
}

// EphemeralKeyName names the key of Ephemeral, and so the origin of a log
// signed by it.
const EphemeralKeyName = "registryd-ephemeral"

// Ephemeral returns a signer generated at random, for a store configured
// without a key: what it signs cannot be verified after the process ends.
func Ephemeral() (*transparency.Signer, error) {
	skey, _, err := transparency.GenerateKey(rand.Reader, EphemeralKeyName)
	if err != nil {
		return nil, err
	}
	return transparency.ParseSigner(skey)
}

// PoolStats is one database connection pool at one moment.
type PoolStats struct {
	// Name tells a store's pools apart: "main" on PostgreSQL, "read" and
	// "write" on SQLite.
	Name string
	// InUse and Idle count the open connections; Max is the pool's bound.
	InUse, Idle, Max int
}

// Sessions keeps maintainers' browser sessions. Both stores implement it.
// Session returns an error wrapping registry.ErrNotFound unless a session
// with the hash exists, expires after now, and was opened with a token that
// is neither revoked nor expired at now. CreateSession returns registry.ErrNotFound when the token
// does not exist; DeleteSession of an unknown session is not an error.
type Sessions interface {
	CreateSession(ctx context.Context, s registry.Session) error
	Session(ctx context.Context, hash []byte, now time.Time) (registry.Session, error)
	DeleteSession(ctx context.Context, hash []byte) error
}

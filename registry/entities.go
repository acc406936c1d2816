package registry

import "time"

// Role is what an API token may do. Roles are ordered: an admin may do all a
// maintainer may, a maintainer all a submitter may.
type Role string

// The roles.
const (
	RoleSubmitter  Role = "submitter"
	RoleMaintainer Role = "maintainer"
	RoleAdmin      Role = "admin"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleSubmitter || r == RoleMaintainer || r == RoleAdmin }

// AtLeast reports whether r grants everything min grants.
func (r Role) AtLeast(min Role) bool { return r.rank() >= min.rank() && r.rank() > 0 }

func (r Role) rank() int {
	switch r {
	case RoleSubmitter:
		return 1
	case RoleMaintainer:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Principal is a person (or a robot) who holds API tokens. Several tokens
// of one principal are one maintainer for the two-maintainer rule and one
// submitter for four eyes. Key is the principal's name after Unicode case
// folding and NFKC normalisation, unique among principals, so that names
// differing only in case or compatibility form ("Alice", "alice",
// "Ａｌｉｃｅ") are one principal; Name is the name as first given.
type Principal struct {
	ID        string
	Name      string
	Key       string
	CreatedAt time.Time
}

// Token is an API token's record. Only the SHA-256 of the secret is kept.
// Name labels the token; Principal is who holds it (stores fill its ID and
// Name when they read a token).
type Token struct {
	ID        string
	Name      string
	Role      Role
	Hash      []byte // sha256 of the secret
	Principal Principal
	CreatedAt time.Time
	RevokedAt *time.Time
	// ExpiresAt is when the token stops authenticating; nil never.
	ExpiresAt *time.Time
}

// Live reports whether t authenticates at now: not revoked and not
// expired.
func (t Token) Live(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// Source is where a submission came from.
type Source string

// The sources.
const (
	SourceREST   Source = "rest"
	SourceGitHub Source = "github"
	// SourceMCPRegistry: imported from an MCP Registry (`registryd import
	// mcp-registry`); the submission's Upstream names the server version.
	SourceMCPRegistry Source = "mcp-registry"
	// SourceLeanCtx: imported from a lean-ctx registry file (`registryd
	// import leanctx`); the submission's Upstream names the entry.
	SourceLeanCtx Source = "leanctx"
)

// Valid reports whether s is a known source.
func (s Source) Valid() bool {
	switch s {
	case SourceREST, SourceGitHub, SourceMCPRegistry, SourceLeanCtx:
		return true
	}
	return false
}

// Imported reports whether submissions from s come from an upstream
// registry, and so carry an UpstreamOrigin.
func (s Source) Imported() bool { return s == SourceMCPRegistry || s == SourceLeanCtx }

// UpstreamOrigin records where an imported submission came from: the
// upstream registry (the base URL of an MCP Registry, or the name of a
// lean-ctx registry file), and the name and version there. Version is as
// the upstream wrote it ("" for an unversioned lean-ctx entry).
type UpstreamOrigin struct {
	URL     string
	Name    string
	Version string
}

// UpstreamBinding ties an addon to the one upstream server it was imported
// from, so that an upstream name always maps to the same addon, two
// upstream servers never share one, and the addon answers under the
// upstream name where registryd speaks the MCP Registry API.
type UpstreamBinding struct {
	Addon     string
	Source    Source
	Name      string // the upstream server name
	CreatedAt time.Time
}

// UpstreamSync is the incremental import's high-water mark for one
// upstream registry: the latest update time it has seen there.
type UpstreamSync struct {
	URL       string
	HighWater time.Time
	UpdatedAt time.Time
}

// SubmissionStatus is where a submission is in review.
type SubmissionStatus string

// The statuses. A pending submission awaits a maintainer; approved means its
// name@version is published; rejected is final.
const (
	StatusPending  SubmissionStatus = "pending"
	StatusApproved SubmissionStatus = "approved"
	StatusRejected SubmissionStatus = "rejected"
)

// GitHubOrigin records where a submission that came through a pull request
// or a push lives on GitHub.
type GitHubOrigin struct {
	Repo     string // owner/name
	PR       int    // 0 for a push
	CommitID string // head commit
	Path     string // manifest path in the repository
	Author   string // login of the PR author or pusher
}

// Submission is one manifest submitted for review, with its audit outcome.
type Submission struct {
	ID             string
	Addon          string // addon.name
	Version        string // addon.version
	Manifest       []byte // the bytes as submitted
	ManifestSHA256 string // hex
	Format         string // "toml" or "json"
	Source         Source
	Submitter      string // the token's principal name, or GitHub login
	SubmitterToken string // token ID for REST submissions, else ""
	GitHub         *GitHubOrigin
	Upstream       *UpstreamOrigin // for an imported Source, else nil
	Status         SubmissionStatus
	Verdict        Verdict
	Risk           Level
	// WiringSHA256 is the digest of the manifest's wiring (see
	// addon.Wiring), or "" for a submission stored before wiring digests
	// were recorded and not yet rendered again.
	WiringSHA256   string
	DecidedBy      string
	DecidedAt      *time.Time
	DecisionReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time

	// SubmitterPrincipal is the principal ID of the token of a REST
	// submission, else "".
	SubmitterPrincipal string
}

// Report is a stored report: its canonical bytes exactly as served, their
// sha256, and the ruleset that produced them.
type Report struct {
	SubmissionID string
	Bytes        []byte
	SHA256       string // hex of sha256(Bytes)
	Ruleset      string
}

// StoredFinding is the queryable projection of one report finding.
type StoredFinding struct {
	SubmissionID string
	Finding
	Line       int
	Suppressed bool
}

// Addon is an addon known to the registry: created when a first version is
// published.
//
// Verified records that two maintainers granted `verified` to one wiring,
// the one whose digest is VerifiedWiring (addon.Wiring.SHA256), which was
// the latest version's wiring when they did. The grant confers the
// verified tier on every version with that wiring and on no other: a
// version that changes what runs is community until maintainers verify
// its wiring in turn.
type Addon struct {
	Name        string
	DisplayName string
	Description string
	Homepage    string
	// Keywords and Categories are the latest version's manifest's, in its
	// order; the search looks in them.
	Keywords       []string
	Categories     []string
	LatestVersion  string
	LatestVerdict  Verdict
	LatestWiring   string // the wiring digest of LatestVersion
	Verified       bool
	VerifiedWiring string   // the wiring digest the grant covers
	VerifiedBy     []string // the maintainers who granted it, in order
	VerifiedAt     *time.Time
	VerifiedReason string
	Removed        bool
	RemovedAt      *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Tier returns the trust tier of a's latest published version:
// a.TierFor(a.LatestWiring).
func (a Addon) Tier() Tier { return a.TierFor(a.LatestWiring) }

// TierFor returns the trust tier the registry confers on a version of a
// whose wiring digest is wiring: verified when a's grant covers that
// wiring, else community. An empty wiring (not known) is community.
func (a Addon) TierFor(wiring string) Tier {
	if a.Verified && wiring != "" && wiring == a.VerifiedWiring {
		return TierVerified
	}
	return TierCommunity
}

// Version is one published name@version: immutable once published.
// WiringSHA256 is its submission's wiring digest, as read.
type Version struct {
	Addon        string
	Version      string
	SubmissionID string
	PublishedAt  time.Time
	PublishedBy  string
	WiringSHA256 string
}

// VerifyApproval is a first maintainer's pending grant of `verified`,
// awaiting a second, different maintainer. WiringSHA256 is the wiring it
// approves: the latest version's when it was made. Principal is the first
// maintainer's principal ID ("" for an approval recorded before principals
// existed, or by an actor without one).
type VerifyApproval struct {
	Addon        string
	Maintainer   string
	Reason       string
	At           time.Time
	WiringSHA256 string
	Principal    string
}

// Suppression silences one finding (code at path) of an addon's reports.
type Suppression struct {
	ID        string
	Addon     string
	Code      string
	Path      string
	Reason    SuppressionReason
	Note      string
	Author    string
	ExpiresAt *time.Time
	CreatedAt time.Time
}

// Active reports whether s applies at now.
func (s Suppression) Active(now time.Time) bool {
	return s.ExpiresAt == nil || now.Before(*s.ExpiresAt)
}

// AuditEntry is one maintainer action, appended and never changed.
type AuditEntry struct {
	ID     string
	At     time.Time
	Actor  string // token name or GitHub login
	Action string // e.g. "submission.approve", "addon.verify.grant"
	Target string // e.g. "submission/sub_…", "addon/name"
	Reason string
	Detail string // extra, machine-readable JSON or empty
}

// DeliveryStatus is where a webhook delivery is in processing.
type DeliveryStatus string

// The delivery statuses.
const (
	DeliveryQueued    DeliveryStatus = "queued"
	DeliveryIgnored   DeliveryStatus = "ignored" // recorded and acknowledged, nothing to do
	DeliveryDone      DeliveryStatus = "done"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryRunning   DeliveryStatus = "running"
	DeliveryRetrying  DeliveryStatus = "retrying"
	DeliveryCancelled DeliveryStatus = "cancelled"
)

// Delivery is one GitHub webhook delivery as received.
type Delivery struct {
	ID          string // X-GitHub-Delivery
	Event       string
	Action      string
	Repo        string
	Payload     []byte
	Status      DeliveryStatus
	Error       string
	Submissions []string // IDs of the submissions it produced
	ReceivedAt  time.Time
	UpdatedAt   time.Time
}

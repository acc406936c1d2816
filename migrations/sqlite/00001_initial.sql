-- +goose Up
-- Time columns hold UTC instants as integer microseconds since the Unix
-- epoch; list columns hold JSON arrays of strings; booleans are 0 or 1.

CREATE TABLE addons (
    name            TEXT PRIMARY KEY,
    display_name    TEXT NOT NULL DEFAULT '',
    description     TEXT NOT NULL DEFAULT '',
    homepage        TEXT NOT NULL DEFAULT '',
    latest_version  TEXT NOT NULL DEFAULT '',
    latest_verdict  TEXT NOT NULL DEFAULT '',
    verified        INTEGER NOT NULL DEFAULT 0,
    verified_by     TEXT NOT NULL DEFAULT '[]',
    verified_at     INTEGER,
    verified_reason TEXT NOT NULL DEFAULT '',
    removed         INTEGER NOT NULL DEFAULT 0,
    removed_at      INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX addons_updated_at ON addons (updated_at);

CREATE TABLE submissions (
    id              TEXT PRIMARY KEY,
    addon           TEXT NOT NULL,
    version         TEXT NOT NULL,
    manifest        BLOB NOT NULL,
    manifest_sha256 TEXT NOT NULL,
    format          TEXT NOT NULL,
    source          TEXT NOT NULL,
    submitter       TEXT NOT NULL DEFAULT '',
    submitter_token TEXT NOT NULL DEFAULT '',
    github_repo     TEXT, -- NULL when the submission did not come from GitHub
    github_pr       INTEGER NOT NULL DEFAULT 0,
    github_commit   TEXT NOT NULL DEFAULT '',
    github_path     TEXT NOT NULL DEFAULT '',
    github_author   TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    verdict         TEXT NOT NULL DEFAULT '',
    risk            TEXT NOT NULL DEFAULT 'none',
    decided_by      TEXT NOT NULL DEFAULT '',
    decided_at      INTEGER,
    decision_reason TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX submissions_created ON submissions (created_at, id);
CREATE INDEX submissions_addon ON submissions (addon, created_at, id);
CREATE INDEX submissions_status ON submissions (status, created_at, id);

CREATE TABLE reports (
    submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    bytes         BLOB NOT NULL,
    sha256        TEXT NOT NULL,
    ruleset       TEXT NOT NULL
) STRICT;
CREATE INDEX reports_ruleset ON reports (ruleset);

CREATE TABLE findings (
    submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    ord           INTEGER NOT NULL,
    level         TEXT NOT NULL,
    code          TEXT NOT NULL,
    message       TEXT NOT NULL,
    path          TEXT NOT NULL,
    line          INTEGER NOT NULL DEFAULT 0,
    suppressed    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (submission_id, ord)
) STRICT;
CREATE INDEX findings_code ON findings (code);

CREATE TABLE versions (
    addon         TEXT NOT NULL,
    version       TEXT NOT NULL,
    submission_id TEXT NOT NULL REFERENCES submissions (id),
    published_at  INTEGER NOT NULL,
    published_by  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (addon, version)
) STRICT;
CREATE INDEX versions_published ON versions (addon, published_at, version);

CREATE TABLE suppressions (
    id         TEXT PRIMARY KEY,
    addon      TEXT NOT NULL,
    code       TEXT NOT NULL,
    path       TEXT NOT NULL,
    reason     TEXT NOT NULL,
    note       TEXT NOT NULL DEFAULT '',
    author     TEXT NOT NULL DEFAULT '',
    expires_at INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (addon, code, path)
) STRICT;

CREATE TABLE verify_approvals (
    addon      TEXT PRIMARY KEY,
    maintainer TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    at         INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_deliveries (
    id          TEXT PRIMARY KEY,
    event       TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL DEFAULT '',
    repo        TEXT NOT NULL DEFAULT '',
    payload     BLOB NOT NULL,
    status      TEXT NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    submissions TEXT NOT NULL DEFAULT '[]',
    received_at INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at, id);

CREATE TABLE api_tokens (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    role       TEXT NOT NULL,
    hash       BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;

CREATE TABLE audit_log (
    id     TEXT PRIMARY KEY,
    at     INTEGER NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at, id);

-- The audit log is append-only: no row is ever changed or removed.
-- +goose StatementBegin
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE audit_log;
DROP TABLE api_tokens;
DROP TABLE webhook_deliveries;
DROP TABLE verify_approvals;
DROP TABLE suppressions;
DROP TABLE versions;
DROP TABLE findings;
DROP TABLE reports;
DROP TABLE submissions;
DROP TABLE addons;

-- +goose Up
-- Time columns are timestamptz (microsecond precision); the store writes and
-- reads them in UTC.

CREATE TABLE addons (
    name            text PRIMARY KEY,
    display_name    text NOT NULL DEFAULT '',
    description     text NOT NULL DEFAULT '',
    homepage        text NOT NULL DEFAULT '',
    latest_version  text NOT NULL DEFAULT '',
    latest_verdict  text NOT NULL DEFAULT '',
    verified        boolean NOT NULL DEFAULT false,
    verified_by     text[] NOT NULL DEFAULT '{}',
    verified_at     timestamptz,
    verified_reason text NOT NULL DEFAULT '',
    removed         boolean NOT NULL DEFAULT false,
    removed_at      timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX addons_updated_at ON addons (updated_at);

CREATE TABLE submissions (
    id              text PRIMARY KEY,
    addon           text NOT NULL,
    version         text NOT NULL,
    manifest        bytea NOT NULL,
    manifest_sha256 text NOT NULL,
    format          text NOT NULL,
    source          text NOT NULL,
    submitter       text NOT NULL DEFAULT '',
    submitter_token text NOT NULL DEFAULT '',
    github_repo     text,  -- NULL when the submission did not come from GitHub
    github_pr       integer NOT NULL DEFAULT 0,
    github_commit   text NOT NULL DEFAULT '',
    github_path     text NOT NULL DEFAULT '',
    github_author   text NOT NULL DEFAULT '',
    status          text NOT NULL,
    verdict         text NOT NULL DEFAULT '',
    risk            text NOT NULL DEFAULT 'none',
    decided_by      text NOT NULL DEFAULT '',
    decided_at      timestamptz,
    decision_reason text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX submissions_created ON submissions (created_at, id);
CREATE INDEX submissions_addon ON submissions (addon, created_at, id);
CREATE INDEX submissions_status ON submissions (status, created_at, id);

CREATE TABLE reports (
    submission_id text PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    bytes         bytea NOT NULL,
    sha256        text NOT NULL,
    ruleset       text NOT NULL
);
CREATE INDEX reports_ruleset ON reports (ruleset);

CREATE TABLE findings (
    submission_id text NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    ord           integer NOT NULL,
    level         text NOT NULL,
    code          text NOT NULL,
    message       text NOT NULL,
    path          text NOT NULL,
    line          integer NOT NULL DEFAULT 0,
    suppressed    boolean NOT NULL DEFAULT false,
    PRIMARY KEY (submission_id, ord)
);
CREATE INDEX findings_code ON findings (code);

CREATE TABLE versions (
    addon         text NOT NULL,
    version       text NOT NULL,
    submission_id text NOT NULL REFERENCES submissions (id),
    published_at  timestamptz NOT NULL,
    published_by  text NOT NULL DEFAULT '',
    PRIMARY KEY (addon, version)
);
CREATE INDEX versions_published ON versions (addon, published_at, version);

CREATE TABLE suppressions (
    id         text PRIMARY KEY,
    addon      text NOT NULL,
    code       text NOT NULL,
    path       text NOT NULL,
    reason     text NOT NULL,
    note       text NOT NULL DEFAULT '',
    author     text NOT NULL DEFAULT '',
    expires_at timestamptz,
    created_at timestamptz NOT NULL,
    UNIQUE (addon, code, path)
);

CREATE TABLE verify_approvals (
    addon      text PRIMARY KEY,
    maintainer text NOT NULL,
    reason     text NOT NULL DEFAULT '',
    at         timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
    id          text PRIMARY KEY,
    event       text NOT NULL DEFAULT '',
    action      text NOT NULL DEFAULT '',
    repo        text NOT NULL DEFAULT '',
    payload     bytea NOT NULL,
    status      text NOT NULL,
    error       text NOT NULL DEFAULT '',
    submissions text[] NOT NULL DEFAULT '{}',
    received_at timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at, id);

CREATE TABLE api_tokens (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    role       text NOT NULL,
    hash       bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

CREATE TABLE audit_log (
    id     text PRIMARY KEY,
    at     timestamptz NOT NULL,
    actor  text NOT NULL,
    action text NOT NULL,
    target text NOT NULL DEFAULT '',
    reason text NOT NULL DEFAULT '',
    detail text NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log (at, id);

-- The audit log is append-only: no row is ever changed or removed.
-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- +goose Down
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
DROP TABLE api_tokens;
DROP TABLE webhook_deliveries;
DROP TABLE verify_approvals;
DROP TABLE suppressions;
DROP TABLE versions;
DROP TABLE findings;
DROP TABLE reports;
DROP TABLE submissions;
DROP TABLE addons;

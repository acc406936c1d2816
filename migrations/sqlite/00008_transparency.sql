-- +goose Up
-- The transparency log of published reports and their signed envelopes;
-- see the PostgreSQL migration of the same number for the design.
ALTER TABLE reports ADD COLUMN envelope BLOB;
ALTER TABLE reports ADD COLUMN envelope_sha256 TEXT;
ALTER TABLE reports ADD COLUMN envelope_keys TEXT;

CREATE TABLE log_leaves (
    idx           INTEGER PRIMARY KEY,
    submission_id TEXT NOT NULL,
    leaf          BLOB NOT NULL
) STRICT;
CREATE INDEX log_leaves_submission ON log_leaves (submission_id, idx);

CREATE TABLE log_nodes (
    id   INTEGER PRIMARY KEY,
    hash BLOB NOT NULL
) STRICT;

CREATE TABLE log_head (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    size       INTEGER NOT NULL,
    root       BLOB NOT NULL,
    checkpoint BLOB,
    signed_at  INTEGER,
    signed_by  TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO log_head (id, size, root)
    VALUES (1, 0, X'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

-- +goose Down
DROP TABLE log_head;
DROP TABLE log_nodes;
DROP TABLE log_leaves;
ALTER TABLE reports DROP COLUMN envelope_keys;
ALTER TABLE reports DROP COLUMN envelope_sha256;
ALTER TABLE reports DROP COLUMN envelope;

-- +goose Up
-- The transparency log of published reports and their signed envelopes
-- (docs/trust.md).
--
-- A published version's report carries its DSSE envelope (canonical JSON,
-- signed by every configured key) and the IDs of the keys that signed it,
-- comma-separated, so that the envelopes a key rotation left behind can be
-- found and signed again. Reports of unpublished submissions have none.
ALTER TABLE reports ADD COLUMN envelope bytea;
ALTER TABLE reports ADD COLUMN envelope_sha256 text;
ALTER TABLE reports ADD COLUMN envelope_keys text;

-- The log is an RFC 6962 Merkle tree. log_leaves holds every leaf (its text
-- form) in order with the submission whose report it is; log_nodes holds
-- the hash of every complete subtree, keyed by its in-order position
-- (index << (level+1)) + 2^level - 1, so that a proof reads O(log n) rows.
-- log_head is one row: the tree's size and root, and the latest signed
-- checkpoint of it. Appends lock that row, so that one transaction at a
-- time, on any replica, extends the tree.
CREATE TABLE log_leaves (
    idx           bigint PRIMARY KEY,
    submission_id text NOT NULL,
    leaf          bytea NOT NULL
);
CREATE INDEX log_leaves_submission ON log_leaves (submission_id, idx);

CREATE TABLE log_nodes (
    id   bigint PRIMARY KEY,
    hash bytea NOT NULL
);

CREATE TABLE log_head (
    id         integer PRIMARY KEY CHECK (id = 1),
    size       bigint NOT NULL,
    root       bytea NOT NULL,
    checkpoint bytea,        -- the signed note; NULL until the first is signed
    signed_at  timestamptz,
    signed_by  text NOT NULL DEFAULT ''
);
-- The empty tree's root is SHA-256 of nothing.
INSERT INTO log_head (id, size, root)
    VALUES (1, 0, decode('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'));

-- +goose Down
DROP TABLE log_head;
DROP TABLE log_nodes;
DROP TABLE log_leaves;
ALTER TABLE reports DROP COLUMN envelope_keys;
ALTER TABLE reports DROP COLUMN envelope_sha256;
ALTER TABLE reports DROP COLUMN envelope;

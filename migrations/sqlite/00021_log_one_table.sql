-- +goose Up
-- The transparency log's leaves move into log_nodes, beside their leaf
-- hashes, and a report names its current leaf; see the PostgreSQL migration
-- of the same number for why.
ALTER TABLE log_nodes ADD COLUMN submission_id TEXT;
ALTER TABLE log_nodes ADD COLUMN leaf BLOB;
UPDATE log_nodes SET (submission_id, leaf) =
    (SELECT l.submission_id, l.leaf FROM log_leaves l WHERE l.idx = log_nodes.id / 2)
    WHERE id % 2 = 0;
ALTER TABLE reports ADD COLUMN leaf_idx INTEGER;
UPDATE reports SET leaf_idx =
    (SELECT max(l.idx) FROM log_leaves l WHERE l.submission_id = reports.submission_id);
DROP TABLE log_leaves;

-- +goose Down
CREATE TABLE log_leaves (
    idx           INTEGER PRIMARY KEY,
    submission_id TEXT NOT NULL,
    leaf          BLOB NOT NULL
) STRICT;
CREATE INDEX log_leaves_submission ON log_leaves (submission_id, idx);
INSERT INTO log_leaves (idx, submission_id, leaf)
    SELECT id / 2, submission_id, leaf FROM log_nodes WHERE leaf IS NOT NULL;
ALTER TABLE reports DROP COLUMN leaf_idx;
ALTER TABLE log_nodes DROP COLUMN leaf;
ALTER TABLE log_nodes DROP COLUMN submission_id;

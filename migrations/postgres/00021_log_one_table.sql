-- +goose Up
-- The transparency log's leaves move into log_nodes, and a report names its
-- current leaf (docs/trust.md), so that an append writes two rows' pages —
-- log_nodes' last one and the head — where it wrote four: log_leaves, its
-- index by submission, log_nodes and the head.
--
-- log_nodes already holds every leaf's hash, keyed by its in-order position
-- 2 * index (every internal node's key is odd); that row now also carries
-- the leaf's text form and the submission it logs, so the leaf and the
-- nodes its append completes are one INSERT into the end of one table, and
-- an entry bundle is a range of it. reports.leaf_idx is the index of the
-- report's current leaf (NULL when it has none), written with the report
-- in the transaction that appends it: it replaces the index on
-- log_leaves (submission_id, idx) that found it.
ALTER TABLE log_nodes ADD COLUMN submission_id text;
ALTER TABLE log_nodes ADD COLUMN leaf bytea;
UPDATE log_nodes n SET submission_id = l.submission_id, leaf = l.leaf
    FROM log_leaves l WHERE n.id = 2 * l.idx;
ALTER TABLE reports ADD COLUMN leaf_idx bigint;
UPDATE reports rp SET leaf_idx = l.idx
    FROM (SELECT submission_id, max(idx) AS idx FROM log_leaves GROUP BY submission_id) l
    WHERE rp.submission_id = l.submission_id;
DROP TABLE log_leaves;

-- +goose Down
CREATE TABLE log_leaves (
    idx           bigint PRIMARY KEY,
    submission_id text NOT NULL,
    leaf          bytea NOT NULL
);
CREATE INDEX log_leaves_submission ON log_leaves (submission_id, idx);
INSERT INTO log_leaves (idx, submission_id, leaf)
    SELECT id / 2, submission_id, leaf FROM log_nodes WHERE leaf IS NOT NULL;
ALTER TABLE reports DROP COLUMN leaf_idx;
ALTER TABLE log_nodes DROP COLUMN leaf;
ALTER TABLE log_nodes DROP COLUMN submission_id;

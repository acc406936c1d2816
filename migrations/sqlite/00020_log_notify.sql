-- +goose Up
-- PostgreSQL's 00020 makes the transparency log's appends and checkpoints
-- (and re-signed envelopes) notify the replicas' read caches. SQLite needs
-- no such notification: each process sees any commit to the file through
-- PRAGMA data_version. This version exists to keep the two dialects'
-- versions in step.
SELECT 1;

-- +goose Down
SELECT 1;

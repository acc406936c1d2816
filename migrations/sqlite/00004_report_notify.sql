-- +goose Up
-- PostgreSQL's 00004 makes report changes notify the replicas' report
-- caches. The SQLite store keeps no such cache (it serves one process), so
-- this version has nothing to change; it exists to keep the two dialects'
-- versions in step.
SELECT 1;

-- +goose Down
SELECT 1;

-- +goose Up
-- The leases of PostgreSQL's cross-replica locks (see
-- migrations/postgres/00017_lock_leases.sql). One server process serves a
-- SQLite database and holds its locks in memory, so SQLite keeps the table
-- only for the schemas to stay alike; nothing writes it.
CREATE TABLE lock_leases (
    key        TEXT PRIMARY KEY,
    token      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE lock_leases;

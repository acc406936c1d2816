-- +goose Up
-- The lease of each lock storage.Store.Lock holds (storage/postgres
-- lock.go). The lock itself is a session advisory lock; its holder also
-- keeps a lease here, renewed on the lock's connection, and stops acting
-- when it cannot renew it. A lock lost with its connection (a database
-- restart, pg_terminate_backend) leaves its lease behind, and the next
-- holder waits until it has expired, so that it never acts while the
-- previous holder may still. token counts the holders of a key.
CREATE TABLE lock_leases (
    key        text PRIMARY KEY,
    token      bigint NOT NULL,
    expires_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE lock_leases;

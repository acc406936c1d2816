-- +goose Up
-- A report's row keeps its envelope's signatures alone, and the store
-- assembles the envelope from the report's bytes when it reads it; see the
-- PostgreSQL migration of the same number.
ALTER TABLE reports ADD COLUMN signatures TEXT;
UPDATE reports SET signatures = substr(CAST(envelope AS TEXT), instr(CAST(envelope AS TEXT), ',"signatures":') + 14,
        length(CAST(envelope AS TEXT)) - instr(CAST(envelope AS TEXT), ',"signatures":') - 14)
    WHERE envelope IS NOT NULL;
ALTER TABLE reports DROP COLUMN envelope_sha256;
ALTER TABLE reports DROP COLUMN envelope;

-- +goose Down
-- SQLite has no base64 to assemble the envelopes with: they are dropped
-- with their keys, and SignEnvelopes signs them again at the next start.
ALTER TABLE reports ADD COLUMN envelope BLOB;
ALTER TABLE reports ADD COLUMN envelope_sha256 TEXT;
UPDATE reports SET envelope_keys = NULL WHERE signatures IS NOT NULL;
ALTER TABLE reports DROP COLUMN signatures;

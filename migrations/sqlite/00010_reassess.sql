-- +goose Up
-- A report may be marked stale (registryd reassess --all): re-assessment
-- then renders it again whatever ruleset made it, and storing it clears
-- the mark.
ALTER TABLE reports ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE reports DROP COLUMN stale;

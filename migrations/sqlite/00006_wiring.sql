-- +goose Up
-- The verified tier is bound to a wiring digest (addon.Wiring.SHA256): the
-- grant records the digest it covers, the addon the digest of its latest
-- version, each submission its own, and a first approval the digest it
-- approved. Rows written before this migration hold '' until the
-- re-assessment of the new ruleset renders them again and fills them in.
ALTER TABLE addons ADD COLUMN latest_wiring_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE addons ADD COLUMN verified_wiring_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN wiring_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE verify_approvals ADD COLUMN wiring_sha256 TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE verify_approvals DROP COLUMN wiring_sha256;
ALTER TABLE submissions DROP COLUMN wiring_sha256;
ALTER TABLE addons DROP COLUMN verified_wiring_sha256;
ALTER TABLE addons DROP COLUMN latest_wiring_sha256;

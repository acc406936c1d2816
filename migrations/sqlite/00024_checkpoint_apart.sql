-- +goose Up
-- The signed checkpoint names its own tree (cp_size, cp_root), which an
-- append no longer signs; see the PostgreSQL migration of the same number.
ALTER TABLE log_head ADD COLUMN cp_size INTEGER;
ALTER TABLE log_head ADD COLUMN cp_root BLOB;
UPDATE log_head SET cp_size = size, cp_root = root WHERE checkpoint IS NOT NULL;

-- +goose Down
UPDATE log_head SET checkpoint = NULL, signed_at = NULL, signed_by = ''
    WHERE cp_size IS NOT size OR cp_root IS NOT root;
ALTER TABLE log_head DROP COLUMN cp_root;
ALTER TABLE log_head DROP COLUMN cp_size;

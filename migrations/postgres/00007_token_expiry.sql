-- +goose Up
-- A token may expire: from expires_at on it authenticates nothing, and the
-- browser sessions opened with it end. NULL is a token that never expires,
-- as every token made before this migration.
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN expires_at;

-- +goose Up
-- Maintainers' browser sessions for the web pages. Only the sha256 of the
-- cookie secret is kept; a session dies with its token.
CREATE TABLE sessions (
    hash       BLOB PRIMARY KEY,
    token_id   TEXT NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    role       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- +goose Down
DROP TABLE sessions;

-- +goose Up
-- Maintainers' browser sessions for the web pages. Only the sha256 of the
-- cookie secret is kept; a session dies with its token.
CREATE TABLE sessions (
    hash       bytea PRIMARY KEY,
    token_id   text NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    name       text NOT NULL,
    role       text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- +goose Down
DROP TABLE sessions;

-- +goose Up
-- A bulk load into SQLite may defer its search index (see
-- migrations/sqlite/00023_search_deferred.sql). PostgreSQL's trigram index
-- takes a bulk load as it comes, so it keeps the table only for the schemas
-- to stay alike; nothing writes it.
CREATE TABLE addon_search_deferred (
    id integer PRIMARY KEY CHECK (id = 1)
);

-- +goose Down
DROP TABLE addon_search_deferred;

-- +goose Up
-- PostgreSQL indexes the parts of the search text on their own here (see
-- migrations/postgres/00022_search_parts.sql); SQLite's FTS5 table indexes
-- the whole text, and its search ranks every match of a rank with few
-- matches. This statement keeps the two sets of migrations alike.
SELECT 1;

-- +goose Down
SELECT 1;

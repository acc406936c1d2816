-- +goose Up
-- The addon search reads the names that start with the query as a range
-- of names, byte by byte, and lists each rank of matches by name in that
-- order, whatever the database's collation (sqlstore.addonsByRelevance):
-- this index serves both, so that the first page of a query starting a
-- great many names reads a page of this index, not every match.
CREATE INDEX addons_name_bytes ON addons (name COLLATE "C");

-- The addons whose keywords and categories may still be missing from the
-- search: 00009 could not read them from the manifests, so the addons
-- stored before it have none until registryd reads their latest manifest
-- (workflow.BackfillSearch, at migration), which deletes each name it has
-- done. An addon that truly has neither is read once, harmlessly.
CREATE TABLE addon_search_backfill (
    name text PRIMARY KEY
);
INSERT INTO addon_search_backfill (name)
    SELECT name FROM addons WHERE keywords = '{}' AND categories = '{}';

-- +goose Down
DROP TABLE addon_search_backfill;
DROP INDEX addons_name_bytes;

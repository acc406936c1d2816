-- +goose Up
-- The addon search reads the names that start with the query as a range
-- of names through the primary key's index, whose BINARY collation
-- compares bytes (sqlstore.addonsByRelevance): nothing to add for it here;
-- PostgreSQL's 00016 adds an index in the "C" collation.

-- The addons whose keywords and categories may still be missing from the
-- search: 00009 could not read them from the manifests, so the addons
-- stored before it have none until registryd reads their latest manifest
-- (workflow.BackfillSearch, at migration), which deletes each name it has
-- done. An addon that truly has neither is read once, harmlessly.
CREATE TABLE addon_search_backfill (
    name TEXT PRIMARY KEY
) STRICT;
INSERT INTO addon_search_backfill (name)
    SELECT name FROM addons WHERE keywords = '[]' AND categories = '[]';

-- +goose Down
DROP TABLE addon_search_backfill;

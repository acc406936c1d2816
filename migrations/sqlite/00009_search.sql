-- +goose Up
-- Search and filters that hold at 100,000 addons.
--
-- search_text is what the addon search looks in, written by registryd
-- (sqlstore.searchText) in lower case: the name and display name, then the
-- keywords and categories, then the description, the three parts separated
-- by U+001F so that a match can be ranked by the part it falls in. A query
-- is a literal substring of it. addon_search indexes it by trigrams (FTS5),
-- which finds the rows holding a substring of three characters or more.
-- FTS5 rows are keyed by integers and the rowid of addons is not stable
-- (VACUUM may renumber it), so addon_search_ids gives each addon a
-- permanent one. Triggers keep both in step with addons.
ALTER TABLE addons ADD COLUMN keywords TEXT NOT NULL DEFAULT '[]';
ALTER TABLE addons ADD COLUMN categories TEXT NOT NULL DEFAULT '[]';
ALTER TABLE addons ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
-- tier is registry.Addon.Tier(), written with every change of the addon, so
-- that the tier filter reads an index instead of comparing wiring digests
-- row by row.
ALTER TABLE addons ADD COLUMN tier TEXT NOT NULL DEFAULT 'community';

-- Addons stored before this have no keywords or categories until their next
-- published version; their names, display names and descriptions are
-- searchable now (lower() folds ASCII letters only).
UPDATE addons SET
    search_text = lower(name || char(10) || display_name) || char(31) || char(31) || lower(description),
    tier = CASE WHEN verified AND latest_wiring_sha256 <> '' AND verified_wiring_sha256 = latest_wiring_sha256
        THEN 'verified' ELSE 'community' END;

CREATE TABLE addon_search_ids (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
) STRICT;
CREATE VIRTUAL TABLE addon_search USING fts5 (
    search_text, content = '', contentless_delete = 1, tokenize = 'trigram'
);
INSERT INTO addon_search_ids (name) SELECT name FROM addons ORDER BY name;
INSERT INTO addon_search (rowid, search_text)
    SELECT i.id, a.search_text FROM addons a JOIN addon_search_ids i ON i.name = a.name;

-- +goose StatementBegin
CREATE TRIGGER addons_search_insert AFTER INSERT ON addons BEGIN
    INSERT INTO addon_search_ids (name) VALUES (new.name);
    INSERT INTO addon_search (rowid, search_text)
        VALUES ((SELECT id FROM addon_search_ids WHERE name = new.name), new.search_text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER addons_search_update AFTER UPDATE OF search_text ON addons
WHEN old.search_text IS NOT new.search_text BEGIN
    DELETE FROM addon_search WHERE rowid = (SELECT id FROM addon_search_ids WHERE name = old.name);
    INSERT INTO addon_search (rowid, search_text)
        VALUES ((SELECT id FROM addon_search_ids WHERE name = new.name), new.search_text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER addons_search_delete AFTER DELETE ON addons BEGIN
    DELETE FROM addon_search WHERE rowid = (SELECT id FROM addon_search_ids WHERE name = old.name);
    DELETE FROM addon_search_ids WHERE name = old.name;
END;
-- +goose StatementEnd

-- The filters of the registry, in name order (the API's and the index
-- page's default) and most recently updated first. Removed addons are few:
-- "NOT removed" is checked on the rows these indexes return.
CREATE INDEX addons_verdict_name ON addons (latest_verdict, name);
CREATE INDEX addons_tier_name ON addons (tier, name);
CREATE INDEX addons_tier_updated ON addons (tier, updated_at, name) WHERE NOT removed;
-- Both filters at once: without it, verified addons that fail (none, usually)
-- were looked for among all failing addons, 24 ms at 100,000.
CREATE INDEX addons_tier_verdict_name ON addons (tier, latest_verdict, name);

-- The submissions' filters by source and by verdict, oldest or newest first.
CREATE INDEX submissions_source ON submissions (source, created_at, id);
CREATE INDEX submissions_verdict ON submissions (verdict, created_at, id);

-- +goose Down
DROP INDEX submissions_verdict;
DROP INDEX submissions_source;
DROP INDEX addons_tier_verdict_name;
DROP INDEX addons_tier_updated;
DROP INDEX addons_tier_name;
DROP INDEX addons_verdict_name;
DROP TRIGGER addons_search_delete;
DROP TRIGGER addons_search_update;
DROP TRIGGER addons_search_insert;
DROP TABLE addon_search;
DROP TABLE addon_search_ids;
ALTER TABLE addons DROP COLUMN tier;
ALTER TABLE addons DROP COLUMN search_text;
ALTER TABLE addons DROP COLUMN categories;
ALTER TABLE addons DROP COLUMN keywords;

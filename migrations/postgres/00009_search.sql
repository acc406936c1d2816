-- +goose Up
-- Search and filters that hold at 100,000 addons.
--
-- search_text is what the addon search looks in, written by registryd
-- (sqlstore.searchText) in lower case: the name and display name, then the
-- keywords and categories, then the description, the three parts separated
-- by U+001F so that a match can be ranked by the part it falls in. A query
-- is a literal substring of it; the trigram index serves that LIKE for
-- queries of three characters or more. pg_trgm ships with PostgreSQL
-- (contrib) and is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE addons ADD COLUMN keywords text[] NOT NULL DEFAULT '{}';
ALTER TABLE addons ADD COLUMN categories text[] NOT NULL DEFAULT '{}';
ALTER TABLE addons ADD COLUMN search_text text NOT NULL DEFAULT '';
-- tier is registry.Addon.Tier(), written with every change of the addon, so
-- that the tier filter reads an index instead of comparing wiring digests
-- row by row.
ALTER TABLE addons ADD COLUMN tier text NOT NULL DEFAULT 'community';

-- Addons stored before this have no keywords or categories until their next
-- published version; their names, display names and descriptions are
-- searchable now.
UPDATE addons SET
    search_text = lower(name || E'\n' || display_name) || E'\x1f' || E'\x1f' || lower(description),
    tier = CASE WHEN verified AND latest_wiring_sha256 <> '' AND verified_wiring_sha256 = latest_wiring_sha256
        THEN 'verified' ELSE 'community' END;

-- fastupdate off: a GIN index otherwise queues new entries in a pending list
-- that every search reads in full until a vacuum merges it, and the planner,
-- counting it, turns to a sequential scan (after seeding 10,000 addons, a
-- search took 35 ms instead of 0.5 ms). Addons change seldom; searches are
-- many.
CREATE INDEX addons_search ON addons USING gin (search_text gin_trgm_ops) WITH (fastupdate = off);

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
DROP INDEX addons_search;
ALTER TABLE addons DROP COLUMN tier;
ALTER TABLE addons DROP COLUMN search_text;
ALTER TABLE addons DROP COLUMN categories;
ALTER TABLE addons DROP COLUMN keywords;
-- pg_trgm stays: another schema object may have come to use it.

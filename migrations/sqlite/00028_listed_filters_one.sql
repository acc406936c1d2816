-- +goose Up
-- Of 00027's three indexes of the listed addons, the two for one filter
-- go: a publication writes every index of its addon's row, and on SQLite
-- the three cost about 0.1 ms of CPU a publication (1.29 -> 1.40 ms in
-- BenchmarkPublish), while a single filter was not slowed by the removed
-- addons in its full index (tier=community, verdict=pass|review|fail kept
-- within 1.35x from 1,000 to 100,000 addons without them). The index for
-- both filters at once stays: there every entry of verified addons that
-- fail was a removed addon.
DROP INDEX IF EXISTS addons_listed_tier_name;
DROP INDEX IF EXISTS addons_listed_verdict_name;

-- +goose Down
CREATE INDEX addons_listed_tier_name ON addons (tier, name) WHERE NOT removed;
CREATE INDEX addons_listed_verdict_name ON addons (latest_verdict, name) WHERE NOT removed;

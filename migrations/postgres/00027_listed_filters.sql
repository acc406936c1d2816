-- +goose Up
-- The filters of a list of listed addons (not removed) in name order read
-- indexes of the listed addons alone. The indexes of every addon
-- ((tier, name), (latest_verdict, name), (tier, latest_verdict, name))
-- hold the removed ones too, which the list skips row by row: where most
-- of an index's entries for a filter are removed addons (at 100,000 seeded
-- addons, the 319 verified addons whose last version fails are all
-- removed), a page that lists none of them still reads each of their rows.
-- The full indexes stay for include_removed=true and the search's checks.
CREATE INDEX addons_listed_tier_name ON addons (tier, name) WHERE NOT removed;
CREATE INDEX addons_listed_verdict_name ON addons (latest_verdict, name) WHERE NOT removed;
CREATE INDEX addons_listed_tier_verdict_name ON addons (tier, latest_verdict, name) WHERE NOT removed;

-- +goose Down
DROP INDEX addons_listed_tier_verdict_name;
DROP INDEX addons_listed_verdict_name;
DROP INDEX addons_listed_tier_name;

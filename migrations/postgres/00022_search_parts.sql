-- +goose Up
-- The addon search ranks a match by the part of the search text it is
-- found in: name and display name (rank 2), keywords and categories (rank
-- 3), description (rank 4). When a query has many matches, each rank is
-- read on its own (sqlstore.addonsByRelevance); these indexes find the
-- addons whose first or second part holds the query, so that a rank with
-- few matches among many (a query found mostly in descriptions) is read
-- through its own index rather than by ranking every match. The parts are
-- separated by U+001F (chr(31)); the query must write the expression the
-- same way for PostgreSQL to use them.
CREATE INDEX addons_search_names ON addons
    USING gin ((split_part(search_text, chr(31), 1)) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX addons_search_tags ON addons
    USING gin ((split_part(search_text, chr(31), 2)) gin_trgm_ops) WITH (fastupdate = off);

-- +goose Down
DROP INDEX addons_search_tags;
DROP INDEX addons_search_names;

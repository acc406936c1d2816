-- +goose Up
-- The addon search's postings in name order: every trigram (three
-- characters) of each part of an addon's search text (1: name and display
-- name, 2: keywords and categories, 3: description; split at U+001F as
-- search_text is), once a part. A query of three characters or more is in
-- a part only where each of its trigrams is, so a rank's matches are among
-- the postings of the query's rarest trigram in the rank's part, and they
-- are read from a page's position in name order, reading about as many
-- postings as the page needs rather than every match
-- (sqlstore.addonsByRelevance). registryd writes them with the addon
-- (PutAddon); this fills them for the addons already stored.
CREATE TABLE addon_grams (
    gram text NOT NULL,
    part smallint NOT NULL,
    name text NOT NULL
);
INSERT INTO addon_grams (gram, part, name)
    SELECT DISTINCT substr(p.t, i, 3), p.part, a.name
    FROM addons a
    CROSS JOIN LATERAL (VALUES (1, split_part(a.search_text, chr(31), 1)),
        (2, split_part(a.search_text, chr(31), 2)), (3, split_part(a.search_text, chr(31), 3))) AS p (part, t)
    CROSS JOIN LATERAL generate_series(1, length(p.t) - 2) AS i;
-- Names in the "C" collation, as the search orders them (byte by byte).
CREATE UNIQUE INDEX addon_grams_key ON addon_grams (gram, part, (name COLLATE "C"));

-- +goose Down
DROP TABLE addon_grams;

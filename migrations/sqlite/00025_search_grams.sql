-- +goose Up
-- The addon search's postings in name order (see
-- migrations/postgres/00025_search_grams.sql): every trigram of each part
-- of an addon's search text, once a part, keyed so that a trigram's
-- postings in a part are read in name order (BINARY: byte by byte).
-- substr and length count characters, as the store's Go code does.
CREATE TABLE addon_grams (
    gram TEXT NOT NULL,
    part INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (gram, part, name)
) STRICT, WITHOUT ROWID;
WITH RECURSIVE
    split (name, p1, rest) AS (
        SELECT name, substr(search_text, 1, instr(search_text, char(31)) - 1),
            substr(search_text, instr(search_text, char(31)) + 1)
        FROM addons WHERE instr(search_text, char(31)) > 0),
    parts (name, part, t) AS (
        SELECT name, 1, p1 FROM split
        UNION ALL SELECT name, 2, substr(rest, 1, instr(rest, char(31)) - 1) FROM split
        UNION ALL SELECT name, 3, substr(rest, instr(rest, char(31)) + 1) FROM split),
    grams (name, part, t, i) AS (
        SELECT name, part, t, 1 FROM parts WHERE length(t) >= 3
        UNION ALL SELECT name, part, t, i + 1 FROM grams WHERE i + 3 <= length(t))
-- In the key's order, so that the table is written from start to end.
INSERT OR IGNORE INTO addon_grams (gram, part, name)
    SELECT substr(t, i, 3) AS gram, part, name FROM grams ORDER BY gram, part, name;

-- +goose Down
DROP TABLE addon_grams;

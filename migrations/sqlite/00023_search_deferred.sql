-- +goose Up
-- A bulk load may defer the search index. Each addon written makes FTS5
-- write a segment of addon_search (it writes its pending entries at every
-- statement savepoint, and each addon is written by several statements),
-- and merging those segments costs more as the index grows: seeding slowed
-- from 200 addons a second to 23 by 50,000, three quarters of the time in
-- FTS5's merges. While addon_search_deferred holds its row, the triggers
-- leave addon_search alone (addon_search_ids is still kept); the bulk load
-- then builds addon_search again from addons in one statement and deletes
-- the row (storage/sqlite Store.DeferSearchIndex and RebuildSearchIndex).
-- A load that stops before that leaves the row, and the next Open of the
-- store rebuilds the index, so a deferred index never outlives its load.
CREATE TABLE addon_search_deferred (
    id INTEGER PRIMARY KEY CHECK (id = 1)
) STRICT;

DROP TRIGGER addons_search_insert;
DROP TRIGGER addons_search_update;
DROP TRIGGER addons_search_delete;
-- +goose StatementBegin
CREATE TRIGGER addons_search_insert AFTER INSERT ON addons BEGIN
    INSERT INTO addon_search_ids (name) VALUES (new.name);
    INSERT INTO addon_search (rowid, search_text)
        SELECT id, new.search_text FROM addon_search_ids
        WHERE name = new.name AND NOT EXISTS (SELECT 1 FROM addon_search_deferred);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER addons_search_update AFTER UPDATE OF search_text ON addons
WHEN old.search_text IS NOT new.search_text AND NOT EXISTS (SELECT 1 FROM addon_search_deferred) BEGIN
    DELETE FROM addon_search WHERE rowid = (SELECT id FROM addon_search_ids WHERE name = old.name);
    INSERT INTO addon_search (rowid, search_text)
        VALUES ((SELECT id FROM addon_search_ids WHERE name = new.name), new.search_text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER addons_search_delete AFTER DELETE ON addons BEGIN
    DELETE FROM addon_search
        WHERE rowid = (SELECT id FROM addon_search_ids WHERE name = old.name)
        AND NOT EXISTS (SELECT 1 FROM addon_search_deferred);
    DELETE FROM addon_search_ids WHERE name = old.name;
END;
-- +goose StatementEnd

-- +goose Down
-- A deferred index is rebuilt before the triggers that cannot defer it
-- come back.
INSERT INTO addon_search (addon_search) SELECT 'delete-all' FROM addon_search_deferred;
INSERT INTO addon_search (rowid, search_text)
    SELECT i.id, a.search_text FROM addons a JOIN addon_search_ids i ON i.name = a.name
    WHERE EXISTS (SELECT 1 FROM addon_search_deferred);
DROP TRIGGER addons_search_delete;
DROP TRIGGER addons_search_update;
DROP TRIGGER addons_search_insert;
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
DROP TABLE addon_search_deferred;

-- +goose Up
-- Every change to the transparency log's head — leaves appended (each
-- appending transaction updates the head row once, with the checkpoint it
-- signs) or a checkpoint signed again (RefreshCheckpoint) — notifies
-- channel registryd_log at commit, whichever replica made it, so that each
-- replica's inclusion proofs kept in memory are dropped once the new tree
-- is visible. An append for one addon changes the proof of every other, so
-- the notification names no addon; its payload is empty.
-- +goose StatementBegin
CREATE FUNCTION registryd_notify_log() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('registryd_log', '');
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER log_head_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON log_head
    FOR EACH STATEMENT EXECUTE FUNCTION registryd_notify_log();

-- A report's signed envelope is served from memory like the report: signing
-- it again (SignEnvelopes, after a key rotation) must notify its addon too,
-- which 00010's trigger, limited to the report's own columns, did not.
DROP TRIGGER reports_notify ON reports;
CREATE TRIGGER reports_notify AFTER INSERT OR DELETE OR UPDATE OF submission_id, bytes, sha256, ruleset, envelope, envelope_sha256, envelope_keys ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();

-- +goose Down
DROP TRIGGER reports_notify ON reports;
CREATE TRIGGER reports_notify AFTER INSERT OR DELETE OR UPDATE OF submission_id, bytes, sha256, ruleset ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();
DROP TRIGGER log_head_notify ON log_head;
DROP FUNCTION registryd_notify_log();

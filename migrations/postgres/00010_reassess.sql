-- +goose Up
-- A report may be marked stale (registryd reassess --all): re-assessment
-- then renders it again whatever ruleset made it, and storing it clears
-- the mark.
ALTER TABLE reports ADD COLUMN stale boolean NOT NULL DEFAULT false;

-- Marking reports stale changes no report's bytes: only a change to what
-- a reader is served notifies the report caches, so that marking 100,000
-- reports does not send 100,000 notifications to every replica.
DROP TRIGGER reports_notify ON reports;
CREATE TRIGGER reports_notify AFTER INSERT OR DELETE OR UPDATE OF submission_id, bytes, sha256, ruleset ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();

-- +goose Down
DROP TRIGGER reports_notify ON reports;
CREATE TRIGGER reports_notify AFTER INSERT OR UPDATE OR DELETE ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();
ALTER TABLE reports DROP COLUMN stale;

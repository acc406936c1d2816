-- +goose Up
-- Every change that can change what PublishedReport returns for an addon
-- (its reports, its published versions, its row: latest version, tier,
-- removal) notifies channel registryd_reports with the addon's name. The
-- notification is delivered when the transaction commits, so each replica's
-- in-process report cache drops the addon's entries right after the change
-- becomes visible, whichever replica or job made it.

-- +goose StatementBegin
CREATE FUNCTION registryd_notify_reports() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    name text;
BEGIN
    IF TG_TABLE_NAME = 'reports' THEN
        IF TG_OP = 'DELETE' THEN
            SELECT addon INTO name FROM submissions WHERE id = OLD.submission_id;
        ELSE
            SELECT addon INTO name FROM submissions WHERE id = NEW.submission_id;
        END IF;
    ELSIF TG_TABLE_NAME = 'addons' THEN
        IF TG_OP = 'DELETE' THEN name := OLD.name; ELSE name := NEW.name; END IF;
    ELSE
        IF TG_OP = 'DELETE' THEN name := OLD.addon; ELSE name := NEW.addon; END IF;
    END IF;
    IF name IS NOT NULL THEN
        PERFORM pg_notify('registryd_reports', name);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER reports_notify AFTER INSERT OR UPDATE OR DELETE ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();
CREATE TRIGGER addons_notify AFTER INSERT OR UPDATE OR DELETE ON addons
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();
CREATE TRIGGER versions_notify AFTER INSERT OR UPDATE OR DELETE ON versions
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();

-- +goose Down
DROP TRIGGER versions_notify ON versions;
DROP TRIGGER addons_notify ON addons;
DROP TRIGGER reports_notify ON reports;
DROP FUNCTION registryd_notify_reports();

-- +goose Up
-- A report's envelope is its report again (base64) and its signatures. The
-- row keeps the signatures alone (signatures: the envelope's signatures
-- member, its canonical JSON array [{"keyid":…,"sig":…},…]), and the
-- store assembles the envelope from the report's bytes when it reads it
-- (transparency.AssembleEnvelope), the same bytes as it stored before, and
-- their digest, the ETag, with it. envelope_keys stays: the keys that
-- signed, for SignEnvelopes to find what a rotation left behind.
--
-- Every stored envelope is canonical JSON whose payload is base64 and whose
-- last member is signatures, so its signatures are what follows the one
-- ',"signatures":' up to the closing brace.
DROP TRIGGER reports_notify ON reports;
ALTER TABLE reports ADD COLUMN signatures text;
UPDATE reports SET signatures = substr(e.text, e.at + 14, length(e.text) - e.at - 14)
    FROM (SELECT submission_id, t AS text, strpos(t, ',"signatures":') AS at
          FROM (SELECT submission_id, convert_from(envelope, 'UTF8') AS t FROM reports WHERE envelope IS NOT NULL) env) e
    WHERE reports.submission_id = e.submission_id;
ALTER TABLE reports DROP COLUMN envelope_sha256;
ALTER TABLE reports DROP COLUMN envelope;
CREATE TRIGGER reports_notify AFTER INSERT OR DELETE OR UPDATE OF submission_id, bytes, sha256, ruleset, signatures, envelope_keys ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();

-- +goose Down
DROP TRIGGER reports_notify ON reports;
ALTER TABLE reports ADD COLUMN envelope bytea;
ALTER TABLE reports ADD COLUMN envelope_sha256 text;
UPDATE reports SET envelope = convert_to('{"payload":"' || translate(encode(bytes, 'base64'), E'\n', '')
    || '","payloadType":"application/vnd.registryd.report.v1+json","signatures":' || signatures || '}', 'UTF8')
    WHERE signatures IS NOT NULL;
UPDATE reports SET envelope_sha256 = encode(sha256(envelope), 'hex') WHERE envelope IS NOT NULL;
ALTER TABLE reports DROP COLUMN signatures;
CREATE TRIGGER reports_notify AFTER INSERT OR DELETE OR UPDATE OF submission_id, bytes, sha256, ruleset, envelope, envelope_sha256, envelope_keys ON reports
    FOR EACH ROW EXECUTE FUNCTION registryd_notify_reports();

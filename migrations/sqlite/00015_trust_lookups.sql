-- +goose Up
-- Install clients look a report up by the sha256 of the manifest they are
-- about to install (GET /v1/reports/sha256/{hex}): the submission with
-- those bytes, then the published version made from it. Both steps read
-- an index.
CREATE INDEX submissions_manifest_sha256 ON submissions (manifest_sha256);
CREATE INDEX versions_submission ON versions (submission_id);

-- +goose Down
DROP INDEX versions_submission;
DROP INDEX submissions_manifest_sha256;

-- +goose Up
-- A submitter's resubmission looks for a pending twin among the addon's
-- pending submissions (status and addon both bound, oldest first). With
-- only (addon, created_at, id) and (status, created_at, id) to choose from,
-- SQLite took the status index and walked every pending submission of
-- every addon; this one reaches the addon's pending rows directly, already
-- in order.
CREATE INDEX submissions_addon_status ON submissions (addon, status, created_at, id);

-- +goose Down
DROP INDEX submissions_addon_status;

-- +goose Up
-- The maintainers' pages filter the audit log by actor, action and addon
-- (its target, or its submissions' targets), newest first: each filter
-- reads its own index already in that order. The actor and action indexes
-- also list the distinct actors and actions for the filters' choices.
CREATE INDEX audit_log_actor ON audit_log (actor, at, id);
CREATE INDEX audit_log_action ON audit_log (action, at, id);
CREATE INDEX audit_log_target ON audit_log (target, at, id);

-- The review queue lists a status's submissions worst verdict first
-- (fail, review, pass), oldest first within each: the expression is word
-- for word the one the query orders by (sqlstore.severitySQL), so that
-- both databases read the rows from this index already in order.
CREATE INDEX submissions_status_severity ON submissions
    (status, (CASE verdict WHEN 'fail' THEN 0 WHEN 'review' THEN 1 ELSE 2 END), created_at, id);

-- +goose Down
DROP INDEX submissions_status_severity;
DROP INDEX audit_log_target;
DROP INDEX audit_log_action;
DROP INDEX audit_log_actor;

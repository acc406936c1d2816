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

-- The registry's index lists the addons changed last first, all or those
-- of one verdict; "NOT removed" is word for word the list's condition.
CREATE INDEX addons_listed_updated ON addons (updated_at, name) WHERE NOT removed;
CREATE INDEX addons_verdict_updated ON addons (latest_verdict, updated_at, name) WHERE NOT removed;

-- +goose Down
DROP INDEX addons_verdict_updated;
DROP INDEX addons_listed_updated;
DROP INDEX submissions_status_severity;
DROP INDEX audit_log_target;
DROP INDEX audit_log_action;
DROP INDEX audit_log_actor;

-- +goose Up
-- The maintainers' pages filter the audit log by actor, action and addon
-- (its target, or its submissions' targets), newest first: each filter
-- reads its own index already in that order. The actor and action indexes
-- also list the distinct actors and actions for the filters' choices.
CREATE INDEX audit_log_actor ON audit_log (actor, at, id);
CREATE INDEX audit_log_action ON audit_log (action, at, id);
CREATE INDEX audit_log_target ON audit_log (target, at, id);

-- +goose Down
DROP INDEX audit_log_target;
DROP INDEX audit_log_action;
DROP INDEX audit_log_actor;

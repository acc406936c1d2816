-- +goose Up
-- The signed checkpoint names its own tree. An append advances the tree
-- (size, root) without signing; the process that appended signs a
-- checkpoint of the latest tree shortly after (at most a few times a
-- second, within a second of the append: docs/trust.md), and so may any
-- replica that finds the tree ahead of its checkpoint. cp_size and cp_root
-- are the tree the signed note (checkpoint) names; every reader serves
-- that tree: the checkpoint, the proofs, the tiles. A checkpoint is stored
-- only over one of a tree no larger.
ALTER TABLE log_head ADD COLUMN cp_size bigint;
ALTER TABLE log_head ADD COLUMN cp_root bytea;
UPDATE log_head SET cp_size = size, cp_root = root WHERE checkpoint IS NOT NULL;

-- 00020's notification tells the replicas that what the log's readers
-- serve changed: now only a new checkpoint does, not an append, so an
-- append notifies nobody.
DROP TRIGGER log_head_notify ON log_head;
CREATE TRIGGER log_head_notify AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF cp_size, cp_root, checkpoint, signed_at, signed_by ON log_head
    FOR EACH STATEMENT EXECUTE FUNCTION registryd_notify_log();

-- +goose Down
DROP TRIGGER log_head_notify ON log_head;
CREATE TRIGGER log_head_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON log_head
    FOR EACH STATEMENT EXECUTE FUNCTION registryd_notify_log();
-- Before 00024 the checkpoint always names the head's tree: one of an
-- older tree is dropped, and the periodic refresh signs the tree anew.
UPDATE log_head SET checkpoint = NULL, signed_at = NULL, signed_by = ''
    WHERE cp_size IS DISTINCT FROM size OR cp_root IS DISTINCT FROM root;
ALTER TABLE log_head DROP COLUMN cp_root;
ALTER TABLE log_head DROP COLUMN cp_size;

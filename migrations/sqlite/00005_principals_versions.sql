-- +goose Up
-- Principals: who holds API tokens. Several tokens of one principal are one
-- maintainer (the two-maintainer rule of verified) and one submitter (four
-- eyes on approval). key is the name after Unicode case folding and NFKC,
-- computed by registryd; names that fold alike are one principal.
CREATE TABLE principals (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    key        TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
) STRICT;

-- Every existing token joins the principal of its folded name, named after
-- the first token with that name. Token names were ASCII letters, digits
-- and _ - . @ until now, and for those lower() is exactly the fold.
INSERT INTO principals (id, name, key, created_at)
SELECT 'prn_' || lower(hex(randomblob(16))), t.name, lower(t.name), t.created_at
FROM api_tokens t
WHERE NOT EXISTS (
    SELECT 1 FROM api_tokens o
    WHERE lower(o.name) = lower(t.name) AND (o.created_at < t.created_at OR (o.created_at = t.created_at AND o.id < t.id))
);

-- SQLite cannot add a NOT NULL column with a foreign key to a table, nor
-- drop one again; registryd always sets it, and the conformance tests
-- check that every token has its principal.
ALTER TABLE api_tokens ADD COLUMN principal_id TEXT NOT NULL DEFAULT '';
UPDATE api_tokens SET principal_id = (SELECT p.id FROM principals p WHERE p.key = lower(api_tokens.name));
CREATE INDEX api_tokens_principal ON api_tokens (principal_id);

-- A REST submission records its token's principal, so that the principal
-- cannot approve it with another token.
ALTER TABLE submissions ADD COLUMN submitter_principal TEXT NOT NULL DEFAULT '';
UPDATE submissions SET submitter_principal = COALESCE(
    (SELECT t.principal_id FROM api_tokens t WHERE t.id = submissions.submitter_token), '');

-- A pending grant of verified records the first maintainer's principal.
ALTER TABLE verify_approvals ADD COLUMN principal TEXT NOT NULL DEFAULT '';
UPDATE verify_approvals SET principal = COALESCE(
    (SELECT p.id FROM principals p WHERE p.key = lower(verify_approvals.maintainer)), '');

-- SemVer ignores build metadata: 1.0.0+a and 1.0.0+b are one version, and
-- an addon publishes it once. version_key is the version without its build
-- metadata (registry.VersionKey). A version published before this that
-- shares its key with an earlier one gets its whole text and a '+' as its
-- key, so that the index can be built: the key of a version published from
-- now on never holds a '+', so it never equals one of these.
ALTER TABLE versions ADD COLUMN version_key TEXT NOT NULL DEFAULT '';
UPDATE versions SET version_key = CASE WHEN instr(version, '+') > 0
    THEN substr(version, 1, instr(version, '+') - 1) ELSE version END;
-- The earliest version of each key never changes here, and it is the
-- witness for every later one, so the order SQLite updates rows in does not
-- matter.
UPDATE versions SET version_key = version || '+'
WHERE EXISTS (
    SELECT 1 FROM versions o
    WHERE o.addon = versions.addon AND o.version_key = versions.version_key
      AND (o.published_at < versions.published_at OR (o.published_at = versions.published_at AND o.version < versions.version))
);
CREATE UNIQUE INDEX versions_addon_key ON versions (addon, version_key);

-- +goose Down
DROP INDEX versions_addon_key;
ALTER TABLE versions DROP COLUMN version_key;
ALTER TABLE verify_approvals DROP COLUMN principal;
ALTER TABLE submissions DROP COLUMN submitter_principal;
DROP INDEX api_tokens_principal;
ALTER TABLE api_tokens DROP COLUMN principal_id;
DROP TABLE principals;

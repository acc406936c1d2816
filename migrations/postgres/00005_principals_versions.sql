-- +goose Up
-- Principals: who holds API tokens. Several tokens of one principal are one
-- maintainer (the two-maintainer rule of verified) and one submitter (four
-- eyes on approval). key is the name after Unicode case folding and NFKC,
-- computed by registryd; names that fold alike are one principal.
CREATE TABLE principals (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    key        text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL
);

-- Every existing token joins the principal of its folded name, named after
-- the first token with that name. Token names were ASCII letters, digits
-- and _ - . @ until now, and for those lower() is exactly the fold.
INSERT INTO principals (id, name, key, created_at)
SELECT DISTINCT ON (lower(name)) 'prn_' || replace(gen_random_uuid()::text, '-', ''), name, lower(name), created_at
FROM api_tokens ORDER BY lower(name), created_at, id;

ALTER TABLE api_tokens ADD COLUMN principal_id text REFERENCES principals (id);
UPDATE api_tokens SET principal_id = (SELECT p.id FROM principals p WHERE p.key = lower(api_tokens.name));
ALTER TABLE api_tokens ALTER COLUMN principal_id SET NOT NULL;
CREATE INDEX api_tokens_principal ON api_tokens (principal_id);

-- A REST submission records its token's principal, so that the principal
-- cannot approve it with another token.
ALTER TABLE submissions ADD COLUMN submitter_principal text NOT NULL DEFAULT '';
UPDATE submissions SET submitter_principal = t.principal_id
FROM api_tokens t WHERE t.id = submissions.submitter_token;

-- A pending grant of verified records the first maintainer's principal.
ALTER TABLE verify_approvals ADD COLUMN principal text NOT NULL DEFAULT '';
UPDATE verify_approvals SET principal = p.id
FROM principals p WHERE p.key = lower(verify_approvals.maintainer);

-- SemVer ignores build metadata: 1.0.0+a and 1.0.0+b are one version, and
-- an addon publishes it once. version_key is the version without its build
-- metadata (registry.VersionKey). A version published before this that
-- shares its key with an earlier one gets its whole text and a '+' as its
-- key, so that the index can be built: the key of a version published from
-- now on never holds a '+', so it never equals one of these.
ALTER TABLE versions ADD COLUMN version_key text NOT NULL DEFAULT '';
UPDATE versions SET version_key = split_part(version, '+', 1);
UPDATE versions SET version_key = version || '+'
WHERE EXISTS (
    SELECT 1 FROM versions o
    WHERE o.addon = versions.addon AND split_part(o.version, '+', 1) = split_part(versions.version, '+', 1)
      AND (o.published_at, o.version) < (versions.published_at, versions.version)
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

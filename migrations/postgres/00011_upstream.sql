-- +goose Up
-- Imports from upstream registries (an MCP Registry, a lean-ctx registry
-- file). A submission records the upstream it came from and the name and
-- version there; an MCP Registry server version is imported at most once.
ALTER TABLE submissions ADD COLUMN upstream_url text NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN upstream_name text NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN upstream_version text NOT NULL DEFAULT '';
CREATE INDEX submissions_upstream ON submissions (source, upstream_name, upstream_version);
CREATE UNIQUE INDEX submissions_mcp_registry_version ON submissions (upstream_name, upstream_version)
    WHERE source = 'mcp-registry';

-- The one upstream server an addon was imported from, both ways unique.
CREATE TABLE upstream_bindings (
    addon         text PRIMARY KEY,
    source        text NOT NULL,
    upstream_name text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL
);

-- The incremental import's high-water mark, per upstream registry.
CREATE TABLE upstream_syncs (
    url        text PRIMARY KEY,
    high_water timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE upstream_syncs;
DROP TABLE upstream_bindings;
DROP INDEX submissions_mcp_registry_version;
DROP INDEX submissions_upstream;
ALTER TABLE submissions DROP COLUMN upstream_version;
ALTER TABLE submissions DROP COLUMN upstream_name;
ALTER TABLE submissions DROP COLUMN upstream_url;

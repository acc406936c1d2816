-- +goose Up
-- Imports from upstream registries (an MCP Registry, a lean-ctx registry
-- file). A submission records the upstream it came from and the name and
-- version there; an MCP Registry server version is imported at most once.
ALTER TABLE submissions ADD COLUMN upstream_url TEXT NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN upstream_name TEXT NOT NULL DEFAULT '';
ALTER TABLE submissions ADD COLUMN upstream_version TEXT NOT NULL DEFAULT '';
CREATE INDEX submissions_upstream ON submissions (source, upstream_name, upstream_version);
CREATE UNIQUE INDEX submissions_mcp_registry_version ON submissions (upstream_name, upstream_version)
    WHERE source = 'mcp-registry';

-- The one upstream server an addon was imported from, both ways unique.
CREATE TABLE upstream_bindings (
    addon         TEXT PRIMARY KEY,
    source        TEXT NOT NULL,
    upstream_name TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL
);

-- The incremental import's high-water mark, per upstream registry.
CREATE TABLE upstream_syncs (
    url        TEXT PRIMARY KEY,
    high_water INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE upstream_syncs;
DROP TABLE upstream_bindings;
DROP INDEX submissions_mcp_registry_version;
DROP INDEX submissions_upstream;
ALTER TABLE submissions DROP COLUMN upstream_version;
ALTER TABLE submissions DROP COLUMN upstream_name;
ALTER TABLE submissions DROP COLUMN upstream_url;

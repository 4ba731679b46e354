"""The SQL of migrations m017 and m018 (:func:`agentdex.db.migrations.m017_endpoint_samples`,
``m018_auth_kind``), kept apart so the migrations module stays readable. Like every shipped
migration they never change."""

# endpoint_probes keeps runs of one state (its times between are not kept); uptime windows and
# latency percentiles need every probe, so each one is a sample too.
ENDPOINT_SAMPLES_017 = """
CREATE TABLE endpoint_samples (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    role TEXT NOT NULL,
    url TEXT NOT NULL,
    at TEXT NOT NULL,                 -- when it was probed (ISO 8601, UTC)
    state TEXT NOT NULL,              -- as in endpoint_probes
    outcome TEXT NOT NULL,            -- up | down | unmeasurable (429, 503 with Retry-After)
    ms REAL,                          -- how long the probe took, every request of it
    verified_by TEXT NOT NULL DEFAULT '',  -- the request, transport (and era), agentdex's version
    crawl_id INTEGER
);
CREATE INDEX endpoint_samples_endpoint ON endpoint_samples(origin, role, url, at);
CREATE INDEX endpoint_samples_at ON endpoint_samples(at);
"""

AUTH_KIND_018 = """
-- an MCP endpoint's: none | oauth_dcr | oauth_cimd | oauth | bearer | api_key | payment | unknown
ALTER TABLE endpoint_probes ADD COLUMN auth_kind TEXT;
"""

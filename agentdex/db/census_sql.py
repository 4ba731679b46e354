"""The SQL of migration m016 (:func:`agentdex.db.migrations.m016_mcp_eras`), kept apart so
the migrations module stays readable. Like every shipped migration it never changes: a later
change to these columns or to ``mcp_census`` is a new migration."""

# The census reads the states agentdex stored, never a detail a server could write; older rows
# get their cause from agentdex's own sentences (a host name has no spaces; the prefix is ours).
MCP_ERAS_016 = """
ALTER TABLE endpoint_probes ADD COLUMN era TEXT;          -- an MCP endpoint's eras: legacy | dual | modern | unknown
ALTER TABLE endpoint_probes ADD COLUMN versions TEXT;     -- JSON: every protocol revision it was seen to speak
ALTER TABLE endpoint_probes ADD COLUMN server_name TEXT;  -- its self-reported serverInfo.name
ALTER TABLE endpoint_probes ADD COLUMN cause TEXT;        -- agentdex's word: dns | initialized_rejected
UPDATE endpoint_probes SET cause = 'dns' WHERE state = 'dead'
  AND (detail LIKE 'The host name % could not be resolved %' OR detail LIKE 'The host name % resolved to no address.');
UPDATE endpoint_probes SET cause = 'initialized_rejected' WHERE role = 'mcp' AND state = 'ok'
  AND detail LIKE 'initialize accepted but notifications/initialized rejected (HTTP %';
DROP VIEW mcp_census;
CREATE VIEW mcp_census AS
WITH latest AS (  -- each MCP endpoint's latest probe: one pass over the (origin, role, url, id) index
  SELECT p.origin, p.url, p.state, p.detail, p.cause, p.era, p.versions, p.server_name
  FROM endpoint_probes p
  JOIN (SELECT max(id) AS id FROM endpoint_probes WHERE role = 'mcp' GROUP BY origin, url) m ON m.id = p.id
),
probed AS (
  SELECT url, origin, state, detail,
    CASE
      WHEN state = 'ok' AND cause = 'initialized_rejected' THEN 'initialized_rejected'
      WHEN state = 'ok' THEN 'open'
      WHEN state = 'auth_required' THEN 'auth_gated'
      WHEN state = 'payment_required' THEN 'payment_required'
      WHEN state = 'wrong_transport' THEN 'wrong_transport'
      WHEN state = 'incompatible' THEN 'incompatible'
      WHEN state IN ('not_mcp', 'not_found', 'http_error') THEN 'not_mcp'
      WHEN state = 'dead' AND cause = 'dns' THEN 'dns_gone'
      ELSE 'unreachable'
    END AS census,
    coalesce(era, 'unknown') AS era, versions, server_name
  FROM latest
),
templated AS (
  SELECT DISTINCT s.url, NULL AS origin, 'template' AS state, s.refused AS detail, 'template_not_expanded' AS census,
    'unknown' AS era, NULL AS versions, NULL AS server_name
  FROM seed_sources s WHERE s.via = 'remote' AND s.refused LIKE 'an unexpanded URL template%'
),
unprobed AS (
  SELECT DISTINCT s.url, s.origin, 'not_probed' AS state, '' AS detail, 'not_probed' AS census,
    'unknown' AS era, NULL AS versions, NULL AS server_name
  FROM seed_sources s WHERE s.via = 'remote' AND s.refused IS NULL
    AND s.url NOT IN (SELECT url FROM probed)
)
SELECT * FROM probed UNION ALL SELECT * FROM templated UNION ALL SELECT * FROM unprobed;
"""

CREATE TABLE "_sqlite_migrations" (
   "id" INTEGER PRIMARY KEY,
   "migration_set" TEXT,
   "name" TEXT,
   "applied_at" TEXT
);
CREATE UNIQUE INDEX "idx__sqlite_migrations_migration_set_name"
    ON "_sqlite_migrations" ("migration_set", "name");
CREATE TABLE crawls (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                          -- crawl | verify | import
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL DEFAULT 'running',      -- running | finished | interrupted
    origins_total INTEGER NOT NULL DEFAULT 0,
    origins_done INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    errors INTEGER NOT NULL DEFAULT 0,
    bytes_fetched INTEGER NOT NULL DEFAULT 0
, pid INTEGER, machine TEXT);
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    size_bytes INTEGER NOT NULL,
    content BLOB NOT NULL,
    first_seen_at TEXT NOT NULL
);
CREATE TABLE listings (
    origin TEXT PRIMARY KEY,
    format TEXT,                                 -- agent_app | anchor | findagent | adapp | inferred | NULL
    formats_found TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL,                        -- listed | invalid | unreachable | no_manifest | delisted
    status_detail TEXT NOT NULL DEFAULT '',
    name TEXT,
    one_liner TEXT,
    description TEXT,
    homepage TEXT,
    guide_url TEXT,
    llms_txt_url TEXT,
    skill_url TEXT,
    mcp_url TEXT,
    mcp_transport TEXT,
    mcp_auth TEXT,
    http_base TEXT,
    http_openapi TEXT,
    http_capabilities TEXT,
    auth_methods TEXT,
    events TEXT,
    hosts TEXT,
    categories TEXT,
    tags TEXT,
    say TEXT,
    audience TEXT,
    pricing TEXT,
    publisher_name TEXT,
    publisher_url TEXT,
    publisher_contact TEXT,
    privacy_url TEXT,
    terms_url TEXT,
    instructions TEXT,
    feedback TEXT,
    extra TEXT,
    listing_json TEXT,
    error_count INTEGER NOT NULL DEFAULT 0,
    warning_count INTEGER NOT NULL DEFAULT 0,
    has_mcp INTEGER NOT NULL DEFAULT 0,
    unreachable_streak INTEGER NOT NULL DEFAULT 0,
    first_seen_at TEXT NOT NULL,
    first_listed_at TEXT,
    last_crawled_at TEXT,
    last_changed_at TEXT,
    last_crawl_id INTEGER REFERENCES crawls(id)
, checks_passed INTEGER NOT NULL DEFAULT 0, checks_failed INTEGER NOT NULL DEFAULT 0, mcp_tools_checked_at TEXT, manifests_sha256 TEXT, declared_documents TEXT, next_due_at TEXT, recrawl_interval INTEGER, unchanged_crawls INTEGER NOT NULL DEFAULT 0, consistency TEXT, consistency_sources TEXT, disagreements INTEGER NOT NULL DEFAULT 0);
CREATE INDEX listings_status ON listings(status);
CREATE INDEX listings_format ON listings(format);
CREATE INDEX listings_name ON listings(name IS NULL, name COLLATE NOCASE, origin);
CREATE INDEX listings_last_changed_at ON listings(last_changed_at);
CREATE TABLE documents (
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    kind TEXT NOT NULL,                          -- agent_app | anchor | … (a manifest) | guide | llms_txt | skill | …
    url TEXT NOT NULL,
    sha256 TEXT NOT NULL REFERENCES blobs(sha256),
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (origin, kind)
);
CREATE INDEX documents_sha256 ON documents(sha256);
CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY,
    crawl_id INTEGER REFERENCES crawls(id),
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    url TEXT NOT NULL,
    kind TEXT NOT NULL,
    status_code INTEGER,
    final_url TEXT,
    content_type TEXT,
    etag TEXT,
    last_modified TEXT,
    headers TEXT NOT NULL DEFAULT '{}',
    body_sha256 TEXT REFERENCES blobs(sha256),
    body_bytes INTEGER,
    elapsed_ms REAL,
    error_code TEXT,
    error TEXT,
    not_modified INTEGER NOT NULL DEFAULT 0,
    fetched_at TEXT NOT NULL,
    redirects TEXT NOT NULL DEFAULT '[]'
, obtained TEXT, response_at TEXT, fresh_until TEXT, last_crawl_id INTEGER REFERENCES crawls(id), last_seen_at TEXT, last_obtained TEXT, seen INTEGER NOT NULL DEFAULT 1);
CREATE INDEX snapshots_origin_url ON snapshots(origin, url, id);
CREATE INDEX snapshots_crawl_id ON snapshots(crawl_id);
CREATE INDEX snapshots_body_sha256 ON snapshots(body_sha256);
CREATE TABLE findings (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    format TEXT NOT NULL,
    severity TEXT NOT NULL,                      -- error | warning
    path TEXT NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    crawl_id INTEGER REFERENCES crawls(id)
);
CREATE INDEX findings_origin ON findings(origin);
CREATE INDEX findings_code ON findings(code);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    old TEXT,
    new TEXT,
    subject TEXT NOT NULL DEFAULT '',
    crawl_id INTEGER REFERENCES crawls(id)
);
CREATE INDEX events_origin_at ON events(origin, at);
CREATE INDEX events_at ON events(at);
CREATE INDEX events_kind ON events(kind);
CREATE TABLE checks (
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    name TEXT NOT NULL,
    status TEXT NOT NULL,                        -- pass | fail | warn | skip
    detail TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL DEFAULT '{}',
    checked_at TEXT NOT NULL,
    last_pass_at TEXT,
    PRIMARY KEY (origin, name)
);
CREATE INDEX checks_name_status ON checks(name, status);
CREATE TABLE tools (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    source TEXT NOT NULL,                        -- manifest | mcp
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    annotations TEXT NOT NULL DEFAULT '{}',
    read_only INTEGER NOT NULL DEFAULT 0,
    destructive INTEGER NOT NULL DEFAULT 0,
    input_schema TEXT,
    endpoint TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    seen_at TEXT NOT NULL
, fingerprint TEXT);
CREATE INDEX tools_origin_source ON tools(origin, source, name);
CREATE TABLE feedback_receipts (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    message_sha256 TEXT NOT NULL,
    feedback_id TEXT,
    status TEXT NOT NULL,
    received_at TEXT,
    raw_response TEXT,
    sent_at TEXT NOT NULL
);
CREATE INDEX feedback_receipts_origin ON feedback_receipts(origin, idempotency_key);
CREATE INDEX listings_pricing ON listings(pricing);
CREATE INDEX listings_status_name ON listings(status, name COLLATE NOCASE, origin);
CREATE INDEX listings_status_format_categories ON listings(status, format, categories);
CREATE INDEX checks_status_name ON checks(status, name, origin);
CREATE INDEX tools_destructive ON tools(origin, name) WHERE destructive = 1;
CREATE VIEW listing_categories AS
SELECT l.origin, j.value AS category, l.name, l.format, l.status
FROM listings l, json_each(l.categories) j;
CREATE VIEW listing_tags AS
SELECT l.origin, j.value AS tag, l.name, l.format, l.status
FROM listings l, json_each(l.tags) j;
CREATE VIEW listing_formats AS
SELECT l.origin, j.value AS found_format, l.name, l.format, l.status
FROM listings l, json_each(l.formats_found) j;
CREATE VIEW listing_auth_methods AS
SELECT l.origin, j.value AS auth_method, l.name, l.format, l.status
FROM listings l, json_each(l.auth_methods) j;
CREATE VIEW listing_hosts AS
SELECT l.origin, json_extract(h.value, '$.host') AS host, json_extract(h.value, '$.status') AS status,
  json_extract(h.value, '$.notes') AS notes, l.name
FROM listings l, json_each(l.hosts) h;
CREATE VIEW tool_annotations AS
SELECT t.id AS tool_id, t.origin, t.source, t.name AS tool, t.read_only, t.destructive,
  json_extract(t.annotations, '$.title') AS title,
  json_extract(t.annotations, '$.readOnlyHint') AS read_only_hint,
  json_extract(t.annotations, '$.destructiveHint') AS destructive_hint,
  json_extract(t.annotations, '$.idempotentHint') AS idempotent_hint,
  json_extract(t.annotations, '$.openWorldHint') AS open_world_hint
FROM tools t;
CREATE VIEW anchor_prices AS
SELECT c.origin, p.key AS tool_id, json_extract(p.value, '$.declared_usd') AS declared_usd,
  json_extract(p.value, '$.live_usd') AS live_usd,
  round(json_extract(p.value, '$.live_usd') - json_extract(p.value, '$.declared_usd'), 6) AS difference_usd,
  c.status AS check_status, c.detail, c.checked_at
FROM checks c, json_each(c.data) p
WHERE c.name = 'anchor.payments' AND p.type = 'object';
CREATE VIEW read_only_variant_writes AS
SELECT c.origin, v.key AS tool_id, json_extract(v.value, '$.url') AS variant_url,
  w.value AS write_tool, c.status AS check_status, c.checked_at
FROM checks c, json_each(c.data) v,
  json_each(CASE v.type WHEN 'object' THEN v.value ELSE '{}' END, '$.write_tools') w
WHERE c.name = 'anchor.read_only_variant' AND w.type = 'text';
CREATE TABLE robots_txt (
    origin TEXT PRIMARY KEY,                     -- host[:port], as listings.origin
    url TEXT NOT NULL,
    status_code INTEGER,
    body TEXT,                                   -- the rules, UTF-8 (at most 64 KB)
    cache_control TEXT,
    fetched_at TEXT NOT NULL
);
CREATE INDEX listings_next_due_at ON listings(next_due_at) WHERE next_due_at IS NOT NULL;
CREATE INDEX findings_format_origin ON findings(format, origin);
CREATE VIEW consistency_disagreements AS
SELECT f.origin, l.name, l.consistency, f.path AS fact, f.code, f.message, f.crawl_id
FROM findings f JOIN listings l ON l.origin = f.origin
WHERE f.format = 'consistency';
CREATE VIEW tool_flags AS
SELECT f.origin, substr(f.format, 1, length(f.format) - 6) AS source, f.code, f.path, f.message
FROM findings f
WHERE substr(f.format, -6) = '_tools';
CREATE TABLE endpoint_probes (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    crawl_id INTEGER REFERENCES crawls(id),
    role TEXT NOT NULL,                          -- mcp | http_base | openapi | capabilities | homepage | privacy | terms | feedback | guide | llms_txt | skill
    url TEXT NOT NULL,
    state TEXT NOT NULL,                         -- ok | auth_required | payment_required | wrong_transport | not_mcp | not_found | http_error | server_error | tls_error | timeout | dead | blocked
    http_status INTEGER,
    detail TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL
, runs INTEGER NOT NULL DEFAULT 1, last_at TEXT, era TEXT, versions TEXT, server_name TEXT, cause TEXT, auth_kind TEXT);
CREATE INDEX endpoint_probes_endpoint ON endpoint_probes(origin, role, url, id);
CREATE INDEX listings_status_by_name ON listings(status, name IS NULL, name COLLATE NOCASE, origin);
CREATE INDEX listings_format_by_name ON listings(format, name IS NULL, name COLLATE NOCASE, origin);
CREATE INDEX listings_pricing_by_name ON listings(pricing, name IS NULL, name COLLATE NOCASE, origin);
CREATE VIEW x402_live_prices AS
SELECT c.origin, r.key AS resource, json_extract(r.value, '$.method') AS method,
  json_extract(r.value, '$.result') AS result, json_extract(r.value, '$.status') AS http_status,
  (SELECT min(json_extract(d.value, '$.price_usd')) FROM json_each(r.value, '$.declared') d) AS declared_usd,
  json_extract(r.value, '$.live_usd') AS live_usd,
  json_extract(c.data, '$.document') AS document, c.status AS check_status, c.checked_at
FROM checks c, json_each(c.data, '$.resources') r
WHERE c.name = 'x402.live_price';
CREATE TABLE seed_sources (
    id INTEGER PRIMARY KEY,
    origin TEXT,                                 -- the origin named; NULL when the entry was refused
    source TEXT NOT NULL,                        -- registry:https://… or the file read
    name TEXT NOT NULL DEFAULT '',               -- the registry server name, A2A agent, CSV rank or line
    via TEXT NOT NULL DEFAULT '',                -- remote | websiteUrl | agent | domain | line
    url TEXT NOT NULL DEFAULT '',                -- what the source said, verbatim
    status TEXT NOT NULL DEFAULT 'active',       -- the registry's status: active | deprecated | deleted
    status_message TEXT,
    refused TEXT,                                -- why no origin was taken from url (NULL: taken)
    first_seen_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    status_changed_at TEXT, transport TEXT,
    UNIQUE (source, name, via, url)
);
CREATE INDEX seed_sources_origin ON seed_sources(origin);
CREATE TABLE seed_cursors (
    source TEXT PRIMARY KEY,                     -- registry:https://…
    updated_since TEXT NOT NULL,                 -- the newest updatedAt the last run saw: the next run's updated_since
    servers_seen INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL
);
CREATE VIRTUAL TABLE "listings_fts" USING FTS5 (
    "name", "one_liner", "description", "tags", "origin",
    tokenize='porter',
    content="listings"
);
CREATE TABLE 'listings_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
CREATE TABLE 'listings_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
CREATE TABLE 'listings_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
CREATE TABLE 'listings_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
CREATE TRIGGER "listings_ai" AFTER INSERT ON "listings" BEGIN
  INSERT INTO "listings_fts" (rowid, "name", "one_liner", "description", "tags", "origin") VALUES (new.rowid, new."name", new."one_liner", new."description", new."tags", new."origin");
END;
CREATE TRIGGER "listings_ad" AFTER DELETE ON "listings" BEGIN
  INSERT INTO "listings_fts" ("listings_fts", rowid, "name", "one_liner", "description", "tags", "origin") VALUES('delete', old.rowid, old."name", old."one_liner", old."description", old."tags", old."origin");
END;
CREATE TRIGGER listings_au AFTER UPDATE OF name, one_liner, description, tags ON listings BEGIN
  INSERT INTO listings_fts (listings_fts, rowid, name, one_liner, description, tags, origin) VALUES('delete', old.rowid, old.name, old.one_liner, old.description, old.tags, old.origin);
  INSERT INTO listings_fts (rowid, name, one_liner, description, tags, origin) VALUES (new.rowid, new.name, new.one_liner, new.description, new.tags, new.origin);
END;
CREATE TABLE tool_lints (
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    source TEXT NOT NULL,                  -- mcp: the tools the live tools/list gave
    name TEXT NOT NULL,
    input_hash TEXT NOT NULL,              -- TDQS inputHash: sha256 of the canonical definition, 16 hex digits
    errors INTEGER NOT NULL DEFAULT 0,     -- findings of each severity
    warnings INTEGER NOT NULL DEFAULT 0,
    infos INTEGER NOT NULL DEFAULT 0,
    findings TEXT NOT NULL DEFAULT '[]',   -- JSON [{rule, severity, message}]; the message names the fix
    flags TEXT NOT NULL DEFAULT '[]',      -- the hard gates: No Description | Tautological Description
    signals TEXT NOT NULL DEFAULT '{}',    -- the context signals, as the specification names them
    note TEXT,                             -- a budget cut the schema walk short
    spec_version TEXT NOT NULL,            -- the TDQS specification the result follows
    linted_at TEXT NOT NULL,
    PRIMARY KEY (origin, source, name)
);
CREATE TABLE tool_set_lints (
    origin TEXT NOT NULL REFERENCES listings(origin) ON DELETE CASCADE,
    source TEXT NOT NULL,
    tools INTEGER NOT NULL DEFAULT 0,
    with_findings INTEGER NOT NULL DEFAULT 0,  -- tools with at least one finding
    errors INTEGER NOT NULL DEFAULT 0,
    warnings INTEGER NOT NULL DEFAULT 0,
    infos INTEGER NOT NULL DEFAULT 0,
    shadow_candidates TEXT NOT NULL DEFAULT '[]',  -- JSON [{tool, cheaperSibling, invocationCost, cheaperSiblingInvocationCost}]
    refused TEXT,                          -- why TDQS refuses the tool list as a whole (then no tool rows)
    spec_version TEXT NOT NULL,
    linted_at TEXT NOT NULL,
    PRIMARY KEY (origin, source)
);
CREATE VIEW tool_quality AS
SELECT q.origin, l.name AS listing, q.source, q.name AS tool, q.input_hash, q.errors, q.warnings, q.infos,
  (SELECT group_concat(rule, ' ') FROM (SELECT DISTINCT json_extract(j.value, '$.rule') AS rule
     FROM json_each(q.findings) j)) AS rules,
  json_extract(q.signals, '$.paramCount') AS params,
  json_extract(q.signals, '$.paramsWithDescriptions') AS described_params,
  json_extract(q.signals, '$.schemaDescriptionCoverage') AS coverage,
  json_extract(q.signals, '$.hasAnnotations') AS has_annotations,
  json_extract(q.signals, '$.hasOutputSchema') AS has_output_schema,
  json_extract(q.signals, '$.invocationCost') AS invocation_cost,
  json_extract(q.signals, '$.definitionBytes') AS definition_bytes,
  q.spec_version, q.linted_at
FROM tool_lints q JOIN listings l ON l.origin = q.origin;
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
CREATE VIEW endpoint_health AS
WITH r AS (
  SELECT origin, role, url, state, at, coalesce(last_at, at) AS last_at, runs, id,
    coalesce(sum(runs) OVER (PARTITION BY origin, role, url ORDER BY id DESC
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer,
    (state = 'ok' OR (role IN ('x402', 'mcp') AND state = 'payment_required')) AS up
  FROM endpoint_probes)
SELECT origin, role, url,
  max(CASE WHEN newer = 0 THEN state END) AS state,
  min(sum(runs), 10) AS recent_probes,
  sum(CASE WHEN up THEN max(0, min(runs, 10 - newer)) ELSE 0 END) AS recent_ok,
  sum(runs) AS probes,
  min(at) AS first_seen_at,
  max(CASE WHEN up THEN last_at END) AS last_ok_at
FROM r
GROUP BY origin, role, url;
CREATE TABLE answer_sets (
    id INTEGER PRIMARY KEY,
    answers TEXT NOT NULL UNIQUE         -- JSON [[kind, path, status], ...] in the order asked
);
CREATE TABLE empty_origins (
    origin TEXT PRIMARY KEY,
    answers INTEGER NOT NULL REFERENCES answer_sets(id),  -- which paths were asked, what each answered
    first_seen_at TEXT NOT NULL,         -- the first crawl of the origin
    since TEXT,                          -- when these same answers were first had (NULL: first_seen_at)
    asked_at TEXT,                       -- when its discovery paths were last asked (NULL: crawled_at)
    crawled_at TEXT NOT NULL,            -- the last crawl (its manifests are asked every crawl)
    last_crawl_id INTEGER REFERENCES crawls(id),
    unchanged_crawls INTEGER NOT NULL DEFAULT 0,
    next_due_at TEXT,
    fresh_until TEXT,                    -- until when every answer is fresh (RFC 9111); NULL: one is not
    robots_status INTEGER,               -- robots.txt's 4xx (no rules); NULL: its rules are in robots_txt
    robots_at TEXT                       -- when that robots.txt answer was fetched (NULL: crawled_at)
) WITHOUT ROWID;
CREATE INDEX empty_origins_next_due_at ON empty_origins(next_due_at);
CREATE VIEW check_status AS
SELECT l.origin, l.name, l.format, l.status, l.checks_passed, l.checks_failed,
  group_concat(CASE c.status WHEN 'fail' THEN c.name END, ', ') AS failing_checks,
  max(CASE c.name WHEN 'manifest.location' THEN c.status END) AS manifest_location,
  max(CASE c.name WHEN 'manifest.content_type' THEN c.status END) AS manifest_content_type,
  max(CASE c.name WHEN 'manifest.cors' THEN c.status END) AS manifest_cors,
  max(CASE c.name WHEN 'manifest.size' THEN c.status END) AS manifest_size,
  max(CASE c.name WHEN 'guide.reachable' THEN c.status END) AS guide_reachable,
  max(CASE c.name WHEN 'llms_txt.reachable' THEN c.status END) AS llms_txt_reachable,
  max(CASE c.name WHEN 'skill.reachable' THEN c.status END) AS skill_reachable,
  max(CASE c.name WHEN 'homepage.reachable' THEN c.status END) AS homepage_reachable,
  max(CASE c.name WHEN 'policies.privacy' THEN c.status END) AS policies_privacy,
  max(CASE c.name WHEN 'policies.terms' THEN c.status END) AS policies_terms,
  max(CASE c.name WHEN 'mcp.initialize' THEN c.status END) AS mcp_initialize,
  max(CASE c.name WHEN 'mcp.tools' THEN c.status END) AS mcp_tools,
  max(CASE c.name WHEN 'mcp.eras' THEN c.status END) AS mcp_eras,
  max(CASE c.name WHEN 'http.base' THEN c.status END) AS http_base,
  max(CASE c.name WHEN 'http.openapi' THEN c.status END) AS http_openapi,
  max(CASE c.name WHEN 'http.capabilities' THEN c.status END) AS http_capabilities,
  max(CASE c.name WHEN 'feedback.descriptor' THEN c.status END) AS feedback_descriptor,
  max(CASE c.name WHEN 'anchor.verify.dns' THEN c.status END) AS anchor_verify_dns,
  max(CASE c.name WHEN 'anchor.verify.http' THEN c.status END) AS anchor_verify_http,
  max(CASE c.name WHEN 'anchor.verify.registry' THEN c.status END) AS anchor_verify_registry,
  max(CASE c.name WHEN 'anchor.read_only_variant' THEN c.status END) AS anchor_read_only_variant,
  max(CASE c.name WHEN 'anchor.payments' THEN c.status END) AS anchor_payments,
  max(CASE c.name WHEN 'x402.live_price' THEN c.status END) AS x402_live_price
FROM listings l LEFT JOIN checks c ON c.origin = l.origin
GROUP BY l.origin;
CREATE VIEW known_absences AS
SELECT s.origin, s.kind, s.url, s.status_code, s.fetched_at AS absent_since, s.response_at AS last_asked_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', julianday(s.response_at) + min(max(julianday(s.response_at) - julianday(s.fetched_at),
    1.0 / 24), 7.0)) AS next_asked_at,
  s.last_obtained, s.seen
FROM snapshots s
WHERE s.status_code IN (404, 410)
  AND (s.kind IN ('a2a_card', 'server_card', 'api_catalog', 'x402_discovery', 'ai_catalog')
       OR s.kind LIKE 'registry_server_json%')
  AND s.id = (SELECT max(v.id) FROM snapshots v WHERE v.origin = s.origin AND v.url = s.url)
UNION ALL
SELECT e.origin, json_extract(a.value, '$[0]'), 'https://' || e.origin || json_extract(a.value, '$[1]'),
  json_extract(a.value, '$[2]'), e.since, e.asked_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', julianday(e.asked_at) + min(max(julianday(e.asked_at) - julianday(e.since),
    1.0 / 24), 7.0)),
  CASE WHEN e.asked_at < e.crawled_at THEN 'known_absent' ELSE 'fetched' END, max(1, e.unchanged_crawls)
FROM (SELECT origin, answers, coalesce(since, first_seen_at) AS since, coalesce(asked_at, crawled_at) AS asked_at,
    crawled_at, unchanged_crawls FROM empty_origins) e
  JOIN answer_sets n ON n.id = e.answers, json_each(n.answers) a
WHERE json_extract(a.value, '$[2]') IN (404, 410) AND json_extract(a.value, '$[0]') IN ('a2a_card', 'server_card', 'api_catalog', 'x402_discovery', 'ai_catalog');

"""The catalogue's schema, declared table by table, and the migrations that build it.

Every table is created explicitly with its column types (never inferred from a first row),
its foreign keys and the indexes the queries in :mod:`agentdex.db.queries` rely on. A
migration is one small named function; sqlite-utils' :class:`~sqlite_utils.migrations.Migrations`
records each applied one in ``_sqlite_migrations``. Never edit a migration that has
shipped: add the next one (and regenerate ``tests/schema.sql`` with
``python scripts/dump_schema.py``).

Timestamps are ISO 8601 text in UTC (``2026-05-01T12:00:00.000Z``), so they sort as text.
JSON columns hold JSON text; Datasette shows it as such.
"""

from __future__ import annotations

import sqlite3

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from agentdex.db.catalogue_sql import CATALOGUE_001, VERIFICATION_002
from agentdex.db.census_sql import MCP_ERAS_016
from agentdex.db.empty_sql import EMPTY_ORIGINS_020
from agentdex.db.health_sql import AUTH_KIND_018, ENDPOINT_SAMPLES_017

MIGRATION_SET = "agentdex"
migrations = Migrations(MIGRATION_SET)

FTS_COLUMNS = ("name", "one_liner", "description", "tags")


@migrations()
def m001_catalogue(db: Database) -> None:
    """Crawls, blobs, listings, documents, snapshots, findings and events."""
    run_script(db, CATALOGUE_001)


@migrations()
def m002_verification(db: Database) -> None:
    """Verification checks, tools (declared and probed) and feedback receipts."""
    run_script(db, VERIFICATION_002)


@migrations()
def m003_listings_fts(db: Database) -> None:
    """Full-text search over listings, kept in sync by triggers (and filled from the rows
    an older file already holds)."""
    db.table("listings").enable_fts(list(FTS_COLUMNS), create_triggers=True, tokenize="porter")


def _items(column: str, value: str) -> str:
    """One row per item of the JSON array in ``listings.column``, beside the listing's
    identity. The store writes every JSON column with ``json.dumps``, so no row needs a
    validity guard (which would parse each value twice)."""
    return f"""SELECT l.origin, j.value AS {value}, l.name, l.format, l.status
FROM listings l, json_each(l.{column}) j"""


# The checks of DESIGN.md, one column each in check_status (dots become underscores).
CHECK_COLUMNS = (
    "manifest.location",
    "manifest.content_type",
    "manifest.cors",
    "manifest.size",
    "guide.reachable",
    "llms_txt.reachable",
    "skill.reachable",
    "homepage.reachable",
    "policies.privacy",
    "policies.terms",
    "mcp.initialize",
    "mcp.tools",
    "http.base",
    "http.openapi",
    "http.capabilities",
    "feedback.descriptor",
    "anchor.verify.dns",
    "anchor.verify.http",
    "anchor.verify.registry",
    "anchor.read_only_variant",
    "anchor.payments",
)


def _check_status_view(columns: tuple[str, ...] = CHECK_COLUMNS) -> str:
    pivot = ",\n".join(
        f"  max(CASE c.name WHEN '{name}' THEN c.status END) AS {name.replace('.', '_')}" for name in columns
    )
    return f"""CREATE VIEW check_status AS
SELECT l.origin, l.name, l.format, l.status, l.checks_passed, l.checks_failed,
  group_concat(CASE c.status WHEN 'fail' THEN c.name END, ', ') AS failing_checks,
{pivot}
FROM listings l LEFT JOIN checks c ON c.origin = l.origin
GROUP BY l.origin;"""


# MCP tool annotations (spec names) flattened to columns: 1 true, 0 false, NULL not stated.
HINTS = (
    ("title", "title"),
    ("readOnlyHint", "read_only_hint"),
    ("destructiveHint", "destructive_hint"),
    ("idempotentHint", "idempotent_hint"),
    ("openWorldHint", "open_world_hint"),
)


def _hints(column: str) -> str:
    return ",\n".join(f"  json_extract({column}, '$.{key}') AS {name}" for key, name in HINTS)


def _views() -> str:
    # The indexes serve Datasette: the pricing facet; covering indexes for the canned queries
    # on names and on formats x categories (no wide listing row read); failing checks and
    # destructive tools read in the order the queries list them, so the first page streams.
    return f"""
CREATE INDEX listings_pricing ON listings(pricing);
CREATE INDEX listings_status_name ON listings(status, name COLLATE NOCASE, origin);
CREATE INDEX listings_status_format_categories ON listings(status, format, categories);
CREATE INDEX checks_status_name ON checks(status, name, origin);
CREATE INDEX tools_destructive ON tools(origin, name) WHERE destructive = 1;
CREATE VIEW listing_categories AS
{_items("categories", "category")};
CREATE VIEW listing_tags AS
{_items("tags", "tag")};
CREATE VIEW listing_formats AS
{_items("formats_found", "found_format")};
CREATE VIEW listing_auth_methods AS
{_items("auth_methods", "auth_method")};
CREATE VIEW listing_hosts AS
SELECT l.origin, json_extract(h.value, '$.host') AS host, json_extract(h.value, '$.status') AS status,
  json_extract(h.value, '$.notes') AS notes, l.name
FROM listings l, json_each(l.hosts) h;
CREATE VIEW tool_annotations AS
SELECT t.id AS tool_id, t.origin, t.source, t.name AS tool, t.read_only, t.destructive,
{_hints("t.annotations")}
FROM tools t;
{_check_status_view()}
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
  json_each(CASE v.type WHEN 'object' THEN v.value ELSE '{{}}' END, '$.write_tools') w
WHERE c.name = 'anchor.read_only_variant' AND w.type = 'text';
"""


@migrations()
def m004_views(db: Database) -> None:
    """Views that flatten the JSON columns analysts filter on (categories, tags, formats
    found, auth methods, AI hosts, tool annotations, Anchor prices and read-only variants),
    one row of check statuses per listing, and the indexes that let Datasette's facets and
    canned queries stream their first page instead of sorting the whole catalogue."""
    run_script(db, _views())


_RECRAWL = """
CREATE TABLE robots_txt (
    origin TEXT PRIMARY KEY,                     -- host[:port], as listings.origin
    url TEXT NOT NULL,
    status_code INTEGER,
    body TEXT,                                   -- the rules, UTF-8 (at most 64 KB)
    cache_control TEXT,
    fetched_at TEXT NOT NULL
);
ALTER TABLE listings ADD COLUMN manifests_sha256 TEXT;  -- {format: sha256} the listing was parsed from
ALTER TABLE listings ADD COLUMN declared_documents TEXT;  -- {kind: url} the listing declares
ALTER TABLE crawls ADD COLUMN pid INTEGER;        -- the process running it, so a killed run can be told apart
ALTER TABLE crawls ADD COLUMN machine TEXT;    -- a hash of the machine's name (the name itself is not published)
DROP TRIGGER listings_au;
CREATE TRIGGER listings_au AFTER UPDATE OF name, one_liner, description, tags ON listings BEGIN
  INSERT INTO listings_fts (listings_fts, rowid, name, one_liner, description, tags) VALUES('delete', old.rowid, old.name, old.one_liner, old.description, old.tags);
  INSERT INTO listings_fts (rowid, name, one_liner, description, tags) VALUES (new.rowid, new.name, new.one_liner, new.description, new.tags);
END;
"""


@migrations()
def m005_recrawl(db: Database) -> None:
    """What lets a recrawl of an unchanged origin skip work: each origin's robots.txt (RFC
    9309 lets a crawler reuse it for up to 24 hours) and, beside each listing, the manifest
    bytes it was parsed from and the documents it declares (a 304 for the same bytes then
    needs no parse and no validation to know which documents to revalidate); and which
    process runs each crawl, so a run that was killed is not shown as running forever.
    The full-text index is rewritten only when a searched column changes (it was on every
    update of a listing, the crawl time of an unchanged origin included)."""
    run_script(db, _RECRAWL)


_SCHEDULE = """
ALTER TABLE snapshots ADD COLUMN obtained TEXT;   -- fetched | revalidated (a 304) | fresh (not asked: still fresh)
ALTER TABLE snapshots ADD COLUMN response_at TEXT;  -- when the answer this row stands on arrived
ALTER TABLE snapshots ADD COLUMN fresh_until TEXT;  -- when that answer stops being fresh (RFC 9111); NULL: never fresh
UPDATE snapshots SET obtained = CASE WHEN not_modified = 1 THEN 'revalidated' ELSE 'fetched' END,
  response_at = fetched_at;
ALTER TABLE listings ADD COLUMN next_due_at TEXT;  -- when the schedule next wants this origin crawled
ALTER TABLE listings ADD COLUMN recrawl_interval INTEGER;  -- seconds from the last crawl to next_due_at's base
ALTER TABLE listings ADD COLUMN unchanged_crawls INTEGER NOT NULL DEFAULT 0;  -- crawls in a row that found no change
UPDATE listings SET next_due_at = last_crawled_at, recrawl_interval = 3600
  WHERE origin IN (SELECT origin FROM snapshots WHERE url LIKE 'https://%');
CREATE INDEX listings_next_due_at ON listings(next_due_at) WHERE next_due_at IS NOT NULL;
"""


@migrations()
def m006_schedule(db: Database) -> None:
    """HTTP freshness and the due-first schedule: each snapshot says how it was obtained
    (fetched, revalidated by a 304, or not asked because the stored answer was still fresh),
    when the answer it stands on arrived and until when it is fresh; each listing has a
    next-due time, the interval behind it and how many crawls in a row found no change.
    Existing web origins become due at their last crawl (the next ``crawl --due`` takes
    them all); older snapshots are marked fetched or revalidated from ``not_modified``."""
    run_script(db, _SCHEDULE)


_CROSSCHECK = """
ALTER TABLE listings ADD COLUMN consistency TEXT;  -- consistent | inconsistent | single-source; NULL: never compared
ALTER TABLE listings ADD COLUMN consistency_sources TEXT;  -- JSON list of the documents (and live answers) compared
ALTER TABLE listings ADD COLUMN disagreements INTEGER NOT NULL DEFAULT 0;  -- how many facts two sources state differently
ALTER TABLE tools ADD COLUMN fingerprint TEXT;  -- sha256 of the tool's name, description, input schema and annotations
CREATE INDEX findings_format_origin ON findings(format, origin);
CREATE VIEW consistency_disagreements AS
SELECT f.origin, l.name, l.consistency, f.path AS fact, f.code, f.message, f.crawl_id
FROM findings f JOIN listings l ON l.origin = f.origin
WHERE f.format = 'consistency';
CREATE VIEW tool_flags AS
SELECT f.origin, substr(f.format, 1, length(f.format) - 6) AS source, f.code, f.path, f.message
FROM findings f
WHERE substr(f.format, -6) = '_tools';
"""


@migrations()
def m007_crosscheck(db: Database) -> None:
    """Cross-format consistency and tool fingerprints: each listing's verdict (consistent,
    inconsistent or single-source), the sources compared and how many facts disagree (each
    disagreement is a finding of format ``consistency`` naming both documents and both
    values); each tool's fingerprint; views of the disagreements and of the tool flags."""
    run_script(db, _CROSSCHECK)


# How many of an endpoint's latest probes its uptime is computed over (the view and
# agentdex.db.health read the same number).
RECENT_PROBES = 10


def _endpoint_health_view(up: str = "state = 'ok'") -> str:
    """The ``endpoint_health`` view, a probe counting as up when ``up`` holds of its ``state``
    (and of the endpoint's role, ``p.role``)."""
    return f"""CREATE VIEW endpoint_health AS
SELECT p.origin, p.role, p.url,
  (SELECT q.state FROM endpoint_probes q WHERE q.origin = p.origin AND q.role = p.role AND q.url = p.url
     ORDER BY q.id DESC LIMIT 1) AS state,
  (SELECT count(*) FROM (SELECT 1 FROM endpoint_probes q WHERE q.origin = p.origin AND q.role = p.role
     AND q.url = p.url ORDER BY q.id DESC LIMIT {RECENT_PROBES})) AS recent_probes,
  (SELECT count(*) FROM (SELECT q.state FROM endpoint_probes q WHERE q.origin = p.origin AND q.role = p.role
     AND q.url = p.url ORDER BY q.id DESC LIMIT {RECENT_PROBES}) WHERE {up}) AS recent_ok,
  count(*) AS probes,
  min(p.at) AS first_seen_at,
  max(CASE WHEN {up.replace("state", "p.state")} THEN p.at END) AS last_ok_at
FROM endpoint_probes p
GROUP BY p.origin, p.role, p.url;"""


_HEALTH = f"""
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
);
CREATE INDEX endpoint_probes_endpoint ON endpoint_probes(origin, role, url, id);
{_endpoint_health_view()}
"""


@migrations()
def m008_endpoint_health(db: Database) -> None:
    """Endpoint health over time: every verified crawl's state of each endpoint a listing
    depends on (the MCP endpoint, the API base and its documents, the homepage, policies,
    feedback route and declared documents), and a view of each endpoint's latest state, its
    uptime over its last probes, and when it was first seen and last ok."""
    run_script(db, _HEALTH)


_FILTER_INDEXES = """
CREATE INDEX listings_status_by_name ON listings(status, name IS NULL, name COLLATE NOCASE, origin);
CREATE INDEX listings_format_by_name ON listings(format, name IS NULL, name COLLATE NOCASE, origin);
CREATE INDEX listings_pricing_by_name ON listings(pricing, name IS NULL, name COLLATE NOCASE, origin);
"""


@migrations()
def m009_filter_indexes(db: Database) -> None:
    """Indexes in the catalogue's default order (named first, by name, ties by origin) under
    each single-column filter the TUI and ``list`` offer (status, format, pricing): a
    filtered page then reads one window of the index instead of sorting every match
    (``status = listed`` took ~180 ms at 100,000 listings, now under 1 ms)."""
    run_script(db, _FILTER_INDEXES)


# The checks added after m004, each a column of check_status from m010 on.
X402_CHECK_COLUMNS = ("x402.live_price",)
# Besides ok, the state that counts as up (uptime, last ok) for an endpoint of a role: a paid
# x402 resource is doing its job when an unpaid request gets 402. agentdex.db.queries reads it.
UP_BY_ROLE = {"x402": "payment_required"}

_X402_LIVE = f"""
DROP VIEW check_status;
{_check_status_view(CHECK_COLUMNS + X402_CHECK_COLUMNS)}
DROP VIEW endpoint_health;
{_endpoint_health_view("state = 'ok' OR (p.role = 'x402' AND state = 'payment_required')")}
CREATE VIEW x402_live_prices AS
SELECT c.origin, r.key AS resource, json_extract(r.value, '$.method') AS method,
  json_extract(r.value, '$.result') AS result, json_extract(r.value, '$.status') AS http_status,
  (SELECT min(json_extract(d.value, '$.price_usd')) FROM json_each(r.value, '$.declared') d) AS declared_usd,
  json_extract(r.value, '$.live_usd') AS live_usd,
  json_extract(c.data, '$.document') AS document, c.status AS check_status, c.checked_at
FROM checks c, json_each(c.data, '$.resources') r
WHERE c.name = 'x402.live_price';
"""


@migrations()
def m010_x402_live(db: Database) -> None:
    """The live 402 of the resources an x402 discovery document declares: a ``check_status``
    column for the ``x402.live_price`` check, a view of each resource asked (declared against
    live price, the outcome), and endpoint health that counts a paid x402 resource (role
    ``x402``) up when it answers 402 (``recent_ok``, ``last_ok_at``)."""
    run_script(db, _X402_LIVE)


_SEEDS = """
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
    status_changed_at TEXT,
    UNIQUE (source, name, via, url)
);
CREATE INDEX seed_sources_origin ON seed_sources(origin);
CREATE TABLE seed_cursors (
    source TEXT PRIMARY KEY,                     -- registry:https://…
    updated_since TEXT NOT NULL,                 -- the newest updatedAt the last run saw: the next run's updated_since
    servers_seen INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL
);
CREATE VIEW mcp_census AS
WITH latest AS (  -- each MCP endpoint's latest probe: one pass over the (origin, role, url, id) index
  SELECT p.origin, p.url, p.state, p.detail
  FROM endpoint_probes p
  JOIN (SELECT max(id) AS id FROM endpoint_probes WHERE role = 'mcp' GROUP BY origin, url) m ON m.id = p.id
),
probed AS (
  SELECT url, origin, state, detail,
    CASE
      WHEN state = 'ok' AND detail LIKE '%notifications/initialized rejected%' THEN 'initialized_rejected'
      WHEN state = 'ok' THEN 'open'
      WHEN state = 'auth_required' THEN 'auth_gated'
      WHEN state = 'payment_required' THEN 'payment_required'
      WHEN state = 'wrong_transport' THEN 'wrong_transport'
      WHEN state IN ('not_mcp', 'not_found', 'http_error') THEN 'not_mcp'
      WHEN state = 'dead' AND (detail LIKE '%could not be resolved%' OR detail LIKE '%resolved to no address%')
        THEN 'dns_gone'
      ELSE 'unreachable'
    END AS census
  FROM latest
),
templated AS (
  SELECT DISTINCT s.url, NULL AS origin, 'template' AS state, s.refused AS detail, 'template_not_expanded' AS census
  FROM seed_sources s WHERE s.via = 'remote' AND s.refused LIKE 'an unexpanded URL template%'
),
unprobed AS (
  SELECT DISTINCT s.url, s.origin, 'not_probed' AS state, '' AS detail, 'not_probed' AS census
  FROM seed_sources s WHERE s.via = 'remote' AND s.refused IS NULL
    AND s.url NOT IN (SELECT url FROM probed)
)
SELECT * FROM probed UNION ALL SELECT * FROM templated UNION ALL SELECT * FROM unprobed;
"""


@migrations()
def m011_seed_sources(db: Database) -> None:
    """Where origins come from: every entry a seed source (an MCP registry, a saved dump of
    its pages, an A2A registry listing, a domain list) named, the origin taken from it or
    why none was, and the registry's status of it; each registry's ``updated_since`` for the
    next incremental run; and ``mcp_census``, one row per MCP endpoint the catalogue knows
    (probed by a crawl, or named by a registry) with its census state."""
    run_script(db, _SEEDS)


def _run_health_view(up: str) -> str:
    """``endpoint_health`` over probe rows that each stand for ``runs`` probes in a row with
    the same state: the last :data:`RECENT_PROBES` probes are counted across rows."""
    return f"""CREATE VIEW endpoint_health AS
WITH r AS (
  SELECT origin, role, url, state, at, coalesce(last_at, at) AS last_at, runs, id,
    coalesce(sum(runs) OVER (PARTITION BY origin, role, url ORDER BY id DESC
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer,
    ({up}) AS up
  FROM endpoint_probes)
SELECT origin, role, url,
  max(CASE WHEN newer = 0 THEN state END) AS state,
  min(sum(runs), {RECENT_PROBES}) AS recent_probes,
  sum(CASE WHEN up THEN max(0, min(runs, {RECENT_PROBES} - newer)) ELSE 0 END) AS recent_ok,
  sum(runs) AS probes,
  min(at) AS first_seen_at,
  max(CASE WHEN up THEN last_at END) AS last_ok_at
FROM r
GROUP BY origin, role, url;"""


_SIGHTINGS = f"""
ALTER TABLE snapshots ADD COLUMN last_crawl_id INTEGER REFERENCES crawls(id);  -- the latest run that got this same answer
ALTER TABLE snapshots ADD COLUMN last_seen_at TEXT;  -- when that run got it (fetched_at: when it was first got)
ALTER TABLE snapshots ADD COLUMN last_obtained TEXT;  -- how that run got it: fetched | revalidated | fresh
ALTER TABLE snapshots ADD COLUMN seen INTEGER NOT NULL DEFAULT 1;  -- how many runs got this same answer
UPDATE snapshots SET last_crawl_id = crawl_id, last_seen_at = fetched_at, last_obtained = obtained;
ALTER TABLE endpoint_probes ADD COLUMN runs INTEGER NOT NULL DEFAULT 1;  -- probes in a row that found this state
ALTER TABLE endpoint_probes ADD COLUMN last_at TEXT;  -- the latest of them (at: the first)
DROP VIEW endpoint_health;
{_run_health_view("state = 'ok' OR (role = 'x402' AND state = 'payment_required')")}
CREATE VIEW known_absences AS
SELECT s.origin, s.kind, s.url, s.status_code, s.fetched_at AS absent_since, s.response_at AS last_asked_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', julianday(s.response_at) + min(max(julianday(s.response_at) - julianday(s.fetched_at),
    1.0 / 24), 7.0)) AS next_asked_at,
  s.last_obtained, s.seen
FROM snapshots s
WHERE s.status_code IN (404, 410)
  AND (s.kind IN ('a2a_card', 'server_card', 'api_catalog', 'x402_discovery', 'ai_catalog')
       OR s.kind LIKE 'registry_server_json%')
  AND s.id = (SELECT max(v.id) FROM snapshots v WHERE v.origin = s.origin AND v.url = s.url);
"""


@migrations()
def m012_sightings(db: Database) -> None:
    """A recrawl of an unchanged web stops growing the catalogue: a snapshot is one answer of
    a URL, seen by one run or many in a row. An answer the same as the URL's latest (the same
    status, body, validators and error; a 304 or a fresh answer standing for it) extends that
    row: the last run, time and way it was obtained, and how many runs got it. A changed
    answer is a new row, so every event keeps the snapshots before and after it (the row
    standing when its run began and the row its run added). Existing rows are one sighting
    each. (No index on the new columns: each would be rewritten on every recrawl.)

    Endpoint probes the same way: a probe that finds an endpoint in the state of its latest
    row extends that row (``runs``, ``last_at``), and ``endpoint_health`` counts uptime over
    the last probes across rows.

    The ``known_absences`` view: each discovery path (and registry page) whose latest answer
    is a 404 or 410, since when, when last asked and when a revalidating crawl asks it next
    (the schedule of :func:`agentdex.schedule.absence_recheck_at`: as long again as it has
    been absent, from 1 hour to 7 days)."""
    run_script(db, _SIGHTINGS)


# The origin joins the searched text: a domain or part of one ("kitchen-7a", "pantry.test")
# finds its listing, and so does a listing that has no name or description to match.
FTS_COLUMNS_016 = (*FTS_COLUMNS, "origin")


@migrations()
def m013_search_origins(db: Database) -> None:
    """Full-text search over the origin (host name) too, beside the name, one-liner,
    description and tags; the index is rebuilt from the rows the file holds."""
    # By name: sqlite-utils' disable_fts leaves the triggers of an index it did not build here.
    for trigger in ("listings_ai", "listings_ad", "listings_au"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP TABLE IF EXISTS listings_fts")
    db.table("listings").enable_fts(list(FTS_COLUMNS_016), create_triggers=True, tokenize="porter")
    run_script(db, _SEARCHED_UPDATES_016)


# As m005 made it: an update re-indexes a listing only when a searched column changes (a
# recrawl rewrites every row; the origin, its key, never changes).
_SEARCHED_UPDATES_016 = """
DROP TRIGGER listings_au;
CREATE TRIGGER listings_au AFTER UPDATE OF name, one_liner, description, tags ON listings BEGIN
  INSERT INTO listings_fts (listings_fts, rowid, name, one_liner, description, tags, origin) VALUES('delete', old.rowid, old.name, old.one_liner, old.description, old.tags, old.origin);
  INSERT INTO listings_fts (rowid, name, one_liner, description, tags, origin) VALUES (new.rowid, new.name, new.one_liner, new.description, new.tags, new.origin);
END;
"""


_TOOL_QUALITY = """
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
"""


@migrations()
def m014_tool_quality(db: Database) -> None:
    """Tool-definition quality (TDQS lint, agentdex/formats/tool_quality.py): each MCP tool's
    ``inputHash``, findings, hard-gate flags and context signals; each tool set's counts by
    severity, shadow candidates or why TDQS refused it; the specification version with every
    result; the ``tool_quality`` view."""
    run_script(db, _TOOL_QUALITY)


@migrations()
def m015_seed_transport(db: Database) -> None:
    """The transport a registry entry declares for each remote it names (``remotes[].type``:
    ``streamable-http`` or ``sse``), so the crawl probes a registry's endpoint over it."""
    db.execute("ALTER TABLE seed_sources ADD COLUMN transport TEXT")


@migrations()
def m016_mcp_eras(db: Database) -> None:
    """The eras of MCP (2026-07-28 and the handshake before it): each MCP endpoint probe
    records the eras that answered (``era``), the revisions seen (``versions``) and the
    server's self-reported name; every endpoint probe records agentdex's own ``cause`` for
    what its state does not say. ``mcp_census`` counts from states and causes only (before,
    it matched detail text, which a server's status line could fake), with ``incompatible``
    (MCP of a revision agentdex does not speak) and each endpoint's era. ``check_status``
    gains the ``mcp.eras`` check (a dual-era endpoint's two tool lists compared)."""
    run_script(db, MCP_ERAS_016)
    run_script(
        db, f"DROP VIEW check_status;\n{_check_status_view(CHECK_COLUMNS + X402_CHECK_COLUMNS + ('mcp.eras',))};"
    )


@migrations()
def m017_endpoint_samples(db: Database) -> None:
    """Every endpoint probe as a sample (``endpoint_samples``: when, up/down/unmeasurable, how
    long, verified by what): the uptime windows, latency percentiles and the two-failure
    health rule read them (:mod:`agentdex.db.health`)."""
    run_script(db, ENDPOINT_SAMPLES_017)


@migrations()
def m018_auth_kind(db: Database) -> None:
    """An MCP endpoint probe's auth posture (``auth_kind``, :mod:`agentdex.crawler.auth_posture`):
    read from the unauthenticated answers and the OAuth metadata, never a flow followed."""
    run_script(db, AUTH_KIND_018)


# A paid MCP endpoint answering 402 is up too, as agentdex.db.queries.endpoint_health (CLI,
# TUI Health) and mcp.initialize already had it: alive, asking for the payment it declares.
PAID_UP_019 = "state = 'ok' OR (role IN ('x402', 'mcp') AND state = 'payment_required')"


@migrations()
def m019_paid_mcp_up(db: Database) -> None:
    """``endpoint_health`` (and the Datasette queries over it) counts an MCP endpoint that
    answers 402 as up, as an x402 resource answering 402 already was (``recent_ok``,
    ``last_ok_at``); before, it called a paid MCP endpoint down while Health and Checks
    passed it."""
    run_script(db, f"DROP VIEW endpoint_health;\n{_run_health_view(PAID_UP_019)}")


@migrations()
def m020_empty_origins(db: Database) -> None:
    """An origin where discovery found nothing is one compact row (``empty_origins``, its
    answers an ``answer_sets`` row shared by every origin that answered the same) instead of a
    listing row, a snapshot a path and a robots.txt row (:mod:`agentdex.db.empty`). Stored
    empty origins stay as they are: the next crawl that finds one empty again makes it compact."""
    run_script(db, EMPTY_ORIGINS_020)


def known_names() -> list[str]:
    """The names of every migration this code knows, in order: those an empty database has
    pending (sqlite-utils lists its migrations only through ``pending`` and ``applied``)."""
    return [m.name for m in migrations.pending(Database(memory=True))]


def applied_names(db: Database) -> list[str]:
    """The names of the migrations applied to ``db`` (read only)."""
    return [m.name for m in migrations.applied(db)]


def run_script(db: Database, sql: str) -> None:
    """Run the statements of ``sql`` one after another in the caller's transaction.

    Why not sqlite-utils' ``executescript``: inside a transaction it finds each statement's
    end by asking ``sqlite3.complete_statement`` of every prefix of the script, one
    character longer each time, 36,633 calls for a new catalogue's migrations (about 0.06 of
    the 0.14 CPU s that creating a catalogue took, paid by every ``crawl --shard`` of a
    sweep). A statement can only end at a ``;``, so it is asked there only; SQLite's own
    ``complete_statement`` still decides (a ``;`` inside a string or a trigger's body does not
    end one).
    """
    statement = ""
    for piece in sql.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            db.conn.execute(statement)
            statement = ""
    if statement.rstrip(";").strip():  # text after the last complete statement
        raise sqlite3.OperationalError(f"incomplete SQL statement: {statement.strip()[:80]}")


def migrate(db: Database) -> list[str]:
    """Apply every pending migration; return the names applied.

    The whole upgrade runs in one ``BEGIN IMMEDIATE`` transaction (each migration inside it
    in its own savepoint), so two processes opening an old file at once upgrade it once,
    and a failed upgrade leaves the file as it was.
    """
    if not migrations.pending(db):
        return []
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        pending = [m.name for m in migrations.pending(db)]
        migrations.apply(db)
    except BaseException:
        db.rollback()
        raise
    db.conn.execute("COMMIT")
    return pending

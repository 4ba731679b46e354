"""The SQL of the first two migrations (:func:`agentdex.db.migrations.m001_catalogue`,
``m002_verification``): the catalogue's tables as the first schema version declared them,
kept apart so the migrations module stays readable. Like every shipped migration they never
change (later migrations alter them; ``tests/schema.sql`` is the schema as it stands)."""

CATALOGUE_001 = """
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
);
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
);
CREATE INDEX listings_status ON listings(status);
CREATE INDEX listings_format ON listings(format);
CREATE INDEX listings_name ON listings(name IS NULL, name COLLATE NOCASE, origin);  -- the default sort, unnamed last
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
);
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
"""

VERIFICATION_002 = """
ALTER TABLE listings ADD COLUMN checks_passed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE listings ADD COLUMN checks_failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE listings ADD COLUMN mcp_tools_checked_at TEXT;
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
);
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
"""

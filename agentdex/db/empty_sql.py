"""The SQL of migration m020 (:func:`agentdex.db.migrations.m020_empty_origins`), kept apart
so the migrations module stays readable. Like every shipped migration it never changes.

An origin where discovery found nothing (every path it was asked answered a plain non-2xx
status, nothing parsed, nothing declared on it) is one row of ``empty_origins`` instead of a
listing row, a snapshot a path and a robots.txt row (:mod:`agentdex.db.empty` writes and
reads it). What its paths answered is an ``answer_sets`` row, stored once however many
origins answered the same (nearly every empty origin of a sweep answers 404 to every path).
A time that is the same as another column's is NULL (a few bytes instead of 24, a row an origin).
"""

EMPTY_ORIGINS_020 = """
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
"""

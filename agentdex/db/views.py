"""Views built from the code's catalogues each time a writer opens the catalogue.

``check_status`` has one column per verification check. The checks live in one catalogue
(:mod:`agentdex.checks`); building the view from it when the file is opened for writing means
a new check is one catalogue entry and one runner, not also a migration. ``known_absences``
names the discovery documents whose 404 or 410 is an absence worth knowing, from the format
registry (:mod:`agentdex.formats`): a new discovery format is one module. Migrations still
create the tables (and the views as they stood then, so an upgrade replays history); this
module only replaces a view whose SQL differs from what the catalogue asks for. Readers never
write: a file that no writer has opened since a check was added keeps its old view until the
next crawl, verify or import opens it.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from agentdex import checks, formats
from agentdex.formats import registry_server_json


def check_status_sql(names: Iterable[str]) -> str:
    """``CREATE VIEW check_status``: a listing a row, a column per check (dots become
    underscores) holding that check's status, and the failing checks' names together."""
    pivot = ",\n".join(
        f"  max(CASE c.name WHEN '{name}' THEN c.status END) AS {name.replace('.', '_')}" for name in names
    )
    return f"""CREATE VIEW check_status AS
SELECT l.origin, l.name, l.format, l.status, l.checks_passed, l.checks_failed,
  group_concat(CASE c.status WHEN 'fail' THEN c.name END, ', ') AS failing_checks,
{pivot}
FROM listings l LEFT JOIN checks c ON c.origin = l.origin
GROUP BY l.origin"""


def absence_kinds() -> tuple[str, ...]:
    """The discovery documents an origin is asked for at fixed paths, from the format
    registry (a registry page, linked rather than at a path, is named by its prefix)."""
    return tuple(name for name, spec in formats.REGISTRY.items() if spec.discovery and spec.paths)


def known_absences_sql(kinds: Iterable[str], registry_prefix: str = registry_server_json.NAME) -> str:
    """``CREATE VIEW known_absences``: each discovery path of ``kinds`` (and each registry
    page) whose latest answer is a 404 or 410, since when, when last asked and when a
    revalidating crawl asks it next (:func:`agentdex.schedule.absence_recheck_at`: as long
    again as it has been absent, from 1 hour to 7 days); an empty origin's
    (:mod:`agentdex.db.empty`) from its answer set."""
    names = ", ".join(f"'{kind}'" for kind in kinds)
    return f"""CREATE VIEW known_absences AS
SELECT s.origin, s.kind, s.url, s.status_code, s.fetched_at AS absent_since, s.response_at AS last_asked_at,
  strftime('%Y-%m-%dT%H:%M:%fZ', julianday(s.response_at) + min(max(julianday(s.response_at) - julianday(s.fetched_at),
    1.0 / 24), 7.0)) AS next_asked_at,
  s.last_obtained, s.seen
FROM snapshots s
WHERE s.status_code IN (404, 410)
  AND (s.kind IN ({names})
       OR s.kind LIKE '{registry_prefix}%')
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
WHERE json_extract(a.value, '$[2]') IN (404, 410) AND json_extract(a.value, '$[0]') IN ({names})"""


def wanted_views() -> dict[str, str]:
    """Each catalogue-built view's name and the SQL that creates it from the code of now."""
    return {"check_status": check_status_sql(checks.CHECKS), "known_absences": known_absences_sql(absence_kinds())}


def sync_views(db: Database) -> list[str]:
    """Replace every catalogue-built view whose stored SQL is not what the code asks for, in
    one transaction; return the names replaced (none when the file is up to date)."""
    stale = {name: sql for name, sql in wanted_views().items() if _stored_sql(db, name) != sql}
    if not stale:
        return []
    # Python's sqlite3 opens no transaction for DDL by itself: ask for one, so that two
    # writers opening the file at once replace the view once and a reader never sees none.
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        for name, sql in stale.items():
            db.conn.execute(f"DROP VIEW IF EXISTS {name}")
            db.conn.execute(sql)
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.execute("COMMIT")
    return list(stale)


def _stored_sql(db: Database, name: str) -> str | None:
    row = db.conn.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", (name,)).fetchone()
    return row[0] if row else None

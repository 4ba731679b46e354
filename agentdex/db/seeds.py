"""Seed sources in the catalogue: which source named each origin (``seed_sources``), each
registry's ``updated_since`` for the next incremental run (``seed_cursors``), and the change
events a registry's status brings (``registry_deprecated``, ``registry_deleted``,
``registry_active`` on an origin the catalogue lists), plus the census of MCP endpoints
(the ``mcp_census`` view of migration 011)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from sqlite_utils import Database

from agentdex.db.common import dumps, loads, safe_text, utc_now
from agentdex.db.health import NO_HISTORY, auth_kinds, windows
from agentdex.db.tool_quality import quality_share

# The registry statuses that become an event on a listed origin when they change.
STATUS_EVENTS = {"deprecated": "registry_deprecated", "deleted": "registry_deleted", "active": "registry_active"}
KEY = ("source", "name", "via", "url")
# The census states, in the order a report lists them.
CENSUS_STATES = (
    "open",
    "auth_gated",
    "payment_required",
    "wrong_transport",
    "incompatible",
    "not_mcp",
    "unreachable",
    "dns_gone",
    "initialized_rejected",
    "template_not_expanded",
    "not_probed",
)
# The eras of MCP an endpoint answered in: the initialize handshake only (legacy), both, or
# revision 2026-07-28 only (modern); unknown when no answer told (or never probed).
CENSUS_ERAS = ("legacy", "dual", "modern", "unknown")
# The auth postures the census counts (agentdex.crawler.auth_posture.KINDS; db never imports crawler).
AUTH_KINDS = ("none", "oauth_dcr", "oauth_cimd", "oauth", "bearer", "api_key", "payment", "unknown")


def load_cursors(db: Database) -> dict[str, str]:
    """``{source: updated_since}`` of every registry a run has read."""
    return {row[0]: row[1] for row in db.execute("SELECT source, updated_since FROM seed_cursors")}


def save_run(
    db: Database, rows: list[dict[str, Any]], cursors: dict[str, str], seen: dict[str, int], at: str | None = None
) -> list[dict[str, Any]]:
    """Record every naming of a seeds run (:func:`agentdex.seeds.as_rows`) and the registries'
    cursors in one transaction; returns the events written (a listed origin whose registry
    status changed)."""
    at = at or utc_now()
    events: list[dict[str, Any]] = []
    with db.conn:
        for row in rows:
            events += _save_row(db, row, at)
        for source, since in cursors.items():
            db.execute(
                "INSERT INTO seed_cursors (source, updated_since, servers_seen, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(source) DO UPDATE SET updated_since = excluded.updated_since, "
                "servers_seen = excluded.servers_seen, at = excluded.at",
                [source, since, seen.get(source, 0), at],
            )
    return events


class RunWriter:
    """Writes a seeds run as it is read: each batch of namings (rows of
    :func:`agentdex.seeds.naming_row`) in one transaction into ``seed_sources`` (with the
    status events) and into a temporary table of this run, from which :meth:`rows` reads the
    run back in run order. Memory holds one batch, never the run."""

    def __init__(self, db: Database, at: str | None = None) -> None:
        self.db = db
        self.at = at or utc_now()
        self.events = 0
        self.sources: dict[str, int] = {}  # source: its number, in the order the run read them
        db.execute("DROP TABLE IF EXISTS temp.seed_run")
        db.execute(
            "CREATE TEMP TABLE seed_run (origin TEXT, row TEXT NOT NULL, source_number INTEGER NOT NULL, "
            "rank INTEGER, UNIQUE (origin, row))"
        )

    def write(self, rows: list[dict[str, Any]]) -> None:
        """Record one batch."""
        with self.db.conn:
            for row in rows:
                self.events += len(_save_row(self.db, row, self.at))
                number = self.sources.setdefault(row["source"], len(self.sources))
                self.db.execute(
                    "INSERT OR IGNORE INTO temp.seed_run (origin, row, source_number, rank) VALUES (?, ?, ?, ?)",
                    # json.dumps writes ASCII: a lone surrogate cannot reach SQLite
                    [row["origin"], json.dumps(row), number, row.get("rank")],
                )

    def save_cursors(self, cursors: dict[str, str], seen: dict[str, int]) -> None:
        """Record each registry's ``updated_since`` for the next run (a read cut short has none)."""
        save_run(self.db, [], cursors, seen, self.at)

    def rows(self) -> Iterator[dict[str, Any]]:
        """The run's rows, by origin in run order (:data:`PLACES`), each origin's rows in that
        order too; then the refused ones, in the order read."""
        query = (
            f"{PLACES}, firsts AS (SELECT origin, min(place) AS first FROM placed GROUP BY origin) "
            "SELECT row FROM placed LEFT JOIN firsts USING (origin) ORDER BY origin IS NULL, first, place"
        )
        for (text,) in self.db.conn.execute(query):
            yield json.loads(text)

    def origins(self) -> Iterator[str]:
        """The run's origins, in run order (:data:`PLACES`), each once."""
        query = f"{PLACES} SELECT origin FROM placed WHERE origin IS NOT NULL GROUP BY origin ORDER BY min(place)"
        for (origin,) in self.db.conn.execute(query):
            yield origin


# Each naming's place in the run: the sources in the order read, each in its own order (a top
# list's by rank, ties in the order read); an origin's place is its first naming's.
PLACES = (
    "WITH placed AS (SELECT origin, row, "
    "row_number() OVER (ORDER BY source_number, rank, rowid) AS place FROM temp.seed_run)"
)


def _save_row(db: Database, row: dict[str, Any], at: str) -> list[dict[str, Any]]:
    key = [safe_text(row[k]) or "" for k in KEY]
    old = db.conn.execute(
        "SELECT id, status FROM seed_sources WHERE source = ? AND name = ? AND via = ? AND url = ?", key
    ).fetchone()
    if old is None:
        db.conn.execute(
            "INSERT INTO seed_sources (origin, source, name, via, url, status, status_message, refused, "
            "first_seen_at, last_seen_at, status_changed_at, transport) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                row["origin"],
                *key,
                row["status"],
                safe_text(row["status_message"]),
                row["refused"],
                at,
                at,
                row.get("updated_at") if row["status"] != "active" else None,
                safe_text(row.get("transport")),
            ],
        )
        previous = "active" if row["status"] != "active" else None  # a first sight of a deprecated one is news too
    else:
        changed = old[1] != row["status"]
        db.conn.execute(
            "UPDATE seed_sources SET origin = ?, status = ?, status_message = ?, refused = ?, last_seen_at = ?, "
            "transport = coalesce(?, transport)" + (", status_changed_at = ?" if changed else "") + " WHERE id = ?",
            [
                row["origin"],
                row["status"],
                safe_text(row["status_message"]),
                row["refused"],
                at,
                safe_text(row.get("transport")),
                *([row.get("updated_at") or at] if changed else []),
                old[0],
            ],
        )
        previous = old[1] if changed else None
    return _status_event(db, row, previous, at)


def _status_event(db: Database, row: dict[str, Any], previous: str | None, at: str) -> list[dict[str, Any]]:
    """An event on the origin when the registry's status of one of its servers changed."""
    kind = STATUS_EVENTS.get(row["status"])
    origin = row["origin"]
    if previous is None or kind is None or origin is None or row["via"] not in ("remote", "websiteUrl"):
        return []
    if db.execute("SELECT 1 FROM listings WHERE origin = ?", [origin]).fetchone() is None:
        return []  # not in the catalogue yet: seed_sources keeps the status for when it is
    if db.execute(
        "SELECT 1 FROM events WHERE origin = ? AND kind = ? AND subject = ? AND at = ?", [origin, kind, row["name"], at]
    ).fetchone():
        return []  # the same server named twice (a remote and its website) on one origin: one event
    new = {"status": row["status"], "message": row["status_message"], "source": row["source"]}
    db.execute(
        "INSERT INTO events (origin, kind, at, old, new, subject) VALUES (?, ?, ?, ?, ?, ?)",
        [origin, kind, at, dumps(previous), dumps(new), safe_text(row["name"]) or ""],
    )
    return [{"origin": origin, "kind": kind, "at": at, "old": previous, "new": new, "subject": row["name"]}]


def sources_of(db: Database, origin: str) -> list[dict[str, Any]]:
    """Which seed sources named ``origin``: ``[{source, name, via, url, status, status_message,
    first_seen_at, last_seen_at}]``, oldest first."""
    cursor = db.execute(
        "SELECT source, name, via, url, status, status_message, first_seen_at, last_seen_at "
        "FROM seed_sources WHERE origin = ? ORDER BY first_seen_at, id",
        [origin],
    )
    columns = [c[0] for c in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def declared_endpoints(db: Database, origin: str) -> list[dict[str, Any]]:
    """The MCP endpoints seed sources declare on ``origin`` (a registry entry's remotes),
    oldest first: ``[{url, transport, name, source, status}]``, one a URL (its first
    declaration)."""
    cursor = db.execute(
        "SELECT url, transport, name, source, status FROM seed_sources "
        "WHERE origin = ? AND via = 'remote' AND refused IS NULL ORDER BY first_seen_at, id",
        [origin],
    )
    return _first_per_url(cursor)


def _first_per_url(cursor: Any) -> list[dict[str, Any]]:
    """The rows of ``cursor`` as dicts, the first row of each ``url`` only, in their order."""
    columns = [c[0] for c in cursor.description]
    at = columns.index("url")
    found: dict[str, dict[str, Any]] = {}
    for row in cursor.fetchall():
        found.setdefault(row[at], dict(zip(columns, row, strict=True)))
    return list(found.values())


def count_declared(db: Database, origin: str) -> int:
    """How many MCP endpoints seed sources declare on ``origin`` (see :func:`declared_endpoints`)."""
    return int(
        db.execute(
            "SELECT count(DISTINCT url) FROM seed_sources WHERE origin = ? AND via = 'remote' AND refused IS NULL",
            [origin],
        ).fetchone()[0]
    )


def linked_documents(db: Database, origin: str) -> list[dict[str, Any]]:
    """The documents AI Catalogs name by URL on ``origin`` (``via`` ``catalog:<kind>``),
    oldest first: ``[{origin, url, via, name, source}]``, one a URL."""
    cursor = db.execute(
        "SELECT origin, url, via, name, source FROM seed_sources "
        "WHERE origin = ? AND via LIKE 'catalog:%' AND refused IS NULL ORDER BY first_seen_at, id",
        [origin],
    )
    return _first_per_url(cursor)


def census(db: Database) -> dict[str, Any]:
    """The probe state and the era of every MCP endpoint the catalogue knows, counted:
    ``{total, states: [{state, count, share}], eras: [{era, count, share}], tools: {total,
    with_findings, share}}`` (every state
    and era listed, a share in percent to one decimal). Counted from the states agentdex
    stored, never from a detail a server wrote."""
    states = dict(db.execute("SELECT census, count(*) FROM mcp_census GROUP BY census").fetchall())
    eras = dict(db.execute("SELECT era, count(*) FROM mcp_census GROUP BY era").fetchall())
    total = sum(states.values())
    kinds = auth_kinds(db)
    auth = Counter(kinds.get((o, u), "unknown") for o, u in db.execute("SELECT origin, url FROM mcp_census"))
    return {
        "total": total,
        "states": [{"state": s, **_counted(states.get(s, 0), total)} for s in CENSUS_STATES],
        "eras": [{"era": e, **_counted(eras.get(e, 0), total)} for e in CENSUS_ERAS],
        "auth": [{"kind": k, **_counted(auth.get(k, 0), total)} for k in AUTH_KINDS],
        "uptime": uptime_distribution(db, total),
        "tools": quality_share(db),
    }


# The uptime buckets of the census (over 30 days, percent; an endpoint without history apart).
UPTIME_BUCKETS = (("99-100", 99.0), ("90-99", 90.0), ("50-90", 50.0), ("0-50", 0.0))


def uptime_distribution(db: Database, total: int) -> list[dict[str, Any]]:
    """``[{bucket, count, share}]``: the MCP endpoints by their 30-day uptime (``99-100``,
    ``90-99``, ``50-90``, ``0-50``), then ``no_history`` (never probed or no measurable probe)."""
    uptimes = [row["uptime_30d"] for row in windows(db).values() if row["uptime_30d"] is not None]
    counted = Counter(next(name for name, low in UPTIME_BUCKETS if u >= low) for u in uptimes)
    out = [{"bucket": name, **_counted(counted.get(name, 0), total)} for name, _ in UPTIME_BUCKETS]
    return out + [{"bucket": "no_history", **_counted(max(total - len(uptimes), 0), total)}]


def _counted(count: int, total: int) -> dict[str, Any]:
    return {"count": count, "share": round(100.0 * count / total, 1) if total else 0.0}


def declared_transports(db: Database) -> dict[str, str]:
    """``{url: transport}`` each MCP endpoint was declared with (a listing's, else a registry
    remote's): the transport a probe of it speaks first."""
    rows = db.execute(
        "SELECT url, transport FROM seed_sources WHERE via = 'remote' AND transport IS NOT NULL "
        "UNION ALL SELECT mcp_url, mcp_transport FROM listings WHERE mcp_url IS NOT NULL AND mcp_transport IS NOT NULL"
    )
    return dict(rows.fetchall())


def census_endpoints(db: Database, state: str | None = None) -> list[dict[str, Any]]:
    """The endpoints behind the census, one row each (``url, origin, state, detail, census,
    era, versions, server_name``; ``versions`` a list, newest first), with their health
    (``healthy, uptime_24h, uptime_7d, uptime_30d, p50_ms, p95_ms, last_verified,
    verified_by``: :func:`agentdex.db.health.windows`; ``None`` without probes)."""
    sql = "SELECT url, origin, state, detail, census, era, versions, server_name FROM mcp_census"
    cursor = db.execute(
        sql + (" WHERE census = ?" if state else "") + " ORDER BY census, url", [state] if state else []
    )
    columns = [c[0] for c in cursor.description]
    rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    health, kinds = windows(db), auth_kinds(db)
    for row in rows:
        row["versions"] = loads(row["versions"], [])
        row["auth_kind"] = kinds.get((row["origin"], row["url"]), "unknown")
        row |= health.get((row["origin"], row["url"]), NO_HISTORY)
    return rows

"""The reads a writer needs: what was stored before, asked before a crawl (validators,
robots.txt, the stored listing's sources, the schedule) or inside a save (the state
:func:`agentdex.changes.diff` compares). The TUI's and the CLI's reads are in
:mod:`agentdex.db.queries`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from agentdex.changes import MCP_ERAS
from agentdex.db import empty
from agentdex.db.common import loads, utc_now
from agentdex.db.snapshots import BODYLESS_KINDS
from agentdex.formats.registry_server_json import PAGE_KINDS as REGISTRY_PAGE_KINDS
from agentdex.formats.registry_server_json import summary as registry_summary
from agentdex.models import FetchRecord

GUIDE_KIND = "guide"
# The listing columns an unchanged origin's save reads (load_state reads far more).
LIGHT_COLUMNS = (
    "status",
    "unreachable_streak",
    "unchanged_crawls",
    "next_due_at",
    "recrawl_interval",
    "first_listed_at",
    "format",
)


def due_origins(db: Database, now: str | None = None) -> list[str]:
    """The web origins whose next-due time has come by ``now`` (ISO 8601; default: the
    current time), most overdue first (what ``agentdex crawl --due`` crawls)."""
    # An empty origin (agentdex.db.empty) is due as a listing is.
    return [
        row[0]
        for row in db.execute(
            "SELECT origin, next_due_at FROM listings WHERE next_due_at IS NOT NULL AND next_due_at <= :now "
            "UNION ALL SELECT origin, next_due_at FROM empty_origins WHERE next_due_at <= :now "
            "ORDER BY next_due_at, origin",
            {"now": now or utc_now()},
        )
    ]


def due_at(db: Database, origin: str) -> str | None:
    """When ``origin`` is next due by its schedule (ISO 8601; None: never scheduled, so due)."""
    row = db.execute("SELECT next_due_at FROM listings WHERE origin = ?", [origin]).fetchone()
    return row[0] if row else None


def known_origins(db: Database) -> list[str]:
    """Every origin in the catalogue, sorted (what a bare ``agentdex crawl`` recrawls), the
    empty ones (:mod:`agentdex.db.empty`) too."""
    # Listings imported from a package or repository have no web origin to recrawl.
    return [
        row[0]
        for row in db.execute(
            "SELECT origin FROM listings l WHERE EXISTS (SELECT 1 FROM snapshots s WHERE s.origin = l.origin "
            "AND s.url LIKE 'https://%') UNION ALL SELECT origin FROM empty_origins ORDER BY origin"
        )
    ]


# A snapshot that can answer for its URL's content: a body stored, a 304, or a stored answer
# used fresh (the last two stand for the latest stored body).
_OK = (
    "({t}.not_modified = 1 OR ({t}.status_code BETWEEN 200 AND 299 AND "
    "({t}.body_sha256 IS NOT NULL OR {t}.obtained = 'fresh' OR {t}.kind IN ("
    + ", ".join(f"'{kind}'" for kind in BODYLESS_KINDS)
    + "))))"
)
_LATEST = f"""
    SELECT s.url, s.status_code, s.not_modified, s.headers, s.response_at, s.fresh_until, s.fetched_at,
      {_OK.format(t="s")},
      (SELECT v.etag FROM snapshots v WHERE v.origin = s.origin AND v.url = s.url
         AND v.etag IS NOT NULL AND {_OK.format(t="v")} ORDER BY v.id DESC LIMIT 1),
      (SELECT v.last_modified FROM snapshots v WHERE v.origin = s.origin AND v.url = s.url
         AND v.last_modified IS NOT NULL AND {_OK.format(t="v")} ORDER BY v.id DESC LIMIT 1),
      (SELECT v.body_sha256 FROM snapshots v WHERE v.origin = s.origin AND v.url = s.url
         AND v.status_code BETWEEN 200 AND 299 AND v.body_sha256 IS NOT NULL ORDER BY v.id DESC LIMIT 1)
    FROM snapshots s
    WHERE s.id IN (SELECT max(id) FROM snapshots WHERE origin = ? GROUP BY url)
"""


def previous_validators(db: Database, origin: str) -> dict[str, tuple[str | None, str | None]]:
    """``{url: (etag, last_modified)}`` for a conditional request to each URL of ``origin``
    whose latest fetch succeeded (a stored body, a 304 or a fresh answer), so a 304 always
    has a body to fall back on (see :func:`last_body`)."""
    return {
        url: (p["etag"], p["last_modified"])
        for url, p in previous_fetches(db, origin).items()
        if p["etag"] or p["last_modified"]
    }


def knows_origin(db: Database, origin: str) -> bool:
    """Whether the catalogue holds anything a crawl of ``origin`` reads back: its listing, its
    compact row (:mod:`agentdex.db.empty`) or endpoints seed sources declare on it. One query,
    so an origin a sweep meets for the first time (nearly all of a domain list's) skips the
    half-dozen that would each find nothing."""
    row = db.execute(_KNOWN, [origin, origin, origin]).fetchone()
    return bool(row[0])


_KNOWN = (
    "SELECT EXISTS (SELECT 1 FROM listings WHERE origin = ?) OR EXISTS (SELECT 1 FROM empty_origins WHERE origin = ?)"
    " OR EXISTS (SELECT 1 FROM seed_sources WHERE origin = ?)"
)


def previous_fetches(db: Database, origin: str) -> dict[str, dict[str, Any]]:
    """``{url: {etag, last_modified, sha256, status, headers, response_at, fresh_until,
    first_seen}}`` from the latest answer of each URL of ``origin`` (one query): the validators for a
    conditional request (only when that fetch succeeded), the sha256 of the body a 304 (or a
    fresh answer) stands for, the status (so a repeated 404 counts as unchanged), and the
    stored answer's headers and freshness, and when that answer was first seen. An empty
    origin's come from its compact row (:func:`agentdex.db.empty.previous`)."""
    out = {}
    for (
        url,
        status,
        not_modified,
        headers,
        response_at,
        fresh_until,
        first_seen,
        usable,
        etag,
        modified,
        sha,
    ) in db.execute(_LATEST, [origin]).fetchall():
        ok = not_modified or (status is not None and 200 <= status < 300)
        out[url] = {
            "etag": etag if usable else None,
            "last_modified": modified if usable else None,
            "sha256": sha if ok else None,
            "status": 200 if not_modified else status,
            "headers": loads(headers, {}),
            "response_at": response_at,
            "fresh_until": fresh_until,
            "first_seen": first_seen,
        }
    return out or empty.previous(db, origin)


def listing_source(db: Database, origin: str) -> tuple[dict[str, str], dict[str, str]] | None:
    """``(manifests_sha256, declared_documents)`` of the stored listing: the manifest bytes
    it was parsed from and the documents it declares; None when it was not parsed from a
    crawled manifest (see :class:`agentdex.crawler.discovery.Before`)."""
    row = db.execute("SELECT manifests_sha256, declared_documents FROM listings WHERE origin = ?", [origin]).fetchone()
    if row is None or not row[0] or row[1] is None:
        return None
    return loads(row[0], {}), loads(row[1], {})


def stored_documents(db: Database, origin: str, kinds: Iterable[str]) -> dict[str, str]:
    """``{kind: sha256}`` of the stored documents of ``origin`` among ``kinds`` (what a crawl
    that does not read them again keeps: the registry's answer for the origin's namespace)."""
    wanted = list(kinds)
    marks = ", ".join("?" for _ in wanted)
    return dict(
        db.execute(
            f"SELECT kind, sha256 FROM documents WHERE origin = ? AND kind IN ({marks})", [origin, *wanted]
        ).fetchall()
    )


def stored_robots(db: Database, origin: str) -> FetchRecord | None:
    """The robots.txt an earlier crawl of ``origin`` fetched, as a fetch record (see
    :func:`agentdex.crawler.robots.reusable` for whether it may be used again)."""
    row = db.execute(
        "SELECT url, status_code, body, cache_control, fetched_at FROM robots_txt WHERE origin = ?", [origin]
    ).fetchone()
    if row is None:
        return empty.robots(db, origin)
    url, status, body, cache_control, fetched_at = row
    headers = {"cache-control": cache_control} if cache_control else {}
    error = None if status is not None and 200 <= status < 300 else "http_status"
    return FetchRecord(
        url=url,
        kind="robots",
        status=status,
        headers=headers,
        fetched_at=fetched_at,
        body=None if body is None else body.encode("utf-8"),
        error_code=error,
    )


def last_body(db: Database, origin: str, url: str) -> bytes | None:
    """The latest body stored for ``url`` of ``origin`` (what a 304 answer stands for)."""
    row = db.execute(
        "SELECT b.content FROM snapshots s JOIN blobs b ON b.sha256 = s.body_sha256 "
        "WHERE s.origin = ? AND s.url = ? AND s.status_code BETWEEN 200 AND 299 ORDER BY s.id DESC LIMIT 1",
        [origin, url],
    ).fetchone()
    return None if row is None else bytes(row[0])


def load_state(db: Database, origin: str) -> dict[str, Any] | None:
    """The stored state of ``origin`` as :func:`agentdex.changes.diff` compares it."""
    row = db.execute(
        "SELECT status, listing_json, first_listed_at, unreachable_streak, mcp_tools_checked_at "
        "FROM listings WHERE origin = ?",
        [origin],
    ).fetchone()
    if row is None:
        return None
    status, listing_json, first_listed_at, streak, tools_checked_at = row
    guide = db.execute("SELECT sha256 FROM documents WHERE origin = ? AND kind = ?", [origin, GUIDE_KIND]).fetchone()
    return {
        "status": status,
        "was_listed": first_listed_at is not None,
        "unreachable_streak": streak,
        "listing": loads(listing_json),
        "guide_sha256": guide[0] if guide else None,
        "tools": _mcp_tool_state(db, origin) if tools_checked_at else None,
        "registry": _registry_state(db, origin),
        "checks": dict(db.execute("SELECT name, status FROM checks WHERE origin = ?", [origin]).fetchall()),
        "live_prices": _live_prices(db, origin),
        "mcp_era": _mcp_era(db, origin),
    }


def _mcp_era(db: Database, origin: str) -> str | None:
    """The eras the MCP endpoint answered in as the stored ``mcp.initialize`` check says
    (legacy | dual | modern); None when no probe told."""
    row = db.execute(
        "SELECT json_extract(data, '$.era') FROM checks WHERE origin = ? AND name = 'mcp.initialize'", [origin]
    ).fetchone()
    return row[0] if row and row[0] in MCP_ERAS else None


def _registry_state(db: Database, origin: str) -> dict[str, dict] | None:
    """What the stored registry answer lists in the origin's namespace (``None``: no registry
    answer is stored)."""
    marks = ", ".join("?" for _ in REGISTRY_PAGE_KINDS)
    pages = dict(
        db.execute(
            f"SELECT d.kind, b.content FROM documents d JOIN blobs b ON b.sha256 = d.sha256 "
            f"WHERE d.origin = ? AND d.kind IN ({marks})",
            [origin, *REGISTRY_PAGE_KINDS],
        ).fetchall()
    )
    if not pages:
        return None
    return registry_summary([bytes(pages[k]) for k in REGISTRY_PAGE_KINDS if k in pages], origin)


def _live_prices(db: Database, origin: str) -> dict[str, float]:
    """``{resource URL: USD}`` the stored ``x402.live_price`` check read from live 402s."""
    rows = db.execute(
        "SELECT r.key, json_extract(r.value, '$.live_usd') FROM checks c, "
        "json_each(c.data, '$.resources') r WHERE c.origin = ? AND c.name = 'x402.live_price'",
        [origin],
    ).fetchall()
    return {url: float(usd) for url, usd in rows if isinstance(usd, (int, float))}


def _mcp_tool_state(db: Database, origin: str) -> dict[str, dict]:
    rows = db.execute(
        "SELECT name, description, annotations, input_schema FROM tools WHERE origin = ? AND source = 'mcp'", [origin]
    ).fetchall()
    return {
        name: {"description": description, "annotations": loads(annotations, {}), "input_schema": loads(schema)}
        for name, description, annotations, schema in rows
    }


def light_state(db: Database, origin: str) -> dict[str, Any] | None:
    """The stored listing's :data:`LIGHT_COLUMNS` (its status, schedule and format); None
    for an origin not in the catalogue."""
    row = db.execute(f"SELECT {', '.join(LIGHT_COLUMNS)} FROM listings WHERE origin = ?", [origin]).fetchone()
    return None if row is None else dict(zip(LIGHT_COLUMNS, row, strict=True))

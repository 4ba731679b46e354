"""Writes: what a crawl, a verification run or a feedback submission stores.

Every ``save_*`` function runs in ONE ``BEGIN IMMEDIATE`` transaction, so a process killed
at any moment leaves each origin either fully saved or untouched, and a crawl can simply be
rerun. Bodies are content-addressed: a body already stored (same sha256) adds no row.

What :func:`save_origin` keeps and replaces:

- snapshots: one row per distinct answer of a URL (:mod:`agentdex.db.snapshots`): an answer
  the same as the URL's latest extends that row (its last run, time and how it was obtained:
  ``fetched``, ``revalidated`` (a 304) or ``fresh`` (not asked: the stored answer was still
  fresh, RFC 9111), and until when it is fresh); any other adds one.
- documents: the latest document of each kind; a kind the crawl no longer found is
  removed, one that answered 304 is kept. An unreachable origin keeps everything.
- listing: replaced by the crawl's parsed listing when it has one; otherwise only the
  status columns change, so a delisted origin still shows what it was.
- findings: replaced by the findings of every format found (kept when unreachable), plus
  the flags of tool texts that carry instructions (format ``manifest_tools`` or
  ``mcp_tools``), replaced whenever those tools are.
- tools: manifest tools replaced whenever a listing is stored; MCP tools only when the
  crawl probed the server (``mcp_tools`` is not ``None``).
- checks: upserted when the crawl verified (``checks`` is not ``None``); ``last_pass_at``
  survives a check that passes no more.
- events: :func:`agentdex.changes.diff` between the stored state before and after.
- schedule: the listing's next-due time (:mod:`agentdex.schedule`), from whether
  this crawl found a change, asked anything at all, or could not reach the origin.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlite_utils import Database

from agentdex import changes, schedule
from agentdex.db.common import dumps, epoch, iso, loads, safe_text, utc_now
from agentdex.db.crosscheck import save_consistency, tool_events
from agentdex.db.health import save_probes
from agentdex.db.snapshots import BODYLESS_KINDS, save_snapshots, sha256
from agentdex.errors import DatabaseError
from agentdex.formats import DISCOVERY_NAMES, FORMAT_NAMES
from agentdex.formats.registry_server_json import PAGE_KINDS as REGISTRY_PAGE_KINDS
from agentdex.formats.registry_server_json import summary as registry_summary
from agentdex.formats.tool_fingerprint import fingerprint, read_only_contradiction
from agentdex.formats.tool_safety import check_tool
from agentdex.models import Check, Event, FetchRecord, Listing, OriginCrawl, ParseResult, Tool, sorted_findings

# Listing attributes stored as text columns of the same name, and those stored as JSON.
TEXT_FIELDS = (
    "name",
    "one_liner",
    "description",
    "homepage",
    "guide_url",
    "llms_txt_url",
    "skill_url",
    "mcp_url",
    "mcp_transport",
    "http_base",
    "http_openapi",
    "http_capabilities",
    "audience",
    "pricing",
    "publisher_name",
    "publisher_url",
    "publisher_contact",
    "privacy_url",
    "terms_url",
    "instructions",
)
JSON_FIELDS = ("mcp_auth", "auth_methods", "events", "hosts", "categories", "tags", "say", "feedback", "extra")
GUIDE_KIND = "guide"


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``) so a second writer waits
    for the busy timeout instead of failing half-way; rolled back on any exception (a
    failed COMMIT included). A full disk raises :class:`DatabaseError` with a sentence.
    Inside a caller's transaction it is a savepoint of that transaction."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.conn.execute("COMMIT")
    except BaseException as exc:
        if db.conn.in_transaction:  # a COMMIT that failed (a full disk) leaves it open
            db.rollback()
        if isinstance(exc, sqlite3.OperationalError) and _disk_full(exc):
            raise DatabaseError(
                f"the disk holding the catalogue is full ({exc}): nothing of the origin being saved was "
                "kept, every origin saved before it is; free some space and run the same command again"
            ) from exc
        raise


def _disk_full(exc: sqlite3.OperationalError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "full" in str(exc)


# --- crawls -------------------------------------------------------------------------------


def start_crawl(db: Database, kind: str = "crawl", origins_total: int = 0, *, at: str | None = None) -> int:
    """Record the start of a crawl (``kind``: crawl | verify | import); return its id.

    Runs of this machine still marked ``running`` whose process is gone (killed, or the
    machine restarted) are marked ``interrupted`` first.
    """
    with transaction(db):
        _close_dead_runs(db, at)
        cursor = db.execute(
            "INSERT INTO crawls (kind, started_at, status, origins_total, pid, machine) "
            "VALUES (?, ?, 'running', ?, ?, ?)",
            [kind, at or utc_now(), origins_total, os.getpid(), _machine()],
        )
    return int(cursor.lastrowid or 0)  # an INSERT always sets it (None only before any)


def _close_dead_runs(db: Database, at: str | None) -> None:
    rows = db.execute("SELECT id, pid FROM crawls WHERE status = 'running' AND machine = ?", [_machine()]).fetchall()
    dead = [crawl_id for crawl_id, pid in rows if pid is not None and not _alive(pid)]
    for crawl_id in dead:
        # finished_at stays empty: when the process died is not known.
        db.execute("UPDATE crawls SET status = 'interrupted' WHERE id = ?", [crawl_id])


def _machine() -> str:
    # A published catalogue should not name the machine it was crawled from.
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:16]


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def finish_crawl(
    db: Database, crawl_id: int, *, status: str = "finished", at: str | None = None, **counts: int
) -> None:
    """Close a crawl with ``status`` (finished | interrupted).

    ``origins_done``, ``requests``, ``errors`` and ``bytes_fetched`` are counted by
    :func:`save_origin` as it goes; pass any of them to override the count.
    """
    allowed = {"origins_total", "origins_done", "requests", "errors", "bytes_fetched"}
    unknown = set(counts) - allowed
    if unknown:
        raise TypeError(f"finish_crawl() got unknown counts: {sorted(unknown)}")
    sets = "".join(f", {name} = :{name}" for name in sorted(counts))
    with transaction(db):
        db.execute(
            f"UPDATE crawls SET status = :status, finished_at = :at{sets} WHERE id = :id",
            {"status": status, "at": at or utc_now(), "id": crawl_id, **counts},
        )


def _count_crawl(db: Database, crawl_id: int | None, fetches: list[FetchRecord], *, origin_done: bool = True) -> None:
    if crawl_id is None:
        return
    errors = sum(1 for f in fetches if f.error_code is not None)
    # A 304 or a fresh answer may carry the stored body (for the checks): nothing was fetched.
    size = sum(len(f.body) for f in fetches if f.body is not None and not (f.not_modified or f.from_freshness))
    db.execute(
        "UPDATE crawls SET origins_done = origins_done + ?, requests = requests + ?, "
        "errors = errors + ?, bytes_fetched = bytes_fetched + ? WHERE id = ?",
        [int(origin_done), len(fetches), errors, size, crawl_id],
    )


# --- reads the writer needs ------------------------------------------------------------------


def due_origins(db: Database, now: str | None = None) -> list[str]:
    """The web origins whose next-due time has come by ``now`` (ISO 8601; default: the
    current time), most overdue first (what ``agentdex crawl --due`` crawls)."""
    return [
        row[0]
        for row in db.execute(
            "SELECT origin FROM listings WHERE next_due_at IS NOT NULL AND next_due_at <= ? "
            "ORDER BY next_due_at, origin",
            [now or utc_now()],
        )
    ]


def due_at(db: Database, origin: str) -> str | None:
    """When ``origin`` is next due by its schedule (ISO 8601; None: never scheduled, so due)."""
    row = db.execute("SELECT next_due_at FROM listings WHERE origin = ?", [origin]).fetchone()
    return row[0] if row else None


def known_origins(db: Database) -> list[str]:
    """Every origin in the catalogue, sorted (what a bare ``agentdex crawl`` recrawls)."""
    # Listings imported from a package or repository have no web origin to recrawl.
    return [
        row[0]
        for row in db.execute(
            "SELECT origin FROM listings l WHERE EXISTS (SELECT 1 FROM snapshots s WHERE s.origin = l.origin "
            "AND s.url LIKE 'https://%') ORDER BY origin"
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


def previous_fetches(db: Database, origin: str) -> dict[str, dict[str, Any]]:
    """``{url: {etag, last_modified, sha256, status, headers, response_at, fresh_until,
    first_seen}}`` from the latest answer of each URL of ``origin`` (one query): the validators for a
    conditional request (only when that fetch succeeded), the sha256 of the body a 304 (or a
    fresh answer) stands for, the status (so a repeated 404 counts as unchanged), and the
    stored answer's headers and freshness, and when that answer was first seen."""
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
    return out


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
        return None
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


def _save_robots(db: Database, origin: str, record: FetchRecord, at: str) -> None:
    body = None if record.body is None else record.body.decode("utf-8", errors="replace")
    db.execute(
        "INSERT INTO robots_txt (origin, url, status_code, body, cache_control, fetched_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(origin) DO UPDATE SET url = excluded.url, "
        "status_code = excluded.status_code, body = excluded.body, cache_control = excluded.cache_control, "
        "fetched_at = excluded.fetched_at",
        [
            origin,
            safe_text(record.url),
            record.status,
            body,
            safe_text(record.headers.get("cache-control")),
            record.fetched_at or at,
        ],
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
    }


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


# --- save_origin -----------------------------------------------------------------------------


def save_origin(db: Database, crawl: OriginCrawl, crawl_id: int | None, *, at: str | None = None) -> list[Event]:
    """Store everything one crawl learned about one origin, in one transaction; return the
    change events it caused (already stored).

    With ``crawl.unchanged`` (every document answered 304) only the snapshots (without
    bodies) and the crawl time are written: nothing was parsed, so nothing changed.
    ``crawl.robots`` (a robots.txt this crawl fetched) is kept for the next crawl.
    """
    at = at or utc_now()
    with transaction(db):
        light = _light_state(db, crawl.origin) if crawl.unchanged else None
        if light is not None:
            events = _save_unchanged(db, crawl, crawl_id, light, at)
        else:
            events = _save_crawled(db, crawl, crawl_id, load_state(db, crawl.origin), at)
        if crawl.robots is not None:
            _save_robots(db, crawl.origin, crawl.robots, at)
        _count_crawl(db, crawl_id, crawl.fetches)
    return events


def _light_state(db: Database, origin: str) -> dict[str, Any] | None:
    """The columns an unchanged origin's save needs (load_state reads far more)."""
    row = db.execute(
        "SELECT status, unreachable_streak, unchanged_crawls, next_due_at, recrawl_interval, "
        "first_listed_at FROM listings WHERE origin = ?",
        [origin],
    ).fetchone()
    if row is None:
        return None
    names = ("status", "unreachable_streak", "unchanged_crawls", "next_due_at", "recrawl_interval", "first_listed_at")
    return dict(zip(names, row, strict=True))


def _schedule_columns(
    crawl: OriginCrawl, light: dict[str, Any], *, changed: bool, failures: int, at: str
) -> dict[str, Any]:
    """The listing's schedule after this crawl (see :mod:`agentdex.schedule`); empty
    for a listing that did not come from the web (an imported package has nothing to recrawl)."""
    if not any(f.url.startswith("https://") for f in crawl.fetches):
        return {}
    asked = any(not f.from_freshness for f in crawl.fetches)
    streak = schedule.unchanged_after(light.get("unchanged_crawls") or 0, changed=changed, asked=asked)
    now = epoch(at) or 0.0
    if not asked:  # it learnt nothing: due when it was, or once something is stale
        due = max(epoch(light.get("next_due_at")) or now, crawl.stale_at or now)
    else:
        due = schedule.next_due(now, streak, failures, crawl.stale_at)
    every = schedule.interval(streak, failures)
    return {"next_due_at": iso(due), "recrawl_interval": int(every), "unchanged_crawls": streak}


def _update_listing(db: Database, origin: str, columns: dict[str, Any]) -> None:
    if columns:
        sets = ", ".join(f"{name} = :{name}" for name in columns)
        db.execute(f"UPDATE listings SET {sets} WHERE origin = :origin", {**columns, "origin": origin})


def _save_crawled(db: Database, crawl: OriginCrawl, crawl_id: int | None, old: dict | None, at: str) -> list[Event]:
    origin = crawl.origin
    status, streak = changes.next_status(old, crawl.status)
    light = _light_state(db, origin) or {}
    listing = _crawl_listing(crawl)
    _upsert_listing(db, crawl, listing, status, streak, crawl_id, at)
    save_snapshots(db, origin, crawl.fetches, crawl_id, at)
    if crawl.status != "unreachable":
        _save_documents(db, crawl, at)
        _replace_findings(db, crawl, crawl_id)
        _replace_discovery_tools(db, crawl, at)
        save_consistency(db, origin, crawl.consistency, crawl_id)
    if listing is not None:
        _replace_tools(db, origin, "manifest", listing.tools, at)
    _save_probes(db, origin, crawl.checks, crawl.mcp_tools, at, crawl.endpoints, crawl_id)
    events = _record_changes(db, origin, old, crawl.status, crawl_id, at)
    failures = streak if crawl.status == "unreachable" else 0
    _update_listing(db, origin, _schedule_columns(crawl, light, changed=bool(events), failures=failures, at=at))
    return events


def _save_unchanged(db: Database, crawl: OriginCrawl, crawl_id: int | None, light: dict, at: str) -> list[Event]:
    # Same bytes as last time: the stored listing still stands. The one status that can move
    # is an origin delisted for being unreachable, which is back with the same listing.
    back = light["status"] == "delisted" and light["unreachable_streak"] > 0
    status = changes.LISTED if back else light["status"]
    # The common recrawl (same status, nothing probed) can cause no event, so the full
    # state changes.diff compares is read (before the update) only when one may follow.
    quiet = status == light["status"] and crawl.checks is None and crawl.mcp_tools is None and not crawl.endpoints
    old = None if quiet else load_state(db, crawl.origin)
    # Only the columns whose value moves are written: an indexed column in the SET list costs
    # its index a rewrite even when the value stays (the status has three indexes).
    columns: dict[str, Any] = {"last_crawled_at": at, "last_crawl_id": crawl_id}
    if status != light["status"]:
        columns["status"] = status
    if light["unreachable_streak"] > 0:
        columns.update(unreachable_streak=0, status_detail="")
    if status == changes.LISTED and light["first_listed_at"] is None:
        columns["first_listed_at"] = at
    if quiet:  # no event can follow, so the schedule is known now and goes in the same UPDATE
        planned = _schedule_columns(crawl, light, changed=False, failures=0, at=at)
        columns.update({name: value for name, value in planned.items() if light.get(name) != value})
    _update_listing(db, crawl.origin, columns)
    save_snapshots(db, crawl.origin, crawl.fetches, crawl_id, at, keep_bodies=False)
    if quiet:
        return []
    _save_probes(db, crawl.origin, crawl.checks, crawl.mcp_tools, at, crawl.endpoints, crawl_id)
    if crawl.consistency is not None:  # the stored documents compared again with live 402s
        save_consistency(db, crawl.origin, crawl.consistency, crawl_id)
    events = _record_changes(db, crawl.origin, old, status, crawl_id, at)
    _update_listing(db, crawl.origin, _schedule_columns(crawl, light, changed=bool(events), failures=0, at=at))
    return events


def _save_probes(
    db: Database,
    origin: str,
    checks: list[Check] | None,
    mcp_tools: list[Tool] | None,
    at: str,
    endpoints=None,
    crawl_id: int | None = None,
) -> None:
    save_probes(db, origin, endpoints, crawl_id, at)
    if mcp_tools is not None:
        _replace_tools(db, origin, "mcp", mcp_tools, at)
        db.execute("UPDATE listings SET mcp_tools_checked_at = ? WHERE origin = ?", [at, origin])
    if checks is not None:
        _upsert_checks(db, origin, checks, at)
        if not any(c.name.startswith("anchor.") for c in checks):
            _drop_checks_of_other_formats(db, origin)


def _drop_checks_of_other_formats(db: Database, origin: str) -> None:
    # Anchor's proofs mean nothing once the origin is listed from another format; left in
    # place they would read as live facts. Every other check applies to any format.
    db.execute(
        "DELETE FROM checks WHERE origin = ? AND name LIKE 'anchor.%' AND "
        "coalesce((SELECT format FROM listings WHERE origin = ?), '') != 'anchor'",
        [origin, origin],
    )


def _record_changes(
    db: Database, origin: str, old: dict | None, observed: str, crawl_id: int | None, at: str
) -> list[Event]:
    new = load_state(db, origin)
    if new is not None:
        new["observed"] = observed
    events = changes.diff(old, new) + tool_events(old, new)
    db.conn.executemany(
        "INSERT INTO events (origin, kind, at, old, new, subject, crawl_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(origin, e.kind, at, dumps(e.old), dumps(e.new), safe_text(e.subject) or "", crawl_id) for e in events],
    )
    _refresh_counts(db, origin, changed_at=at if events else None)
    return events


def _refresh_counts(db: Database, origin: str, *, changed_at: str | None) -> None:
    db.execute(
        "UPDATE listings SET "
        "checks_passed = (SELECT count(*) FROM checks WHERE origin = :o AND status = 'pass'), "
        "checks_failed = (SELECT count(*) FROM checks WHERE origin = :o AND status = 'fail'), "
        "last_changed_at = coalesce(:changed, last_changed_at) WHERE origin = :o",
        {"o": origin, "changed": changed_at},
    )


# --- the listing row -------------------------------------------------------------------------


def _crawl_listing(crawl: OriginCrawl) -> Listing | None:
    if crawl.status == "unreachable" or crawl.primary is None:
        return None
    return crawl.primary.listing


def _status_detail(crawl: OriginCrawl, status: str, streak: int) -> str:
    detail = safe_text(crawl.status_detail) or ""
    if crawl.status != "unreachable" or status == "unreachable":
        return detail
    if status == changes.LISTED:
        return (
            f"unreachable on the last {streak} crawl(s), delisted after {changes.UNREACHABLE_LIMIT}: {detail}"
        ).rstrip(": ")
    return f"delisted after {streak} consecutive unreachable crawls: {detail}".rstrip(": ")


def _listing_columns(crawl: OriginCrawl, listing: Listing | None) -> dict[str, Any]:
    if crawl.status == "unreachable":
        return {}
    primary = crawl.primary
    findings = primary.findings if primary else []
    columns: dict[str, Any] = {
        "formats_found": dumps(sorted(crawl.results)),
        "error_count": sum(1 for f in findings if f.severity == "error"),
        "warning_count": sum(1 for f in findings if f.severity == "warning"),
        "manifests_sha256": None if listing is None else dumps(crawl.manifests_sha256),
        "declared_documents": None if listing is None else dumps(crawl.declared_documents),
    }
    if listing is None:
        if primary is not None and primary.format in FORMAT_NAMES:
            # A manifest too broken for a listing still has a known format.
            columns["format"] = primary.format
        return columns
    data = listing.to_dict()
    data["origin"] = crawl.origin
    columns["format"] = primary.format if primary else listing.format
    if data.get("tags"):
        data["tags"] = stored_tags(columns["format"], data["tags"])
    columns.update({name: safe_text(data.get(name)) for name in TEXT_FIELDS})
    columns.update({name: dumps(data.get(name)) for name in JSON_FIELDS})
    columns["listing_json"] = dumps(data)
    columns["has_mcp"] = int(bool(listing.mcp_url))
    return columns


# A listing keeps no more tags than its format allows: an invalid manifest may declare
# thousands, and each would be a row of the listing_tags view (FindAgent sets no limit:
# its parser keeps the first 100).
TAG_LIMITS = {"agent_app": 10}
TAG_LIMIT_DEFAULT = 100


def stored_tags(fmt: str | None, tags: list) -> list:
    """The tags stored for a listing of format ``fmt``: the first its format allows."""
    return list(tags)[: TAG_LIMITS.get(fmt or "", TAG_LIMIT_DEFAULT)]


def _upsert_listing(
    db: Database, crawl: OriginCrawl, listing: Listing | None, status: str, streak: int, crawl_id: int | None, at: str
) -> None:
    columns = {
        "origin": crawl.origin,
        "status": status,
        "status_detail": _status_detail(crawl, status, streak),
        "unreachable_streak": streak,
        "first_seen_at": at,
        "first_listed_at": at if status == changes.LISTED else None,
        "last_crawled_at": at,
        "last_crawl_id": crawl_id,
        **_listing_columns(crawl, listing),
    }
    keep = {"origin", "first_seen_at", "first_listed_at"}
    updates = [f"{name} = excluded.{name}" for name in columns if name not in keep]
    updates.append("first_listed_at = coalesce(listings.first_listed_at, excluded.first_listed_at)")
    names = ", ".join(columns)
    marks = ", ".join(f":{name}" for name in columns)
    db.execute(
        f"INSERT INTO listings ({names}) VALUES ({marks}) ON CONFLICT(origin) DO UPDATE SET {', '.join(updates)}",
        columns,
    )


# --- snapshots, blobs, documents -------------------------------------------------------------


def _save_documents(db: Database, crawl: OriginCrawl, at: str) -> None:
    fetched: dict[str, FetchRecord] = {}
    for fetch in crawl.fetches:
        if fetch.body is not None:
            fetched.setdefault(sha256(fetch.body), fetch)
    for kind, sha in crawl.documents.items():
        found = fetched.get(sha)  # a body of this crawl: stored by save_snapshots just before
        if found is None and db.execute("SELECT 1 FROM blobs WHERE sha256 = ?", [sha]).fetchone() is None:
            continue  # a hash with no stored body cannot be a document; keep what we had
        url = found.url if found else _stored_document_url(db, crawl.origin, kind)
        db.execute(
            "INSERT INTO documents (origin, kind, url, sha256, fetched_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(origin, kind) DO UPDATE SET url = excluded.url, sha256 = excluded.sha256, "
            "fetched_at = excluded.fetched_at",
            [crawl.origin, kind, safe_text(url), sha, (found.fetched_at if found else "") or at],
        )
    keep = set(crawl.documents) | {f.kind for f in crawl.fetches if f.not_modified}
    stored = [row[0] for row in db.execute("SELECT kind FROM documents WHERE origin = ?", [crawl.origin])]
    for kind in stored:
        if kind not in keep:
            db.execute("DELETE FROM documents WHERE origin = ? AND kind = ?", [crawl.origin, kind])


def _stored_document_url(db: Database, origin: str, kind: str) -> str:
    row = db.execute("SELECT url FROM documents WHERE origin = ? AND kind = ?", [origin, kind]).fetchone()
    return row[0] if row else ""


# --- findings, tools, checks -----------------------------------------------------------------


def _results(crawl: OriginCrawl) -> list[ParseResult]:
    results = list(crawl.results.values())
    if crawl.primary is not None and all(r is not crawl.primary for r in results):
        results.insert(0, crawl.primary)
    return results


def _replace_findings(db: Database, crawl: OriginCrawl, crawl_id: int | None) -> None:
    # The MCP tools' flags go with the MCP tools, which a crawl need not list again.
    db.execute("DELETE FROM findings WHERE origin = ? AND format != 'mcp_tools'", [crawl.origin])
    rows = [
        (crawl.origin, result.format, f.severity, safe_text(f.path), f.code, safe_text(f.message), crawl_id)
        for result in _results(crawl)
        for f in sorted_findings(result.findings)
    ]
    db.conn.executemany(
        "INSERT INTO findings (origin, format, severity, path, code, message, crawl_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def _tool_endpoint(tool: Tool) -> str | None:
    for key in ("endpoint", "url"):
        value = (tool.detail or {}).get(key)
        if isinstance(value, str):
            return value
    return None


def _replace_tools(db: Database, origin: str, source: str, tools: list[Tool], at: str) -> None:
    db.execute("DELETE FROM tools WHERE origin = ? AND source = ?", [origin, source])
    rows = [
        (
            origin,
            source,
            safe_text(t.name),
            safe_text(t.description) or "",
            dumps(t.annotations or {}),
            int(bool(t.read_only)),
            int((t.annotations or {}).get("destructiveHint") is True),
            dumps(t.input_schema),
            safe_text(_tool_endpoint(t)),
            dumps(t.detail or {}),
            at,
            fingerprint(t).sha256,
        )
        for t in tools
    ]
    db.conn.executemany(
        "INSERT INTO tools (origin, source, name, description, annotations, read_only, destructive, "
        "input_schema, endpoint, detail, seen_at, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    _replace_tool_flags(db, origin, source, tools)


def _replace_discovery_tools(db: Database, crawl: OriginCrawl, at: str) -> None:
    """The tools (and A2A skills) each discovery document declares, under its format as the
    source, so their texts are fingerprinted and flagged like the manifest's and the server's."""
    stored = {row[0] for row in db.execute("SELECT DISTINCT source FROM tools WHERE origin = ?", [crawl.origin])}
    for name in (n for n in DISCOVERY_NAMES if n in crawl.results or n in stored):
        result = crawl.results.get(name)
        tools = result.listing.tools if result is not None and result.listing is not None else []
        _replace_tools(db, crawl.origin, name, tools, at)


def _replace_tool_flags(db: Database, origin: str, source: str, tools: list[Tool]) -> None:
    """Tool texts that carry instructions: warnings of the origin (the tools stay verbatim)."""
    fmt = f"{source}_tools"
    db.execute("DELETE FROM findings WHERE origin = ? AND format = ?", [origin, fmt])
    flags = [
        flag.to_finding(t.name)
        for t in tools
        for flag in check_tool(t.name, t.description, t.input_schema, t.annotations)
    ]
    flags += [f for f in map(read_only_contradiction, tools) if f is not None]
    db.conn.executemany(
        "INSERT INTO findings (origin, format, severity, path, code, message) VALUES (?, ?, ?, ?, ?, ?)",
        [(origin, fmt, f.severity, safe_text(f.path), f.code, safe_text(f.message)) for f in flags],
    )


def _upsert_checks(db: Database, origin: str, checks: list[Check], at: str) -> None:
    rows = [
        (
            origin,
            c.name,
            c.status,
            safe_text(c.detail) or "",
            dumps(c.data or {}),
            at,
            at if c.status == "pass" else None,
        )
        for c in checks
    ]
    db.conn.executemany(
        "INSERT INTO checks (origin, name, status, detail, data, checked_at, last_pass_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(origin, name) DO UPDATE SET "
        "status = excluded.status, detail = excluded.detail, data = excluded.data, "
        "checked_at = excluded.checked_at, "
        "last_pass_at = coalesce(excluded.last_pass_at, checks.last_pass_at)",
        rows,
    )


# --- verification and feedback ---------------------------------------------------------------


def save_verification(
    db: Database,
    origin: str,
    crawl_id: int | None,
    *,
    checks: list[Check],
    mcp_tools: list[Tool] | None = None,
    fetches: Iterable[FetchRecord] = (),
    at: str | None = None,
) -> list[Event]:
    """Store a verification run of a catalogued origin (its probe fetches, checks and, when
    probed, MCP tools) in one transaction; return the events (``tools_changed``,
    ``proof_lost``) it caused.

    :raises DatabaseError: ``origin`` is not in the catalogue
    """
    at = at or utc_now()
    fetches = list(fetches)
    with transaction(db):
        old = load_state(db, origin)
        if old is None:
            raise DatabaseError(f"{origin} is not in the catalogue: crawl it first")
        save_snapshots(db, origin, fetches, crawl_id, at)
        _save_probes(db, origin, checks, mcp_tools, at)
        events = _record_changes(db, origin, old, old["status"], crawl_id, at)
        _count_crawl(db, crawl_id, fetches)
    return events


def save_feedback_receipt(
    db: Database,
    origin: str,
    *,
    idempotency_key: str,
    message_sha256: str,
    status: str,
    raw_response: str | bytes | dict | list | None,
    feedback_id: str | None = None,
    sent_at: str | None = None,
    received_at: str | None = None,
) -> int:
    """Store the receipt of one feedback submission; return its id.

    ``raw_response`` is kept exactly as received: text and bytes as they came (bytes decoded
    as UTF-8), anything else as JSON.
    """
    if isinstance(raw_response, bytes):
        raw = safe_text(raw_response.decode("utf-8", "replace"))
    elif raw_response is None or isinstance(raw_response, str):
        raw = safe_text(raw_response)
    else:
        raw = dumps(raw_response)
    with transaction(db):
        cursor = db.execute(
            "INSERT INTO feedback_receipts (origin, idempotency_key, message_sha256, feedback_id, status, "
            "received_at, raw_response, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [origin, idempotency_key, message_sha256, feedback_id, status, received_at, raw, sent_at or utc_now()],
        )
    return int(cursor.lastrowid or 0)  # an INSERT always sets it (None only before any)

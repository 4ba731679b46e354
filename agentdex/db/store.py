"""Writes: what a crawl, a verification run or a feedback submission stores.

The writers decide nothing: what to store (the listing and its columns, the status
transition, the tool-safety verdicts, the checks a verification replaces) comes from the
pure functions of :mod:`agentdex.db.decisions`, as data. A run's row is
:mod:`agentdex.db.runs`; the reads a save needs are :mod:`agentdex.db.reads`.

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
  survives a check that passes no more. Anchor's checks are deleted when a verification
  ran none of them and the listing is of another format (:func:`decisions.stale_checks`).
- events: :func:`agentdex.changes.diff` between the stored state before and after.
- schedule: the listing's next-due time (:mod:`agentdex.schedule`), from whether
  this crawl found a change, asked anything at all, or could not reach the origin.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from agentdex import changes
from agentdex.db import empty
from agentdex.db.common import dumps, loads, safe_text, utc_now
from agentdex.db.connection import transaction
from agentdex.db.crosscheck import save_consistency, tool_events
from agentdex.db.decisions import (
    CrawlPlan,
    ToolSet,
    Transition,
    listed_tool_set,
    plan_crawl,
    schedule_columns,
    stale_checks,
    transition,
    unchanged_columns,
)
from agentdex.db.health import save_probes
from agentdex.db.reads import light_state, load_state
from agentdex.db.runs import count_crawl
from agentdex.db.snapshots import save_snapshots, sha256
from agentdex.db.tool_quality import save_tool_lint
from agentdex.errors import DatabaseError
from agentdex.formats import DISCOVERY_NAMES
from agentdex.formats.tool_fingerprint import fingerprint
from agentdex.formats.tool_quality import DEFINITION as TDQS_DEFINITION
from agentdex.models import Check, Event, FetchRecord, OriginCrawl, ParseResult, Tool, sorted_findings

NO_TOOLS = ToolSet([], [])
LIVE_PRICE = "x402.live_price"  # the check whose data holds the live prices changes.diff compares
MCP_INIT = "mcp.initialize"  # the check whose data holds the MCP era changes.diff compares


# --- save_origin -----------------------------------------------------------------------------


def save_origin(db: Database, crawl: OriginCrawl, crawl_id: int | None, *, at: str | None = None) -> list[Event]:
    """Store everything one crawl learned about one origin, in one transaction; return the
    change events it caused (already stored).

    With ``crawl.unchanged`` (every document answered 304) only the snapshots (without
    bodies) and the crawl time are written: nothing was parsed, so nothing changed. An origin
    where the crawl found nothing is one compact row (:mod:`agentdex.db.empty`).
    ``crawl.robots`` (a robots.txt this crawl fetched) is kept for the next crawl.
    """
    at = at or utc_now()
    plan = plan_crawl(crawl)  # needs no stored state, so it holds no write lock
    with transaction(db):
        light = light_state(db, crawl.origin)
        if empty.take(db, crawl, crawl_id, light, at):  # found nothing: one compact row
            if crawl.robots is not None and crawl.robots.ok and not empty.robots_page(crawl.robots):
                _save_robots(db, crawl.origin, crawl.robots, at)  # its rules (a page without one: the row's)
            count_crawl(db, crawl_id, crawl.fetches)
            return []
        if light is None and empty.expand(db, crawl.origin):  # found something: the rows it stood for
            light = light_state(db, crawl.origin)
        if crawl.unchanged and light is not None:
            events = _save_unchanged(db, crawl, plan, crawl_id, light, at)
        else:
            events = _save_crawled(db, crawl, plan, crawl_id, light or {}, at)
        if crawl.robots is not None:
            _save_robots(db, crawl.origin, crawl.robots, at)
        count_crawl(db, crawl_id, crawl.fetches)
    return events


def _save_crawled(
    db: Database, crawl: OriginCrawl, plan: CrawlPlan, crawl_id: int | None, light: dict[str, Any], at: str
) -> list[Event]:
    origin = crawl.origin
    old = load_state(db, origin)
    move = transition(old, crawl.status, crawl.status_detail)
    stale = stale_checks(crawl.checks, plan.listing_format(light.get("format")))
    _upsert_listing(db, origin, plan.columns, move, crawl_id, at)
    save_snapshots(db, origin, crawl.fetches, crawl_id, at)
    if crawl.status != "unreachable":
        _save_documents(db, crawl, at)
        _replace_findings(db, crawl, crawl_id)
        _replace_discovery_tools(db, origin, plan.tools, at)
        save_consistency(db, origin, crawl.consistency, crawl_id)
    if plan.listing is not None:
        _replace_tools(db, origin, "manifest", plan.tools["manifest"], at)
    linted = _save_probes(db, origin, crawl.checks, plan.tools.get("mcp"), stale, at, crawl.endpoints, crawl_id)
    events = _record_changes(db, origin, old, crawl.status, crawl_id, at, linted)
    _update_listing(db, origin, schedule_columns(crawl, light, changed=bool(events), failures=move.failures, at=at))
    return events


def _save_unchanged(
    db: Database, crawl: OriginCrawl, plan: CrawlPlan, crawl_id: int | None, light: dict[str, Any], at: str
) -> list[Event]:
    columns = unchanged_columns(light, crawl_id, at)
    status = columns.get("status", light["status"])
    crawl.status = status  # an unchanged crawl's status is the stored one: the run counts it so
    stale = stale_checks(crawl.checks, light["format"])
    # The common recrawl (same status, no tools probed, every verdict as stored) can cause
    # no event (endpoint health has its own history, no events), so the full state
    # changes.diff compares is read (before the update) only when one may follow.
    quiet = (
        status == light["status"]
        and crawl.mcp_tools is None
        and (crawl.checks is None or _verdicts_hold(db, crawl.origin, crawl.checks, stale))
    )
    old = None if quiet else load_state(db, crawl.origin)
    if quiet:  # no event can follow, so the schedule is known now and goes in the same UPDATE
        planned = schedule_columns(crawl, light, changed=False, failures=0, at=at)
        columns.update({name: value for name, value in planned.items() if light.get(name) != value})
    _update_listing(db, crawl.origin, columns)
    save_snapshots(db, crawl.origin, crawl.fetches, crawl_id, at, keep_bodies=False)
    if quiet:  # the same verdicts: their time, detail and data move
        moved = _save_probes(db, crawl.origin, crawl.checks, None, (), at, crawl.endpoints, crawl_id)
        if crawl.consistency is not None:
            save_consistency(db, crawl.origin, crawl.consistency, crawl_id)
        # Only an endpoint's confirmed health can have moved (endpoint_unhealthy/_recovered).
        if moved:
            _insert_events(db, crawl.origin, moved, crawl_id, at)
        return moved
    linted = _save_probes(db, crawl.origin, crawl.checks, plan.tools.get("mcp"), stale, at, crawl.endpoints, crawl_id)
    if crawl.consistency is not None:  # the stored documents compared again with live 402s
        save_consistency(db, crawl.origin, crawl.consistency, crawl_id)
    events = _record_changes(db, crawl.origin, old, status, crawl_id, at, linted)
    _update_listing(db, crawl.origin, schedule_columns(crawl, light, changed=bool(events), failures=0, at=at))
    return events


def _verdicts_hold(db: Database, origin: str, checks: list[Check], stale: tuple[str, ...]) -> bool:
    """Whether storing ``checks`` (and deleting ``stale``) leaves every stored verdict and
    live price as it is: then no check can cause an event (:func:`changes.diff` compares
    check statuses, the prices of ``x402.live_price`` and the era of ``mcp.initialize``), and
    the counts stand."""
    stored = {
        name: (status, data)
        for name, status, data in db.execute(
            "SELECT name, status, data FROM checks WHERE origin = ?", [origin]
        ).fetchall()
    }
    if any(name in stored for name in stale):
        return False
    for check in checks:
        row = stored.get(check.name)
        if row is None or row[0] != check.status:
            return False
        if check.name == LIVE_PRICE and row[1] != dumps(check.data or {}):
            return False
        if check.name == MCP_INIT and loads(row[1], {}).get("era") != (check.data or {}).get("era"):
            return False  # the MCP endpoint's eras moved: an mcp_era_changed may follow
    return True


def _update_listing(db: Database, origin: str, columns: dict[str, Any]) -> None:
    if columns:
        sets = ", ".join(f"{name} = :{name}" for name in columns)
        db.execute(f"UPDATE listings SET {sets} WHERE origin = :origin", {**columns, "origin": origin})


def _save_probes(
    db: Database,
    origin: str,
    checks: list[Check] | None,
    mcp: ToolSet | None,
    stale: tuple[str, ...],
    at: str,
    endpoints=None,
    crawl_id: int | None = None,
) -> list[Event]:
    """Store the probes, the MCP tools with their TDQS lint, and the checks; return the
    events of a changed lint result and of endpoints whose confirmed health moved."""
    linted: list[Event] = save_probes(db, origin, endpoints, crawl_id, at)
    if mcp is not None:
        _replace_tools(db, origin, "mcp", mcp, at)
        linted += save_tool_lint(db, origin, "mcp", mcp.quality, at)
        db.execute("UPDATE listings SET mcp_tools_checked_at = ? WHERE origin = ?", [at, origin])
    if checks is not None:
        _upsert_checks(db, origin, checks, at)
    if stale:
        marks = ", ".join("?" for _ in stale)
        db.execute(f"DELETE FROM checks WHERE origin = ? AND name IN ({marks})", [origin, *stale])
    return linted


def _record_changes(
    db: Database,
    origin: str,
    old: dict | None,
    observed: str,
    crawl_id: int | None,
    at: str,
    linted: Iterable[Event] = (),
) -> list[Event]:
    new = load_state(db, origin)
    if new is not None:
        new["observed"] = observed
    events = changes.diff(old, new) + tool_events(old, new) + list(linted)
    _insert_events(db, origin, events, crawl_id, at)
    return events


def _insert_events(db: Database, origin: str, events: list[Event], crawl_id: int | None, at: str) -> None:
    db.conn.executemany(
        "INSERT INTO events (origin, kind, at, old, new, subject, crawl_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(origin, e.kind, at, dumps(e.old), dumps(e.new), safe_text(e.subject) or "", crawl_id) for e in events],
    )
    _refresh_counts(db, origin, changed_at=at if events else None)


def _refresh_counts(db: Database, origin: str, *, changed_at: str | None) -> None:
    # `+status` keeps SQLite off the checks_status_name index: with it, each count scanned
    # every passing check of every origin (2.4 ms per origin at 2,000 origins, growing with N);
    # the primary key (origin, name) finds one origin's dozen rows instead.
    db.execute(
        "UPDATE listings SET "
        "checks_passed = (SELECT count(*) FROM checks WHERE origin = :o AND +status = 'pass'), "
        "checks_failed = (SELECT count(*) FROM checks WHERE origin = :o AND +status = 'fail'), "
        "last_changed_at = coalesce(:changed, last_changed_at) WHERE origin = :o",
        {"o": origin, "changed": changed_at},
    )


# --- the listing row -------------------------------------------------------------------------


def _upsert_listing(
    db: Database, origin: str, listing_columns: dict[str, Any], move: Transition, crawl_id: int | None, at: str
) -> None:
    columns = {
        "origin": origin,
        "status": move.status,
        "status_detail": move.detail,
        "unreachable_streak": move.streak,
        "first_seen_at": at,
        "first_listed_at": at if move.status == changes.LISTED else None,
        "last_crawled_at": at,
        "last_crawl_id": crawl_id,
        **listing_columns,
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


# --- snapshots, blobs, documents -------------------------------------------------------------


def _save_documents(db: Database, crawl: OriginCrawl, at: str) -> None:
    fetched: dict[str, FetchRecord] = {}
    for fetch in crawl.fetches:
        if fetch.body is not None:
            fetched.setdefault(sha256(fetch.body), fetch)
    rows = []
    for kind, sha in crawl.documents.items():
        found = fetched.get(sha)  # a body of this crawl: stored by save_snapshots just before
        if found is None and db.execute("SELECT 1 FROM blobs WHERE sha256 = ?", [sha]).fetchone() is None:
            continue  # a hash with no stored body cannot be a document; keep what we had
        url = found.url if found else _stored_document_url(db, crawl.origin, kind)
        rows.append((crawl.origin, kind, safe_text(url), sha, (found.fetched_at if found else "") or at))
    db.conn.executemany(
        "INSERT INTO documents (origin, kind, url, sha256, fetched_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(origin, kind) DO UPDATE SET url = excluded.url, sha256 = excluded.sha256, "
        "fetched_at = excluded.fetched_at",
        rows,
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


def _replace_tools(db: Database, origin: str, source: str, found: ToolSet, at: str) -> None:
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
            dumps({k: v for k, v in (t.detail or {}).items() if k != TDQS_DEFINITION}),
            at,
            fingerprint(t).sha256,
        )
        for t in found.tools
    ]
    db.conn.executemany(
        "INSERT INTO tools (origin, source, name, description, annotations, read_only, destructive, "
        "input_schema, endpoint, detail, seen_at, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    _replace_tool_flags(db, origin, source, found)


def _replace_discovery_tools(db: Database, origin: str, found: dict[str, ToolSet], at: str) -> None:
    """The tools (and A2A skills) each discovery document declares, under its format as the
    source, so their texts are fingerprinted and flagged like the manifest's and the server's."""
    stored = {row[0] for row in db.execute("SELECT DISTINCT source FROM tools WHERE origin = ?", [origin])}
    for name in (n for n in DISCOVERY_NAMES if n in found or n in stored):
        _replace_tools(db, origin, name, found.get(name, NO_TOOLS), at)


def _replace_tool_flags(db: Database, origin: str, source: str, found: ToolSet) -> None:
    """Tool texts that carry instructions: warnings of the origin (the tools stay verbatim)."""
    fmt = f"{source}_tools"
    db.execute("DELETE FROM findings WHERE origin = ? AND format = ?", [origin, fmt])
    db.conn.executemany(
        "INSERT INTO findings (origin, format, severity, path, code, message) VALUES (?, ?, ?, ?, ?, ?)",
        [(origin, fmt, f.severity, safe_text(f.path), f.code, safe_text(f.message)) for f in found.flags],
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
    mcp = None if mcp_tools is None else listed_tool_set(mcp_tools)  # decided before the transaction opens
    with transaction(db):
        old = load_state(db, origin)
        if old is None:
            raise DatabaseError(f"{origin} is not in the catalogue: crawl it first")
        stale = stale_checks(checks, (light_state(db, origin) or {}).get("format"))
        save_snapshots(db, origin, fetches, crawl_id, at)
        linted = _save_probes(db, origin, checks, mcp, stale, at)
        events = _record_changes(db, origin, old, old["status"], crawl_id, at, linted)
        count_crawl(db, crawl_id, fetches)
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

"""Reads: the only SQL the CLI and the TUI use.

Named functions with keyword filters, returning plain dicts (JSON columns decoded). User
input only ever reaches SQL as a bound parameter; the full-text search turns it into a
quoted FTS5 query first, so no operator or syntax of FTS5 can be injected.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlite_utils import Database

from agentdex import schedule
from agentdex.db import empty
from agentdex.db.common import epoch, iso, loads
from agentdex.db.health import recent_samples
from agentdex.db.listing_query import COLUMNS, FTS_IN, FTS_MATCH, SORT_INDEXES, SORTS, ListingQuery, order_by
from agentdex.db.migrations import RECENT_PROBES, UP_BY_ROLE
from agentdex.db.tool_quality import lint_summary, quality_share
from agentdex.errors import InputError
from agentdex.formats import DISCOVERY_PATHS
from agentdex.models import Listing
from agentdex.text import plain

# Every column a listing row holds (:data:`agentdex.db.listing_query.COLUMNS`).
LIST_COLUMNS = tuple(COLUMNS)
JSON_COLUMNS = {
    "formats_found",
    "mcp_auth",
    "auth_methods",
    "events",
    "hosts",
    "categories",
    "tags",
    "say",
    "feedback",
    "extra",
    "consistency_sources",
}


# --- listings --------------------------------------------------------------------------------


def _order_by(sort: str, descending: bool, searching: bool) -> str:
    if sort not in SORTS or (sort == "relevance" and not searching):
        choices = ", ".join(s for s in SORTS if searching or s != "relevance")
        raise InputError(f"cannot sort by {sort!r}; choose one of: {choices}")
    return order_by(sort, descending)


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for column in JSON_COLUMNS & row.keys():
        row[column] = loads(row[column])
    if "has_mcp" in row:
        row["has_mcp"] = bool(row["has_mcp"])
    return row


def _query(query: ListingQuery | None, options: dict[str, Any]) -> ListingQuery:
    if query is None:
        return ListingQuery(**options)
    return query.with_(**options) if options else query


def list_listings(
    db: Database, query: ListingQuery | None = None, *, limit: int = 200, offset: int = 0, **options: Any
) -> list[dict[str, Any]]:
    """Listings matching every filter of ``query``, one summary dict each (:data:`LIST_COLUMNS`).

    The filters, ``sort`` and ``descending`` come as a :class:`ListingQuery` or as keywords
    (``list_listings(db, search="tide", format=["anchor", "agent_app"], sort="relevance")``),
    each a filter of :data:`agentdex.db.listing_query.FILTERS`: ``search`` (words to find in
    name, one-liner, description and tags, each a prefix), ``format``, ``status``, ``pricing``
    (one or a list), ``category``, ``auth`` (one), ``has_mcp``, ``failing_checks`` (``True``
    only listings with a failing check, ``False`` only without).

    :param sort: a key of :data:`SORTS` (``relevance`` needs ``search``)
    :raises InputError: an unknown sort key
    """
    query = _query(query, options)
    searching, where, params = query.where()
    order = _order_by(query.sort, query.descending, searching)
    if query.sort == "relevance":  # the rank lives on the search's rows: the search leads the join
        source, where = (
            "listings_fts CROSS JOIN listings ON listings.rowid = listings_fts.rowid",
            where.replace(FTS_IN, FTS_MATCH),
        )
    else:
        # Walking the sort's index and keeping the rows the search matched stops after one
        # window; sorting every match ("p" matches most listings) took ~60 ms at 100,000.
        index = SORT_INDEXES.get(query.sort) if searching else None
        source = f"listings INDEXED BY {index}" if index else "listings"
    columns = ", ".join(f"listings.{c}" for c in LIST_COLUMNS)
    sql = f"SELECT {columns} FROM {source}{where}{order} LIMIT ? OFFSET ?"
    return [_decode(row) for row in db.query(sql, [*params, int(limit), int(offset)])]


def count_listings(db: Database, query: ListingQuery | None = None, **filters: Any) -> int:
    """How many listings :func:`list_listings` would return for ``query`` (or the keyword
    filters) without a limit."""
    _, where, params = _query(query, filters).where()
    if where == f" WHERE {FTS_IN}":  # the search alone: its index counts it (5x faster)
        return int(db.execute(f"SELECT count(*) FROM listings_fts WHERE {FTS_MATCH}", params).fetchone()[0])
    return int(db.execute(f"SELECT count(*) FROM listings{where}", params).fetchone()[0])


def get_listing(db: Database, origin: str) -> dict[str, Any] | None:
    """Everything stored about ``origin``, or ``None`` for an origin not in the catalogue.

    Its listing columns (JSON decoded; the column ``events`` as ``event_channels``), the
    whole normalised listing under ``listing``, the primary format's ``manifest`` (decoded
    JSON, or ``None``), ``findings``, ``checks``, ``events`` (oldest first), ``tools``,
    ``endpoints`` (their health, :func:`endpoint_health`) and ``documents``. An empty origin
    (:mod:`agentdex.db.empty`) as the ``no_manifest`` listing it stands for."""
    rows = list(db.query("SELECT * FROM listings WHERE origin = ?", [origin]))
    if not rows:
        found = empty.view(db, origin, time.time())
        if found is not None:
            found["tool_lint"] = lint_summary(db, origin)
        return found
    row = _decode(rows[0])
    # The manifest's own ``events`` (how the app notifies) would clash with the change events.
    row["event_channels"] = row.pop("events")
    row["listing"] = loads(row.pop("listing_json"))
    row["manifest"] = _manifest(db, origin, row["format"])
    row["findings"] = _findings(db, origin)
    row["checks"] = list_checks(db, origin)
    row["events"] = _events(db, origin)
    row["tools"] = list_tools(db, origin)
    row["tool_lint"] = lint_summary(db, origin)
    row["endpoints"] = endpoint_health(db, origin)
    row["documents"] = _documents(db, origin)
    row["facts"] = list_facts(db, origin)
    return row


def list_facts(db: Database, origin: str, *, now: float | None = None) -> list[dict[str, Any]]:
    """How old each fact about ``origin`` is: the latest answer of every URL it was asked
    (robots.txt aside), ``{kind, url, status_code, error_code, obtained, checked_at,
    response_at, age_seconds, fresh_until, fresh, absence_recheck_at}``. ``obtained`` is
    fetched, revalidated (a 304), fresh (not asked: the stored answer was still fresh) or
    known_absent (not asked: a known absence before its schedule); ``age_seconds`` counts
    from ``response_at``, when the answer the fact stands on arrived; ``absence_recheck_at``
    is when ``crawl --revalidate`` next asks a discovery path that answered 404 or 410."""
    rows = db.query(
        "SELECT kind, url, status_code, error_code, coalesce(last_obtained, obtained, CASE WHEN not_modified = 1 "
        "THEN 'revalidated' ELSE 'fetched' END) AS obtained, coalesce(last_seen_at, fetched_at) AS checked_at, "
        "coalesce(response_at, fetched_at) AS response_at, fresh_until, fetched_at AS first_seen_at FROM snapshots "
        "WHERE id IN (SELECT max(id) FROM snapshots WHERE origin = ? GROUP BY url) ORDER BY kind, url",
        [origin],
    )
    moment = time.time() if now is None else now
    facts = []
    for row in rows:
        arrived, until, first = epoch(row["response_at"]), epoch(row["fresh_until"]), epoch(row.pop("first_seen_at"))
        row["age_seconds"] = None if arrived is None else max(0, round(moment - arrived))
        row["fresh"] = until is not None and until > moment
        row["absence_recheck_at"] = _absence_recheck(row, first, arrived)
        facts.append(row)
    return facts


def _absence_recheck(fact: dict[str, Any], first: float | None, arrived: float | None) -> str | None:
    """When a revalidating crawl asks a known absence (a discovery path's 404 or 410) again."""
    absence = fact["status_code"] in (404, 410) and (
        fact["kind"] in DISCOVERY_PATHS or fact["kind"].startswith("registry_server_json")
    )
    if not absence or arrived is None:
        return None
    return iso(schedule.absence_recheck_at(first or arrived, arrived))


def next_due(db: Database) -> tuple[str, str] | None:
    """The origin due next and when, ``(origin, next_due_at)`` (None: nothing is scheduled)."""
    row = db.execute(
        "SELECT origin, next_due_at FROM listings WHERE next_due_at IS NOT NULL UNION ALL "
        "SELECT origin, next_due_at FROM empty_origins WHERE next_due_at IS NOT NULL "
        "ORDER BY next_due_at, origin LIMIT 1"
    ).fetchone()
    return (row[0], row[1]) if row else None


def load_listing(db: Database, origin: str) -> Listing | None:
    """The stored normalised :class:`Listing` of ``origin`` (what install plans derive from)."""
    row = db.execute("SELECT listing_json FROM listings WHERE origin = ?", [origin]).fetchone()
    data = loads(row[0]) if row else None
    return Listing.from_dict(data) if isinstance(data, dict) else None


def _manifest(db: Database, origin: str, fmt: str | None) -> Any:
    if fmt is None:
        return None
    if fmt == "inferred":
        return _inferred_manifest(db, origin)
    text = get_document_text(db, origin, fmt)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None  # not JSON (an .adapp package is a ZIP): the listing shows its content


def _inferred_manifest(db: Database, origin: str) -> dict[str, Any] | None:
    """An inferred listing has no manifest file: the one built from its stored bootstrap
    files (marked ``"manifest": "inferred"``, the MCP URL from mcp.json or the guide)."""
    from agentdex.formats import inferred

    rows = db.execute(
        "SELECT d.kind, b.content FROM documents d JOIN blobs b ON b.sha256 = d.sha256 WHERE d.origin = ?", [origin]
    ).fetchall()
    files = {
        inferred.BOOTSTRAP_NAMES[kind]: bytes(content) for kind, content in rows if kind in inferred.BOOTSTRAP_NAMES
    }
    return inferred.infer(files, origin=origin, base_url=f"https://{origin}").document


def _findings(db: Database, origin: str) -> list[dict[str, Any]]:
    return list(
        db.query("SELECT format, severity, path, code, message FROM findings WHERE origin = ? ORDER BY id", [origin])
    )


def _events(db: Database, origin: str) -> list[dict[str, Any]]:
    return [
        _event(e, with_origin=False)
        for e in db.query("SELECT kind, at, old, new, subject FROM events WHERE origin = ? ORDER BY at, id", [origin])
    ]


def _documents(db: Database, origin: str) -> list[dict[str, Any]]:
    return list(
        db.query(
            "SELECT d.kind, d.url, d.sha256, d.fetched_at, b.size_bytes FROM documents d "
            "JOIN blobs b ON b.sha256 = d.sha256 WHERE d.origin = ? ORDER BY d.kind",
            [origin],
        )
    )


def list_checks(db: Database, origin: str) -> list[dict[str, Any]]:
    """The verification checks of ``origin`` by name: ``{name, status, detail, data,
    checked_at, last_pass_at}``."""
    rows = db.query(
        "SELECT name, status, detail, data, checked_at, last_pass_at FROM checks WHERE origin = ? ORDER BY name",
        [origin],
    )
    return [{**r, "data": loads(r["data"], {})} for r in rows]


def list_tools(db: Database, origin: str, *, source: str | None = None) -> list[dict[str, Any]]:
    """The tools of ``origin`` (declared in its manifest or a discovery document, listed by
    its MCP server), each with its fingerprint, its safety ``flags`` (``[{code, message}]``)
    and, for the tools its MCP server listed, its TDQS lint ``quality`` (``{input_hash,
    findings: [{rule, severity, message}], spec_version}``; None when not linted)."""
    sql = (
        "SELECT t.source, t.name, t.description, t.annotations, t.read_only, t.destructive, t.input_schema, "
        "t.endpoint, t.detail, t.seen_at, t.fingerprint, q.input_hash AS q_hash, q.findings AS q_findings, "
        "q.spec_version AS q_version FROM tools t LEFT JOIN tool_lints q "
        "ON q.origin = t.origin AND q.source = t.source AND q.name = t.name WHERE t.origin = ?"
    )
    params: list[Any] = [origin]
    if source is not None:
        sql += " AND t.source = ?"
        params.append(source)
    rows = db.query(sql + " ORDER BY t.source, t.name, t.id", params)
    flags = _tool_flags(db, origin)
    return [
        {
            **{k: v for k, v in r.items() if not k.startswith("q_")},
            "annotations": loads(r["annotations"], {}),
            "input_schema": loads(r["input_schema"]),
            "detail": loads(r["detail"], {}),
            "read_only": bool(r["read_only"]),
            "destructive": bool(r["destructive"]),
            "flags": flags.get((r["source"], f"tools[{plain(r['name'], 80)}]"), []),
            "quality": None
            if r["q_hash"] is None
            else {"input_hash": r["q_hash"], "findings": loads(r["q_findings"], []), "spec_version": r["q_version"]},
        }
        for r in rows
    ]


def _tool_flags(db: Database, origin: str) -> dict[tuple[str, str], list[dict[str, str]]]:
    """The safety flags of ``origin``'s tools, by (source, ``tools[<name>]``)."""
    found: dict[tuple[str, str], list[dict[str, str]]] = {}
    rows = db.execute(
        "SELECT format, path, code, message FROM findings WHERE origin = ? AND substr(format, -6) = '_tools' "
        "ORDER BY id",
        [origin],
    )
    for fmt, path, code, message in rows:
        tool = path.split("].", 1)[0] + "]" if "]." in path else path
        found.setdefault((fmt[:-6], tool), []).append({"code": code, "message": message})
    return found


# --- events, documents, stats ----------------------------------------------------------------


def _event(row: dict[str, Any], *, with_origin: bool = True) -> dict[str, Any]:
    event = {
        "kind": row["kind"],
        "at": row["at"],
        "old": loads(row["old"]),
        "new": loads(row["new"]),
        "subject": row["subject"],
    }
    if with_origin:
        event = {"id": row["id"], "origin": row["origin"], **event, "crawl_id": row["crawl_id"]}
    return event


def list_events(
    db: Database,
    *,
    origin: str | None = None,
    since: str | None = None,
    kind: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """Change events, newest first: ``{id, origin, kind, at, old, new, subject, crawl_id}``.

    :param since: an ISO 8601 time or date (``2026-05-01``); events at or after it
    """
    where, params = [], []
    for clause, value in (("origin = ?", origin), ("at >= ?", since), ("kind = ?", kind)):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = "SELECT id, origin, kind, at, old, new, subject, crawl_id FROM events"
    sql += (" WHERE " + " AND ".join(where)) if where else ""
    sql += " ORDER BY at DESC, id DESC LIMIT ? OFFSET ?"
    return [_event(row) for row in db.query(sql, [*params, int(limit), int(offset)])]


def get_document_text(db: Database, origin: str, kind: str) -> str | None:
    """The latest stored document of ``kind`` for ``origin`` as text (UTF-8, undecodable
    bytes replaced), or ``None``."""
    row = db.execute(
        "SELECT b.content FROM documents d JOIN blobs b ON b.sha256 = d.sha256 WHERE d.origin = ? AND d.kind = ?",
        [origin, kind],
    ).fetchone()
    return None if row is None else bytes(row[0]).decode("utf-8", "replace")


def get_blob(db: Database, sha256: str) -> bytes | None:
    """The stored body with this sha256 (e.g. an event's old guide), or ``None``."""
    row = db.execute("SELECT content FROM blobs WHERE sha256 = ?", [sha256]).fetchone()
    return None if row is None else bytes(row[0])


def list_crawls(db: Database, *, limit: int = 20) -> list[dict[str, Any]]:
    """The latest crawls, newest first."""
    return list(db.query("SELECT * FROM crawls ORDER BY id DESC LIMIT ?", [int(limit)]))


def _counts(db: Database, column: str) -> dict[str, int]:
    rows = db.execute(f"SELECT {column}, count(*) FROM listings GROUP BY {column} ORDER BY {column}").fetchall()
    return {("none" if key is None else key): n for key, n in rows}


def stats(db: Database) -> dict[str, Any]:
    """Catalogue counts: listings in all and by status and format, events, crawls, blobs.
    An empty origin (:mod:`agentdex.db.empty`) counts as the ``no_manifest`` listing it stands for."""

    def one(sql: str) -> int:
        return int(db.execute(sql).fetchone()[0])

    empties = empty.count(db)
    by_status, by_format = _counts(db, "status"), _counts(db, "format")
    if empties:
        by_status = dict(sorted({**by_status, "no_manifest": by_status.get("no_manifest", 0) + empties}.items()))
        by_format = dict(sorted({**by_format, "none": by_format.get("none", 0) + empties}.items()))
    return {
        "listings": one("SELECT count(*) FROM listings") + empties,
        "by_status": by_status,
        "by_format": by_format,
        "with_mcp": count_listings(db, has_mcp=True),
        "failing_checks": count_listings(db, failing_checks=True),
        "events": one("SELECT count(*) FROM events"),
        "crawls": one("SELECT count(*) FROM crawls"),
        "blobs": one("SELECT count(*) FROM blobs"),
        "blob_bytes": one("SELECT coalesce(sum(size_bytes), 0) FROM blobs"),
        "tools": quality_share(db),  # MCP tools linted (TDQS) and how many have a finding
    }


# A paid MCP endpoint that answers 402 is alive and asks for what it declares: mcp.initialize
# passes for it (the endpoint_health view counts it up too since migration 19).
ALIVE_BY_ROLE = {"mcp": ("payment_required",)}


def endpoint_health(db: Database, origin: str, recent: int = RECENT_PROBES) -> list[dict[str, Any]]:
    """Each endpoint of ``origin`` by role and URL: ``state`` (the latest), ``history`` (the
    states of its last ``recent`` probes, oldest first), ``up`` (whether each was up), ``recent_ok``, ``recent_probes``,
    ``uptime`` (their share that was ok), ``probes`` (all), ``first_seen_at``, ``last_ok_at``
    (for a paid x402 resource or MCP endpoint, ``payment_required`` counts as ok: :data:`UP_BY_ROLE`,
    :data:`ALIVE_BY_ROLE`); and for the MCP endpoint, as its latest probe found it, ``era``
    (legacy | dual | modern | unknown), ``versions`` (the revisions seen) and ``server_name``
    (None for other roles); ``strip`` and ``latency_ms``, the outcomes and times of its last 30
    probes (:func:`agentdex.db.health.recent_samples`)."""
    rows = db.execute(
        "SELECT role, url, state, at, coalesce(last_at, at), runs, era, versions, server_name FROM endpoint_probes "
        "WHERE origin = ? ORDER BY role, url, id",
        [origin],
    ).fetchall()
    found: dict[tuple[str, str], list[tuple[str, str]]] = {}
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for role, url, state, at, last_at, runs, era, versions, server_name in rows:
        # A row stands for ``runs`` probes in a row, from ``at`` to ``last_at``.
        found.setdefault((role, url), []).extend([(state, at)] * (runs - 1) + [(state, last_at)])
        latest[(role, url)] = _era_facts(role, era, versions, server_name)
    samples = recent_samples(db, origin)
    none: dict[str, list[Any]] = {"strip": [], "latency_ms": []}
    return [
        {**_summary(role, url, probes, recent), **latest[(role, url)], **samples.get((role, url), none)}
        for (role, url), probes in found.items()
    ]


def _era_facts(role: str, era: str | None, versions: str | None, server_name: str | None) -> dict[str, Any]:
    if role != "mcp":
        return {"era": None, "versions": [], "server_name": None}
    return {"era": era or "unknown", "versions": loads(versions, []), "server_name": server_name}


def _summary(role: str, url: str, probes: list[tuple[str, str]], recent: int) -> dict[str, Any]:
    history = [state for state, _ in probes[-recent:]]
    up = ("ok", UP_BY_ROLE.get(role, "ok"), *ALIVE_BY_ROLE.get(role, ()))  # a paid resource asking for payment is up
    ok = sum(state in up for state in history)
    last_ok = [at for state, at in probes if state in up]
    return {
        "role": role,
        "url": url,
        "state": history[-1],
        "history": history,
        "up": [s in up for s in history],
        "recent_ok": ok,
        "recent_probes": len(history),
        "uptime": round(ok / len(history), 4),
        "probes": len(probes),
        "first_seen_at": probes[0][1],
        "last_ok_at": last_ok[-1] if last_ok else None,
    }

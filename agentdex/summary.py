"""A catalogue's summary as data (``agentdex stats --json``): the counts the demo prints,
events by kind, the failing checks and the origins that are not listed, with why."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlite_utils import Database

from agentdex.db import list_checks, list_listings, stats


def catalogue_summary(db: Database) -> dict[str, Any]:
    """``{listings, by_status, by_format, with_mcp, failing_checks, events, events_by_kind,
    crawls, blobs, blob_bytes, failing: [{origin, name, detail}], not_listed: [{origin,
    status, detail}]}``."""
    counts = stats(db)
    kinds = Counter(kind for (kind,) in db.execute("SELECT kind FROM events"))
    rows = list_listings(db, limit=max(1, counts["listings"]), sort="origin")  # every one: no cap unsaid
    failing = [
        {"origin": r["origin"], "name": c["name"], "detail": c.get("detail")}
        for r in rows
        if r["status"] == "listed" and r.get("checks_failed")
        for c in list_checks(db, r["origin"])
        if c["status"] == "fail"
    ]
    broken = [
        {"origin": r["origin"], "status": r["status"], "detail": r.get("status_detail") or None}
        for r in rows
        if r["status"] != "listed"
    ]
    return {**counts, "events_by_kind": dict(sorted(kinds.items())), "failing": failing, "not_listed": broken}


def overview(db: Database, top: int = 5) -> dict[str, Any]:
    """What ``agentdex stats`` prints, for a catalogue of any size: the counts, then the
    first ``top`` of each section with how many more there are (``more``), all counted in
    SQL (nothing is read whole, nothing capped unsaid).

    ``{counts, census, failing: {listings, checks, top: [{name, listings, origins}], more},
    not_listed: [{status, count, origins}], events: {total, newest, more}, shared_names:
    {groups, top: [{name, count, origins}], more}}`` (``origins``: the first three, by origin).
    """
    from agentdex.db import list_events
    from agentdex.db.seeds import census

    counts = stats(db)
    return {
        "counts": counts,
        "census": census(db),
        "failing": _failing(db, top),
        "not_listed": [
            {"status": status, "count": n, "origins": _first(db, "status = ?", [status])}
            for status, n in db.execute(
                "SELECT status, count(*) FROM listings WHERE status != 'listed' GROUP BY status ORDER BY 2 DESC, 1"
            )
        ],
        "events": {
            "total": counts["events"],
            "newest": list_events(db, limit=top),
            "more": max(0, counts["events"] - top),
        },
        "shared_names": _shared_names(db, top),
    }


_FAILING = "FROM checks c WHERE c.status = 'fail'"


def _failing(db: Database, top: int) -> dict[str, Any]:
    by_name = db.execute(f"SELECT c.name, count(*) {_FAILING} GROUP BY c.name ORDER BY 2 DESC, 1").fetchall()
    listings = db.execute(f"SELECT count(DISTINCT c.origin) {_FAILING}").fetchone()[0]
    shown = [
        {
            "name": name,
            "listings": n,
            "origins": _first(db, "origin IN (SELECT c.origin " + _FAILING + " AND c.name = ?)", [name]),
        }
        for name, n in by_name[:top]
    ]
    return {
        "listings": listings,
        "checks": sum(n for _, n in by_name),
        "top": shown,
        "more": max(0, len(by_name) - top),
    }


def _shared_names(db: Database, top: int) -> dict[str, Any]:
    groups = db.execute(
        "SELECT min(name), count(*) FROM listings WHERE coalesce(name, '') != '' "
        "GROUP BY lower(name) HAVING count(*) > 1 ORDER BY 2 DESC, 1"
    ).fetchall()
    shown = [
        {"name": name, "count": n, "origins": _first(db, "lower(name) = lower(?)", [name])} for name, n in groups[:top]
    ]
    return {"groups": len(groups), "top": shown, "more": max(0, len(groups) - top)}


def _first(db: Database, where: str, params: list[Any], n: int = 3) -> list[str]:
    """The first ``n`` origins of the listings ``where`` holds, by origin."""
    return [
        row[0] for row in db.execute(f"SELECT origin FROM listings WHERE {where} ORDER BY origin LIMIT {n}", params)
    ]

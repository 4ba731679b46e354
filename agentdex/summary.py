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
    rows = list_listings(db, limit=1_000_000, sort="origin")
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

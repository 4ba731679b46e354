"""Endpoint health over time: one row a verified crawl for each endpoint a listing depends
on (:mod:`agentdex.crawler.health` decides the state). Reading the history back (latest state,
uptime over the last probes, first seen, last ok) is :func:`agentdex.db.queries.endpoint_health`."""

from __future__ import annotations

from sqlite_utils import Database

from agentdex.db.common import safe_text
from agentdex.models import EndpointProbe


def save_probes(db: Database, origin: str, probes: list[EndpointProbe] | None, crawl_id: int | None, at: str) -> None:
    """Append this crawl's endpoint states (``None``: not verified, nothing to append)."""
    if not probes:
        return
    db.conn.executemany(
        "INSERT INTO endpoint_probes (origin, crawl_id, role, url, state, http_status, detail, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(origin, crawl_id, p.role, safe_text(p.url), p.state, p.http_status, safe_text(p.detail) or "", at)
         for p in probes])

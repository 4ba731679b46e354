"""Endpoint health over time: the states each endpoint a listing depends on was found in,
one row per run of probes in a row that found the same state (``runs``, ``at`` to
``last_at``). :mod:`agentdex.crawler.health` decides the state; :mod:`agentdex.crawler.verify`
which rows a crawl records: every endpoint when the origin is due, else only a changed
state. Reading the history back (latest state, uptime over the last probes, first seen,
last ok) is :func:`agentdex.db.queries.endpoint_health`."""

from __future__ import annotations

from sqlite_utils import Database

from agentdex.db.common import dumps, safe_text
from agentdex.models import EndpointProbe, probe_key


def save_probes(db: Database, origin: str, probes: list[EndpointProbe] | None, crawl_id: int | None, at: str) -> None:
    """Record this crawl's endpoint states (``None``: not verified, nothing to record): a
    state (with an MCP endpoint's era and cause) the same as its endpoint's latest row
    extends that row (one more run, its time and answer), any other is a new row, so an
    unchanged endpoint adds no row."""
    if not probes:
        return
    latest = _latest_rows(db, origin)
    extend, insert = [], []
    for p in probes:
        url, detail = safe_text(p.url) or "", safe_text(p.detail) or ""
        facts = (dumps(list(p.versions)) if p.era is not None else None, safe_text(p.server_name))
        row = latest.get((p.role, url))
        if row is not None and row[1] == p.key:
            extend.append((at, p.http_status, detail, *facts, row[0]))
        else:
            row_values = (p.role, url, p.state, p.http_status, detail, at, at, p.era, *facts, p.cause)
            insert.append((origin, crawl_id, *row_values))
    db.conn.executemany(
        "UPDATE endpoint_probes SET runs = runs + 1, last_at = ?, http_status = ?, detail = ?, versions = ?, "
        "server_name = ? WHERE id = ?",
        extend,
    )
    db.conn.executemany(
        "INSERT INTO endpoint_probes (origin, crawl_id, role, url, state, http_status, detail, at, last_at, "
        "era, versions, server_name, cause) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        insert,
    )


def _latest_rows(db: Database, origin: str) -> dict[tuple[str, str], tuple[int, str]]:
    """``{(role, url): (id, key)}`` of each endpoint's latest row (:func:`probe_key`)."""
    rows = db.execute(
        "SELECT role, url, id, state, era, cause FROM endpoint_probes WHERE id IN "
        "(SELECT max(id) FROM endpoint_probes WHERE origin = ? GROUP BY role, url)",
        [origin],
    )
    return {(role, url): (row_id, probe_key(state, era, cause)) for role, url, row_id, state, era, cause in rows}


def latest_states(db: Database, origin: str) -> dict[tuple[str, str], str]:
    """``{(role, url): key}`` of each endpoint's latest probe of ``origin``: its state, with
    an MCP endpoint's era and cause (:func:`agentdex.models.probe_key`)."""
    return {key: state for key, (_, state) in _latest_rows(db, origin).items()}

"""Endpoint health over time: the states each endpoint a listing depends on was found in,
one row per run of probes in a row that found the same state (``runs``, ``at`` to
``last_at``). :mod:`agentdex.crawler.health` decides the state; :mod:`agentdex.crawler.verify`
which rows a crawl records: every endpoint when the origin is due, else only a changed
state. Reading the history back (latest state, uptime over the last probes, first seen,
last ok) is :func:`agentdex.db.queries.endpoint_health`."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlite_utils import Database

from agentdex.db.common import dumps, safe_text, utc_now
from agentdex.models import EndpointProbe, Event, probe_key

# The states in which an endpoint is up: it answered, and an endpoint behind credentials or
# payment said so (alive: agentdex never pays nor signs in); an MCP endpoint of a revision
# agentdex does not speak answered MCP all the same.
UP_STATES = frozenset({"ok", "auth_required", "payment_required"})
MCP_UP_STATES = UP_STATES | {"incompatible"}
# Uptime windows, by name (uptime_24h, …), and how many failed probes in a row make an endpoint unhealthy.
WINDOWS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
CONFIRM_FAILURES = 2
# The health of an endpoint never probed (a registry's remote not asked yet).
NO_HISTORY: dict[str, Any] = dict.fromkeys(
    ("healthy", "uptime_24h", "uptime_7d", "uptime_30d", "p50_ms", "p95_ms", "last_verified", "verified_by")
)


def save_probes(
    db: Database, origin: str, probes: list[EndpointProbe] | None, crawl_id: int | None, at: str
) -> list[Event]:
    """Record this crawl's endpoint states (``None``: not verified, nothing to record): a
    state (with an MCP endpoint's era and cause) the same as its endpoint's latest row
    extends that row (one more run, its time and answer), any other is a new row, so an
    unchanged endpoint adds no row. Each probe is a sample too (:func:`save_samples`);
    returns the ``endpoint_unhealthy``/``endpoint_recovered`` events it caused (not stored)."""
    if not probes:
        return []
    latest = _latest_rows(db, origin)
    extend, insert = [], []
    for p in probes:
        url, detail = safe_text(p.url) or "", safe_text(p.detail) or ""
        facts = (dumps(list(p.versions)) if p.era is not None else None, safe_text(p.server_name))
        row = latest.get((p.role, url))
        if row is not None and row[1] == p.key:
            extend.append((at, p.http_status, detail, *facts, p.auth_kind, row[0]))
        else:
            row_values = (p.role, url, p.state, p.http_status, detail, at, at, p.era, *facts, p.cause, p.auth_kind)
            insert.append((origin, crawl_id, *row_values))
    db.conn.executemany(
        "UPDATE endpoint_probes SET runs = runs + 1, last_at = ?, http_status = ?, detail = ?, versions = ?, "
        "server_name = ?, auth_kind = ? WHERE id = ?",
        extend,
    )
    db.conn.executemany(
        "INSERT INTO endpoint_probes (origin, crawl_id, role, url, state, http_status, detail, at, last_at, "
        "era, versions, server_name, cause, auth_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        insert,
    )
    return save_samples(db, origin, probes, crawl_id, at)


def outcome(probe: EndpointProbe) -> str:
    """``up``, ``down`` or ``unmeasurable`` (an answer that says nothing of health)."""
    if not probe.measurable:
        return "unmeasurable"
    return "up" if probe.state in (MCP_UP_STATES if probe.role == "mcp" else UP_STATES) else "down"


def save_samples(
    db: Database, origin: str, probes: Iterable[EndpointProbe], crawl_id: int | None, at: str
) -> list[Event]:
    """One ``endpoint_samples`` row a probe; the events of endpoints whose confirmed health
    moved: unhealthy after :data:`CONFIRM_FAILURES` measurable failures in a row, healthy
    again after one success (a single failure, an unmeasurable answer: no event)."""
    # Each endpoint's latest measurable samples are read once (none for an origin with no
    # sample yet, as in a first crawl) and the new ones merged in here: the rows are then
    # inserted together, not read back one by one (three statements a probe before).
    stored = _has_samples(db, origin)
    recent: dict[tuple[str, str], list[_Sample]] = {}
    rows, events = [], []
    for number, p in enumerate(probes):
        url = safe_text(p.url) or ""
        key = (p.role, url)
        if key not in recent:
            recent[key] = _recent_samples(db, origin, p.role, url) if stored else []
        before, result = recent[key], outcome(p)
        # The new row sorts after every stored one at the same time (its id is larger).
        after = before if result == "unmeasurable" else _newest([*before, (result, p.state, at, _NEW + number)])
        recent[key] = after
        rows.append((origin, p.role, url, at, p.state, result, p.ms, safe_text(p.verified_by) or "", crawl_id))
        event = _health_event(_pairs(before), _pairs(after), f"{p.role} {url}")
        events += [event] if event is not None else []
    db.conn.executemany(
        "INSERT INTO endpoint_samples (origin, role, url, at, state, outcome, ms, verified_by, crawl_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    return events


# One measurable sample as read back: (outcome, state, at, id); a sample of this save has an
# id from _NEW up, above any stored one.
_Sample = tuple[str, str, str, int]
_NEW = 1 << 62


def _has_samples(db: Database, origin: str) -> bool:
    return db.execute("SELECT 1 FROM endpoint_samples WHERE origin = ? LIMIT 1", [origin]).fetchone() is not None


def _newest(samples: list[_Sample]) -> list[_Sample]:
    """The :data:`CONFIRM_FAILURES` + 1 newest of ``samples``, newest first (by time, then id)."""
    return sorted(samples, key=lambda s: (s[2], s[3]), reverse=True)[: CONFIRM_FAILURES + 1]


def _pairs(samples: list[_Sample]) -> list[tuple[str, str]]:
    return [(result, state) for result, state, *_ in samples]


def _recent_samples(db: Database, origin: str, role: str, url: str) -> list[_Sample]:
    """The endpoint's latest measurable samples, newest first."""
    return db.execute(
        "SELECT outcome, state, at, id FROM endpoint_samples WHERE origin = ? AND role = ? AND url = ? "
        "AND outcome != 'unmeasurable' ORDER BY at DESC, id DESC LIMIT ?",
        [origin, role, url, CONFIRM_FAILURES + 1],
    ).fetchall()


def healthy_of(recent: list[tuple[str, str]]) -> bool | None:
    """Whether an endpoint is healthy from its latest measurable outcomes, newest first
    (``None``: none yet): unhealthy only when the last :data:`CONFIRM_FAILURES` failed."""
    if not recent:
        return None
    last = [o for o, *_ in recent[:CONFIRM_FAILURES]]
    return not (len(last) == CONFIRM_FAILURES and all(o == "down" for o in last))


def _health_event(before: list[tuple[str, str]], after: list[tuple[str, str]], subject: str) -> Event | None:
    """An endpoint up before its two failures became unhealthy; an unhealthy one answered.
    One down since it was first seen has changed nothing (a recrawl that finds nothing
    changed emits no event), so it gets no ``endpoint_unhealthy``."""
    was, now = healthy_of(before), healthy_of(after)
    if now is False and was is not False:
        up_before = len(after) > CONFIRM_FAILURES and after[CONFIRM_FAILURES][0] == "up"
        return Event("endpoint_unhealthy", before[0][1], after[0][1], subject) if up_before else None
    if now is True and was is False:
        return Event("endpoint_recovered", before[0][1], after[0][1], subject)
    return None


def origin_health(db: Database, origin: str, now: str | None = None) -> list[dict[str, Any]]:
    """Every endpoint of ``origin`` with samples: ``{role, url, state, auth_kind}`` and its
    :func:`windows` fields (the status JSON ``agentdex serve`` answers), by role and URL."""
    end = _end(now)
    grouped: dict[tuple[str, str], list[tuple[datetime, str, float | None, str]]] = {}
    states: dict[tuple[str, str], str] = {}
    for role, url, at, result, ms, method, state in db.execute(
        "SELECT role, url, at, outcome, ms, verified_by, state FROM endpoint_samples WHERE origin = ? "
        "ORDER BY role, url, at, id",
        [origin],
    ).fetchall():
        moment = _moment(at)
        if moment is not None and moment <= end:
            grouped.setdefault((role, url), []).append((moment, result, ms, method))
            states[(role, url)] = state
    kinds = auth_kinds(db)
    return [
        {
            "role": role,
            "url": url,
            "state": states[(role, url)],
            "auth_kind": kinds.get((origin, url)) if role == "mcp" else None,
        }
        | _window_row(samples, end)
        for (role, url), samples in grouped.items()
    ]


STRIP = 30  # the probes the TUI's strip and latency sparkline show


def recent_samples(db: Database, origin: str, n: int = STRIP) -> dict[tuple[str, str], dict[str, list[Any]]]:
    """``{(role, url): {strip, latency_ms}}``: the outcomes (up | down | unmeasurable) and the
    times in ms (a probe without one left out) of each endpoint's last ``n`` probes, oldest first."""
    rows = db.execute(
        "SELECT role, url, outcome, ms FROM (SELECT role, url, outcome, ms, at, id, row_number() OVER "
        "(PARTITION BY role, url ORDER BY at DESC, id DESC) AS newer FROM endpoint_samples WHERE origin = ?) "
        "WHERE newer <= ? ORDER BY role, url, at, id",
        [origin, n],
    ).fetchall()
    out: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for role, url, result, ms in rows:
        entry = out.setdefault((role, url), {"strip": [], "latency_ms": []})
        entry["strip"].append(result)
        entry["latency_ms"] += [round(ms, 1)] if ms is not None else []
    return out


def _moment(at: str) -> datetime | None:
    """A stored time as an aware datetime; ``None`` for one that is not ISO 8601 (skipped)."""
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _end(now: str | None) -> datetime:
    return datetime.fromisoformat((now or utc_now()).replace("Z", "+00:00")).astimezone(UTC)


def windows(db: Database, role: str = "mcp", now: str | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """``{(origin, url): {healthy, uptime_24h, uptime_7d, uptime_30d, p50_ms, p95_ms,
    last_verified, verified_by}}`` of every endpoint of ``role`` with samples: uptime in
    percent of the measurable probes in each window (``None`` without any), latency
    percentiles over the last 30 days' probes, the latest probe's time and method."""
    rows = db.execute(
        "SELECT origin, url, at, outcome, ms, verified_by FROM endpoint_samples WHERE role = ? "
        "ORDER BY origin, url, at, id",
        [role],
    ).fetchall()
    return _windows_of(rows, _end(now))


def mcp_windows_of(db: Database, origins: list[str], now: str | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    """:func:`windows` of the MCP endpoints of ``origins`` only (a page of listings)."""
    if not origins:
        return {}
    rows = db.execute(
        "SELECT origin, url, at, outcome, ms, verified_by FROM endpoint_samples WHERE role = 'mcp' "
        f"AND origin IN ({', '.join('?' * len(origins))}) ORDER BY origin, url, at, id",
        origins,
    ).fetchall()
    return _windows_of(rows, _end(now))


def _windows_of(rows: list[tuple], end: datetime) -> dict[tuple[str, str], dict[str, Any]]:
    """The window rows of samples ``(origin, url, at, outcome, ms, verified_by)`` by origin and URL."""
    grouped: dict[tuple[str, str], list[tuple[datetime, str, float | None, str]]] = {}
    for origin, url, at, result, ms, method in rows:
        moment = _moment(at)
        # A time before the latest probes (a catalogue read as of then) sees only the probes made by then.
        if moment is not None and moment <= end:
            grouped.setdefault((origin, url), []).append((moment, result, ms, method))
    return {key: _window_row(samples, end) for key, samples in grouped.items()}


def _window_row(samples: list[tuple[datetime, str, float | None, str]], end: datetime) -> dict[str, Any]:
    recent = [(result, "") for _, result, _, _ in reversed(samples) if result != "unmeasurable"]
    month = [ms for at, _, ms, _ in samples if ms is not None and at >= end - WINDOWS["30d"]]
    row: dict[str, Any] = {"healthy": healthy_of(recent[:CONFIRM_FAILURES])}
    for name, span in WINDOWS.items():
        row[f"uptime_{name}"] = _uptime([r for at, r, _, _ in samples if at >= end - span])
    row |= {"p50_ms": percentile(month, 50), "p95_ms": percentile(month, 95)}
    return row | {"last_verified": _iso(samples[-1][0]), "verified_by": samples[-1][3]}


def _uptime(outcomes: list[str]) -> float | None:
    counted = [o for o in outcomes if o != "unmeasurable"]
    return round(100.0 * counted.count("up") / len(counted), 1) if counted else None


def percentile(values: list[float], p: int) -> float | None:
    """The nearest-rank ``p``-th percentile of ``values`` (ms, to one decimal), ``None`` of none."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(math.ceil(p / 100 * len(ordered)) - 1, 0)], 1)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def auth_kinds(db: Database) -> dict[tuple[str, str], str]:
    """``{(origin, url): auth_kind}`` of every MCP endpoint's latest probe that told one."""
    rows = db.execute(
        "SELECT origin, url, auth_kind FROM endpoint_probes WHERE id IN "
        "(SELECT max(id) FROM endpoint_probes WHERE role = 'mcp' GROUP BY origin, url) AND auth_kind IS NOT NULL"
    )
    return {(origin, url): kind for origin, url, kind in rows}


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

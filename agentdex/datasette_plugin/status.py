"""Endpoint health published beside Datasette (read-only): a status JSON and an SVG badge per
origin, from the catalogue's endpoint samples (:func:`agentdex.db.health.origin_health`).

- ``/-/status/{origin}.json``: ``{origin, endpoints: [{role, url, state, auth_kind, healthy,
  uptime_24h, uptime_7d, uptime_30d, p50_ms, p95_ms, last_verified, verified_by}]}``; 404
  for an origin without probes. Its JSON Schema is ``status.schema.json`` beside this module.
- ``/-/badge/{origin}.svg``: the origin's MCP endpoint (else its first endpoint) as a badge,
  ``uptime 30d | 99.5%``: green when healthy and up 99% or more, yellow when healthy below,
  red when unhealthy, grey without history. Every text in it is escaped: an origin is data.
- The listings table's compact uptime column (:func:`uptime_cells`): the same value and tone
  for each listing on the page, from its MCP endpoint's samples.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import unquote

from datasette.utils.asgi import Response
from sqlite_utils import Database

from agentdex.db.health import mcp_windows_of, origin_health

COLOURS = {"good": "#2e7d32", "fair": "#b28704", "bad": "#c62828", "none": "#757575"}
LABEL = "uptime 30d"
_CHAR_PX, _PAD_PX = 7, 10  # a rough width of Verdana 11px and the padding of each half


def origin_of(request) -> str:
    """The origin a request names: Datasette's route variables are the path as sent, still
    percent-encoded (``host%3A8443``), and the catalogue keeps origins decoded."""
    return unquote(request.url_vars["origin"])


async def _health(datasette, origin: str) -> list[dict[str, Any]]:
    db = datasette.get_database()
    return await db.execute_fn(lambda conn: origin_health(Database(conn), origin))


async def status(datasette, request) -> Response:
    """The status JSON of one origin's endpoints."""
    origin = origin_of(request)
    endpoints = await _health(datasette, origin)
    if not endpoints:
        return Response.json({"ok": False, "error": f"no endpoint health for {origin}", "status": 404}, status=404)
    return Response.json({"origin": origin, "endpoints": endpoints}, headers={"Cache-Control": "max-age=60"})


async def badge(datasette, request) -> Response:
    """The SVG badge of one origin."""
    origin = origin_of(request)
    endpoints = await _health(datasette, origin)
    main = next((e for e in endpoints if e["role"] == "mcp"), endpoints[0] if endpoints else None)
    value, tone = badge_value(main)
    headers = {
        "Cache-Control": "max-age=60",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    }
    return Response(badge_svg(LABEL, value, COLOURS[tone], origin), content_type="image/svg+xml", headers=headers)


def badge_value(endpoint: dict[str, Any] | None) -> tuple[str, str]:
    """The badge's value and tone (good | fair | bad | none) for an endpoint's health."""
    if endpoint is None or endpoint["uptime_30d"] is None:
        return "unknown", "none"
    value = f"{endpoint['uptime_30d']:.1f}%"
    if endpoint["healthy"] is False:
        return value + " down", "bad"
    return value, "good" if endpoint["uptime_30d"] >= 99.0 else "fair"


def badge_svg(label: str, value: str, colour: str, title: str) -> str:
    """A flat two-part badge (shields.io's layout) with ``title`` as its accessible name."""
    left, right = len(label) * _CHAR_PX + _PAD_PX, len(value) * _CHAR_PX + _PAD_PX
    width = left + right
    name = escape(f"{title}: {label} {value}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{name}">'
        f"<title>{name}</title>"
        f'<rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2}" y="14" text-anchor="middle">{escape(label)}</text>'
        f'<text x="{left + right / 2}" y="14" text-anchor="middle">{escape(value)}</text></g></svg>'
    )


def uptime_cells(datasette, database: str | None):
    """An async function of a page's rows (Datasette's cells) giving one ``{text, tone}`` a
    row: the 30-day uptime of the listing's MCP endpoint (its ``mcp_url``, else the first it
    has) as the badge says it, ``–`` without probes. One query for the page's origins."""

    async def cells(rows: list[list[dict[str, Any]]]) -> list[dict[str, str]]:
        wanted = [{cell["column"]: cell.get("raw") for cell in row} for row in rows]
        origins = sorted({str(raw["origin"]) for raw in wanted if isinstance(raw.get("origin"), str)})
        db = datasette.get_database(database)
        found = await db.execute_fn(lambda conn: mcp_windows_of(Database(conn), origins))
        return [uptime_cell(found, raw.get("origin"), raw.get("mcp_url")) for raw in wanted]

    return cells


def uptime_cell(found: dict[tuple[str, str], dict[str, Any]], origin: Any, mcp_url: Any) -> dict[str, str]:
    """One listing's uptime cell from the window rows of its page (:func:`uptime_cells`)."""
    mine = {url: window for (o, url), window in found.items() if o == origin}
    window = mine.get(mcp_url) or next(iter(mine.values()), None)
    if window is None:
        return {"text": "–", "tone": "none"}
    value, tone = badge_value(window)
    return {"text": value if value != "unknown" else "–", "tone": tone}

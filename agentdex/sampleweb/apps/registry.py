"""A minimal MCP registry API, enough for Anchor's registry proof.

Routes (mount the app on a prefix such as ``/v0.1/*``):

    GET /v0.1/servers                         {"servers": [entry…], "metadata": {"count"}}
                                              (``?search=`` filters by name substring)
    GET /v0.1/servers/{name}                  the latest entry of that server, else 404
    GET /v0.1/servers/{name}/versions         {"servers": [entry…], "metadata": {"count"}}
    GET /v0.1/servers/{name}/versions/{v}     one version (``latest`` works), else 404

``{name}`` is URL-encoded (``test.tidewater%2Ftides``); an unencoded slash works too. An entry
is ``{"server": <server.json>, "_meta": {"io.modelcontextprotocol.registry/official": {…}}}``.

Options: ``data`` — the host file holding the servers (default ``_servers.json``): a list
of server.json documents or of entries, or ``{"servers": [...]}``; ``page_size`` — list at
most this many servers an answer, in name order, with ``metadata.nextCursor`` for the next
page (``?cursor=``), as the official registry pages (default: every match on one page).

The list answers the official API's query parameters as the registry does: ``limit``
(a page is the smaller of it and ``page_size``), ``include_deleted`` (an entry whose
``_meta`` status is ``deleted`` is left out without it), ``updated_since`` (only entries
whose ``updatedAt`` is later; deleted ones included) and ``version=latest``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, unquote

from agentdex.formats.registry_api import OFFICIAL
from agentdex.sampleweb.apps import AppContext, MountedApp
from agentdex.sampleweb.responses import Receive, Scope, Send, send_json

PUBLISHED = "2026-09-01T12:00:00Z"


def load_entries(ctx: AppContext) -> list[dict[str, Any]]:
    """The registry's entries, read from the host's data file (variant first)."""
    found = ctx.find_file(ctx.options.get("data", "_servers.json"))
    if found is None:
        return []
    doc = json.loads(found.read_text(encoding="utf-8"))
    items = doc.get("servers", []) if isinstance(doc, dict) else doc
    return [_entry(item) for item in items]


def _entry(item: dict[str, Any]) -> dict[str, Any]:
    if "server" in item:
        return item
    meta = {"status": "active", "publishedAt": PUBLISHED, "updatedAt": PUBLISHED, "isLatest": True}
    return {"server": item, "_meta": {OFFICIAL: meta}}


def _segments(scope: Scope, prefix: str) -> list[str]:
    raw = scope.get("raw_path") or scope["path"].encode("utf-8")
    rest = raw.decode("latin-1").split("?", 1)[0][len(prefix) :]
    return [unquote(s) for s in rest.split("/") if s]


def route(
    entries: list[dict[str, Any]], segments: list[str], query: str, page_size: int | None = None
) -> tuple[int, Any]:
    """Status and JSON body for a request below ``/servers``."""
    if not segments:
        return 200, _search(entries, parse_qs(query), page_size)
    names = {e["server"].get("name"): e for e in entries}
    for cut in range(len(segments), 0, -1):  # an unencoded slash splits the name
        name = "/".join(segments[:cut])
        if name in names:
            return _server_route(names[name], segments[cut:])
    return 404, {"error": "Server not found"}


def _official(entry: dict[str, Any]) -> dict[str, Any]:
    meta = entry.get("_meta") if isinstance(entry.get("_meta"), dict) else {}
    return meta.get(OFFICIAL) if isinstance(meta.get(OFFICIAL), dict) else {}


def _wanted(entry: dict[str, Any], query: dict[str, list[str]]) -> bool:
    """Whether an entry answers the query's filters (besides ``search``)."""
    official = _official(entry)
    since = (query.get("updated_since") or [""])[0]
    if since:
        return _instant(official.get("updatedAt", PUBLISHED)) > _instant(since)
    if (query.get("version") or [""])[0] == "latest" and official.get("isLatest") is False:
        return False
    return official.get("status") != "deleted" or (query.get("include_deleted") or [""])[0] == "true"


def _instant(text: str) -> datetime:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return datetime.fromisoformat("1970-01-01T00:00:00+00:00")  # a sample: no 400s to model


def _search(entries: list[dict[str, Any]], query: dict[str, list[str]], page_size: int | None) -> dict[str, Any]:
    search = (query.get("search") or [""])[0]
    hits = [e for e in entries if search in e["server"].get("name", "") and _wanted(e, query)]
    limit = (query.get("limit") or [""])[0]
    if limit.isdigit():
        page_size = min(max(int(limit), 1), 100, page_size or 100)
    if not page_size:
        return {"servers": hits, "metadata": {"count": len(hits)}}
    hits.sort(key=lambda e: e["server"].get("name", ""))
    cursor = (query.get("cursor") or ["0"])[0]
    start = int(cursor) if cursor.isdigit() else 0
    page = hits[start : start + page_size]
    metadata: dict[str, Any] = {"count": len(page)}
    if start + page_size < len(hits):
        metadata["nextCursor"] = str(start + page_size)
    return {"servers": page, "metadata": metadata}


def _server_route(entry: dict[str, Any], rest: list[str]) -> tuple[int, Any]:
    if not rest:
        return 200, entry
    if rest == ["versions"]:
        return 200, {"servers": [entry], "metadata": {"count": 1}}
    if len(rest) == 2 and rest[0] == "versions" and rest[1] in ("latest", entry["server"].get("version")):
        return 200, entry
    return 404, {"error": "Server not found"}


def build(ctx: AppContext) -> MountedApp:
    """The ``mcp_registry`` app."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await send_json(send, 405, {"error": "method not allowed"}, {"Allow": "GET, HEAD"})
            return
        path = scope["path"]
        marker = path.find("/servers")
        if marker < 0:
            await send_json(send, 404, {"error": "Not found"})
            return
        segments = _segments(scope, path[: marker + len("/servers")])
        status, body = route(
            load_entries(ctx), segments, scope.get("query_string", b"").decode("latin-1"), ctx.options.get("page_size")
        )
        await send_json(send, status, body)

    return MountedApp(app=app)

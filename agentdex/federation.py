"""Federation out: the catalogue served in the official MCP registry's API shape, read-only,
as a Datasette plugin (registered by :func:`agentdex.serve.make_datasette`).

Other registries and MCP clients that read the registry API (``GET /v0.1/servers`` …, spec:
modelcontextprotocol/registry ``docs/reference/api/openapi.yaml``) can ingest agentdex:

- ``GET /v0.1/servers`` — ``{"servers": [ServerResponse…], "metadata": {"nextCursor",
  "count"}}``; query parameters ``cursor`` (opaque, from ``metadata.nextCursor``), ``limit``
  (any integer, as the OpenAPI document allows: below 1 reads as 1, above 100 as 100;
  default 30), ``search`` (case-insensitive substring of the server name, title or
  description), ``updated_since`` (RFC 3339; also returns deleted servers, as the spec says;
  a time before year 1 or after 9999 in UTC reads as the start or end of time),
  ``version`` (``latest`` or an exact version), ``include_deleted``.
- ``GET /v0.1/servers/{serverName}/versions`` and ``…/versions/{version}`` (``latest`` or
  the exact version); the name URL-encoded (``test.pantry%2Fpantry``) or not.

Each listing (status listed, invalid or delisted) is one server, with one version:

- ``name``: the origin's host labels reversed, a slash, the listing name as a slug
  (``pantry.test`` named "Pantry" → ``test.pantry/pantry``), the registry's reverse-DNS form;
- ``version``: ``0.<YYYYMMDD>.<HHMMSS>`` of the last change agentdex saw, so it grows with
  every change and two crawls that change nothing keep it;
- ``description`` (one-liner, else description, cut to the schema's 100 characters),
  ``title``, ``websiteUrl``, and ``remotes`` when the listing has a streamable-http or SSE
  MCP endpoint;
- ``_meta["io.modelcontextprotocol.registry/official"]``: ``status`` (``active`` only for a
  valid listing; ``deprecated`` for an invalid one, ``statusMessage`` saying why;
  ``deleted`` for a delisted origin), ``statusChangedAt``, ``publishedAt`` (first listed),
  ``updatedAt`` (last change), ``isLatest``;
- ``_meta["agentdex/catalogue"]``: agentdex's own facts: origin, manifest format, catalogue
  status, findings and check counts, MCP auth, API base, categories, pricing, publisher and
  the crawl times. ``agentdex/`` is a ``_meta`` prefix of its own (MCP's ``_meta`` key rules).

Everything runs on Datasette's read-only connections (``file:…?mode=ro``), with its SQL time
limit. Paging is keyset paging on the origin (the primary key), so each page costs an index
seek however deep it is. Bad parameters answer 400 ``{"error": …}`` (a time that is no RFC 3339
date-time, an empty one included; a limit that is no integer; a boolean that is not one of Go's
``strconv.ParseBool`` spellings), never a 5xx; an unknown server 404. The document declares no
error status for these reads; 400 is what the official server answers for a parameter it
cannot read (``huma.Error400BadRequest``). A cursor this API did not give out is no error (the
document types it as any string): the page starts after it in origin order.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from datasette import hookimpl
from datasette.utils.asgi import Response

from agentdex.formats import registry_api
from agentdex.formats._load import loads as safe_loads
from agentdex.formats.registry_api import OFFICIAL, STATUS_MESSAGE_MAX, Official, server_list

AGENTDEX_META = "agentdex/catalogue"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
DEFAULT_LIMIT, MAX_LIMIT = 30, registry_api.PAGE_LIMIT
STATUSES = {"listed": "active", "invalid": "deprecated", "delisted": "deleted"}
REMOTE_TRANSPORTS = ("streamable-http", "sse")
DESCRIPTION_MAX, TITLE_MAX, NAME_MAX = 100, 100, 200
_SLUG_DROP = re.compile(r"[^a-z0-9._-]+")
_NAMESPACE_DROP = re.compile(r"[^a-zA-Z0-9.-]+")
_REMOTE_URL = re.compile(r"https?://[^\s]+")
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")  # ASCII digits only: int() also takes "²" and "٣"
COLUMNS = (
    "origin",
    "format",
    "status",
    "name",
    "one_liner",
    "description",
    "homepage",
    "mcp_url",
    "mcp_transport",
    "mcp_auth",
    "http_base",
    "categories",
    "pricing",
    "publisher_name",
    "publisher_url",
    "error_count",
    "warning_count",
    "checks_passed",
    "checks_failed",
    "first_seen_at",
    "first_listed_at",
    "last_crawled_at",
    "last_changed_at",
)


class BadRequest(ValueError):
    """A query parameter the API cannot use (answered 400 with the message)."""


# -- the mapping, pure ---------------------------------------------------------------------------
def server_name(origin: str, name: str | None) -> str:
    """The registry name of a listing: reversed host labels, a slash, the name as a slug."""
    namespace = _NAMESPACE_DROP.sub("-", ".".join(reversed(origin.split("."))))
    slug = _SLUG_DROP.sub("-", (name or "").lower()).strip("-._") or "app"
    return f"{namespace}/{slug}"[:NAME_MAX]


def origin_of(name: str) -> str | None:
    """The origin a registry name stands for (``None`` when it is not of that form)."""
    namespace, slash, _ = name.partition("/")
    return ".".join(reversed(namespace.split("."))) if slash and namespace else None


def version_of(changed_at: str | None, seen_at: str | None = None) -> str:
    """``0.<YYYYMMDD>.<HHMMSS>`` of an ISO time (semver: no leading zeros)."""
    stamp = changed_at or seen_at or "1970-01-01T00:00:00Z"
    digits = re.sub(r"\D", "", stamp)[:14].ljust(14, "0")
    return f"0.{int(digits[:8])}.{int(digits[8:14])}"


def _cut(text: str | None, limit: int) -> str | None:
    text = " ".join((text or "").split())
    if not text:
        return None
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _json_list(value: Any) -> list:
    try:
        loaded = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return []
    return loaded if isinstance(loaded, list) else []


def server_response(row: dict[str, Any]) -> dict[str, Any]:
    """One catalogue row (:data:`COLUMNS`) as the registry's ``ServerResponse``."""
    server: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "name": server_name(row["origin"], row["name"]),
        "description": _cut(row["one_liner"] or row["description"], DESCRIPTION_MAX)
        or _cut(row["name"], DESCRIPTION_MAX)
        or row["origin"][:DESCRIPTION_MAX],
        "version": version_of(row["last_changed_at"], row["first_seen_at"]),
    }
    title = _cut(row["name"], TITLE_MAX)
    if title:
        server["title"] = title
    if row["homepage"] and str(row["homepage"]).startswith("https://"):
        server["websiteUrl"] = row["homepage"]
    transport = row["mcp_transport"] or "streamable-http"
    if row["mcp_url"] and transport in REMOTE_TRANSPORTS and _REMOTE_URL.fullmatch(row["mcp_url"]):
        server["remotes"] = [{"type": transport, "url": row["mcp_url"]}]
    return {"server": server, "_meta": {OFFICIAL: _official(row), AGENTDEX_META: _facts(row)}}


def _official(row: dict[str, Any]) -> dict[str, Any]:
    published = row["first_listed_at"] or row["first_seen_at"]
    updated = row["last_changed_at"] or published
    message = _status_message(row)
    return Official(
        status=STATUSES.get(row["status"], "active"),
        statusMessage=message[:STATUS_MESSAGE_MAX] if message else None,
        statusChangedAt=updated,
        publishedAt=published,
        updatedAt=updated,
        isLatest=True,
    ).model_dump(exclude_none=True)


def _status_message(row: dict[str, Any]) -> str | None:
    """Why a listing is not ``active``, in the registry's ``statusMessage``."""
    if row["status"] == "invalid":
        return (
            f"agentdex found {row['error_count']} error(s) in this origin's manifest; "
            "it is served, but not as active, until they are fixed"
        )
    if row["status"] == "delisted":
        return "the origin no longer publishes a manifest"
    return None


def _facts(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "origin": row["origin"],
        "format": row["format"],
        "status": row["status"],
        "valid": row["error_count"] == 0,
        "errors": row["error_count"],
        "warnings": row["warning_count"],
        "checksPassed": row["checks_passed"],
        "checksFailed": row["checks_failed"],
        "mcpAuth": _json_list(row["mcp_auth"]),
        "httpBase": row["http_base"],
        "categories": _json_list(row["categories"]),
        "pricing": row["pricing"],
        "publisher": {"name": row["publisher_name"], "url": row["publisher_url"]},
        "lastCrawledAt": row["last_crawled_at"],
    }


def encode_cursor(origin: str) -> str:
    """The opaque cursor that continues after ``origin``."""
    return base64.urlsafe_b64encode(json.dumps({"after": origin}).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    """The origin a cursor continues after (:class:`BadRequest` for anything else)."""
    try:
        # The bounded reader: a cursor of 5,000 nested brackets is a ValueError, not a RecursionError.
        data = safe_loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise BadRequest("cursor is not a cursor this registry gave out") from exc
    after = data.get("after") if isinstance(data, dict) else None
    if not isinstance(after, str) or not after.isprintable() or not after.isascii():
        raise BadRequest("cursor is not a cursor this registry gave out")  # origins are ASCII (IDNA)
    return after


def cursor_position(cursor: str) -> str:
    """Where a page starts: after the origin of a cursor this API gave out, else after the
    cursor's own text in origin order. The document types ``cursor`` as any string, so a
    foreign one is no error (Schemathesis' positive-data check holds the API to that)."""
    try:
        return decode_cursor(cursor)
    except BadRequest:
        return cursor


def parse_since(value: str) -> str:
    """An RFC 3339 time as the catalogue stores times (UTC, ``…T…:…:….mmmZ``)."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError as exc:
        raise BadRequest(f"updated_since is not an RFC 3339 date-time: {value[:40]!r}") from exc
    if moment.tzinfo is None:
        raise BadRequest("updated_since needs a time zone (Z or ±hh:mm)")
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 or 9999-12-31T23:59-01:00: beyond datetime's range in UTC
        return "0000-00-00T00:00:00.000Z" if moment.year == 1 else "9999-12-31T23:59:59.999Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_limit(value: str | None) -> int:
    """``limit`` as an integer from 1 to :data:`MAX_LIMIT` (default :data:`DEFAULT_LIMIT`
    when absent). The OpenAPI document allows any integer, so one out of range is clamped,
    not refused; a value that is no integer (an empty one too) is (:class:`BadRequest`)."""
    if value is None:
        return DEFAULT_LIMIT
    if not _INTEGER.fullmatch(value.strip()):
        raise BadRequest(f"limit must be an integer (1 to {MAX_LIMIT} are served), not {value[:20]!r}")
    return min(max(int(value.strip()), 1), MAX_LIMIT)


# What the official server takes for a boolean (Go's strconv.ParseBool, through huma).
_BOOLEANS = {v: True for v in ("1", "t", "T", "TRUE", "true", "True")} | {
    v: False for v in ("0", "f", "F", "FALSE", "false", "False")
}


def parse_bool(value: str | None, name: str) -> bool:
    """A boolean query parameter (``false`` when absent; an empty one is no boolean)."""
    if value is None:
        return False
    if value not in _BOOLEANS:
        raise BadRequest(f"{name} must be true or false, not {value[:20]!r}")
    return _BOOLEANS[value]


# -- queries (on Datasette's read-only connection) ------------------------------------------------
# The SQL lives here rather than in db/queries.py: it runs on Datasette's connections (with the
# two SQL functions registered below), never on the sqlite-utils Database the CLI and TUI use.
def list_query(params: dict[str, str]) -> tuple[str, dict[str, Any], int]:
    """The SQL, its parameters and the page size for ``GET /v0.1/servers``."""
    limit = parse_limit(params.get("limit"))
    # "+status": no index on status may serve the query, so SQLite walks the primary key in
    # origin order and stops after one page (with the status index it would sort every row).
    where = ["+status IN ('listed', 'invalid', 'delisted')"]
    args: dict[str, Any] = {"limit": limit + 1}
    since = params.get("updated_since")
    include_deleted = parse_bool(params.get("include_deleted"), "include_deleted")  # checked either way
    if since is not None:  # an empty one is no date-time: refused, as the document's format says
        where.append("coalesce(last_changed_at, first_seen_at) > :since")
        args["since"] = parse_since(since)
    elif not include_deleted:
        where.append("+status != 'delisted'")
    if params.get("cursor"):
        where.append("origin > :after")
        args["after"] = cursor_position(params["cursor"])
    if params.get("search"):
        where.append(
            "(instr(lower(agentdex_server_name(origin, name)), lower(:search)) > 0"
            " OR instr(lower(coalesce(name, '')), lower(:search)) > 0"
            " OR instr(lower(coalesce(one_liner, '')), lower(:search)) > 0"
            " OR instr(lower(coalesce(description, '')), lower(:search)) > 0)"
        )
        args["search"] = params["search"]
    version = params.get("version")
    if version and version != "latest":
        where.append("agentdex_version(last_changed_at, first_seen_at) = :version")
        args["version"] = version
    sql = f"SELECT {', '.join(COLUMNS)} FROM listings WHERE {' AND '.join(where)} ORDER BY origin LIMIT :limit"
    return sql, args, limit


ONE_SQL = (
    f"SELECT {', '.join(COLUMNS)} FROM listings WHERE origin = :origin AND status IN ('listed', 'invalid', 'delisted')"
)


def page(rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """A ``ServerList`` from up to ``limit + 1`` rows (the extra one says a next page exists)."""
    servers = [server_response(r) for r in rows[:limit]]
    after = encode_cursor(rows[limit - 1]["origin"]) if len(rows) > limit else None
    return server_list(servers, after)


# -- the plugin -----------------------------------------------------------------------------------
@hookimpl
def prepare_connection(conn) -> None:
    """SQL functions the queries above use: the registry name and version of a row."""
    conn.create_function("agentdex_server_name", 2, server_name, deterministic=True)
    conn.create_function("agentdex_version", 2, version_of, deterministic=True)


@hookimpl
def register_routes() -> list[tuple[str, Any]]:
    """The registry API's read routes."""
    return [
        (registry_api.LIST_ROUTE, list_servers),
        (registry_api.VERSIONS_ROUTE, server_versions),
    ]


def _error(status: int, message: str) -> Response:
    return Response.json({"error": message}, status=status)


async def _rows(datasette, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    results = await datasette.get_database().execute(sql, params)
    return [dict(zip(COLUMNS, row, strict=True)) for row in results.rows]


async def list_servers(request, datasette) -> Response:
    """``GET /v0.1/servers``."""
    try:
        sql, params, limit = list_query({key: request.args.get(key) for key in request.args.keys()})
    except BadRequest as exc:
        return _error(400, str(exc))
    return Response.json(page(await _rows(datasette, sql, params), limit))


async def server_versions(request, datasette) -> Response:
    """``GET /v0.1/servers/{name}/versions[/{version}]``."""
    name = unquote(request.url_vars["name"])
    version = request.url_vars.get("version")
    origin = origin_of(name)
    rows = await _rows(datasette, ONE_SQL, {"origin": origin}) if origin else []
    found = [server_response(r) for r in rows if server_name(r["origin"], r["name"]) == name]
    try:
        include_deleted = parse_bool(request.args.get("include_deleted"), "include_deleted")
    except BadRequest as exc:
        return _error(400, str(exc))
    found = [f for f in found if include_deleted or f["_meta"][OFFICIAL]["status"] != "deleted"]
    if not found:
        return _error(404, "Server not found")
    if version is None:
        return Response.json(server_list(found))
    version = unquote(version)
    match = [f for f in found if version == "latest" or f["server"]["version"] == version]
    return Response.json(match[0]) if match else _error(404, "Server version not found")

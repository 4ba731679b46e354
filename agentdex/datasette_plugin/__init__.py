"""agentdex's Datasette plugin (0.65 hooks): what makes the catalogue readable in a browser.

Registered under the ``datasette`` entry point, so Datasette's own command loads it as
``agentdex serve`` does; its templates (``templates/``, found by Datasette beside the
plugin) extend Datasette's own, so nothing of Datasette's pages is copied but one include.

- ``agentdex_event_text(kind, subject, old, new)``: a change event in words, the same
  words as ``agentdex events`` and the TUI (:mod:`agentdex.eventtext`), for SQL.
- ``agentdex_fts_query(text)``: search text as the quoted full-text query that ``agentdex
  list --search`` runs (:func:`agentdex.db.listing_query.fts_query`), for the canned query
  ``find_listings``.
- On a table page the column descriptions fold into one ``<details>`` (they filled two
  and a half screens before the search box), long cells are cut to one line with ``…``
  (the row page shows them whole) and ``listings`` opens on :data:`LISTING_COLUMNS`, with
  a link to every column, and a compact ``uptime 30d`` column after ``mcp_url`` (the MCP
  endpoint's 30-day uptime as its badge says it, in the badge's tone).
- The index leads with each catalogue's ``listings`` table (Datasette names only the five
  largest tables there, and snapshots and checks outgrow listings).
- The database page leads with ``listings`` and says in one line what every table and view
  holds (the first sentence of its description), in the metadata's order, not the alphabet's.
- A row page shows its row vertically, one column a line with what the column means (a
  listing's 55 columns were one strip with its description one word a line).
- The ``events`` table page has a ``change`` column beside ``kind``: the event in words, as
  the ``newest_changes`` query says it.
- A ``census`` cell holding a census state links to the ``mcp_census`` rows in that state.
- Bad input answers a 4xx, never a 500, and ``/-/databases`` and ``/-/threads`` name no
  local path (:mod:`agentdex.datasette_plugin.guards`).
- Endpoint health, read-only: ``/-/status/{origin}.json`` and the SVG badge
  ``/-/badge/{origin}.svg`` (:mod:`agentdex.datasette_plugin.status`).
- A catalogue's CSV exports neutralise every cell a spreadsheet would evaluate
  (:mod:`agentdex.datasette_plugin.csv_cells`, an ``asgi_wrapper``).

Crawled text stays text: no hook returns markup; the templates escape every value.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from datasette import hookimpl
from markupsafe import Markup

from agentdex.db.listing_query import FTS_FUNCTION, GLANCE_FIELDS, fts_query_or_nothing
from agentdex.db.seeds import CENSUS_STATES
from agentdex.eventtext import stored_event_text

LISTINGS = "listings"
# What tells one listing from another at a glance, and how its checks stand; the rest is one click away.
LISTING_COLUMNS = (
    *GLANCE_FIELDS,
    "checks_passed",
    "checks_failed",
    "last_changed_at",
)
UPTIME_COLUMN = "uptime"  # the listings page's compact uptime column, after mcp_url (not a SQL column)
CELL_CHARS = 80  # a table cell longer than this is cut (the row page has it whole)
CHOSEN = ("_col", "_nocol")  # query-string arguments by which a user chose columns
CENSUS = "mcp_census"
LINE_CHARS = 150  # a table's line on the database page longer than this ends at its first colon
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]])\.(?:\s|$)")


@hookimpl
def asgi_wrapper(datasette):
    """Every response through :func:`agentdex.datasette_plugin.csv_cells.wrap` (CSV cells a
    spreadsheet would evaluate are neutralised)."""
    from agentdex.datasette_plugin import csv_cells

    return lambda app: csv_cells.wrap(app, datasette)


@hookimpl(hookwrapper=True)
def handle_exception(datasette, request, exception):
    """A request's own fault answers its 4xx (:mod:`agentdex.datasette_plugin.guards`); the
    wrapper replaces every handler's answer, so Datasette's own never runs for it."""
    from agentdex.datasette_plugin import guards

    outcome = yield
    status = guards.client_status(exception, request)
    if status is not None:
        outcome.force_result([lambda: guards.error_response(datasette, request, exception, status)])


@hookimpl
def register_routes():
    """Datasette's ``/-/databases`` and ``/-/threads`` without local paths (plugin routes
    come before Datasette's own); the endpoint status JSON and badge."""
    from agentdex.datasette_plugin import guards, status

    return [
        (r"^/-/databases(\.(?P<format>json))?$", lambda datasette: guards.databases(datasette)),
        (r"^/-/threads(\.(?P<format>json))?$", lambda: guards.threads()),
        (r"^/-/status/(?P<origin>[^/]+)\.json$", status.status),
        (r"^/-/badge/(?P<origin>[^/]+)\.svg$", status.badge),
    ]


@hookimpl
def prepare_connection(conn) -> None:
    """The SQL functions the metadata's views and canned queries call: an event in words, a
    search text as the quoted FTS5 query the CLI's search runs."""
    conn.create_function("agentdex_event_text", 4, stored_event_text, deterministic=True)
    conn.create_function(FTS_FUNCTION, 1, fts_query_or_nothing, deterministic=True)


@hookimpl
def extra_template_vars(
    template: str,
    database: str | None,
    table: str | None,
    columns: list[str] | None,
    view_name: str,
    request,
    datasette,
) -> Any:
    """What agentdex's templates read on each page (``agentdex_*``): the index's catalogues,
    the database page's one line a table, a row shown vertically, a table's cells cut."""
    if view_name == "index":
        return _index_vars(datasette)
    if view_name == "database":
        return {"agentdex_lines": _first_sentences(datasette, database)}
    if view_name == "row":
        return {"agentdex_vertical": True}
    if view_name != "table" or request is None:
        return None
    values: dict[str, Any] = {"agentdex_cell_chars": CELL_CHARS}
    if table == "events":
        values["agentdex_change"] = _change_of
    if table == LISTINGS and not any(arg in request.args for arg in CHOSEN):
        values.update(_listings_vars(request, datasette, database, columns or []))
    return values


def _listings_vars(request, datasette, database: str | None, columns: list[str]) -> dict[str, Any]:
    """The listings page when the user chose no columns: its default columns, a link to all
    of them, and the uptime column's cells in their badge's tones."""
    from agentdex.datasette_plugin.status import COLOURS, uptime_cells

    return {
        "agentdex_columns": list(LISTING_COLUMNS),
        "agentdex_all_columns_url": _all_columns_url(request, columns),
        "agentdex_uptime": uptime_cells(datasette, database),
        "agentdex_tones": COLOURS,
        "agentdex_uptime_column": UPTIME_COLUMN,
    }


def _all_columns_url(request, columns: list[str]) -> str:
    from datasette.utils import path_with_added_args

    # Every column named with Datasette's own _col argument: a link any Datasette understands.
    return path_with_added_args(request, [("_col", column) for column in columns])


def _index_vars(datasette):
    async def catalogues() -> dict[str, Any]:
        found = [
            name for name, db in datasette.databases.items() if not db.is_memory and await db.table_exists(LISTINGS)
        ]
        return {"agentdex_catalogues": found}

    return catalogues


@hookimpl
def render_cell(value, column, table, database, datasette) -> Any:
    """A census state in a ``census`` column (the view, a canned query, any SQL) as a link to
    the endpoints in that state. Only the fixed state names are linked: no stored text
    becomes markup."""
    if column != "census" or not isinstance(value, str) or value not in CENSUS_STATES:
        return None
    href = datasette.urls.table(database, CENSUS) + "?" + urlencode({"census": value})
    return Markup('<a href="{}">{}</a>').format(href, value)


def _change_of(cells: list[dict[str, Any]]) -> str:
    """The change an ``events`` row records, in words (the row as Datasette's cells)."""
    raw = {cell["column"]: cell.get("raw") for cell in cells}
    if raw.get("kind") is None:
        return ""
    return stored_event_text(raw["kind"], raw.get("subject"), raw.get("old"), raw.get("new"))


def _first_sentences(datasette, database: str | None) -> list[dict[str, str]]:
    """Every described table and view of ``database``, ``listings`` first, then in the
    metadata's order: its name and the first sentence of its description."""
    tables = ((datasette.metadata("databases") or {}).get(database or "", {}) or {}).get("tables", {})
    lines = [
        {"name": name, "line": _first_sentence(meta.get("description") or "")}
        for name, meta in tables.items()
        if not meta.get("hidden") and meta.get("description")
    ]
    return sorted(lines, key=lambda line: line["name"] != LISTINGS)


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``; a long one up to its first colon (what follows
    one is the detail)."""
    end = _SENTENCE_END.search(text)
    sentence = text[: end.start() + 1] if end else text
    if len(sentence) > LINE_CHARS and ": " in sentence[:LINE_CHARS]:
        return sentence[: sentence.index(": ")] + "."
    return sentence

"""agentdex's Datasette plugin (0.65 hooks): what makes the catalogue readable in a browser.

Registered under the ``datasette`` entry point, so Datasette's own command loads it as
``agentdex serve`` does; its templates (``templates/``, found by Datasette beside the
plugin) extend Datasette's own, so nothing of Datasette's pages is copied but one include.

- ``agentdex_event_text(kind, subject, old, new)``: a change event in words, the same
  words as ``agentdex events`` and the TUI (:mod:`agentdex.eventtext`), for SQL.
- On a table page the column descriptions fold into one ``<details>`` (they filled two
  and a half screens before the search box), long cells are cut to one line with ``…``
  (the row page shows them whole) and ``listings`` opens on :data:`LISTING_COLUMNS`, with
  a link to every column.
- The index leads with each catalogue's ``listings`` table (Datasette names only the five
  largest tables there, and snapshots and checks outgrow listings).

Crawled text stays text: no hook returns markup; the templates escape every value.
"""

from __future__ import annotations

from typing import Any

from datasette import hookimpl

from agentdex.eventtext import stored_event_text

LISTINGS = "listings"
# What tells one listing from another at a glance; the rest is one click away.
LISTING_COLUMNS = (
    "origin",
    "name",
    "format",
    "status",
    "one_liner",
    "categories",
    "pricing",
    "mcp_url",
    "checks_passed",
    "checks_failed",
    "last_changed_at",
)
CELL_CHARS = 80  # a table cell longer than this is cut (the row page has it whole)
CHOSEN = ("_col", "_nocol")  # query-string arguments by which a user chose columns


@hookimpl
def prepare_connection(conn) -> None:
    conn.create_function("agentdex_event_text", 4, stored_event_text, deterministic=True)


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
    if view_name == "index":
        return _index_vars(datasette)
    if view_name != "table" or request is None:
        return None
    values: dict[str, Any] = {"agentdex_cell_chars": CELL_CHARS}
    if table == LISTINGS and not any(arg in request.args for arg in CHOSEN):
        values.update(
            agentdex_columns=list(LISTING_COLUMNS), agentdex_all_columns_url=_all_columns_url(request, columns or [])
        )
    return values


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

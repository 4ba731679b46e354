"""What a listing query is, declared once: its filters, its sort keys and a listing row's columns.

Every reader of the listings takes its filters from :data:`FILTERS`: the queries
(:func:`agentdex.db.list_listings`, :func:`agentdex.db.count_listings`), the CLI's
``list`` options, the TUI's filter bar and the facets of Datasette's listings table. A
:class:`ListingFilter` holds a filter's SQL, its CLI option and help, its TUI widget and its
Datasette facet; adding one to :data:`FILTERS` adds it to all of them (docs/cli.md and
datasette_metadata.json are generated: ``python scripts/gen_cli_doc.py``,
``python scripts/gen_formats_doc.py``).

A :class:`ListingQuery` is one query's filter values, sort key and direction: the value the
CLI builds from its options, the TUI's catalogue screen holds, and the queries read.

Datasette's canned query ``find_listings`` (:func:`canned_query`, written into
datasette_metadata.json by the same script) takes every filter as a named parameter of its
name (an empty one filters nothing), sorts as :class:`ListingQuery` does by default and
returns the columns of ``list --json``: an analyst in a browser filters as ``agentdex list``
does, and a filter added here is a field of its form.

This module declares; it runs no SQL itself. The CLI and the TUI read it; it imports neither.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlite_utils import Database

from agentdex.db.origins import known_categories
from agentdex.formats import LISTING_FORMATS
from agentdex.formats.agent_app import AUTH_METHODS, CATEGORIES, PRICING
from agentdex.models import STATUSES

# A search is a set of rowids, never a join: joined, SQLite may run the full-text match once
# per listing another filter keeps (a search with a format filter took 98 s at 100,000).
FTS_IN = "listings.rowid IN (SELECT rowid FROM listings_fts WHERE listings_fts MATCH ?)"
FTS_MATCH = "listings_fts MATCH ?"
_TOKEN = re.compile(r"\S+")

Kind = Literal["text", "choice", "bool", "flag"]
SEARCH = "search"  # the full-text filter: the one a relevance sort needs
# The SQL function (registered on Datasette's connections by agentdex's plugin) that makes a
# canned query's search text the quoted query the CLI's search runs.
FTS_FUNCTION = "agentdex_fts_query"
NOTHING = '""'  # an FTS5 query that matches no row (a NULL query is a syntax error)
CANNED_QUERY = "find_listings"


def fts_query(text: str) -> str | None:
    """``text`` as a safe FTS5 query: every whitespace-separated token quoted as a string
    (quotes doubled) and matched as a prefix, all tokens required. ``None`` when empty."""
    tokens = [t for t in _TOKEN.findall(text or "") if re.search(r"\w", t)]
    if not tokens:
        return None
    return " ".join('"' + t.replace('"', '""') + '"*' for t in tokens)


def fts_query_or_nothing(text: str | None) -> str:
    """:func:`fts_query` of ``text``, or a query that matches nothing: the canned query's
    search as SQL calls it (``agentdex_fts_query``)."""
    return fts_query(text or "") or NOTHING


def _search_clause(value: str) -> tuple[str, list[Any]] | None:
    """The full-text search's condition: none for blank text, nothing matches for text
    without a word (only punctuation), else the listings the quoted query finds."""
    if not value.strip():
        return None
    query = fts_query(value)
    return ("0", []) if query is None else (FTS_IN, [query])


@dataclass(frozen=True)
class ListingFilter:
    """One way to narrow the listings, and everything each reader needs to offer it.

    ``kind``: ``text`` (free text), ``choice`` (one of ``choices``), ``bool`` (yes or no:
    ``labels`` names both) or ``flag`` (only on: ``labels[0]`` names it; ``sql_off`` is its
    condition when a library caller passes ``False``).
    """

    name: str
    kind: Kind
    help: str  # the CLI option's help
    sql: str = ""  # a condition on ``listings``; its ``?`` takes the value (a list: one ``?`` each)
    sql_off: str = ""  # a flag's condition when set False
    param: Callable[[Any], Any] = str  # the value as SQL takes it
    clause: Callable[[Any], tuple[str, list[Any]] | None] | None = None  # in place of ``sql``
    many: bool = False  # the queries take a list of values too (any of them)
    choices: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    option: tuple[str, ...] = ()  # the CLI's option names; none: the CLI does not offer it
    metavar: str | None = None
    # Free text the CLI checks against the values a catalogue holds (a typo is refused).
    known: Callable[[Database], Iterable[str]] | None = None
    widget: Literal["select", "checkbox"] | None = None  # the TUI's filter bar
    widget_id: str = ""  # the widget's id after ``filter-`` (default: the name)
    prompt: str = ""  # the TUI widget's prompt (default: the name)
    facet: str = ""  # the listings column Datasette offers as a facet for it (none: not faceted)
    # The condition in Datasette's canned query, ``:name`` its parameter (default: ``sql`` with
    # its ``?`` the parameter; a bool's or a flag's parameter is 1 or 0).
    canned: str = ""

    def condition(self, value: Any) -> tuple[str, list[Any]] | None:
        """(SQL condition, parameters) for ``value``; ``None``: the value filters nothing."""
        if value is None:
            return None
        if self.clause is not None:
            return self.clause(value)
        if self.kind == "flag":
            return (self.sql if value else self.sql_off), []
        values = [value] if isinstance(value, str) or not self.many else list(value)
        return self.sql.replace("?", ", ".join("?" for _ in values)), [self.param(v) for v in values]

    def words(self, value: Any) -> str | None:
        """``value`` in a few words for a status line (``None``: not worth saying)."""
        if value is None:
            return None
        if self.kind in ("bool", "flag"):
            return self.labels[0] if value else (self.labels[1] if len(self.labels) > 1 else None)
        return f"{self.name}={value}"

    def canned_condition(self) -> str:
        """This filter's condition in the canned query: true for an empty parameter, else
        what :meth:`condition` selects for it (one value; a bool or a flag takes 1 or 0, and
        other text matches nothing)."""
        param = f":{self.name}"
        if self.canned:
            found = self.canned
        elif self.kind == "flag":
            found = f"CASE trim({param}) WHEN '1' THEN {self.sql} WHEN '0' THEN {self.sql_off} END"
        elif self.kind == "bool":
            found = self.sql.replace("?", f"(CASE trim({param}) WHEN '1' THEN 1 WHEN '0' THEN 0 END)")
        else:
            found = self.sql.replace("?", param)
        return f"(trim({param}) = '' OR {found})"

    def options(self) -> list[tuple[str, Any]]:
        """A select widget's (label, value) options."""
        if self.kind == "bool":
            return [(self.labels[0], True), (self.labels[1], False)]
        return [(c, c) for c in self.choices]


def _known_categories(db: Database) -> list[str]:
    return sorted(set(known_categories(db)) | set(CATEGORIES))


def _member_filter(name: str, column: str, help: str, choices: tuple[str, ...], **more: Any) -> ListingFilter:
    """A filter on a listing column holding a JSON list: the listings whose list has the value
    (one value), offered as a select in the TUI; ``more``: the CLI's option, if it has one."""
    sql = f"EXISTS (SELECT 1 FROM json_each(listings.{column}) WHERE value = ?)"
    return ListingFilter(name, "choice", help, sql=sql, choices=choices, widget="select", **more)


def _column_filter(column: str, help: str, choices: tuple[str, ...]) -> ListingFilter:
    """A filter on a listing column of one value: any of the values given (an indexed IN
    list), offered as the CLI's ``--<column>``, a select in the TUI and Datasette's facet."""
    return ListingFilter(
        column,
        "choice",
        help,
        sql=f"listings.{column} IN (?)",
        many=True,
        facet=column,
        choices=choices,
        option=(f"--{column}",),
        widget="select",
    )


# Every listing filter, in the order the CLI and the TUI offer them. Add one here and the
# queries, `agentdex list`, the TUI's filter bar (and, with a facet, Datasette) all take it
# (tests/test_listing_query.py adds a made-up one to prove it).
FILTERS: dict[str, ListingFilter] = {
    f.name: f
    for f in (
        ListingFilter(
            SEARCH,
            "text",
            "Full-text search over names, one-liners, descriptions, tags.",
            clause=_search_clause,
            canned=FTS_IN.replace("?", f"{FTS_FUNCTION}(:{SEARCH})"),
            option=("--search", "-s"),
            metavar="WORDS",
        ),
        _column_filter(
            "format",
            "Only listings of this format (a manifest's, or the discovery document's it was read from).",
            LISTING_FORMATS,
        ),
        _column_filter("status", "Only listings with this status.", STATUSES),
        _member_filter(
            "category",
            "categories",
            "Only listings in this category (e.g. productivity); one no listing names is refused.",
            CATEGORIES,
            option=("--category",),
            metavar="NAME",
            known=_known_categories,
        ),
        _column_filter("pricing", "Only listings with this pricing.", PRICING),
        _member_filter("auth", "auth_methods", "Only listings that accept this auth method.", AUTH_METHODS),
        ListingFilter(
            "has_mcp",
            "bool",
            "Only listings with (or without) an MCP endpoint.",
            sql="listings.has_mcp = ?",
            param=int,
            labels=("has MCP", "no MCP"),
            option=("--has-mcp/--no-mcp",),
            widget="select",
            prompt="MCP",
        ),
        ListingFilter(
            "failing_checks",
            "flag",
            "Only listings with a failing check.",
            sql="listings.checks_failed > 0",
            sql_off="listings.checks_failed = 0",
            labels=("failing checks",),
            option=("--failing-checks",),
            widget="checkbox",
            widget_id="failing",
        ),
    )
}


def facets() -> list[str]:
    """The columns Datasette's listings table offers as facets: one a filter names
    (datasette_metadata.json is written from it by scripts/gen_formats_doc.py)."""
    return [f.facet for f in FILTERS.values() if f.facet]


# Sort keys the caller may name, as SQL (never the caller's text). Ties go by origin, and
# descending is the exact reverse of ascending (so the indexes serve both directions).
SORTS = {
    "name": "listings.name IS NULL {dir}, listings.name COLLATE NOCASE {dir}",
    "origin": "listings.origin {dir}",
    "format": "listings.format {dir}",
    "status": "listings.status {dir}",
    "pricing": "listings.pricing {dir}",
    "first_seen_at": "listings.first_seen_at {dir}",
    "last_crawled_at": "listings.last_crawled_at {dir}",
    "last_changed_at": "listings.last_changed_at {dir}",
    "next_due_at": "listings.next_due_at IS NULL {dir}, listings.next_due_at {dir}",
    "checks_failed": "listings.checks_failed {dir}",
    "checks_passed": "listings.checks_passed {dir}",
    "categories": "listings.categories {dir}",
    "has_mcp": "listings.has_mcp {dir}",
    "error_count": "listings.error_count {dir}",
    "relevance": "listings_fts.rank {dir}",
}


def order_by(sort: str, descending: bool = False) -> str:
    """`` ORDER BY`` for a key of :data:`SORTS` (the caller checks it), ties by origin."""
    direction = "DESC" if descending else "ASC"
    return f" ORDER BY {SORTS[sort].format(dir=direction)}, listings.origin {direction}"


# The index that serves a sort key exactly (same columns, same order, ties by origin).
SORT_INDEXES = {"name": "listings_name"}

# A listing row's columns, in the order ``list --fields`` offers them: True, a field the CLI
# prints; False, read for the row's other readers only (the TUI, stats).
COLUMNS = {
    "origin": True,
    "name": True,
    "format": True,
    "status": True,
    "one_liner": True,
    "categories": True,
    "tags": True,
    "pricing": True,
    "auth_methods": True,
    "has_mcp": True,
    "mcp_url": True,
    "http_base": True,
    "checks_passed": True,
    "checks_failed": True,
    "error_count": True,
    "warning_count": True,
    "status_detail": True,
    "first_seen_at": True,
    "last_crawled_at": True,
    "last_changed_at": True,
    "next_due_at": True,
    "recrawl_interval": False,
    "unchanged_crawls": False,
}
LIST_FIELDS = tuple(name for name, printed in COLUMNS.items() if printed)
# What tells one listing from another at a glance: the first fields of ``list --json`` and of
# Datasette's listings page (agentdex.datasette_plugin.LISTING_COLUMNS).
GLANCE_FIELDS = ("origin", "name", "format", "status", "one_liner", "categories", "pricing", "mcp_url")
# The fields of ``list --json`` without --fields (its contract), and of a table or TSV.
BRIEF_FIELDS = (
    *GLANCE_FIELDS,
    "http_base",
    "checks_passed",
    "checks_failed",
    "error_count",
    "warning_count",
    "last_changed_at",
    "last_crawled_at",
    "next_due_at",
)
TABLE_FIELDS = ("origin", "format", "status", "name", "next_due_at")


def _sql_rank(item: tuple[str, Any]) -> int:
    """Where a filter's condition goes in the WHERE clause: the search, then the IN lists on
    indexed columns, then the rest in declared order. SQLite's planner breaks ties between
    indexes by term order: a category with a pricing walked the origin index instead of the
    pricing one when the category came first (measured on a synthetic catalogue)."""
    name = item[0]
    return 0 if name == SEARCH else 1 if FILTERS[name].many else 2


@dataclass(frozen=True, init=False)
class ListingQuery:
    """Which listings, in which order: the value of every filter set (by name, from
    :data:`FILTERS`; a filter's value reads as an attribute, ``None`` when not set), the sort
    key (of :data:`SORTS`) and its direction. ``ListingQuery(search="tide", has_mcp=True)``."""

    values: tuple[tuple[str, Any], ...]
    sort: str
    descending: bool

    def __init__(self, *, sort: str = "name", descending: bool = False, **filters: Any) -> None:
        unknown = [name for name in filters if name not in FILTERS]
        if unknown:
            raise TypeError(f"no listing filter {unknown[0]!r}; the filters: {', '.join(FILTERS)}")
        # A value that filters nothing (None, a blank search) is no value: the query equals one without it.
        given = tuple(
            (name, filters[name]) for name in FILTERS if FILTERS[name].condition(filters.get(name)) is not None
        )
        object.__setattr__(self, "values", given)
        object.__setattr__(self, "sort", sort)
        object.__setattr__(self, "descending", descending)

    def __getattr__(self, name: str) -> Any:
        if name in FILTERS:
            return dict(self.values).get(name)
        raise AttributeError(name)

    def filters(self) -> dict[str, Any]:
        """Every filter's value by name (``None``: not set; search text stripped, blank: ``None``)."""
        given = dict(self.values)
        if isinstance(given.get(SEARCH), str):
            given[SEARCH] = given[SEARCH].strip() or None
        return {name: given.get(name) for name in FILTERS}

    def with_(self, **changes: Any) -> ListingQuery:
        """A copy with ``changes`` (filters by name, ``sort``, ``descending``)."""
        sort, descending = changes.pop("sort", self.sort), changes.pop("descending", self.descending)
        return ListingQuery(sort=sort, descending=descending, **{**dict(self.values), **changes})

    def describe(self) -> str:
        """The filters set in words, for a status line (the search text aside: it shows as typed)."""
        return ", ".join(w for name, value in self.values if name != SEARCH and (w := FILTERS[name].words(value)))

    def where(self) -> tuple[bool, str, list[Any]]:
        """(searching, `` WHERE …`` or ``""``, parameters): searching when a full-text query
        is among the conditions."""
        conditions: list[str] = []
        params: list[Any] = []
        for name, value in sorted(self.values, key=_sql_rank):
            found = FILTERS[name].condition(value)
            if found is not None:
                conditions.append(found[0])
                params.extend(found[1])
        where = (" WHERE " + " AND ".join(conditions)) if conditions else ""
        return FTS_IN in conditions, where, params


def _canned_hint(listing_filter: ListingFilter) -> str:
    if listing_filter.kind in ("bool", "flag"):
        return "1 or 0"
    if listing_filter.choices:
        return f"e.g. {listing_filter.choices[0]}"
    return "words, each found as a prefix" if listing_filter.name == SEARCH else "text"


def canned_query() -> dict[str, str]:
    """Datasette's canned query :data:`CANNED_QUERY` (title, description, SQL), written into
    datasette_metadata.json by scripts/gen_formats_doc.py: a named parameter per filter of
    :data:`FILTERS` (empty: no filter; a value is bound, never spliced), the default sort of
    :class:`ListingQuery` and the columns of ``list --json`` (:data:`BRIEF_FIELDS`)."""
    default = ListingQuery()
    declared = sorted(FILTERS.items(), key=_sql_rank)
    where = "\n  AND ".join(f.canned_condition() for _, f in declared)
    hints = "; ".join(f"{name} ({_canned_hint(f)})" for name, f in FILTERS.items())
    return {
        "title": "Find listings",
        "description": f"Listings as agentdex list finds them, sorted by {default.sort}, with the same filters: "
        f"{hints}. Leave a field empty for no filter; a value no listing has finds nothing.",
        "sql": f"SELECT {', '.join(BRIEF_FIELDS)}\nFROM listings\nWHERE {where}\n"
        + order_by(default.sort, default.descending).strip(),
    }

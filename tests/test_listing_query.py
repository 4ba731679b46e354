"""A listing query is declared once (agentdex/db/listing_query.py): a filter added to FILTERS
alone is a filter of the queries, an option of ``agentdex list``, a widget of the TUI's filter
bar, a parameter of Datasette's ``find_listings`` canned query and, with a facet, a facet of
Datasette's listings table. The test declares a made-up filter (restored after each test)
and uses it through each of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Select
from typer.testing import CliRunner

from agentdex import serve
from agentdex.cli import app
from agentdex.db import count_listings, list_listings, save_origin, start_crawl
from agentdex.db.listing_query import (
    BRIEF_FIELDS,
    CANNED_QUERY,
    COLUMNS,
    FILTERS,
    LIST_FIELDS,
    TABLE_FIELDS,
    ListingFilter,
    ListingQuery,
    facets,
)
from agentdex.models import Listing
from agentdex.tui import reader
from agentdex.tui.widgets import catalogue_table
from agentdex.tui.widgets.filter_bar import FilterBar
from db_records import listing_crawl, new_catalogue, pantry_crawl, unreachable_crawl
from tests.conftest import load_script
from waiting import eventually

AT = "2026-05-01T10:00:00.000Z"
# Made up for the test: no such filter ships. Everything a filter is, in one declaration.
HAS_HTTP = ListingFilter(
    "has_http",
    "bool",
    "Only listings with (or without) an HTTP API.",
    sql="(listings.http_base IS NOT NULL) = ?",
    param=int,
    labels=("has HTTP", "no HTTP"),
    option=("--has-http/--no-http",),
    widget="select",
    prompt="HTTP",
    facet="http_base",
)
WITH_HTTP = ["ledger.example.com", "pantry.example.com"]  # the db below: these have an HTTP base
WITHOUT_HTTP = ["chat.example.com", "gone.example.com"]


@pytest.fixture
def has_http(monkeypatch):
    monkeypatch.setitem(FILTERS, HAS_HTTP.name, HAS_HTTP)  # taken out again after the test


@pytest.fixture
def db(tmp_path):
    database = new_catalogue(tmp_path / "catalogue.db")
    crawl = start_crawl(database, at=AT)
    ledger = Listing(format="findagent", name="ledger", http_base="https://api.ledger.example.com")
    save_origin(database, pantry_crawl(), crawl, at=AT)
    save_origin(database, listing_crawl(ledger, origin="ledger.example.com"), crawl, at=AT)
    save_origin(
        database, listing_crawl(Listing(format="findagent", name="chat"), origin="chat.example.com"), crawl, at=AT
    )
    # Unreachable: a listing row with no HTTP base (an origin that found nothing is an empty_origins row).
    save_origin(database, unreachable_crawl("gone.example.com"), crawl, at=AT)
    yield database
    database.close()


def db_path(database) -> Path:
    return Path(database.execute("PRAGMA database_list").fetchone()[2])


def origins(rows) -> list[str]:
    return sorted(row["origin"] for row in rows)


def test_a_declared_filter_filters_list_listings_and_count_listings(db, has_http):
    assert origins(list_listings(db, has_http=True)) == WITH_HTTP
    assert origins(list_listings(db, ListingQuery(has_http=False, sort="origin"))) == WITHOUT_HTTP
    assert count_listings(db, has_http=True) == 2
    assert count_listings(db, ListingQuery(has_http=False)) == 2
    assert count_listings(db, ListingQuery(has_http=True, search="ledger")) == 1  # with the others


def test_a_declared_filter_is_an_option_of_agentdex_list(db, has_http, tmp_path):
    runner = CliRunner()
    path = str(tmp_path / "catalogue.db")
    answer = runner.invoke(app, ["list", "--has-http", "--json", "--db", path])
    assert answer.exit_code == 0, answer.output
    data = json.loads(answer.output)
    assert data["total"] == 2 and origins(data["listings"]) == WITH_HTTP
    answer = runner.invoke(app, ["list", "--no-http", "--json", "--db", path])
    assert origins(json.loads(answer.output)["listings"]) == WITHOUT_HTTP
    assert "--has-http" in runner.invoke(app, ["list", "--help"], terminal_width=200).output


def test_without_the_declaration_there_is_no_such_option():
    answer = CliRunner().invoke(app, ["list", "--has-http", "--db", "unused.db"])
    assert answer.exit_code == 2 and "No such option" in answer.output


def test_a_declared_filter_is_a_query_of_the_tui(db, has_http):
    query = ListingQuery(has_http=True, sort="origin")
    assert origins(reader.window(db, query, 0, 50)) == WITH_HTTP
    assert reader.counts(db, query) == (2, 4)
    assert query.filters()["has_http"] is True
    assert query.describe() == "has HTTP"
    assert query.with_(has_http=None) == ListingQuery(sort="origin")


class Bar(App):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[ListingQuery] = []

    def compose(self) -> ComposeResult:
        yield FilterBar()

    def on_filter_bar_changed(self, message: FilterBar.Changed) -> None:
        self.changes.append(message.query)


async def test_a_declared_filter_is_a_widget_of_the_filter_bar(has_http):
    bar = Bar()
    async with bar.run_test(size=(160, 10)):
        select = bar.query_one("#filter-has_http", Select)
        assert select.prompt == "HTTP"
        select.value = False
        assert await eventually(lambda: bar.changes and bar.changes[-1].has_http is False)
        bar.query_one(FilterBar).clear()
        assert await eventually(lambda: bar.changes[-1] == ListingQuery())


def generated_metadata() -> str:
    """datasette_metadata.json as scripts/gen_formats_doc.py writes it from the filters now declared."""
    gen = load_script("gen_formats_doc")
    return gen.render_metadata(gen.METADATA_FILES[0].read_text("utf-8"))


def test_a_declared_facet_is_a_facet_of_datasettes_listings_table(has_http):
    metadata = json.loads(generated_metadata())
    assert metadata["databases"]["agentdex"]["tables"]["listings"]["facets"] == [
        "format",
        "status",
        "pricing",
        "http_base",
    ]
    assert facets() == ["format", "status", "pricing", "http_base"]


def test_a_declared_filter_is_a_parameter_of_datasettes_listing_query(has_http):
    sql = json.loads(generated_metadata())["databases"]["agentdex"]["queries"][CANNED_QUERY]["sql"]
    assert set(re.findall(r"(?<!:):(\w+)", sql)) == {*FILTERS} and "has_http" in FILTERS


async def find(ds, **params) -> list[str]:
    """The origins Datasette's find_listings query answers for ``params``, in its order."""
    answer = await ds.client.get(f"/catalogue/{CANNED_QUERY}.json", params={"_shape": "array", **params})
    assert answer.status_code == 200, answer.text
    return [row["origin"] for row in answer.json()]


async def test_datasette_filters_by_a_declared_filter_as_agentdex_list_does(db, has_http, monkeypatch):
    """A real Datasette (in-process) on the metadata generated with the made-up filter: its
    form has the field, and the query finds what ``list_listings`` finds, in the same order."""
    monkeypatch.setattr(serve, "metadata_text", generated_metadata)
    ds = serve.make_datasette(db_path(db))
    await ds.invoke_startup()
    page = await ds.client.get(f"/catalogue/{CANNED_QUERY}")
    assert page.status_code == 200 and 'name="has_http"' in page.text
    everything = [row["origin"] for row in list_listings(db)]
    assert await find(ds) == everything and len(everything) == 4  # the empty form filters nothing
    assert await find(ds, has_http="1") == [row["origin"] for row in list_listings(db, has_http=True)]
    assert sorted(await find(ds, has_http="0")) == WITHOUT_HTTP
    assert await find(ds, has_http="maybe") == []  # neither 1 nor 0: nothing, not everything
    assert await find(ds, has_http="1", search="ledger") == ["ledger.example.com"]


def test_the_columns_are_declared_once(db):
    """Every field list, brief and table view names declared columns; a row holds them all;
    the TUI's table shows declared columns (its Checks column draws checks_passed and _failed)."""
    assert set(BRIEF_FIELDS) | set(TABLE_FIELDS) <= set(LIST_FIELDS) <= set(COLUMNS)
    assert list(list_listings(db, limit=1)[0]) == list(COLUMNS)
    shown = {key for key, _, _, _ in catalogue_table.COLUMNS} - {"checks"}
    assert shown <= set(COLUMNS) and {"checks_passed", "checks_failed"} <= set(COLUMNS)


def test_a_filter_that_is_not_declared_is_refused():
    with pytest.raises(TypeError, match="no listing filter 'colour'"):
        ListingQuery(colour="blue")


def test_the_search_and_the_indexed_columns_lead_the_where_clause():
    """SQLite breaks ties between plans by term order (a category before a pricing walked the
    origin index): the conditions keep the order the plans were measured with."""
    _, where, params = ListingQuery(failing_checks=True, category="home", pricing="free", search="tide").where()
    assert where.index("listings_fts") < where.index("listings.pricing") < where.index("json_each")
    assert where.index("json_each") < where.index("checks_failed")
    assert params == ['"tide"*', "free", "home"]

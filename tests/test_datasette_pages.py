"""Datasette as an analyst meets it, at 100,000 listings: the index, the database page, the
listings table, one listing's row, every canned query and a search, each opened in headless
Chromium from ``agentdex serve`` and photographed.

A page that errors fails the test, and so does a canned query that takes more than a second:
``serve`` runs Datasette with ``sql_time_limit_ms`` 1000 (checked below), so such a query
answers with Datasette's "SQL query took too long" error instead of its rows. Set
``AGENTDEX_SCREENSHOTS=DIR`` to keep the screenshots for a person to look at.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from datasette.utils import tilde_encode

from agentdex.db import list_listings, open_db
from agentdex.db.synthetic import fill_synthetic
from browser import HEIGHT, PNG, WIDTH, browser, shots
from test_datasette_live import CHROMIUM, QUERIES, TABLES, served

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run does it)"
)
LISTINGS = 100_000
# Canned queries opened with parameters (find_listings with a category: one json_each a listing walked).
QUERY_ARGS = {"failing_check": {"check": "mcp.initialize"}, "find_listings": {"category": "productivity"}}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """100,000 synthetic listings (built once for the module)."""
    path = tmp_path_factory.mktemp("pages") / "agentdex.db"
    db = open_db(path)
    fill_synthetic(db, LISTINGS)
    db.conn.close()
    return path


def pages(catalogue: Path) -> list[tuple[str, str]]:
    """(name, path) of every page an analyst meets first."""
    origin = list_listings(open_db(catalogue, readonly=True), limit=1)[0]["origin"]
    out = [
        ("index", "/"),
        ("database", "/agentdex"),
        ("listings", "/agentdex/listings"),
        ("listing-row", f"/agentdex/listings/{tilde_encode(origin)}"),
        ("search", "/agentdex/listings?_search=lantern"),
        ("per-category", "/agentdex/listing_categories"),
    ]  # where the listings page sends analysts
    for name in QUERIES:
        query = "&".join(f"{k}={v}" for k, v in QUERY_ARGS.get(name, {}).items())
        out.append((f"query-{name}", f"/agentdex/{name}" + (f"?{query}" if query else "")))
    return out


def test_the_server_stops_any_query_after_one_second(served):
    settings = httpx.get(served + "/-/settings.json", timeout=30).json()
    assert settings["sql_time_limit_ms"] == 1000


def test_every_page_an_analyst_meets_loads_without_error_at_100000_listings(served, catalogue, browser, shots):
    failures = []
    for name, path in pages(catalogue):
        page = browser.open(served + path)
        shot = browser.screenshot(shots / f"{name}.png")
        assert shot.read_bytes().startswith(PNG) and shot.stat().st_size > 5_000, name
        # A query past the time limit errors ("took too long"); a facet past its own limit
        # leaves "These facets timed out" on the page: both are what an analyst must not meet.
        if page["status"] != 200 or page["errors"] or "took too long" in page["text"] or "timed out" in page["text"]:
            failures.append((name, page["status"], page["errors"][:2] or page["text"][:300]))
    assert failures == [], failures


def test_the_listings_table_and_a_row_are_labelled(served, catalogue, browser):
    listings = browser.open(served + "/agentdex/listings")
    assert TABLES["listings"]["description"] in listings["text"]
    assert "100,000 rows" in listings["text"]
    origin = list_listings(open_db(catalogue, readonly=True), limit=1)[0]["origin"]
    row = browser.open(served + f"/agentdex/listings/{tilde_encode(origin)}")
    assert row["status"] == 200 and origin in row["h1"]
    search = browser.open(served + "/agentdex/listings?_search=lantern")
    assert search["status"] == 200 and "lantern" in search["text"]


FIRST_SCREEN = """JSON.stringify({
    search: document.querySelector('input[name=_search]').getBoundingClientRect().bottom,
    rows: [...document.querySelectorAll('table.rows-and-columns tbody tr')].map(r => r.getBoundingClientRect().bottom),
    columns: [...document.querySelectorAll('table.rows-and-columns thead th')].map(th => th.dataset.column),
    descriptions: [...document.querySelectorAll('dl.column-descriptions')].some(d => d.checkVisibility())})"""


def test_at_1400x1000_the_search_box_and_ten_listings_are_on_the_first_screen(served, browser, shots):
    from agentdex.datasette_plugin import LISTING_COLUMNS, UPTIME_COLUMN

    browser.viewport(1400, 1000)
    try:
        browser.open(served + "/agentdex/listings")
        seen = json.loads(browser.evaluate(FIRST_SCREEN))
        browser.screenshot(shots / "listings-first-screen.png", first_screen=True)
        assert 0 < seen["search"] <= 1000
        assert sum(0 < bottom <= 1000 for bottom in seen["rows"]) >= 10, seen["rows"][:12]
        assert sorted(seen["columns"]) == sorted([*LISTING_COLUMNS, UPTIME_COLUMN]) and not seen["descriptions"]
        # The full descriptions are one click away.
        browser.evaluate("document.querySelector('details.agentdex-columns summary').click()")
        assert json.loads(browser.evaluate(FIRST_SCREEN))["descriptions"]
        browser.screenshot(shots / "listings-descriptions-open.png", first_screen=True)
    finally:
        browser.viewport(WIDTH, HEIGHT)

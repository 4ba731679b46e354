"""One SQL query through Datasette cannot make ``agentdex serve`` build a huge value: SQLite's
own limits, set on every connection Datasette opens, refuse it and the page says so.

Datasette's time limit cannot help here: it runs between SQLite's steps, and one call of
``zeroblob``, ``replace(hex(...))`` or a recursive CTE's string builds gigabytes in a few
steps. ``benchmarks/bench_serve_memory.py`` prints the server's peak memory for each
query below (measured there, never asserted in a test).
"""

from __future__ import annotations

import sqlite3
import sys

import httpx
import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.db import open_db
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb
from agentdex.serve import SQLITE_LIMITS, make_datasette
from test_datasette_live import served, server

# Each builds (or would build) a value of gigabytes in one or a few SQLite steps.
HOSTILE_QUERIES = {
    "zeroblob": "select length(zeroblob(900000000))",
    "hex-replace": "select length(replace(hex(zeroblob(100000000)), '0', 'xxxxxxxx'))",
    "randomblob": "select length(randomblob(900000000))",
    "recursive-cte": (
        "with recursive r(i, s) as (select 1, 'x' union all select i + 1, s || s from r where i < 40) "
        "select max(length(s)) from r"
    ),
    "group-concat": (
        "with recursive r(i) as (select 1 union all select i + 1 from r where i < 100000000) "
        "select length(group_concat(printf('%01000d', i))) from r"
    ),
}
# printf past the length limit gives NULL (SQLite's printf never builds it) rather than an error.
NULL_QUERIES = {"printf": "select length(printf('%.*c', 900000000, 'x')) as n"}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    path = tmp_path_factory.mktemp("served") / "agentdex.db"
    open_db(path).conn.close()
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE_QUERIES))
def test_a_query_building_a_huge_value_gets_an_error_page_not_gigabytes(served, name):
    page = httpx.get(f"{served}/agentdex", params={"sql": HOSTILE_QUERIES[name]}, timeout=60)
    assert page.status_code == 400, page.text[:300]
    assert "too big" in page.text or "out of memory" in page.text or "too long" in page.text
    # The server is still there, and an ordinary query still answers.
    ok = httpx.get(f"{served}/agentdex.json", params={"sql": "select 1 + 1 as two", "_shape": "array"}, timeout=30)
    assert ok.json() == [{"two": 2}]


def test_printf_past_the_limit_builds_nothing(served):
    answer = httpx.get(f"{served}/agentdex.json", params={"sql": NULL_QUERIES["printf"], "_shape": "array"}, timeout=60)
    assert answer.json() == [{"n": None}]


def test_a_statement_longer_than_the_sql_limit_is_refused(served):
    sql = "select 1" + " " * 55_000  # past SQLITE_LIMIT_SQL_LENGTH (50,000), inside a URL's length
    page = httpx.get(f"{served}/agentdex.json", params={"sql": sql}, timeout=30)
    assert page.status_code == 400 and "query string is too large" in page.text


async def test_every_connection_datasette_opens_carries_the_limits(catalogue):
    ds = make_datasette(catalogue)
    await ds.invoke_startup()

    def read_limits(conn: sqlite3.Connection) -> dict[int, int]:
        return {category: conn.getlimit(category) for category in SQLITE_LIMITS}

    for name in ("agentdex", "_internal"):
        assert await ds.get_database(name).execute_fn(read_limits) == SQLITE_LIMITS


@pytest.fixture(scope="module")
def odd_served(tmp_path_factory):
    """``agentdex serve`` over a catalogue holding oddtext.test (variation selectors, tag
    characters and a Hangul filler in its one-liner)."""
    path = tmp_path_factory.mktemp("odd") / "agentdex.db"
    with SampleWeb(HOSTILE_ROOT) as web:
        crawled = CliRunner().invoke(app, ["crawl", "oddtext.test", "--db", str(path), *web.cli_args(), "--no-verify"])
        assert crawled.exit_code == 0, crawled.output
    args = [sys.executable, "-m", "agentdex", "serve", "--db", str(path)]
    with server(args, path.parent, path.parent / "serve.log") as base:
        yield base


def test_datasette_pages_show_invisible_characters_as_placeholders_and_json_keeps_them(odd_served):
    page = httpx.get(f"{odd_served}/agentdex/listings", params={"origin": "oddtext.test"}, timeout=30).text
    assert "⟨U+FE01⟩" in page and "⟨U+E0041⟩" in page and "⟨U+3164⟩" in page
    assert not any(raw in page for raw in ("\ufe01", "\U000e0041", "\u3164"))
    rows = httpx.get(
        f"{odd_served}/agentdex/listings.json", params={"origin": "oddtext.test", "_shape": "array"}, timeout=30
    ).json()
    assert "\ufe01\ufe02" in rows[0]["one_liner"] and "\U000e0041" in rows[0]["one_liner"]  # the exact value


# -- bad input is the request's fault, and no page names a local path ----------------------------
BAD_REQUESTS = [
    "/agentdex/listings?_sort=nope",
    "/agentdex/listings?_sort_desc=nope",
    "/agentdex/listings.json?_sort=nope",
    "/agentdex/listings.csv?_sort=nope",
    "/agentdex/listings?_through=%7B%7D",
    "/agentdex/listings?_through=not-json",
    "/-/static-plugins/agentdex/missing.css",
    "/-/static-plugins/agentdex/no/such/file.js",
]


@pytest.mark.parametrize("path", BAD_REQUESTS)
def test_bad_input_answers_4xx_never_500(served, path):
    answer = httpx.get(served + path, timeout=30)
    assert 400 <= answer.status_code < 500, (path, answer.status_code, answer.text[:200])
    ok = httpx.get(f"{served}/agentdex.json", params={"sql": "select 1 as one", "_shape": "array"}, timeout=30)
    assert ok.json() == [{"one": 1}]  # and the server still serves


@pytest.mark.parametrize("path", ["/-/databases.json", "/-/databases", "/-/threads.json", "/-/threads"])
def test_no_page_discloses_a_local_path(served, catalogue, path):
    answer = httpx.get(served + path, timeout=30)
    assert answer.status_code == 200
    assert str(catalogue.parent) not in answer.text and "site-packages" not in answer.text, answer.text[:300]
    if path == "/-/databases.json":
        assert [d["path"] for d in answer.json()] == [catalogue.name]  # the file's name, no folder

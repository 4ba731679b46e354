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

from agentdex.db import open_db
from agentdex.serve import SQLITE_LIMITS, make_datasette
from test_datasette_live import server

# Each builds (or would build) a value of gigabytes in one or a few SQLite steps.
HOSTILE_QUERIES = {
    "zeroblob": "select length(zeroblob(900000000))",
    "hex-replace": "select length(replace(hex(zeroblob(100000000)), '0', 'xxxxxxxx'))",
    "randomblob": "select length(randomblob(900000000))",
    "recursive-cte": ("with recursive r(i, s) as (select 1, 'x' union all select i + 1, s || s from r where i < 40) "
                      "select max(length(s)) from r"),
    "group-concat": ("with recursive r(i) as (select 1 union all select i + 1 from r where i < 100000000) "
                     "select length(group_concat(printf('%01000d', i))) from r"),
}
# printf past the length limit gives NULL (SQLite's printf never builds it) rather than an error.
NULL_QUERIES = {"printf": "select length(printf('%.*c', 900000000, 'x')) as n"}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    path = tmp_path_factory.mktemp("served") / "agentdex.db"
    open_db(path).conn.close()
    return path


@pytest.fixture(scope="module")
def served(catalogue):
    args = [sys.executable, "-m", "agentdex", "serve", "--db", str(catalogue)]
    with server(args, catalogue.parent, catalogue.parent / "serve.log") as base:
        yield base


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

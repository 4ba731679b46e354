"""Datasette on a real catalogue: the sample web is crawled (twice, with changes between the
crawls) into ``agentdex.db``, then published by ``agentdex serve`` and by Datasette's own
``datasette agentdex.db --metadata datasette_metadata.json``, each a real server on
127.0.0.1 in a subprocess. The tests read the JSON API and the HTML pages as an analyst
would, and one opens the pages in headless Chromium."""

from __future__ import annotations

import asyncio
import html
import json
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.datasette_plugin import CELL_CHARS
from agentdex.db import open_db
from agentdex.db.listing_query import BRIEF_FIELDS
from agentdex.eventtext import stored_event_text
from agentdex.sampleweb import SampleWeb
from agentdex.sampleweb.server import WEB_ROOT
from agentdex.serve import SETTINGS
from reference_servers import stop

ROOT = Path(__file__).resolve().parent.parent
METADATA_FILE = ROOT / "datasette_metadata.json"
METADATA = json.loads(METADATA_FILE.read_text(encoding="utf-8"))
QUERIES = METADATA["databases"]["agentdex"]["queries"]
TABLES = METADATA["databases"]["agentdex"]["tables"]
MARKUP_NAME = "<img src=x onerror=alert(1)>"
ORIGINS = (
    "pantry.test",
    "tidewater.test",
    "driftwood.test",
    "quillnotes.test",
    "ledgerline.test",
    "vault.test",
    "keyring.test",
    "notmcp.test",
    "badmanifest.test",
    "wrongtype.test",
    "privateaddr.test",
    "deadlinks.test",
    "broken.test",
    "pantry-copy.test",
    "markup.test",
)
START_TIMEOUT = 120.0  # only fails the test: a server starting on a loaded machine takes long


# --- the catalogue ------------------------------------------------------------------------------


def _add_host(root: Path, host: str, name: str, description: str) -> None:
    """A minimal valid agent-app origin in the sample web's folder layout."""
    folder = root / host
    (folder / ".well-known").mkdir(parents=True)
    manifest = {
        "agent_app": "1",
        "name": name,
        "one_liner": "A sample origin added by the Datasette tests.",
        "description": description,
        "homepage": f"https://{host}/",
        "guide": {"url": f"https://{host}/agent.md"},
        "http": {"base": f"https://{host}/api/v1"},
        "categories": ["utilities"],
        "pricing": "free",
        "publisher": {"name": "Test Team", "contact": f"mailto:team@{host}"},
    }
    (folder / ".well-known" / "agent-app.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "agent.md").write_text(f"# {host}\n\nA guide for agents.\n", encoding="utf-8")
    rule = {"headers": {"Access-Control-Allow-Origin": "*"}}
    (folder / "_site.json").write_text(json.dumps({"paths": {"/.well-known/agent-app.json": rule}}), encoding="utf-8")


def _web_root(tmp: Path) -> Path:
    """The bundled sample web plus a second origin named Pantry and one whose texts are HTML."""
    root = tmp / "web"
    shutil.copytree(WEB_ROOT, root)
    _add_host(root, "pantry-copy.test", "Pantry", "Another app that happens to be called Pantry.")
    _add_host(
        root,
        "markup.test",
        MARKUP_NAME,
        "Crawled text that looks like markup: <script>alert('x')</script> <b>bold</b>.",
    )
    return root


def network(web: SampleWeb) -> NetworkOptions:
    """Network options that reach the sample web (and only it)."""
    return web.network_options(deadline=60.0)


async def _crawl(path: Path, web: SampleWeb, origins) -> None:
    db = open_db(path)
    try:
        await crawl(db, list(origins), network(web))
    finally:
        db.close()


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    """``agentdex.db`` after two crawls: the second sees Pantry's v2 (guide, tools), a live
    price above Tidewater's declared one, and Tidewater's DNS proof gone."""
    tmp = tmp_path_factory.mktemp("datasette")
    path = tmp / "agentdex.db"
    with SampleWeb(root=_web_root(tmp)) as web:
        asyncio.run(_crawl(path, web, ORIGINS))
        for host in ("pantry.test", "mcp.pantry.test", "pay.tidewater.test"):
            web.set_variant(host, "v2")
        web.dns.set_records("_anchor.tidewater.test", None)
        asyncio.run(_crawl(path, web, ["pantry.test", "tidewater.test"]))
    return path


def rows(path: Path, sql: str, params=()) -> list[dict]:
    """Rows read straight from the file (read-only), to check Datasette's answers against."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


# --- real servers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def datasette_exe() -> list[str]:
    """Datasette's own command, from this interpreter's environment."""
    script = Path(sys.executable).with_name("datasette")
    return [str(script)] if script.exists() else [sys.executable, "-m", "datasette"]


@contextmanager
def server(args: list[str], cwd: Path, log: Path) -> Iterator[str]:
    """Run ``args`` + ``--port N`` in a subprocess until it answers HTTP; yield its base URL."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([*args, "--port", str(port)], cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(proc, base, log)
        yield base
    finally:
        stop(proc)


def _wait_until_up(proc: subprocess.Popen, base: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(base + "/-/versions.json", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail(f"the server did not answer within {START_TIMEOUT} s:\n{log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def served(catalogue: Path) -> Iterator[str]:
    """``agentdex serve --db agentdex.db`` (through the CLI)."""
    args = [sys.executable, "-m", "agentdex", "serve", "--db", str(catalogue)]
    with server(args, catalogue.parent, catalogue.parent / "serve.log") as base:
        yield base


@pytest.fixture(scope="module")
def plain(catalogue: Path) -> Iterator[str]:
    """``datasette agentdex.db --metadata datasette_metadata.json``: Datasette's own command."""
    args = [*datasette_exe(), catalogue.name, "--metadata", str(METADATA_FILE)]
    with server(args, catalogue.parent, catalogue.parent / "datasette.log") as base:
        yield base


def get(base: str, path: str, **params) -> httpx.Response:
    return httpx.get(base + path, params=params, timeout=30)


def query(base: str, name: str, **params) -> list[dict]:
    """A canned query's rows from the JSON API."""
    response = get(base, f"/agentdex/{name}.json", _shape="array", **params)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(params=["served", "plain"])
def base(request) -> str:
    """Each test below runs against ``agentdex serve`` and against Datasette's own command:
    the metadata alone must give analysts the same catalogue."""
    return request.getfixturevalue(request.param)


def origins_of(result: list[dict]) -> set[str]:
    return {row["origin"] for row in result}


# --- canned queries, checked against the data -------------------------------------------------------


def test_newest_changes_lists_the_latest_events_newest_first(base, catalogue):
    result = query(base, "newest_changes")
    expected = rows(catalogue, "SELECT at, origin, kind, subject FROM events ORDER BY at DESC, id DESC LIMIT 100")
    assert [{k: r[k] for k in ("at", "origin", "kind", "subject")} for r in result] == expected
    latest = {(r["origin"], r["kind"], r["subject"]) for r in result if r["crawl_id"] == 2}
    assert {
        ("tidewater.test", "proof_lost", "anchor.verify.dns"),
        ("pantry.test", "tools_changed", "add_to_list"),
        ("pantry.test", "guide_changed", ""),
    } <= latest
    assert result[0]["crawl_id"] == 2 and result[-1]["kind"] == "listed"
    # Each event in words, the words of `agentdex events` and the TUI.
    changes = {(r["origin"], r["kind"], r["subject"]): r["change"] for r in result}
    assert changes[("pantry.test", "tools_changed", "add_to_list")] == "MCP tools +add_to_list"
    assert changes[("pantry.test", "guide_changed", "")] == "the guide's text changed"
    stored = rows(catalogue, "SELECT kind, subject, old, new FROM events ORDER BY at DESC, id DESC LIMIT 100")
    assert [r["change"] for r in result] == [stored_event_text(**e) for e in stored]


def test_working_mcp_endpoints_are_those_whose_initialize_passes(base, catalogue):
    result = query(base, "working_mcp")
    passing = rows(
        catalogue,
        "SELECT c.origin FROM checks c JOIN listings l USING (origin) "
        "WHERE c.name = 'mcp.initialize' AND c.status = 'pass' AND l.status = 'listed'",
    )
    assert origins_of(result) == origins_of(passing)
    assert {"pantry.test", "quillnotes.test", "tidewater.test", "driftwood.test"} <= origins_of(result)
    # A web page posing as MCP, a private address and an HTTP-only app are not working MCP apps.
    assert not {"notmcp.test", "privateaddr.test", "ledgerline.test"} & origins_of(result)
    pantry = next(r for r in result if r["origin"] == "pantry.test")
    assert pantry["tools_listed"] == 3 and pantry["tools_check"] == "pass"


def test_failing_check_lists_the_listings_failing_the_named_check(base, catalogue):
    result = query(base, "failing_check", check="manifest.cors")
    assert "wrongtype.test" in origins_of(result) and "pantry.test" not in origins_of(result)
    assert {r["check_name"] for r in result} == {"manifest.cors"}
    assert origins_of(result) == origins_of(
        rows(catalogue, "SELECT origin FROM checks WHERE name = 'manifest.cors' AND status = 'fail'")
    )


def test_failing_check_without_a_name_lists_every_failing_check(base, catalogue):
    result = query(base, "failing_check")
    expected = rows(
        catalogue, "SELECT origin, name AS check_name FROM checks WHERE status = 'fail' ORDER BY name, origin"
    )
    assert [{"origin": r["origin"], "check_name": r["check_name"]} for r in result] == expected
    assert {"manifest.cors", "anchor.read_only_variant", "anchor.verify.dns"} <= {r["check_name"] for r in result}


def test_read_only_variants_exposing_write_tools(base):
    result = query(base, "read_only_variants_with_writes")
    # Driftwood's variant lies; Tidewater's honest one is absent.
    assert [(r["origin"], r["tool_id"], r["write_tools"]) for r in result] == [
        ("driftwood.test", "test.driftwood/notes", "delete_item")
    ]


def test_declared_and_live_prices_differences_first(base):
    result = query(base, "declared_vs_live_prices")
    first = result[0]
    assert (first["origin"], first["tool_id"], first["declared_usd"], first["live_usd"], first["difference_usd"]) == (
        "tidewater.test",
        "test.tidewater/forecast-api",
        0.01,
        0.02,
        0.01,
    )
    assert first["check_status"] == "fail"


def test_destructive_tools_are_the_tools_annotated_destructive(base, catalogue):
    result = query(base, "destructive_tools")
    found = {(r["origin"], r["tool"]) for r in result}
    assert {("driftwood.test", "delete_item"), ("tidewater.test", "delete_alert")} <= found
    expected = rows(catalogue, "SELECT origin, name FROM tools WHERE annotations LIKE '%\"destructiveHint\": true%'")
    assert found == {(r["origin"], r["name"]) for r in expected}
    assert not any(origin == "pantry.test" for origin, _ in found)  # add_to_list writes but is not destructive


def test_the_same_name_on_several_origins(base):
    result = query(base, "same_name_several_origins")
    assert result == [{"name": "Pantry", "origins": 2, "origin_list": "pantry-copy.test, pantry.test"}]


def test_origins_whose_ownership_proof_was_lost(base):
    result = query(base, "lost_ownership_proofs")
    # Tidewater's DNS proof passed, then its TXT record went away; Driftwood's never passed.
    assert [(r["origin"], r["proof"]) for r in result] == [("tidewater.test", "anchor.verify.dns")]
    assert result[0]["lost_at"] and result[0]["last_pass_at"] < result[0]["lost_at"]


def test_listings_per_format_and_category(base, catalogue):
    counts: dict[tuple, int] = {}
    for listing in rows(catalogue, "SELECT format, categories FROM listings WHERE status = 'listed'"):
        for category in json.loads(listing["categories"] or "[]") or ["(none)"]:
            key = (listing["format"], category)
            counts[key] = counts.get(key, 0) + 1
    result = query(base, "listings_per_format_and_category")
    assert {(r["format"], r["category"]): r["listings"] for r in result} == counts
    assert counts[("agent_app", "utilities")] >= 5 and counts[("anchor", "(none)")] == 2


def agentdex_list(catalogue: Path, *options: str) -> list[dict]:
    """The listings ``agentdex list OPTIONS --json`` prints for the catalogue, in its order."""
    answer = CliRunner().invoke(app, ["list", *options, "--json", "--limit", "100000", "--db", str(catalogue)])
    assert answer.exit_code == 0, answer.output
    return json.loads(answer.output)["listings"]


@pytest.mark.parametrize(
    ("params", "options"),
    [
        ({"category": "utilities"}, ["--category", "utilities"]),
        ({}, []),  # the empty form lists everything
        ({"search": "pantry list", "category": ""}, ["--search", "pantry list"]),
        ({"status": "listed", "has_mcp": "1"}, ["--status", "listed", "--has-mcp"]),
        ({"format": "anchor", "failing_checks": "1"}, ["--format", "anchor", "--failing-checks"]),
        ({"pricing": "free", "has_mcp": "0"}, ["--pricing", "free", "--no-mcp"]),
    ],
)
def test_find_listings_finds_what_agentdex_list_finds_in_its_order(base, catalogue, params, options):
    """The canned query generated from the listing filters (listing_query.py) answers as the
    CLI does, row for row and column for column."""
    found = query(base, "find_listings", **params)
    expected = agentdex_list(catalogue, *options)
    assert [r["origin"] for r in found] == [r["origin"] for r in expected] and expected
    assert list(found[0]) == list(expected[0]) == list(BRIEF_FIELDS)


# --- metadata, search, facets ------------------------------------------------------------------------


def text_of(page: str) -> str:
    return html.unescape(page)


def test_the_listings_page_shows_the_table_and_column_descriptions(base):
    page = get(base, "/agentdex/listings")
    assert page.status_code == 200
    text = text_of(page.text)
    listings = TABLES["listings"]
    assert listings["description"] in text
    for column, description in listings["columns"].items():
        assert f"{column}</dt><dd>{description}</dd>" in text, column
    assert METADATA["license"] in text and METADATA["source"] in text


def test_every_canned_query_page_shows_its_title_and_description(base):
    for name, spec in QUERIES.items():
        page = get(base, f"/agentdex/{name}")
        assert page.status_code == 200, name
        assert spec["title"] in text_of(page.text) and spec["description"] in text_of(page.text), name


def test_default_sort_and_facets_are_applied(base):
    data = get(base, "/agentdex/listings.json", _size=5).json()
    assert data["human_description_en"] == "sorted by last_changed_at descending"
    assert {"format", "status", "pricing"} <= set(data["facet_results"])
    # Categories are counted in their own view: a facet over the JSON array of every listing
    # times out on a large catalogue ("These facets timed out: categories").
    assert "categories" not in data["facet_results"]
    per_category = get(base, "/agentdex/listing_categories.json", _size=1).json()["facet_results"]
    assert "category" in per_category
    statuses = {v["value"]: v["count"] for v in data["facet_results"]["status"]["results"]}
    assert statuses == {"listed": 13, "invalid": 1, "unreachable": 1}
    checks = get(base, "/agentdex/checks.json", _size=1).json()
    assert {"name", "status"} <= set(checks["facet_results"])
    assert get(base, "/agentdex/snapshots.json", _size=1).json()["units"] == {
        "body_bytes": "byte",
        "elapsed_ms": "millisecond",
    }


def test_hidden_tables_are_not_listed_but_views_are(base):
    data = get(base, "/agentdex.json").json()
    hidden = {t["name"] for t in data["tables"] if t["hidden"]}
    assert {"blobs", "_sqlite_migrations", "listings_fts"} <= hidden and "listings" not in hidden
    assert {"listing_categories", "check_status", "anchor_prices"} <= {v["name"] for v in data["views"]}


def test_search_finds_a_listing_by_a_word_of_its_description(base, catalogue):
    data = get(base, "/agentdex/listings.json", _search="inventory", _shape="array").json()
    assert origins_of(data) == {"pantry.test"}
    assert get(base, "/agentdex/listings.json", _search="zeppelin", _shape="array").json() == []
    assert 'name="_search"' in get(base, "/agentdex/listings").text  # the search box


def test_crawled_text_is_shown_as_text_never_as_html(base):
    for path in ("/agentdex/listings", "/agentdex/listings/markup~2Etest", "/agentdex/listings?_search=markup"):
        page = get(base, path).text
        assert html.escape(MARKUP_NAME, quote=False) in page, path
        assert "<img src=x" not in page and "<script>alert(" not in page and "<b>bold" not in page, path


def test_the_listings_page_opens_on_its_telling_columns_with_descriptions_one_click_away(base):
    from agentdex.datasette_plugin import LISTING_COLUMNS, UPTIME_COLUMN

    page = text_of(get(base, "/agentdex/listings").text)
    assert '<details class="agentdex-columns"><summary>What each of the' in page
    head = page.split("<thead>")[1].split("</thead>")[0]
    assert sorted(re.findall(r'data-column="([^"]+)"', head)) == sorted([*LISTING_COLUMNS, UPTIME_COLUMN])
    every = re.search(r'<a href="([^"]+)" rel="nofollow">Show every column</a>', page).group(1)
    head = text_of(httpx.get(base + html.unescape(every), timeout=30).text).split("<thead>")[1].split("</thead>")[0]
    assert len(re.findall(r'data-column="', head)) == len(TABLES["listings"]["columns"])
    chosen = text_of(get(base, "/agentdex/listings", _col="description").text)
    assert re.findall(r'<th [^>]*data-column="([^"]+)"', chosen) == ["origin", "description"]


def test_a_long_cell_is_one_cut_line_on_the_table_page_and_whole_on_the_row_page(base, catalogue):
    long = max(
        rows(catalogue, "SELECT origin, description FROM listings WHERE description IS NOT NULL"),
        key=lambda r: len(r["description"]),
    )
    assert len(long["description"]) > CELL_CHARS
    table = text_of(get(base, "/agentdex/listings", _col="description", origin=long["origin"]).text)
    cut = long["description"][: CELL_CHARS - 1] + "…"
    assert f">{cut}</td>" in table and f">{long['description']}</td>" not in table
    row = text_of(get(base, f"/agentdex/listings/{long['origin'].replace('.', '~2E')}").text)
    assert long["description"] in row and cut not in row


def test_the_index_leads_with_the_listings(base):
    page = text_of(get(base, "/").text)
    start = page.index('class="agentdex-start"')
    assert '<a href="/agentdex/listings">agentdex: listings</a>' in page[start : start + 300]
    assert start < page.index("<h2")


def test_no_installed_plugin_renders_cells_but_agentdex_s_own(base):
    plugins = get(base, "/-/plugins.json").json()
    # serve's own (agentdex.serve.shown_cell) only swaps invisible characters for placeholders,
    # as text Datasette escapes; agentdex's plugin links a census state (one of a fixed set of
    # words, never stored text: see the next test); no other plugin renders cells.
    assert [p["name"] for p in plugins if "render_cell" in p["hooks"]] in (
        ["agentdex"],
        ["agentdex", "agentdex_inert_text"],
    )


def test_only_a_census_state_in_a_census_column_becomes_a_link(base):
    sql = "SELECT 'open' AS census, '<img src=x>' AS census2, 'open' AS state UNION ALL SELECT '<b>x</b>', '', ''"
    page = get(base, "/agentdex", sql=sql).text
    assert page.count('<a href="/agentdex/mcp_census?census=open">open</a>') == 1
    assert "<b>x</b>" not in page and html.escape("<b>x</b>", quote=False) in page and "<img src=x" not in page


# --- read-only and safety settings -------------------------------------------------------------------


def count_rows(catalogue: Path) -> dict[str, int]:
    return {
        t: rows(catalogue, f"SELECT count(*) AS n FROM {t}")[0]["n"]
        for t in ("listings", "crawls", "events", "checks", "tools")
    }


def test_sql_that_writes_is_refused_and_changes_nothing(base, catalogue):
    before = count_rows(catalogue)
    insert = get(base, "/agentdex.json", sql="INSERT INTO crawls (kind, started_at) VALUES ('x', 'y')")
    assert insert.status_code == 400 and insert.json()["error"] == "Statement must be a SELECT"
    # A statement Datasette lets through as a query still meets the read-only connection.
    delete = get(base, "/agentdex.json", sql="WITH x AS (SELECT 1) DELETE FROM listings")
    assert delete.status_code == 400 and delete.json()["error"] == "attempt to write a readonly database"
    assert get(base, "/agentdex.json", sql="ATTACH DATABASE 'other.db' AS other").status_code == 400
    assert count_rows(catalogue) == before


def test_posting_to_tables_and_queries_is_refused(base, catalogue):
    before = count_rows(catalogue)
    for path in ("/agentdex/listings", "/agentdex/newest_changes", "/agentdex/listings/-/insert", "/agentdex/-/create"):
        response = httpx.post(base + path, json={"row": {"origin": "evil.test"}}, timeout=30)
        assert response.status_code >= 400, path
    assert count_rows(catalogue) == before


def test_agentdex_serve_answers_every_writing_method_with_405(served):
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        response = httpx.request(method, served + "/agentdex/listings", timeout=30)
        assert response.status_code == 405 and response.headers["allow"] == "GET, HEAD, OPTIONS", method
    assert httpx.head(served + "/agentdex/listings", timeout=30).status_code == 200


def test_the_database_file_cannot_be_downloaded(base):
    assert get(base, "/agentdex.db").status_code == 403


def test_serve_applies_the_safety_settings(served):
    settings = get(served, "/-/settings.json").json()
    assert {name: settings[name] for name in SETTINGS} == SETTINGS
    long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    response = get(served, "/agentdex.json", sql=long)
    assert response.status_code == 400 and "SQL query took too long" in response.json()["error"]
    many = get(
        served,
        "/agentdex.json",
        sql="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000) SELECT x FROM c",
    ).json()
    assert len(many["rows"]) == SETTINGS["max_returned_rows"] and many["truncated"] is True
    assert get(served, "/agentdex/listings.csv", _stream="1").status_code == 400


def test_datasettes_own_command_differs_only_in_the_documented_settings(served, plain):
    ours, theirs = get(served, "/-/settings.json").json(), get(plain, "/-/settings.json").json()
    assert {k for k in ours if ours[k] != theirs.get(k)} == {"allow_download", "allow_csv_stream", "suggest_facets"}
    for base in (served, plain):
        data = get(base, "/agentdex.json").json()
        assert [q["name"] for q in data["queries"]] == list(QUERIES)
        assert all(not q.get("write") for q in data["queries"])


# --- a crawl writing while Datasette serves -----------------------------------------------------------

# Each query returns the origins (or crawls) a half-written save would leave inconsistent. One
# query is one read transaction, so a row here means a reader saw an origin half-written.
HALF_WRITTEN = {
    "check counts without their checks": """
        SELECT origin FROM listings l
        WHERE checks_passed != (SELECT count(*) FROM checks c WHERE c.origin = l.origin AND c.status = 'pass')
           OR checks_failed != (SELECT count(*) FROM checks c WHERE c.origin = l.origin AND c.status = 'fail')""",
    "error counts without their findings": """
        SELECT origin FROM listings l WHERE format IS NOT NULL AND error_count != (SELECT count(*) FROM findings f
          WHERE f.origin = l.origin AND f.format = l.format AND f.severity = 'error')""",
    "a listed origin without its listed event": """
        SELECT origin FROM listings l WHERE status = 'listed'
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.origin = l.origin AND e.kind = 'listed')""",
    # The latest crawl's: a repeated answer extends its row (last_crawl_id) rather than adding
    # one, so every answer the latest crawl got carries its id, and an earlier crawl's not all.
    "crawl progress without its fetches": """
        SELECT id AS origin FROM crawls c
        WHERE kind = 'crawl' AND id = (SELECT max(id) FROM crawls WHERE kind = 'crawl')
          AND origins_done != (SELECT count(DISTINCT origin) FROM snapshots s WHERE s.last_crawl_id = c.id)""",
}
PROGRESS_SQL = "SELECT origins_done, origins_total FROM crawls ORDER BY id DESC LIMIT 1"


def test_the_half_written_queries_find_nothing_in_a_saved_catalogue(catalogue):
    for name, sql in HALF_WRITTEN.items():
        assert rows(catalogue, sql) == [], name


def test_the_half_written_queries_catch_a_half_written_origin(catalogue, tmp_path):
    copy = tmp_path / "agentdex.db"
    source = sqlite3.connect(catalogue.resolve().as_uri() + "?mode=ro", uri=True)
    with sqlite3.connect(copy) as target:
        source.backup(target)
        # What a save split across transactions would show: the listing before its checks, its
        # findings, its events, and a crawl counting an origin whose fetches are not there yet.
        target.execute("DELETE FROM checks WHERE origin = 'pantry.test'")
        target.execute("DELETE FROM findings WHERE origin = 'badmanifest.test'")
        target.execute("DELETE FROM events WHERE origin = 'vault.test'")
        target.execute("UPDATE crawls SET origins_done = origins_done + 1 WHERE id = 2")
    source.close()
    found = {name: rows(copy, sql) for name, sql in HALF_WRITTEN.items()}
    assert found == {
        "check counts without their checks": [{"origin": "pantry.test"}],
        "error counts without their findings": [{"origin": "badmanifest.test"}],
        "a listed origin without its listed event": [{"origin": "vault.test"}],
        "crawl progress without its fetches": [{"origin": 2}],
    }


def _hammer_urls() -> list[tuple[str, dict]]:
    """Pages, searches, every canned query and the half-written checks, with the crawl's
    progress read between every few of them."""
    pages = [
        ("/agentdex/listings.json", {}),
        ("/agentdex/listings", {}),
        ("/agentdex/listings.json", {"_search": "synthetic"}),
        ("/agentdex/check_status.json", {}),
        ("/agentdex/listing_categories.json", {}),
        ("/agentdex/events", {}),
    ]
    pages += [(f"/agentdex/{name}.json", {}) for name in QUERIES]
    pages += [("/agentdex.json", {"sql": sql, "_shape": "array"}) for sql in HALF_WRITTEN.values()]
    progress = ("/agentdex.json", {"sql": PROGRESS_SQL, "_shape": "array"})
    return [url for i, page in enumerate(pages) for url in ((progress, page) if i % 3 == 0 else (page,))]


def _hammer(base: str, crawl_done: threading.Event, max_requests: int = 3000) -> tuple[list, list, int]:
    """Request every URL in turn until the crawl is over (then one more round); return the
    failures, the crawl progress seen and the number of requests made."""
    failures, progress, made = [], [], 0
    with httpx.Client(base_url=base, timeout=30) as client:
        while made < max_requests:
            last_round = crawl_done.is_set()
            for path, params in _hammer_urls():
                response = client.get(path, params=params)
                made += 1
                sql = params.get("sql")
                if response.status_code != 200 or (sql and sql != PROGRESS_SQL and response.json()):
                    failures.append((path, sql, response.status_code, response.text[:300]))
                elif sql == PROGRESS_SQL:
                    progress.append(tuple(response.json()[0].values()) if response.json() else (0, 0))
            if last_round:
                return failures, progress, made
    return failures, progress, made


@pytest.mark.slow
def test_a_crawl_writing_while_datasette_serves_fails_no_request(tmp_path):
    path = tmp_path / "agentdex.db"
    open_db(path).close()  # a new, empty catalogue
    errors: list[BaseException] = []
    done = threading.Event()
    with SampleWeb(synthetic=30) as web:
        origins = web.synthetic.hosts

        def run_crawl() -> None:
            try:
                asyncio.run(_crawl(path, web, origins))
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                errors.append(exc)
            finally:
                done.set()

        args = [sys.executable, "-m", "agentdex", "serve", "--db", str(path)]
        with server(args, tmp_path, tmp_path / "serve.log") as base:
            writer = threading.Thread(target=run_crawl)
            writer.start()
            failures, progress, made = _hammer(base, done)
            writer.join()
    assert errors == [] and failures == [], f"{len(failures)} of {made} requests failed: {failures[:3]}"
    assert progress[-1] == (len(origins), len(origins))
    # The reads really overlapped the writes: some saw the crawl part-way through.
    assert any(0 < done_ < total for done_, total in progress), progress


# --- what a person sees: headless Chromium --------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class Cells(HTMLParser):
    """The text of every table cell in a page's DOM, by its Datasette column class, plus the
    page's h1 and any element a crawled text could have smuggled in."""

    def __init__(self) -> None:
        super().__init__()
        self.columns: dict[str, list[str]] = {}
        self.h1 = ""
        self.text = ""
        self.images: list[dict] = []
        self._column: str | None = None
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag == "img":
            self.images.append(attributes)
        classes = (attributes.get("class") or "").split()
        column = next((c[4:] for c in classes if c.startswith("col-")), None)
        if tag == "td" and column:
            self._column = column
            self.columns.setdefault(column, []).append("")
        self._in_h1 = self._in_h1 or tag == "h1"

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._column = None
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        self.text += data
        if self._column:
            self.columns[self._column][-1] += data
        if self._in_h1:
            self.h1 += data


def browse(url: str, profile: Path) -> Cells:
    """Open ``url`` in headless Chromium and parse the DOM it rendered."""
    result = subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0 and "<table" in result.stdout, result.stderr[-2000:]
    cells = Cells()
    cells.feed(result.stdout)
    return cells


@pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run does it)"
)
def test_a_person_sees_the_listings_and_a_canned_query_in_a_browser(served, tmp_path):
    listings = browse(served + "/agentdex/listings", tmp_path / "profile")
    assert listings.h1.strip() == "listings" and TABLES["listings"]["description"] in listings.text
    names = [n.strip() for n in listings.columns["name"]]
    assert {"Pantry", "Tidewater Data", "Driftwood Notes"} <= set(names)
    # The listing named like an <img> tag is that text in its cell; the browser built no image.
    assert MARKUP_NAME in names and not [i for i in listings.images if i.get("src") == "x"]
    page = browse(served + "/agentdex/working_mcp", tmp_path / "profile")
    assert page.h1.strip() == QUERIES["working_mcp"]["title"] and QUERIES["working_mcp"]["description"] in page.text
    assert {"pantry.test", "tidewater.test"} <= {o.strip() for o in page.columns["origin"]}


def test_the_registry_api_answers_for_the_crawled_catalogue(served, catalogue):
    """The federation API (agentdex/federation.py) on real crawl rows: every listed origin is a
    server the registry's schema accepts, with its MCP endpoint as a remote."""
    from agentdex.federation import AGENTDEX_META
    from agentdex.formats import server_json

    answer = get(served, "/v0.1/servers", limit=100)
    assert answer.status_code == 200, answer.text
    servers = answer.json()["servers"]
    expected = rows(
        catalogue, "SELECT origin, mcp_url, name FROM listings WHERE status IN ('listed', 'invalid') ORDER BY origin"
    )
    assert [s["_meta"][AGENTDEX_META]["origin"] for s in servers] == [r["origin"] for r in expected]
    for item, row in zip(servers, expected, strict=True):
        assert not list(server_json.validator().iter_errors(item["server"])), row["origin"]
        remotes = [r["url"] for r in item["server"].get("remotes", [])]
        assert remotes == ([row["mcp_url"]] if row["mcp_url"] else []), row["origin"]
    pantry = next(s for s in servers if s["_meta"][AGENTDEX_META]["origin"] == "pantry.test")
    assert pantry["server"]["name"] == "test.pantry/pantry" and pantry["server"]["title"] == "Pantry"
    markup = next(s for s in servers if s["_meta"][AGENTDEX_META]["origin"] == "markup.test")
    assert markup["server"]["title"] == MARKUP_NAME  # JSON text, as crawled
    latest = get(served, "/v0.1/servers/test.pantry%2Fpantry/versions/latest")
    assert latest.status_code == 200 and latest.json() == pantry


# --- the analyst's path (issue 40) ----------------------------------------------------------------


def test_the_census_view_has_its_own_url_and_the_census_by_state_links_to_it(base, catalogue):
    view = get(base, "/agentdex/mcp_census.json", _shape="array").json()
    assert {"url", "origin", "census"} <= set(view[0])  # the view's rows, not the counting query's
    states = query(base, "mcp_census_by_state")
    assert {r["census"] for r in states} >= {"open", "auth_gated"}
    page = get(base, "/agentdex/mcp_census_by_state").text
    assert '<a href="/agentdex/mcp_census?census=auth_gated">auth_gated</a>' in page
    gated = get(base, "/agentdex/mcp_census.json", census="auth_gated", _shape="array").json()
    assert {r["origin"] for r in gated} == {"vault.test", "keyring.test"}


def test_open_mcp_servers_are_listed_with_their_tool_names(base, catalogue):
    servers = {r["origin"]: r for r in query(base, "open_mcp_servers")}
    assert "vault.test" not in servers and "keyring.test" not in servers  # they ask for a login
    tools = rows(catalogue, "SELECT name FROM tools WHERE origin = 'pantry.test' AND source = 'mcp'")
    pantry = {r["name"] for r in tools}
    assert servers["pantry.test"]["tools"] == ", ".join(sorted(pantry)) and len(pantry) >= 2


@pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run does it)"
)
def test_an_analyst_s_pages_in_a_browser(served, catalogue, tmp_path):
    """The database page leads with listings and says what each table and view holds; a
    listing's row page reads top to bottom; events say each change in words. Photographed
    (to AGENTDEX_SCREENSHOTS when set) for a person to look at."""
    import os

    from browser import Browser

    shots = Path(os.environ.get("AGENTDEX_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with Browser(CHROMIUM, CHROMIUM_FLAGS, tmp_path / "profile") as browser:
        database = browser.open(served + "/agentdex")
        browser.screenshot(shots / "database.png")
        lines = [line for line in database["text"].splitlines() if "\t" in line]
        assert lines[1].startswith("listings\tOne row per origin: the listing as its manifest declares it")
        assert {line.split("\t")[0] for line in lines[1:]} >= {"events", "mcp_census", "check_status", "tools"}
        assert all(line.split("\t")[1] for line in lines[1:])  # every one has its line
        assert database["text"].index("What each table and view holds") < database["text"].index("Queries")
        row = browser.open(served + "/agentdex/listings/pantry~2Etest")
        browser.screenshot(shots / "listing-row.png")
        width = browser.evaluate("document.querySelector('table.agentdex-row td').getBoundingClientRect().width")
        assert width > 600  # the description reads as a paragraph, not one word a line
        description = rows(catalogue, "SELECT description FROM listings WHERE origin = 'pantry.test'")[0]["description"]
        at = row["text"].index("\ndescription\n")  # the column's name, what it means, then its value whole
        assert description in row["text"][at : at + 200 + len(description)], row["text"][at : at + 400]
        events = browser.open(served + "/agentdex/events")
        browser.screenshot(shots / "events.png")
        newest = rows(catalogue, "SELECT kind, subject, old, new FROM events ORDER BY at DESC, id DESC LIMIT 1")[0]
        said = stored_event_text(newest["kind"], newest["subject"], newest["old"], newest["new"])
        assert f"\t{newest['kind']}\t{said}\t" in events["text"]  # kind, then the change in words

"""The eras of an MCP endpoint everywhere a user looks, on real crawls into a real catalogue:
``eras.test`` on the cross-check sample web, whose MCP server (``mcp`` 2.3.0) answers both
eras of the protocol, then only the ``initialize`` handshake (variant v2), then only
revision 2026-07-28 (v3). Each change of era is a change event (``mcp_era_changed``), told in
words by ``show`` and ``events``; ``show --json``, the TUI's Health tab, the census and
Datasette's canned query say which era the endpoint answers in now."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.eventtext import stored_event_text
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

ORIGIN, MCP_HOST = "eras.test", "mcp.eras.test"
VARIANTS = ["", "v2", "v3"]  # both eras, the handshake only, 2026-07-28 only
METADATA = json.loads((Path(__file__).resolve().parent.parent / "datasette_metadata.json").read_text("utf-8"))


def due_now(path: Path) -> None:
    """As if the schedule's interval had passed: the next crawl probes the MCP endpoint again."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE listings SET next_due_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 second')")


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """The catalogue after one crawl a variant, with ``show --json`` after each."""
    path = tmp_path_factory.mktemp("eras") / "catalogue.db"
    runner, shown = CliRunner(), []
    with SampleWeb(CROSSCHECK_ROOT) as web:
        for variant in VARIANTS:
            web.set_variant(MCP_HOST, variant)
            args = ["crawl", ORIGIN, "--db", str(path), *web.cli_args(), "--timeout", "60"]
            result = runner.invoke(app, args)
            assert result.exit_code == 0, result.output
            shown.append(json.loads(runner.invoke(app, ["show", ORIGIN, "--db", str(path), "--json"]).stdout))
            due_now(path)
    return path, shown


def mcp_endpoint(data: dict) -> dict:
    return next(e for e in data["endpoints"] if e["role"] == "mcp")


def test_show_json_gives_the_era_each_crawl_found(crawled):
    _, shown = crawled
    eras = [(mcp_endpoint(d)["era"], mcp_endpoint(d)["versions"], mcp_endpoint(d)["state"]) for d in shown]
    assert eras == [
        ("dual", ["2026-07-28", "2025-11-25"], "ok"),
        ("legacy", ["2025-11-25"], "ok"),
        ("modern", ["2026-07-28"], "ok"),
    ]
    checks = [{c["name"]: c for c in d["checks"]} for d in shown]
    assert [c["mcp.eras"]["status"] for c in checks] == ["pass", "skip", "skip"]
    assert "2026-07-28 only" in checks[2]["mcp.initialize"]["detail"]
    assert [[t["name"] for t in d["tools"] if t["source"] == "mcp"] for d in shown] == [["tide_table"]] * 3


def test_each_change_of_era_is_an_event_told_in_words(crawled):
    path, shown = crawled
    events = [(e["kind"], e["old"], e["new"]) for e in shown[-1]["events"] if e["kind"] == "mcp_era_changed"]
    assert events == [("mcp_era_changed", "dual", "legacy"), ("mcp_era_changed", "legacy", "modern")]
    text = CliRunner().invoke(app, ["events", "--origin", ORIGIN, "--db", str(path)]).output
    assert "MCP eras: both (2026-07-28 and initialize) → initialize only" in text
    assert "MCP eras: initialize only → 2026-07-28 only" in text
    assert stored_event_text("mcp_era_changed", "", '"legacy"', '"<b>x"') == "MCP eras: initialize only → ∅"


def test_show_prints_the_era_beside_the_endpoints_health(crawled):
    path, _ = crawled
    text = CliRunner().invoke(app, ["show", ORIGIN, "--db", str(path)]).output
    line = next(line for line in text.splitlines() if line.strip().startswith("mcp ") and "mcp.eras.test" in line)
    assert line.endswith(", era modern (2026-07-28)")


def test_the_census_and_datasettes_query_count_the_era_of_now(crawled):
    path, _ = crawled
    data = json.loads(CliRunner().invoke(app, ["census", "--json", "--db", str(path)]).stdout)
    assert {e["era"]: e["count"] for e in data["eras"]} == {"legacy": 0, "dual": 0, "modern": 1, "unknown": 0}
    text = CliRunner().invoke(app, ["census", "--db", str(path)]).output
    assert "modern (2026-07-28 only)        1  100.0%" in text
    with sqlite3.connect(path) as conn:
        rows = conn.execute(METADATA["databases"]["agentdex"]["queries"]["mcp_eras"]["sql"]).fetchall()
    assert rows == [("modern", 1, 100.0)]


async def test_the_tui_health_tab_shows_the_era(crawled):
    from agentdex.tui.app import make_app
    from agentdex.tui.widgets.safe_table import SafeTable
    from test_tui_support import SIZE, open_listing

    path, _ = crawled
    app_ = make_app(path)
    async with app_.run_test(size=SIZE) as pilot:
        screen = await open_listing(app_, pilot, ORIGIN, "9")
        table = screen.query_one("#health-table", SafeTable).table
        shown = [[c.plain for c in table.get_row_at(i)] for i in range(table.row_count)]
        mcp = next(r for r in shown if r[0] == "mcp")
        assert mcp[1:3] == ["ok", "modern"]
        assert {r[2] for r in shown if r[0] != "mcp"} == {""}


def test_census_endpoints_lists_each_endpoint_with_its_era(crawled):
    path, _ = crawled
    rows = json.loads(CliRunner().invoke(app, ["census", "--endpoints", "--json", "--db", str(path)]).stdout)
    assert [(r["url"], r["census"], r["era"], r["versions"], r["server_name"]) for r in rows] == [
        ("https://mcp.eras.test/mcp", "open", "modern", ["2026-07-28"], "Almanac")
    ]
    result = CliRunner().invoke(app, ["census", "--endpoints", "--db", str(path)])
    [line] = result.stdout.splitlines()
    url, origin, census, era, auth, *uptime, p95, verified = line.split("\t")
    assert (url, origin, census, era, auth) == ("https://mcp.eras.test/mcp", "eras.test", "open", "modern", "none")
    assert uptime == ["100.0%"] * 3 and p95.endswith("ms") and verified == rows[0]["last_verified"]

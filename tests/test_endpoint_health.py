"""Endpoint health over time: a flapping MCP endpoint (flapping.test on the cross-check sample
web, 503 in variant v2) crawled twelve times through the CLI, with the exact history, uptime,
first-seen and last-ok figures in the database, `show`, Datasette's view and canned query and
the TUI; and the state each kind of answer gets."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler import mcp_probe, verify
from agentdex.crawler.health import state_of
from agentdex.models import FetchRecord
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

# The MCP endpoint's variant at each crawl: "" up, "v2" down (503).
PATTERN = ["", "v2", "", "v2", "v2", "", "", "", "v2", "", "", "v2"]
METADATA = json.loads((CROSSCHECK_ROOT.parent.parent / "datasette_metadata.json").read_text("utf-8"))
QUERIES = METADATA["databases"]["agentdex"]["queries"]


@pytest.fixture(scope="module")
def flapped(tmp_path_factory):
    path = tmp_path_factory.mktemp("health") / "catalogue.db"
    runner = CliRunner()
    with SampleWeb(CROSSCHECK_ROOT) as web:
        for variant in PATTERN:
            web.set_variant("mcp.flapping.test", variant)
            result = runner.invoke(
                app, ["crawl", "flapping.test", "--db", str(path), *web.cli_args(), "--timeout", "60"]
            )
            assert result.exit_code == 0, result.output
            due_now(path)
    yield path


def due_now(path) -> None:
    """As if the schedule's interval had passed: the next crawl is due, so it records every
    endpoint's state (between due crawls only a changed state is recorded)."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE listings SET next_due_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 second')")


def rows(path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def mcp_probes(path) -> list[tuple[str, str | None]]:
    """``(state, at)`` of each MCP probe: a row stands for ``runs`` probes in a row with its
    state, the first at ``at`` and the last at ``last_at`` (the times between are not kept)."""
    out = []
    for state, at, last_at, runs in rows(
        path, "SELECT state, at, last_at, runs FROM endpoint_probes WHERE role = 'mcp' ORDER BY id"
    ):
        out += [(state, at)] + [(state, None)] * (runs - 2) + ([(state, last_at)] if runs > 1 else [])
    return out


def crawl_times(path) -> list[str | None]:
    return [at for _, at in mcp_probes(path)]


def test_every_crawl_keeps_the_state_of_each_endpoint(flapped):
    states = [state for state, _ in mcp_probes(flapped)]
    assert states == ["server_error" if v else "ok" for v in PATTERN]
    # One row per run of the same state: 8 runs in the twelve crawls.
    assert rows(flapped, "SELECT count(*) FROM endpoint_probes WHERE role = 'mcp'") == [(8,)]
    assert rows(
        flapped, "SELECT DISTINCT http_status, detail FROM endpoint_probes WHERE role = 'mcp' AND state != 'ok'"
    ) == [(503, "HTTP 503")]
    per_role = rows(flapped, "SELECT role, url, sum(runs) FROM endpoint_probes GROUP BY role, url ORDER BY role")
    assert per_role == [
        ("guide", "https://flapping.test/agent.md", 12),
        ("homepage", "https://flapping.test/", 12),
        ("mcp", "https://mcp.flapping.test/mcp", 12),
        ("privacy", "https://flapping.test/", 12),
        ("terms", "https://flapping.test/", 12),
    ]


def test_the_view_counts_uptime_over_the_last_ten_probes_with_first_seen_and_last_ok(flapped):
    times = crawl_times(flapped)
    health = rows(
        flapped,
        "SELECT state, recent_probes, recent_ok, probes, first_seen_at, last_ok_at "
        "FROM endpoint_health WHERE role = 'mcp'",
    )
    # The last ten are crawls 3..12: "" v2 v2 "" "" "" v2 "" "" v2, six up; crawl 11 the last up.
    assert health == [("server_error", 10, 6, 12, times[0], times[10])]
    assert rows(flapped, "SELECT recent_ok, recent_probes FROM endpoint_health WHERE role = 'homepage'") == [(10, 10)]
    flapping = rows(flapped, QUERIES["flapping_endpoints"]["sql"])
    assert flapping == [
        ("flapping.test", "mcp", "https://mcp.flapping.test/mcp", "server_error", "6/10", 60.0, times[0], times[10])
    ]


def test_show_prints_each_endpoint_with_its_history_and_uptime(flapped):
    times = crawl_times(flapped)
    text = CliRunner().invoke(app, ["show", "flapping.test", "--db", str(flapped)]).output
    assert (
        f"mcp          https://mcp.flapping.test/mcp  server_error  █▁▁███▁██▁  up 6/10 (60%), "
        f"first seen {times[0]}, last ok {times[10]}"
    ) in text
    data = json.loads(CliRunner().invoke(app, ["show", "flapping.test", "--db", str(flapped), "--json"]).stdout)
    mcp = next(e for e in data["endpoints"] if e["role"] == "mcp")
    assert mcp["history"] == ["server_error" if v else "ok" for v in PATTERN[2:]]
    assert (mcp["uptime"], mcp["probes"], mcp["first_seen_at"], mcp["last_ok_at"]) == (0.6, 12, times[0], times[10])


async def test_the_tui_health_tab_draws_each_endpoint_history(flapped):
    from agentdex.tui.app import make_app
    from agentdex.tui.widgets.safe_table import SafeTable
    from test_tui_support import SIZE, open_listing

    app_ = make_app(flapped)
    async with app_.run_test(size=SIZE) as pilot:
        screen = await open_listing(app_, pilot, "flapping.test", "9")
        table = screen.query_one("#health-table", SafeTable).table
        shown = [[c.plain for c in table.get_row_at(i)] for i in range(table.row_count)]
        mcp = next(r for r in shown if r[0] == "mcp")
        assert (
            mcp[1:5] == ["server_error", "unknown", "█▁▁███▁██▁", "6/10"] and mcp[6] == "https://mcp.flapping.test/mcp"
        )
        assert [r[3] for r in shown if r[0] != "mcp"] == ["██████████"] * 4


@pytest.mark.parametrize(
    ("record", "state"),
    [
        (FetchRecord(url="u", kind="k", status=200, body=b"x"), "ok"),
        (FetchRecord(url="u", kind="k", status=304, not_modified=True), "ok"),
        (FetchRecord(url="u", kind="k", status=401, error_code="http_status"), "auth_required"),
        (FetchRecord(url="u", kind="k", status=402, error_code="http_status"), "payment_required"),
        (FetchRecord(url="u", kind="k", status=404, error_code="http_status"), "not_found"),
        (FetchRecord(url="u", kind="k", status=418, error_code="http_status"), "http_error"),
        (FetchRecord(url="u", kind="k", status=429, error_code="http_status"), "server_error"),
        (FetchRecord(url="u", kind="k", error_code="tls", error="certificate"), "tls_error"),
        (FetchRecord(url="u", kind="k", error_code="timeout"), "timeout"),
        (FetchRecord(url="u", kind="k", error_code="refused"), "dead"),
        (FetchRecord(url="u", kind="k", error_code="dns"), "dead"),
        (FetchRecord(url="u", kind="k", error_code="blocked_address"), "blocked"),
        (FetchRecord(url="u", kind="k", error_code="robots"), "blocked"),
    ],
)
def test_each_kind_of_answer_has_its_state(record, state):
    assert state_of(record) == state


def test_the_page_names_the_mcp_transports_and_limits_the_code_uses():
    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "endpoint-health.md").read_text("utf-8")
    for word in (
        mcp_probe.STREAMABLE,
        mcp_probe.LEGACY_SSE,
        *mcp_probe.ALLOWED_METHODS,
        "transport",
        "transport_deprecated",
        "mcp_sse.MAX_BYTES",
        "mcp_sse.MAX_EVENTS",
        "mcp_probe.SNIFF_SECONDS",
        "verify.HEAD_WAIT",
        "wrong_transport",
    ):
        assert f"`{word}`" in text, word
    for path in (
        "agentdex/crawler/mcp_sse.py",
        "benchmarks/bench_head_fallback.py",
        "tests/test_mcp_reference.py",
        "tests/test_mcp_conformance.py",
        "tests/test_mcp_sse.py",
    ):
        assert f"`{path}`" in text and (root / path).exists(), path
    assert f"the {verify.HEAD_WAIT:g} s are the HEAD's wait" in text

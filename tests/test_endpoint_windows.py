"""Endpoint health as monitors keep it: mcp.flapping.test of the cross-check sample web crawled
eleven times over 31 days under a controlled clock (time-machine), its MCP endpoint switched
between up, 503 (v2), 429 (v3) and 503 with Retry-After (v4). The uptime windows, latency
percentiles, last verified and verified by of `census --endpoints --json`; the two-failure
confirmation rule; the events (one when it became unhealthy, one when it recovered, none for
a single failure or an unmeasurable answer)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from typer.testing import CliRunner

from agentdex import __version__
from agentdex.cli import app
from agentdex.eventtext import event_text
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

END = datetime(2026, 12, 1, tzinfo=UTC)
MCP = "https://mcp.flapping.test/mcp"
# (time before END, the endpoint's variant): "" up, v2 503, v3 429, v4 503 with Retry-After.
CRAWLS = [
    (timedelta(days=31), "v2"),  # outside the 30-day window
    (timedelta(days=20), ""),
    (timedelta(days=15), ""),
    (timedelta(days=10), "v2"),
    (timedelta(days=8), ""),
    (timedelta(days=3), "v2"),  # a single failure: still healthy, no event
    (timedelta(days=2), "v3"),  # 429: neither up nor down
    (timedelta(hours=20), "v2"),  # the second failure in a row: unhealthy
    (timedelta(hours=10), "v4"),  # 503 with Retry-After: neither
    (timedelta(hours=5), "v2"),  # still unhealthy: no second event
    (timedelta(hours=1), ""),  # one success: recovered
    (timedelta(0), ""),
]


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    path = tmp_path_factory.mktemp("windows") / "catalogue.db"
    runner = CliRunner()
    with SampleWeb(CROSSCHECK_ROOT) as web:
        for before, variant in CRAWLS:
            web.set_variant("mcp.flapping.test", variant)
            with time_machine.travel(END - before, tick=False):
                result = runner.invoke(
                    app, ["crawl", "flapping.test", "--db", str(path), *web.cli_args(), "--timeout", "60"]
                )
            assert result.exit_code == 0, result.output
            with sqlite3.connect(path) as db:  # the schedule's interval has passed: every endpoint is asked
                db.execute("UPDATE listings SET next_due_at = '2000-01-01T00:00:00.000Z'")
    yield path


def rows(path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def endpoint(path) -> dict:
    with time_machine.travel(END, tick=False):
        result = CliRunner().invoke(app, ["census", "--endpoints", "--json", "--db", str(path)])
    assert result.exit_code == 0, result.output
    return next(row for row in json.loads(result.stdout) if row["url"] == MCP)


@pytest.mark.slow
def test_every_probe_is_a_sample_and_unmeasurable_answers_count_as_neither(crawled):
    samples = rows(crawled, "SELECT at, state, outcome FROM endpoint_samples WHERE role = 'mcp' ORDER BY at")
    assert [at for at, _, _ in samples] == [iso(END - before) for before, _ in CRAWLS]
    outcome = {"": "up", "v2": "down", "v3": "unmeasurable", "v4": "unmeasurable"}
    assert [o for _, _, o in samples] == [outcome[variant] for _, variant in CRAWLS]
    # The state stays what the answer was: a 429 and a 503 are server errors, only not counted.
    assert [s for _, s, _ in samples if s != "ok"] == ["server_error"] * 7


@pytest.mark.slow
def test_census_endpoints_gives_the_uptime_windows_latency_and_how_it_was_verified(crawled):
    row = endpoint(crawled)
    # 24 h: down, down, up, up (the 503 with Retry-After not counted); 7 d: the 3-day failure too;
    # 30 d: 5 up of 9 (the 31-day-old failure and the 429 are not counted).
    assert (row["uptime_24h"], row["uptime_7d"], row["uptime_30d"]) == (50.0, 40.0, 55.6)
    assert row["healthy"] is True and row["state"] == "ok"
    assert row["last_verified"] == iso(END)
    assert row["verified_by"].startswith("MCP ") and "over streamable-http, era " in row["verified_by"]
    assert row["verified_by"].endswith(f"; agentdex {__version__}")
    assert 0 < row["p50_ms"] <= row["p95_ms"]


@pytest.mark.slow
def test_census_endpoints_text_gives_auth_uptime_windows_p95_and_last_verified(crawled):
    row = endpoint(crawled)
    with time_machine.travel(END, tick=False):
        result = CliRunner().invoke(app, ["census", "--endpoints", "--db", str(crawled)])
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.stdout.splitlines() if line.startswith(MCP + "\t")]
    assert line.split("\t") == [
        MCP,
        "flapping.test",
        "open",
        row["era"],
        "none",
        "50.0%",
        "40.0%",
        "55.6%",
        f"{row['p95_ms']:.0f}ms",
        iso(END),
    ]


@pytest.mark.slow
def test_unhealthy_only_after_two_failures_in_a_row_and_healthy_again_after_one_success(crawled):
    events = rows(
        crawled, "SELECT kind, at, old, new, subject FROM events WHERE kind LIKE 'endpoint_%' ORDER BY at, id"
    )
    assert events == [
        ("endpoint_unhealthy", iso(END - timedelta(hours=20)), '"server_error"', '"server_error"', f"mcp {MCP}"),
        ("endpoint_recovered", iso(END - timedelta(hours=1)), '"server_error"', '"ok"', f"mcp {MCP}"),
    ]
    shown = event_text({"kind": "endpoint_unhealthy", "old": "server_error", "new": "server_error", "subject": "mcp x"})
    assert shown == "mcp x: unhealthy, two probes in a row failed (server_error)"


@pytest.mark.slow
def test_the_census_as_of_an_outage_says_unhealthy(crawled):
    """Read as of the probe 5 h before END, the last two measurable probes had failed (the 503
    with Retry-After between them does not count): unhealthy, verified then."""
    with time_machine.travel(END - timedelta(hours=5), tick=False):
        data = CliRunner().invoke(app, ["census", "--endpoints", "--json", "--db", str(crawled)]).stdout
    row = next(r for r in json.loads(data) if r["url"] == MCP)
    assert row["healthy"] is False
    assert row["last_verified"] == iso(END - timedelta(hours=5))
    assert row["uptime_24h"] == 0.0  # the 20-hour-old and the 5-hour-old failures


async def served(path, url: str):
    """One answer of Datasette with agentdex's plugin (as `agentdex serve` runs it), at END."""
    from datasette.app import Datasette

    with time_machine.travel(END, tick=False):
        return await Datasette([str(path)]).client.get(url)


@pytest.mark.slow
async def test_serve_answers_a_status_json_per_origin(crawled):
    answer = await served(crawled, "/-/status/flapping.test.json")
    assert answer.status_code == 200
    data = answer.json()
    mcp = next(e for e in data["endpoints"] if e["role"] == "mcp")
    assert data["origin"] == "flapping.test"
    assert (mcp["url"], mcp["state"], mcp["auth_kind"], mcp["healthy"]) == (MCP, "ok", "none", True)
    assert (mcp["uptime_24h"], mcp["uptime_7d"], mcp["uptime_30d"]) == (50.0, 40.0, 55.6)
    assert mcp["last_verified"] == iso(END) and mcp["p95_ms"] > 0
    homepage = next(e for e in data["endpoints"] if e["role"] == "homepage")
    assert homepage["uptime_30d"] == 100.0 and homepage["auth_kind"] is None
    missing = await served(crawled, "/-/status/nowhere.test.json")
    assert missing.status_code == 404 and missing.json()["ok"] is False


@pytest.mark.slow
async def test_serve_answers_an_svg_badge_per_origin(crawled):
    answer = await served(crawled, "/-/badge/flapping.test.svg")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    svg = answer.text
    assert ">uptime 30d</text>" in svg and ">55.6%</text>" in svg and 'fill="#b28704"' in svg
    unknown = await served(crawled, "/-/badge/nowhere.test.svg")
    assert ">unknown</text>" in unknown.text


def test_a_badge_escapes_what_it_is_given():
    from agentdex.datasette_plugin.status import badge_svg, badge_value

    svg = badge_svg("uptime 30d", "1%", "#000", '<script>x</script>"')
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert badge_value({"uptime_30d": 99.5, "healthy": True}) == ("99.5%", "good")
    assert badge_value({"uptime_30d": 80.0, "healthy": False}) == ("80.0% down", "bad")


@pytest.mark.slow
def test_the_census_and_stats_show_auth_kinds_and_the_uptime_distribution(crawled):
    with time_machine.travel(END, tick=False):
        data = json.loads(CliRunner().invoke(app, ["census", "--json", "--db", str(crawled)]).stdout)
        text = CliRunner().invoke(app, ["census", "--db", str(crawled)]).stdout
        stats = CliRunner().invoke(app, ["stats", "--db", str(crawled)]).stdout
    assert data["uptime"] == [
        {"bucket": "99-100", "count": 0, "share": 0.0},
        {"bucket": "90-99", "count": 0, "share": 0.0},
        {"bucket": "50-90", "count": 1, "share": 100.0},  # 55.6 %
        {"bucket": "0-50", "count": 0, "share": 0.0},
        {"bucket": "no_history", "count": 0, "share": 0.0},
    ]
    assert {a["kind"]: a["count"] for a in data["auth"]}["none"] == 1
    assert f"{'50-90':<26} {1:>6} {100.0:>6.1f}%" in text
    assert "  auth: 1 none" in stats and "  uptime over 30 days (%): 1 50-90" in stats


def test_an_endpoint_down_since_first_seen_is_no_event_until_it_answers(tmp_path):
    from agentdex.db import open_db
    from agentdex.db.health import save_samples
    from agentdex.models import EndpointProbe

    db = open_db(tmp_path / "catalogue.db")
    down, up = EndpointProbe("mcp", MCP, "dead"), EndpointProbe("mcp", MCP, "ok")
    kinds = [
        [e.kind for e in save_samples(db, "flapping.test", [probe], None, iso(END + timedelta(hours=i)))]
        for i, probe in enumerate([down, down, down, up, down, down])
    ]
    assert kinds == [[], [], [], ["endpoint_recovered"], [], ["endpoint_unhealthy"]]


@pytest.mark.slow
async def test_the_tui_health_tab_draws_the_strip_and_a_latency_sparkline(crawled):
    from textual.widgets import Sparkline, Static

    from agentdex.tui.app import make_app
    from test_tui_support import SIZE, open_listing

    app_ = make_app(crawled)
    async with app_.run_test(size=SIZE) as pilot:
        screen = await open_listing(app_, pilot, "flapping.test", "9")
        strip = str(screen.query_one("#health-strip", Static).render())
        # Oldest first: the twelve crawls, 429 and the 503 with Retry-After as "·".
        assert f"last 12 probes of mcp {MCP}: ▁██▁█▁·▁·▁██" in strip
        sparkline = screen.query_one("#health-latency", Sparkline)
        assert len(list(sparkline.data or [])) == 12 and all(ms > 0 for ms in sparkline.data or [])

"""The due-first schedule on real crawls into a real catalogue: each crawl sets the origin's
next-due time from its change history (a change: due in an hour; each unchanged crawl in a
row doubles that; failures back off from 15 minutes), ``due_origins`` lists exactly the due
ones, most overdue first, and ``agentdex crawl --due`` crawls exactly those (the sample
web's request log proves it); ``crawl --revalidate`` asks documents that are still fresh.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import datetime, timedelta

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.crawl import crawl
from agentdex.crawler.freshness import iso
from agentdex.db import due_origins, get_listing, list_listings, open_db
from agentdex.sampleweb.server import SampleWeb
from freshweb import DISCOVERY, PATHS, db, web  # noqa: F401 (fixtures)

HOUR = 3600.0
BUSY, CALM, QUIET = "busy.test", "calm.test", "quiet.test"


def run(db, web: SampleWeb, hosts: list[str]):
    web.requests_log.clear()
    return asyncio.run(crawl(db, hosts, web.network_options(), verify=False))


def schedule(db, origin: str) -> tuple:
    return db.execute(
        "SELECT unchanged_crawls, recrawl_interval, next_due_at, last_crawled_at FROM listings WHERE origin = ?",
        [origin],
    ).fetchone()


def hours_after(stamp: str, hours: float) -> str:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(hours=hours)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def crawled_with_history(db, web) -> None:
    """busy changed on its last crawl, calm was unchanged once, quiet three times in a row."""
    run(db, web, [BUSY, CALM, QUIET])
    web.set_variant(BUSY, "v2")
    try:
        run(db, web, [BUSY, CALM, QUIET])
    finally:
        web.set_variant(BUSY, None)
    run(db, web, [QUIET])
    run(db, web, [QUIET])


def test_each_crawl_sets_the_next_due_time_from_the_change_history(db, web):
    crawled_with_history(db, web)
    busy, calm, quiet = (schedule(db, o) for o in (BUSY, CALM, QUIET))
    assert busy[:2] == (0, 3600) and busy[2] == hours_after(busy[3], 1)
    assert calm[:2] == (1, 7200) and calm[2] == hours_after(calm[3], 2)
    assert quiet[:2] == (3, 28800) and quiet[2] == hours_after(quiet[3], 8)
    # A change brings a quiet origin straight back to hourly.
    web.set_variant(QUIET, "v2")
    try:
        run(db, web, [QUIET])
    finally:
        web.set_variant(QUIET, None)
    assert schedule(db, QUIET)[:2] == (0, 3600)


def test_due_origins_are_exactly_the_due_ones_most_overdue_first(db, web):
    crawled_with_history(db, web)
    last = max(schedule(db, o)[3] for o in (BUSY, CALM, QUIET))
    assert due_origins(db, hours_after(last, 0.5)) == []
    assert due_origins(db, hours_after(last, 1.1)) == [BUSY]
    assert due_origins(db, hours_after(last, 2.1)) == [BUSY, CALM]
    assert due_origins(db, hours_after(last, 9)) == [BUSY, CALM, QUIET]
    # The list and the listing show the schedule too.
    rows = {r["origin"]: r for r in list_listings(db, sort="next_due_at")}
    assert [r for r in rows] == [BUSY, CALM, QUIET]
    assert rows[QUIET]["unchanged_crawls"] == 3 and rows[QUIET]["recrawl_interval"] == 28800
    assert get_listing(db, CALM)["next_due_at"] == schedule(db, CALM)[2]


def test_an_unreachable_origin_backs_off_exponentially(db, web):
    for expected in (900, 1800, 3600):
        run(db, web, ["gone.invalid"])
        streak, every, due, crawled = db.execute(
            "SELECT unreachable_streak, recrawl_interval, next_due_at, last_crawled_at FROM listings"
        ).fetchone()
        assert every == expected and due == hours_after(crawled, expected / HOUR)
    assert streak == 3


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_crawl_due_crawls_exactly_the_due_origins(tmp_path, web):
    path = tmp_path / "catalogue.db"
    db = open_db(path)
    crawled_with_history(db, web)
    # Time passes for calm only: its next-due time is now in the past.
    with db.conn:
        db.execute("UPDATE listings SET next_due_at = ? WHERE origin = ?", [iso(time.time() - 60), CALM])
    web.requests_log.clear()
    result = cli("crawl", "--due", "--db", path, "--no-verify", "--json", *web.cli_args())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["origins"] == 1
    assert {r.host for r in web.requests_log} == {CALM}
    # calm is scheduled again (unchanged twice now: 4 hours); nothing else is due.
    assert schedule(db, CALM)[:2] == (2, 14400)
    again = cli("crawl", "--due", "--db", path, "--no-verify", *web.cli_args())
    assert again.exit_code == 0 and re.match(
        r"no origin is due; the next is \S+\.test, due at \S+ \((in|now)", again.stdout
    )


def test_crawl_due_refuses_named_origins(tmp_path, web):
    result = cli("crawl", "--due", BUSY, "--db", tmp_path / "c.db", *web.cli_args())
    assert result.exit_code == 2 and "--due" in result.output


def test_crawl_revalidate_asks_documents_that_are_still_fresh(tmp_path, web):
    path = tmp_path / "catalogue.db"
    base = ["--db", path, "--no-verify", *web.cli_args()]
    assert cli("crawl", "fresh.test", *base).exit_code == 0
    web.requests_log.clear()
    assert cli("crawl", "fresh.test", *base).exit_code == 0
    assert [r for r in web.requests_log if r.host == "fresh.test"] == []
    assert cli("crawl", "fresh.test", "--revalidate", *base).exit_code == 0
    # Every document but the known absences (discovery paths' 404s), asked on their own schedule.
    assert len([r for r in web.requests_log if r.host == "fresh.test"]) == len(PATHS) - len(DISCOVERY)
    # --max-fresh 0 trusts nothing either.
    web.requests_log.clear()
    assert cli("crawl", "fresh.test", "--max-fresh", "0", *base).exit_code == 0
    assert len([r for r in web.requests_log if r.host == "fresh.test"]) == len(PATHS)
    shown = cli("show", "fresh.test", "--db", path)
    assert "Schedule: next due" in shown.stdout and "revalidated" in shown.stdout


@pytest.mark.slow
def test_between_due_crawls_endpoint_health_records_only_changed_states(tmp_path):
    """An endpoint's health row is added on every crawl the origin is due, and between due
    crawls only when its state changed: the history keeps every change without growing by a
    row an endpoint on every crawl of an unchanged web."""
    from agentdex.sampleweb.server import CROSSCHECK_ROOT

    path = tmp_path / "catalogue.db"

    def probes() -> dict[str, list[str]]:
        with open_db(path, readonly=True).conn as conn:
            rows = conn.execute("SELECT role, state FROM endpoint_probes ORDER BY id").fetchall()
        out: dict[str, list[str]] = {}
        for role, state in rows:
            out.setdefault(role, []).append(state)
        return out

    with SampleWeb(CROSSCHECK_ROOT) as web:
        base = ["--db", path, *web.cli_args(), "--timeout", "60"]
        assert cli("crawl", "flapping.test", *base).exit_code == 0  # the first crawl: due
        first = probes()
        assert first["mcp"] == ["ok"] and all(len(states) == 1 for states in first.values())
        assert cli("crawl", "flapping.test", *base).exit_code == 0  # not due, nothing changed
        assert probes() == first
        web.set_variant("mcp.flapping.test", "v2")  # the MCP endpoint goes down (503)
        try:
            assert cli("crawl", "flapping.test", *base).exit_code == 0  # not due: only the change
        finally:
            web.set_variant("mcp.flapping.test", "")
    assert probes() == {**first, "mcp": ["ok", "server_error"]}

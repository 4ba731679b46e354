"""One origin never ends, holds or misclassifies a crawl: a bug in any stage (fetch, parse,
verify, store) becomes that origin's recorded error while the others are saved; an origin
that answers each request just inside the deadline is cut short at its budget; a manifest
sent in an encoding agentdex never asked for is a fetch failure under the unreachable grace.

Real crawls of the loopback sample web (the bundled one and the hostile one) into real
SQLite files; the faults are injected by replacing one stage function for one origin.
"""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from agentdex import db as catalogue
from agentdex.cli import app
from agentdex.crawler import verify as verify_module
from agentdex.crawler.crawl import crawl
from agentdex.crawler.fetch import SLOW_METER, SLOW_REQUESTS, SLOW_SHARE, Fetcher, SlowMeter
from agentdex.db import get_listing, open_db, store
from agentdex.formats import agent_app
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb
from netfixtures import Reply, Request, tls_ca, tls_server, tls_server_session  # noqa: F401

VICTIM = "pantry.test"  # an agent-app manifest
OTHERS = ["quillnotes.test", "tidewater.test"]


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as served:
        yield served


@pytest.fixture(scope="module")
def hostile_web():
    with SampleWeb(HOSTILE_ROOT) as served:
        yield served


def _inject(monkeypatch, stage: str) -> None:
    """Make ``stage`` raise for VICTIM only (a bug of agentdex, as a user would meet it)."""

    def boom(what: str):
        raise RuntimeError(f"injected {what} failure")

    if stage == "fetch":
        real_fetch = Fetcher.fetch

        async def fetch(self, url, **options):
            if VICTIM in url:
                boom("fetch")
            return await real_fetch(self, url, **options)

        monkeypatch.setattr(Fetcher, "fetch", fetch)
    elif stage == "parse":
        real_parse = agent_app.parse

        def parse(data, *, origin=None):
            if origin == VICTIM:
                boom("parse")
            return real_parse(data, origin=origin)

        monkeypatch.setattr(agent_app, "parse", parse)
    elif stage == "verify":
        real_verify = verify_module.Verifier.verify_crawl

        async def verify_crawl(self, result, *args, **kwargs):
            if result.origin == VICTIM:
                boom("verify")
            return await real_verify(self, result, *args, **kwargs)

        monkeypatch.setattr(verify_module.Verifier, "verify_crawl", verify_crawl)
    else:  # inside save_origin's transaction, after some rows of the origin were written
        real_findings = store._replace_findings

        def replace_findings(db, result, crawl_id):
            real_findings(db, result, crawl_id)
            if result.origin == VICTIM:
                boom("store")

        monkeypatch.setattr(store, "_replace_findings", replace_findings)


@pytest.mark.parametrize("stage", ["fetch", "parse", "verify", "store"])
def test_a_failure_in_any_stage_is_that_origins_error_and_the_others_are_saved(web, tmp_path, monkeypatch, stage):
    db = open_db(tmp_path / "catalogue.db")
    _inject(monkeypatch, stage)
    summary = asyncio.run(crawl(db, [*OTHERS, VICTIM], web.network_options(deadline=60)))
    assert summary.internal == 1 and summary.origins == 3
    for origin in OTHERS:
        assert get_listing(db, origin)["status"] == "listed", origin
    victim = get_listing(db, VICTIM)
    assert victim["status"] == "unreachable"
    assert victim["status_detail"] == f"internal: RuntimeError: injected {stage} failure"
    # A store failure rolled back: none of the victim's findings written before it stayed.
    if stage == "store":
        assert list(db.query("SELECT * FROM findings WHERE origin = ?", [VICTIM])) == []


def test_a_listed_origin_that_hits_a_bug_keeps_its_listing(web, tmp_path, monkeypatch):
    db = open_db(tmp_path / "catalogue.db")
    asyncio.run(crawl(db, [VICTIM], web.network_options(deadline=60), verify=False))
    _inject(monkeypatch, "fetch")
    asyncio.run(crawl(db, [VICTIM], web.network_options(deadline=60), verify=False))
    row = get_listing(db, VICTIM)
    # Under the unreachable grace: still listed, its manifest still stored, the error said.
    assert row["status"] == "listed" and row["name"] and "internal: RuntimeError" in row["status_detail"]


def test_the_cli_says_how_many_origins_failed_and_exits_1(web, tmp_path, monkeypatch):
    _inject(monkeypatch, "verify")
    path = tmp_path / "catalogue.db"
    result = CliRunner().invoke(app, ["crawl", *OTHERS, VICTIM, "--db", str(path), *web.cli_args(), "--timeout", "60"])
    assert result.exit_code == 1, result.output
    assert "1 origin(s) failed on an internal error of agentdex" in result.stdout
    assert "Traceback" not in result.output
    json_run = CliRunner().invoke(app, ["crawl", *OTHERS, VICTIM, "--db", str(path), *web.cli_args(), "--json"])
    assert json_run.exit_code == 1 and '"internal": 1' in json_run.stdout
    verified = CliRunner().invoke(app, ["verify", *OTHERS, VICTIM, "--db", str(path), *web.cli_args()])
    assert verified.exit_code == 1, verified.output
    assert "1 origin(s) failed on an internal error of agentdex" in verified.stderr


# justintime.test answers every request 0.9 s after it. Deadlines the tests set around that:
# one the answers stay inside with seconds to spare (0.9 s of a 1 s deadline timed out on a
# loaded machine, the origin then ended unreachable, not cut short), and the slow-loris one,
# which 0.9 s is more than half of (so each answer is a slow one) with 0.85 s to spare.
ROOMY_DEADLINE = 10.0
LORIS_DEADLINE = 1.75


def test_an_origin_answering_just_inside_each_deadline_is_cut_short_at_its_budget(hostile_web, tmp_path):
    db = open_db(tmp_path / "catalogue.db")
    # Every answer well inside its deadline and no slow one (under half of it): only the 2 s
    # budget can end the origin (robots.txt, the manifest and what it names take 0.9 s each).
    net = hostile_web.network_options(deadline=ROOMY_DEADLINE, origin_budget=2.0)
    summary = asyncio.run(crawl(db, ["justintime.test", "poisoned.test"], net, verify=True))
    assert summary.cut_short == 1 and summary.internal == 0
    row = get_listing(db, "justintime.test")
    assert row["status"] == "unreachable"
    assert row["status_detail"] == "budget: cut short: the origin took more than its 2-second budget"
    assert get_listing(db, "poisoned.test")["status"] == "listed"


def test_a_slow_loris_origin_is_cut_after_a_few_deadlines_whatever_its_budget(hostile_web, tmp_path):
    """justintime.test answers every request 0.9 s late, inside the deadline (1.75 s here) and
    past half of it: under the default 120 s budget it held a crawl for every request it was
    asked (11 at --timeout 3, 34 s). Now its third slow request is its last."""
    db = open_db(tmp_path / "catalogue.db")
    assert LORIS_DEADLINE * SLOW_SHARE < 0.9 < LORIS_DEADLINE  # each answer is slow, none times out
    net = hostile_web.network_options(deadline=LORIS_DEADLINE)  # the default per-origin budget
    start = len(hostile_web.requests_log.snapshot())
    summary = asyncio.run(crawl(db, ["justintime.test", "poisoned.test"], net, verify=True))
    asked = [r for r in hostile_web.requests_log.snapshot()[start:] if r.host == "justintime.test"]
    assert summary.cut_short == 1 and summary.internal == 0
    detail = get_listing(db, "justintime.test")["status_detail"]
    assert detail.startswith(f"budget: cut short: {SLOW_REQUESTS} requests each took half the 1.75-second deadline")
    assert len(asked) <= SLOW_REQUESTS + 1, [r.path for r in asked]  # the last may be on its way when it is cut
    assert get_listing(db, "poisoned.test")["status"] == "listed"


TURNS, TURN_SECONDS, TURNS_DEADLINE = 7, 0.5, 6.0


async def test_waiting_for_the_hosts_turn_is_no_slow_request(tls_server):
    """Seven requests at once to one host (one at a time, 0.5 s each, a 6 s deadline): the
    last waits past half its deadline for its turn, which is agentdex's politeness, not the
    server's slowness. (Counted with its turn, it would be slow whatever the machine's load;
    the 2.5 s of the deadline left over are for the load: 0.2 s turns under a 2.5 s deadline
    left 1.1 s.)"""

    async def answer_late(request: Request) -> Reply:
        await asyncio.sleep(TURN_SECONDS)
        return Reply(body=b"{}")

    tls_server.routes["/turn"] = answer_late
    assert TURNS * TURN_SECONDS > TURNS_DEADLINE * SLOW_SHARE > TURN_SECONDS  # the test can fail
    meter = SlowMeter(lambda: None)
    token = SLOW_METER.set(meter)
    try:
        async with Fetcher(
            connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, deadline=TURNS_DEADLINE
        ) as fetcher:
            urls = [f"https://a.test/turn?n={n}" for n in range(TURNS)]
            got = await asyncio.gather(
                *(fetcher.fetch(u, kind="guide", max_bytes=1024, honour_robots=False) for u in urls)
            )
    finally:
        SLOW_METER.reset(token)
    assert [r.status for r in got] == [200] * TURNS and tls_server.max_active["a.test"] == 1
    assert meter.slow == 0


def test_the_origin_budget_is_a_crawl_option(hostile_web, tmp_path):
    path = tmp_path / "catalogue.db"
    result = CliRunner().invoke(
        app,
        [
            "crawl",
            "justintime.test",
            "--db",
            str(path),
            *hostile_web.cli_args(),
            "--timeout",
            "1",
            "--origin-budget",
            "1.5",
            "--no-verify",
        ],
    )
    assert result.exit_code == 1 and "no origin could be reached" in result.stderr, result.output  # issue 40
    assert "1 origin(s) cut short at the per-origin budget" in result.stdout
    refused = CliRunner().invoke(app, ["crawl", "justintime.test", "--db", str(path), "--origin-budget", "0"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output


@pytest.mark.parametrize("variant, encoding", [("br", "br"), ("zstd", "zstd"), ("gzip2", "gzip, gzip")])
def test_an_encoding_agentdex_cannot_decode_is_a_fetch_failure_not_an_absence(hostile_web, tmp_path, variant, encoding):
    db = open_db(tmp_path / "catalogue.db")
    net = hostile_web.network_options(deadline=60)
    hostile_web.set_variant("encoded.test", None)
    asyncio.run(crawl(db, ["encoded.test"], net, verify=False))
    assert get_listing(db, "encoded.test")["status"] == "listed"
    try:
        hostile_web.set_variant("encoded.test", variant)
        asyncio.run(crawl(db, ["encoded.test"], net, verify=False))
        again = get_listing(db, "encoded.test")
        # Listed still, under the unreachable grace, with the reason; never delisted at once.
        assert again["status"] == "listed" and encoding in again["status_detail"]
        assert [e["kind"] for e in catalogue.list_events(db, origin="encoded.test")] == ["listed"]
        fresh = open_db(tmp_path / "first.db")
        asyncio.run(crawl(fresh, ["encoded.test"], net, verify=False))
        first = get_listing(fresh, "encoded.test")
        assert first["status"] == "unreachable" and "did not ask for" in first["status_detail"]
    finally:
        hostile_web.set_variant("encoded.test", None)

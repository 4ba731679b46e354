"""``agentdex prune --keep DAYS`` on a catalogue filled by real crawls of the sample web over
TLS: old superseded answers go, an answer an event refers to stays (the one standing before
the event's crawl and the one it added), each endpoint keeps its latest probes, bodies no
row refers to go, and the catalogue reads as before."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.crawl import crawl
from agentdex.db import get_listing, list_events, open_db
from agentdex.db.migrations import RECENT_PROBES
from agentdex.db.queries import endpoint_health
from agentdex.db.retention import prune
from agentdex.sampleweb.server import SampleWeb
from freshweb import write_web

HOST = "plain.test"  # no Cache-Control: every crawl asks everything


@pytest.fixture
def web(tmp_path):
    """The freshness tests' web in a folder of this test's own (it rewrites a file)."""
    write_web(tmp_path / "web")
    with SampleWeb(root=tmp_path / "web", dns=False) as running:
        running.root_folder = tmp_path / "web"
        yield running


def run(db, web: SampleWeb, *, verify: bool = False):
    return asyncio.run(crawl(db, [HOST], web.network_options(), verify=verify))


def rows(db, url_path: str) -> list[tuple]:
    return db.execute(
        "SELECT id, crawl_id, body_sha256 FROM snapshots WHERE url = ? ORDER BY id", [f"https://{HOST}{url_path}"]
    ).fetchall()


def count(db, table: str) -> int:
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_prune_drops_old_superseded_answers_but_never_what_an_event_refers_to(web, tmp_path):
    db = open_db(tmp_path / "catalogue.db")
    run(db, web)  # the listed event refers to every answer this first crawl had
    for text in ("Tides and surf.", "Tides, surf and swell."):  # llms.txt changes twice: no event
        (web.root_folder / HOST / "llms.txt").write_text(f"# Tidewatch\n\n> {text}\n", encoding="utf-8")
        assert run(db, web).events == 0
    web.set_variant(HOST, "v2")  # the guide changes: a guide_changed event
    try:
        changed = run(db, web)
    finally:
        web.set_variant(HOST, None)
    [event] = [e for e in list_events(db, origin=HOST) if e["kind"] == "guide_changed"]
    assert event["crawl_id"] == changed.crawl_id
    first_llms, old_llms, new_llms = rows(db, "/llms.txt")
    before_guide, after_guide = rows(db, "/agent.md")
    snapshots, blobs = count(db, "snapshots"), count(db, "blobs")
    facts = get_listing(db, HOST)["facts"]

    assert prune(db, 30).snapshots == 0  # nothing is old enough yet
    result = prune(db, 0, now=time.time() + 1)
    assert (result.snapshots, result.blobs) == (1, 1)  # the second llms.txt and its body
    assert rows(db, "/llms.txt") == [first_llms, new_llms]
    # The event's guide answers, before and after, stay with their bodies.
    assert rows(db, "/agent.md") == [before_guide, after_guide]
    assert db.execute(
        "SELECT count(*) FROM blobs WHERE sha256 IN (?, ?)", [before_guide[2], after_guide[2]]
    ).fetchone() == (2,)
    assert db.execute("SELECT count(*) FROM blobs WHERE sha256 = ?", [old_llms[2]]).fetchone() == (0,)
    assert (count(db, "snapshots"), count(db, "blobs")) == (snapshots - 1, blobs - 1)
    # The catalogue reads the same facts; a recrawl finds exactly the one change (the guide
    # back to its first text), against the answers kept.
    assert get_listing(db, HOST)["facts"] == facts
    back = run(db, web)
    assert [e["kind"] for e in list_events(db, origin=HOST) if e["crawl_id"] == back.crawl_id] == ["guide_changed"]


def test_each_endpoint_keeps_its_latest_probes(web, tmp_path):
    db = open_db(tmp_path / "catalogue.db")
    for _ in range(RECENT_PROBES + 2):
        run(db, web, verify=True)
        with db.conn:  # each crawl due (its schedule come), so each records every endpoint...
            db.execute("UPDATE listings SET next_due_at = '2000-01-01T00:00:00.000Z'")
        with db.conn:  # ...and, as if its state had flapped, as a row of its own
            db.execute(
                "UPDATE endpoint_probes SET state = 'timeout' WHERE id IN "
                "(SELECT max(id) FROM endpoint_probes GROUP BY role, url)"
            )
    health = endpoint_health(db, HOST)
    per_endpoint = db.execute("SELECT count(*) FROM endpoint_probes GROUP BY role, url").fetchall()
    assert per_endpoint and all(n == RECENT_PROBES + 2 for (n,) in per_endpoint)
    result = prune(db, 0, now=time.time() + 1)
    assert result.endpoint_probes == 2 * len(per_endpoint)
    kept = db.execute("SELECT count(*) FROM endpoint_probes GROUP BY role, url").fetchall()
    assert all(n == RECENT_PROBES for (n,) in kept)
    # Each probe was a sample too: the latest RECENT_PROBES of each endpoint stay.
    assert result.endpoint_samples == 2 * len(per_endpoint)
    samples = db.execute("SELECT count(*) FROM endpoint_samples GROUP BY role, url").fetchall()
    assert samples == [(RECENT_PROBES,)] * len(per_endpoint)
    # The uptime is counted over the same latest probes; only the all-time count drops, and
    # the strip of samples keeps their latest RECENT_PROBES.
    dropped = ("probes", "first_seen_at", "strip", "latency_ms")
    assert [{k: v for k, v in h.items() if k not in dropped} for h in endpoint_health(db, HOST)] == [
        {k: v for k, v in h.items() if k not in dropped} for h in health
    ]
    assert all(
        h["strip"] == before["strip"][-RECENT_PROBES:]
        for h, before in zip(endpoint_health(db, HOST), health, strict=True)
    )


def test_the_prune_command(web, tmp_path):
    path = tmp_path / "catalogue.db"
    run(open_db(path), web)
    done = CliRunner().invoke(app, ["prune", "--keep", "7", "--json", "--db", str(path)])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) | {"cutoff": ""} == {
        "cutoff": "",
        "snapshots": 0,
        "endpoint_probes": 0,
        "blobs": 0,
        "vacuumed": False,
        "endpoint_samples": 0,
    }
    done = CliRunner().invoke(app, ["prune", "--keep", "0", "--vacuum", "--db", str(path)])
    assert done.exit_code == 0 and "file compacted" in done.stdout
    refused = CliRunner().invoke(app, ["prune", "--keep", "-1", "--db", str(path)])
    assert refused.exit_code == 2 and "Traceback" not in refused.output

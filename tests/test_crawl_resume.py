"""A crawl killed with SIGKILL resumes to the same catalogue as an uninterrupted one.

``python -m agentdex crawl`` runs as a real subprocess against a sample web started here.
It is killed once the crawls table shows some origins done (t-delay.test is in flight then,
held by its variant "held" until the kill, so no load on the machine lets the crawl past it),
run again to completion, and compared with a crawl of the same origins that was never
interrupted (run at the same time as the second run, into another file).
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentdex.db import get_listing, open_db
from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env

# With --concurrency 1 the origins are crawled in this order: four are done when
# t-delay.test starts its wait (an hour, under its variant "held"), and that is when the
# crawl is killed.
ORIGINS = [
    "pantry.test",
    "quillnotes.test",
    "ledgerline.test",
    "badmanifest.test",
    "t-delay.test",
    "tidewater.test",
    "vault.test",
    "notmcp.test",
    "wrongtype.test",
    "driftwood.test",
    "loop.test",
]
DONE_BEFORE_KILL = 4
HELD = ORIGINS[DONE_BEFORE_KILL]


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as running:
        yield running


def agentdex(web: SampleWeb, db: Path, *args: str) -> subprocess.Popen:
    env = cli_env()
    command = [
        sys.executable,
        "-m",
        "agentdex",
        "crawl",
        "--db",
        str(db),
        *web.cli_args(),
        "--registry",
        "https://registry.test",
        *args,
    ]
    return subprocess.Popen(command, cwd=db.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def origins_done(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            row = conn.execute("SELECT max(origins_done) FROM crawls").fetchone()
    except sqlite3.Error:  # not created yet
        return 0
    return row[0] or 0


def kill_when_done(process: subprocess.Popen, db: Path, count: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while origins_done(db) < count:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "the crawl made no progress"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)


def catalogue(path: Path) -> dict[str, dict]:
    """What a user sees of each origin, without times and ids."""
    db = open_db(path, readonly=True)
    out = {}
    for origin in ORIGINS:
        row = get_listing(db, origin)
        out[origin] = {
            "listing": {
                k: row[k]
                for k in (
                    "status",
                    "status_detail",
                    "format",
                    "formats_found",
                    "name",
                    "mcp_url",
                    "error_count",
                    "warning_count",
                    "checks_passed",
                    "checks_failed",
                    "listing",
                    "manifest",
                )
            },
            "findings": row["findings"],
            "checks": [(c["name"], c["status"], c["detail"]) for c in row["checks"]],
            "tools": [(t["source"], t["name"], t["annotations"], t["read_only"]) for t in row["tools"]],
            "documents": [(d["kind"], d["url"], d["sha256"]) for d in row["documents"]],
            "events": sorted((e["kind"], e["subject"], str(e["old"]), str(e["new"])) for e in row["events"]),
        }
    return out


def test_a_crawl_killed_with_sigkill_resumes_to_the_same_result(web, tmp_path):
    killed_db, whole_db = tmp_path / "killed" / "catalogue.db", tmp_path / "whole" / "catalogue.db"
    killed_db.parent.mkdir()
    whole_db.parent.mkdir()
    seeds = whole_db.parent / "seeds.txt"
    seeds.write_text(
        "# the same origins, as a seeds file\n"
        + "\n".join(f"https://{o}/  # {i}" for i, o in enumerate(ORIGINS))
        + "\n"
    )
    web.set_variant(HELD, "held")
    try:  # a deadline and a budget longer than any wait for the kill
        victim = agentdex(web, killed_db, "--concurrency", "1", "--timeout", "600", "--origin-budget", "600", *ORIGINS)
        kill_when_done(victim, killed_db, DONE_BEFORE_KILL)
    finally:
        web.set_variant(HELD, None)  # its manifest answers after 1 s again
    assert victim.returncode == -signal.SIGKILL
    whole = agentdex(web, whole_db, "--seeds", str(seeds))

    with sqlite3.connect(killed_db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        crawl_row = conn.execute("SELECT status, origins_done, origins_total FROM crawls").fetchall()
        saved = {r[0] for r in conn.execute("SELECT origin FROM listings")}
    assert crawl_row == [("running", DONE_BEFORE_KILL, len(ORIGINS))]  # it never got to finish
    assert saved == set(ORIGINS[:DONE_BEFORE_KILL])  # whole origins only: none half-written

    resumed = agentdex(web, killed_db, *ORIGINS)
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read().decode()
    assert whole.wait(timeout=300) == 0, whole.stderr.read().decode()
    assert catalogue(killed_db) == catalogue(whole_db)
    with sqlite3.connect(killed_db) as conn:
        done = conn.execute("SELECT status, origins_done FROM crawls ORDER BY id").fetchall()
    # The killed run is no longer shown as running once the next crawl has started.
    assert done == [("interrupted", DONE_BEFORE_KILL), ("finished", len(ORIGINS))]
    assert "tools/call" not in web.requests_log.jsonrpc_methods()

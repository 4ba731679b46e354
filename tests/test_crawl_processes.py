"""``crawl --processes N``: several processes fetch, parse and verify while one saves.

Over real sockets (the sample web over TLS), through the real CLI in its own process:
the catalogue is the one a one-process crawl writes (listings, checks, events), a
crawling process that dies takes only its unfinished origins with it (each recorded, the
others saved), Ctrl-C stops the children too, and a bad value is a sentence.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env
from waiting import listed, wait_for

# Every test here starts the CLI (and its crawling processes) in a process of its own.
pytestmark = pytest.mark.slow

SYNTHETIC = 8
SITES = ["pantry.test", "beacon.test", "badmanifest.test", "meridian.test", "api.meridian.test", "gone.test"]
SLOW = "sleepy.test"  # 30 s before its first byte: in flight for the crawl's 15 s deadline
HELD = "t-delay.test"  # under its variant "held", its manifest answers after an hour


def agentdex(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agentdex", *args],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def facts(path: Path) -> dict[str, list[tuple]]:
    """What a user reads from the catalogue, without times and ids."""
    with sqlite3.connect(path) as conn:
        return {
            "listings": sorted(conn.execute("SELECT origin, status, status_detail, name, format FROM listings")),
            "checks": sorted(conn.execute("SELECT origin, name, status, detail FROM checks")),
            "events": sorted(conn.execute("SELECT origin, kind FROM events")),
            "crawls": sorted(conn.execute("SELECT kind, status, origins_total, origins_done FROM crawls")),
        }


def children_of(pid: int) -> dict[int, bytes]:
    """Every child process of ``pid``: its command line."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found[int(child)] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
    return found


def crawling_children(pid: int) -> list[int]:
    """The crawling processes of the CLI process ``pid``."""
    return [child for child, cmdline in children_of(pid).items() if b"agentdex.crawler.worker" in cmdline]


def test_each_origin_is_crawled_once_by_one_of_the_processes(tmp_path):
    path = tmp_path / "c.db"
    with SampleWeb(synthetic=60) as web:
        hosts = list(web.synthetic.hosts)
        # one worker a process: the origins are dealt a few at a time, to all three processes
        crawl = agentdex("crawl", "--db", str(path), *web.cli_args(), "--processes", "3", "--concurrency", "3", *hosts)
        _, stderr = crawl.communicate(timeout=180)
        asked = Counter(r.host for r in web.requests_log if r.path == "/.well-known/agent-app.json")
    assert crawl.returncode == 0, stderr
    assert asked == dict.fromkeys(hosts, 1)  # every origin, none twice
    assert listed(path) == len(hosts)


def test_two_processes_write_the_catalogue_one_process_writes(tmp_path):
    with SampleWeb(synthetic=SYNTHETIC) as web:
        origins = [*web.synthetic.hosts, *SITES]
        out = {}
        received = {}
        for n in (1, 2):
            path = tmp_path / f"p{n}.db"
            web.requests_log.clear()
            crawl = agentdex("crawl", "--db", str(path), *web.cli_args(), "--processes", str(n), "--json", *origins)
            stdout, stderr = crawl.communicate(timeout=180)
            assert crawl.returncode == 0, stderr
            out[n], received[n] = (json.loads(stdout), facts(path)), len(web.requests_log)
    (one, one_facts), (two, two_facts) = out[1], out[2]
    assert two_facts == one_facts
    assert len(two_facts["listings"]) == len(origins) and two_facts["events"] and two_facts["checks"]
    assert two["by_status"] == one["by_status"] and two["internal"] == 0
    # Every request the web received is counted, whichever process sent it. (Not "two
    # processes send at least as many as one": how many robots.txt fetches and retries a run
    # makes depends on how its origins interleave, which a busy machine changes.)
    assert received[1] <= one["requests"] and received[2] <= two["requests"] <= one["requests"] + len(origins)


def test_a_crawling_process_that_dies_takes_only_its_unfinished_origins(tmp_path):
    path = tmp_path / "c.db"
    with SampleWeb(synthetic=SYNTHETIC) as web:
        hosts = list(web.synthetic.hosts)
        origins = [SLOW, *hosts]  # the slow one goes to the first process, with every other host
        crawl = agentdex("crawl", "--db", str(path), *web.cli_args(), "--processes", "2", "--json", *origins)
        try:
            wait_for(lambda: listed(path) == len(hosts))  # all but the slow one saved
            children = crawling_children(crawl.pid)
            # --processes 2: this process and one crawling process, and no helper process
            assert sorted(children_of(crawl.pid)) == sorted(children) and len(children) == 1
            for child in children:
                os.kill(child, signal.SIGKILL)
            stdout, stderr = crawl.communicate(timeout=60)
        finally:
            crawl.kill()
    assert crawl.returncode == 1, stderr  # an origin agentdex could not finish: the run says so
    assert "Traceback" not in stderr
    summary = json.loads(stdout)
    assert summary["internal"] == 1 and summary["origins"] == len(origins)
    rows = dict((o, (s, d)) for o, s, d, *_ in facts(path)["listings"])
    assert rows[SLOW][0] == "unreachable"
    assert "its crawling process ended (exit code -9) before it was finished" in rows[SLOW][1]
    assert all(rows[h][0] == "listed" for h in hosts)


def test_ctrl_c_stops_the_crawling_processes_and_keeps_what_was_saved(tmp_path):
    path = tmp_path / "c.db"
    with SampleWeb(synthetic=SYNTHETIC) as web:
        hosts = list(web.synthetic.hosts)
        # HELD's manifest answers after an hour, and the deadline and budget outlast any wait for
        # the others: the crawl is still in flight when Ctrl-C comes, however busy the machine
        # (sleepy.test's 30 s, past a 15 s deadline, let a slow run end before the signal).
        web.set_variant(HELD, "held")
        longer = ("--timeout", "600", "--origin-budget", "600")
        crawl = agentdex("crawl", "--db", str(path), *web.cli_args(), *longer, "--processes", "2", HELD, *hosts)
        try:
            wait_for(lambda: listed(path) == len(hosts))
            children = crawling_children(crawl.pid)
            assert children
            crawl.send_signal(signal.SIGINT)
            _, stderr = crawl.communicate(timeout=60)
        finally:
            crawl.kill()
    assert crawl.returncode == 130, stderr
    assert "interrupted: every finished origin is saved" in stderr and "Traceback" not in stderr
    assert not [c for c in children if _alive(c)], "a crawling process outlived the crawl"
    assert listed(path) == len(hosts)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT status FROM crawls").fetchall() == [("interrupted",)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_a_bad_processes_value_is_a_sentence(tmp_path, value):
    crawl = agentdex("crawl", "--db", str(tmp_path / "c.db"), "--processes", value, "example.com")
    _, stderr = crawl.communicate(timeout=60)
    assert crawl.returncode == 2
    assert "--processes" in stderr and "Traceback" not in stderr


def test_the_crawling_process_module_run_by_hand_says_what_starts_it():
    worker = subprocess.run(
        [sys.executable, "-m", "agentdex.crawler.worker"], env=cli_env(), capture_output=True, text=True, timeout=60
    )
    assert worker.returncode == 2
    assert "agentdex crawl --processes N" in worker.stderr and "Traceback" not in worker.stderr


def test_the_crawling_processes_run_this_agentdex_not_a_folder_of_that_name_where_the_crawl_starts(tmp_path):
    decoy = tmp_path / "agentdex" / "crawler"
    decoy.mkdir(parents=True)
    for folder in (decoy.parent, decoy):
        (folder / "__init__.py").write_text("")
    (decoy / "worker.py").write_text("raise SystemExit('the decoy ran')\n")
    path = tmp_path / "c.db"
    with SampleWeb(synthetic=SYNTHETIC) as web:
        hosts = list(web.synthetic.hosts)
        # -P: the crawl itself does not import the decoy either; its crawling process must not
        crawl = subprocess.run(
            [sys.executable, "-P", "-m", "agentdex", "crawl", "--db", str(path), *web.cli_args()]
            + ["--processes", "2", "--concurrency", "2", *hosts],
            env=cli_env(),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
    assert crawl.returncode == 0, crawl.stderr
    assert "decoy" not in crawl.stderr
    assert listed(path) == len(hosts)

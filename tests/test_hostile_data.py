"""The catalogue survives what the machine does to it: a crawl SIGKILLed at random moments
20 times over (scripts/kill_resume.py runs the same trials, as many as asked), and a disk
that fills up during a write (a small tmpfs mounted for the test).
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentdex.db.connection import open_db
from agentdex.sampleweb.server import SampleWeb
from tests.conftest import ROOT, cli_env

sys.path.insert(0, str(ROOT / "scripts"))
import kill_resume  # noqa: E402

TRIALS = 20
MAX_DELAY = 0.6  # seconds into the crawl; a crawl of the trial's origins takes about a second


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_twenty_kills_at_random_moments_leave_whole_origins_and_an_identical_recrawl_adds_nothing(tmp_path):
    seed = random.randrange(1 << 30)
    lines: list[str] = []
    outcome = kill_resume.run(TRIALS, seed, 0.0, MAX_DELAY, tmp_path, print_fn=lines.append)
    report = (
        f"seed {seed} (rerun: scripts/kill_resume.py --seed {seed} --trials {TRIALS} --max-delay {MAX_DELAY})\n"
        + "\n".join(lines)
    )
    assert outcome.killed == TRIALS, report
    assert outcome.problems == [], report  # integrity, foreign keys, whole-or-absent, no duplicate rows
    assert min(outcome.origins_seen) < len(kill_resume.ORIGINS), report  # some kills landed mid-crawl


def _new_catalogue_bytes(folder: Path) -> int:
    folder.mkdir()
    open_db(folder / "catalogue.db").conn.close()
    return sum(f.stat().st_size for f in folder.iterdir())


@pytest.fixture
def small_disk(tmp_path):
    folder = tmp_path / "disk"
    folder.mkdir()
    # Room for a new catalogue and a few origins, whatever the schema weighs today: a fixed
    # size went stale as migrations were added (the disk filled before the first origin).
    size_kb = _new_catalogue_bytes(tmp_path / "probe") // 1024 + 384
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"a full disk needs a small tmpfs and mounting one failed (run as root): {mounted.stderr.decode()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.slow
def test_a_full_disk_stops_the_crawl_with_a_sentence_and_the_catalogue_still_opens(small_disk):
    db = small_disk / "catalogue.db"
    with SampleWeb() as web:
        origins = sorted(h for h in web.hosts if not h.startswith(("mcp.", "api.", "pay.")))
        crawl = subprocess.run(
            [
                sys.executable,
                "-m",
                "agentdex",
                "crawl",
                "--db",
                str(db),
                *web.cli_args(),
                "--registry",
                "https://registry.test",
                *origins,
            ],
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=180,
        )
    assert crawl.returncode == 1
    assert "the disk holding the catalogue is full" in crawl.stderr and "Traceback" not in crawl.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "agentdex", "list", "--db", str(db)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
    )
    assert (
        listed.returncode == 0 and "shown" in listed.stderr
    )  # the catalogue opens, full disk and all (the count: stderr on a pipe)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        saved = conn.execute("SELECT origins_done FROM crawls").fetchone()[0]
    assert 0 < saved < len(origins) and f"{saved} of" in listed.stderr

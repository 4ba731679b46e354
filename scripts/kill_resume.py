"""Kill-and-resume trials: SIGKILL a real ``agentdex crawl`` at random moments, check the
catalogue after every kill, then finish the crawl and repeat it identically.

Run from the repository root (tests/test_hostile_data.py runs 20 trials the same way):

    .venv/bin/python scripts/kill_resume.py [--trials 100] [--seed S] [--min-delay 0] [--max-delay 1.5]

Every trial crawls the same origins of the bundled sample web into one database (so kills
land on a catalogue with history; the web switches between its base content and variant
v2 each trial, so most saves are real changes). After each SIGKILL:

- ``PRAGMA integrity_check`` is ``ok`` and ``PRAGMA foreign_key_check`` finds nothing;
- every origin is whole or absent: none of the half-written checks of
  tests/test_datasette_live.py (``HALF_WRITTEN``) finds a row.

After the trials a complete crawl must succeed, and an identical crawl after it must add
no row anywhere but its own snapshots and its crawl row. One line per trial, then a summary.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from agentdex.sampleweb.server import SampleWeb  # noqa: E402
from test_datasette_live import HALF_WRITTEN  # noqa: E402

ORIGINS = [
    "pantry.test",
    "tidewater.test",
    "quillnotes.test",
    "badmanifest.test",
    "castaway.test",
    "vault.test",
    "wayfarer.test",
    "ledgerline.test",
]
GROWING = {"snapshots", "crawls"}  # the only tables an identical crawl may add rows to
TABLES = (
    "listings",
    "documents",
    "blobs",
    "snapshots",
    "findings",
    "tools",
    "checks",
    "events",
    "crawls",
    "robots_txt",
)


@dataclass
class Outcome:
    """What the trials found."""

    killed: int = 0
    finished_first: int = 0  # the crawl ended before its kill came
    problems: list[str] = field(default_factory=list)
    origins_seen: list[int] = field(default_factory=list)  # origins the killed crawl had saved


def crawl_command(web: SampleWeb, db: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agentdex",
        "crawl",
        "--db",
        str(db),
        *web.cli_args(),
        "--registry",
        "https://registry.test",
        "--concurrency",
        "8",
        *ORIGINS,
    ]


def environment() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    return env


def problems_in(db: Path) -> list[str]:
    """Why the catalogue is not whole (empty when it is)."""
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        found = [] if conn.execute("PRAGMA integrity_check").fetchone() == ("ok",) else ["integrity_check"]
        found += [f"foreign key: {row}" for row in conn.execute("PRAGMA foreign_key_check")]
        if conn.execute("SELECT name FROM sqlite_master WHERE name = 'listings'").fetchone():
            for name, sql in HALF_WRITTEN.items():
                found += [f"{name}: {row[0]}" for row in conn.execute(sql)]
    return found


def _number(db: Path, sql: str) -> int:
    """One number read from the catalogue (0 while it does not exist yet)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            row = conn.execute(sql).fetchone()
    except sqlite3.Error:
        return 0
    return row[0] if row and row[0] is not None else 0


def origins_saved(db: Path) -> int:
    """How many origins the latest crawl saved before it ended."""
    return _number(db, "SELECT origins_done FROM crawls ORDER BY id DESC LIMIT 1")


def crawls_started(db: Path) -> int:
    return _number(db, "SELECT count(*) FROM crawls")


def trial(web: SampleWeb, db: Path, delay: float, outcome: Outcome) -> str:
    """One crawl, killed ``delay`` seconds after it recorded its start (so the kill lands in
    the crawl itself, not in the interpreter's start-up); a line saying what was found."""
    started = crawls_started(db)
    process = subprocess.Popen(
        crawl_command(web, db), env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while crawls_started(db) == started and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    try:
        process.wait(timeout=delay)
        outcome.finished_first += 1
        what = "finished before the kill"
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        outcome.killed += 1
        what = "killed"
    found = problems_in(db)
    outcome.problems += found
    outcome.origins_seen.append(origins_saved(db))
    verdict = "ok" if not found else found
    return f"{what} {delay:.2f}s into the crawl: {outcome.origins_seen[-1]} origin(s) saved, {verdict}"


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def finish_and_repeat(web: SampleWeb, db: Path) -> list[str]:
    """A complete crawl, then an identical one: the problems (an empty list when none)."""
    web.set_variant("*", "")
    done = subprocess.run(crawl_command(web, db), env=environment(), capture_output=True, timeout=120)
    if done.returncode != 0:
        return [f"the completing crawl failed: {done.stderr.decode()[-500:]}"]
    before = counts(db)
    subprocess.run(crawl_command(web, db), env=environment(), capture_output=True, timeout=120, check=True)
    after = counts(db)
    added = {t: after[t] - before[t] for t in TABLES if after[t] != before[t] and t not in GROWING}
    return [f"the identical crawl added rows: {added}"] if added else []


def run(trials: int, seed: int, min_delay: float, max_delay: float, folder: Path, print_fn=print) -> Outcome:
    """``trials`` kills (crawls that end first do not count), then the completing crawls."""
    rng = random.Random(seed)
    db = folder / "catalogue.db"
    outcome = Outcome()
    with SampleWeb() as web:
        attempt = 0
        while outcome.killed < trials and attempt < trials * 3:
            web.set_variant("*", "v2" if attempt % 2 else "")
            attempt += 1
            print_fn(f"trial {attempt}: {trial(web, db, rng.uniform(min_delay, max_delay), outcome)}")
        outcome.problems += finish_and_repeat(web, db)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--min-delay", type=float, default=0.0)
    parser.add_argument("--max-delay", type=float, default=1.5)
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        outcome = run(args.trials, args.seed, args.min_delay, args.max_delay, Path(folder))
    print(
        f"seed {args.seed}: {outcome.killed} kill(s), {outcome.finished_first} crawl(s) finished first, "
        f"origins saved by the killed crawls: {sorted(set(outcome.origins_seen))} of {len(ORIGINS)}; "
        f"problems: {outcome.problems or 'none'}"
    )
    return 1 if outcome.problems else 0


if __name__ == "__main__":
    sys.exit(main())

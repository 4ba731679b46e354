"""A crawl killed with SIGKILL in the middle of saving leaves a consistent catalogue: every
origin is either fully saved or absent, and the crawl can be run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentdex.db import open_db, save_origin, start_crawl
from db_records import CRASH_TOOLS as TOOLS
from db_records import crawl_for

HERE = Path(__file__).resolve().parent
ORIGINS = 40
KILL_AFTER = 15

# The child saves origins one by one. Inside the transaction of origin KILL_AFTER (listing,
# snapshots and blobs written, not yet committed) it says so and waits to be killed.
CHILD = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[2])
    from agentdex.db import open_db, save_origin, start_crawl, store
    from db_records import crawl_for

    save_probes = store._save_probes

    def stall(db, origin, *args):
        linted = save_probes(db, origin, *args)
        if origin == "o{kill:04d}.example.com":
            print("in transaction", flush=True)
            time.sleep(60)
        return linted

    store._save_probes = stall
    db = open_db(sys.argv[1])
    crawl_id = start_crawl(db, "crawl", {origins})
    for i in range({origins}):
        save_origin(db, crawl_for(i), crawl_id)
        print(i, flush=True)
""")


def expected_rows(db, origin: str) -> dict[str, int]:
    return {
        table: db.execute(f"SELECT count(*) FROM {table} WHERE origin = ?", [origin]).fetchone()[0]
        for table in ("snapshots", "documents", "tools", "checks", "events")
    }


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_crawl_keeps_whole_origins_only(tmp_path):
    path = tmp_path / "catalogue.db"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(origins=ORIGINS, kill=KILL_AFTER))
    child = subprocess.Popen([sys.executable, str(script), str(path), str(HERE)], stdout=subprocess.PIPE, text=True)
    saved = []
    try:
        for line in child.stdout:
            if line.strip().isdigit():
                saved.append(int(line))
            if line.startswith("in transaction"):
                os.kill(child.pid, signal.SIGKILL)
                break
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, "the crawl finished before it could be killed"
    assert saved == list(range(KILL_AFTER))

    db = open_db(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    present = [row[0] for row in db.execute("SELECT origin FROM listings ORDER BY origin")]
    assert present == [f"o{i:04d}.example.com" for i in saved]  # the one in flight is absent
    whole = {"snapshots": 2, "documents": 2, "tools": TOOLS, "checks": 2, "events": 1}
    for origin in present:
        assert expected_rows(db, origin) == whole, origin
    guides = db.execute("SELECT count(*) FROM blobs WHERE size_bytes > 100000").fetchone()[0]
    assert guides == len(present)  # not even the blob of the origin in flight
    assert db.execute("SELECT status, origins_done FROM crawls").fetchone() == ("running", len(present))

    # Rerunning resumes: the origin in flight is saved on the next run.
    missing = f"o{KILL_AFTER:04d}.example.com"
    save_origin(db, crawl_for(KILL_AFTER), start_crawl(db))
    assert expected_rows(db, missing) == whole

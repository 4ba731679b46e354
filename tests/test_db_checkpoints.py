"""WAL checkpoints in a thread of their own during a crawl (agentdex.db.checkpoints): the
data reaches the database file without the writer checkpointing, the WAL stays bounded, the
writer's own setting comes back, and a crawl counts every saved origin into it.

Everything here runs on real SQLite files and a real thread."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import struct
import time
from collections.abc import Iterator

import pytest
from sqlite_utils import Database

from agentdex.crawler import crawl as crawl_module
from agentdex.crawler import stage as stage_module
from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.db import open_db, transaction
from agentdex.db.checkpoints import WAL_BOUND_PAGES, WRITER_BOUND, background_checkpoints
from waiting import eventually, wait_for


def _catalogue(tmp_path):
    db = open_db(tmp_path / "c.db")
    db.execute("CREATE TABLE t (k TEXT, v BLOB)")
    db.execute("CREATE INDEX t_k ON t(k)")  # random keys: each commit touches scattered pages
    return db


def _commit(db, i: int, rows: int = 8) -> None:
    with transaction(db):
        db.conn.executemany(
            "INSERT INTO t VALUES (?, ?)", [(os.urandom(8).hex(), os.urandom(900)) for _ in range(rows)]
        )


def _commits(seconds: float = 120.0) -> Iterator[int]:
    """0, 1, 2, … until the loop's condition holds (it breaks) or ``seconds`` have passed: a
    deadline for a test that fails, not a guess at how soon the thread gets its turns (on a
    busy machine it may take thousands of commits)."""
    deadline, i = time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        yield i
        i += 1


def _size(path) -> int:
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


def test_the_thread_copies_the_commits_into_the_database_file_before_the_writer_would(tmp_path):
    path = tmp_path / "c.db"
    db = _catalogue(tmp_path)
    start = _size(path)
    with background_checkpoints(db, bound_pages=100_000, every=1) as checkpoints:
        for i in range(40):
            _commit(db, i)
            checkpoints.committed()
        wait_for(lambda: checkpoints.checkpoints >= 1 and _size(path) > start)
        assert checkpoints.error is None
    db.conn.close()


def test_without_the_thread_those_commits_stay_in_the_wal(tmp_path):
    # The control of the test above: 40 commits stay under SQLite's own 1,000-page checkpoint.
    path = tmp_path / "c.db"
    db = _catalogue(tmp_path)
    start = _size(path)
    for i in range(40):
        _commit(db, i)
    assert _size(path) == start
    assert _size(tmp_path / "c.db-wal") > 40 * 4096
    db.conn.close()


def _restarts_of_the_wal(path) -> int:
    """The WAL header's checkpoint sequence number: one more each time the WAL starts over."""
    with open(path, "rb") as wal:
        return struct.unpack(">I", wal.read(16)[12:16])[0]


def test_the_wal_starts_over_again_and_again_while_the_thread_copies_it(tmp_path):
    # A WAL that never starts over grows by every page of every commit: a long crawl's would
    # hold gigabytes. With the thread copying, SQLite's own checkpoint (at twice the bound)
    # seldom runs, so the WAL starts over through the writer's short checkpoint.
    db = _catalogue(tmp_path)
    with background_checkpoints(db, bound_pages=64, every=1, checkpoint_pages=16) as checkpoints:
        first = None
        for i in _commits():
            _commit(db, i, rows=3)
            checkpoints.committed()
            first = _restarts_of_the_wal(tmp_path / "c.db-wal") if first is None else first
            if checkpoints.restarts >= 4:
                break
        assert checkpoints.error is None
    assert checkpoints.restarts >= 4
    assert _restarts_of_the_wal(tmp_path / "c.db-wal") >= first + 3
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 3 * (i + 1)
    db.conn.close()


def test_small_commits_wake_the_thread_less_often_and_large_ones_as_often_as_at_first(tmp_path):
    # A sweep's empty origin writes a few pages, a listed origin a hundred and more: each
    # checkpoint costs two fsyncs, so the thread is woken about once for CHECKPOINT_PAGES.
    db = _catalogue(tmp_path)
    with background_checkpoints(db, every=1) as small:
        for i in _commits():
            _commit(db, i, rows=1)  # about 3 pages
            small.committed()
            if small.every >= 64:
                break
        assert small.every >= 64
    with background_checkpoints(db, every=1, checkpoint_pages=8) as large:
        for i in _commits():
            _commit(db, i, rows=40)  # about 50 pages, more than twice 8 each
            large.committed()
            if large.checkpoints >= 5:
                break
        assert large.checkpoints >= 5 and large.every == 1
    db.conn.close()


def test_a_checkpoint_that_fails_is_recorded_and_every_commit_stands(tmp_path):
    db = _catalogue(tmp_path)
    with background_checkpoints(db, bound_pages=1, every=1) as checkpoints:
        broken = sqlite3.connect(":memory:")
        broken.close()
        checkpoints.writer = broken  # the writer's short checkpoint fails from now on
        for i in _commits():
            _commit(db, i, rows=1)
            checkpoints.committed()
            if checkpoints.error:
                break
    assert checkpoints.error is not None and "closed" in checkpoints.error
    assert db.execute("SELECT count(*) FROM t").fetchone()[0] == i + 1
    db.conn.close()


def test_the_writers_own_checkpoint_comes_back_after_the_block_even_when_it_fails(tmp_path):
    db = _catalogue(tmp_path)
    with background_checkpoints(db):
        assert db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WRITER_BOUND * WAL_BOUND_PAGES
    assert db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    with pytest.raises(RuntimeError), background_checkpoints(db):
        raise RuntimeError("the crawl failed")
    assert db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    db.conn.close()


def test_a_catalogue_in_memory_gets_no_thread_and_loses_nothing():
    db = Database(memory=True)  # open_db wants a file; sqlite-utils gives one in memory
    db.execute("CREATE TABLE t (k)")
    with background_checkpoints(db) as checkpoints:
        db.execute("INSERT INTO t VALUES (1)")
        checkpoints.committed()
    assert checkpoints.commits == 1 and checkpoints.checkpoints == 0
    assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 1


async def test_a_crawl_counts_each_saved_origin_and_checkpoints_while_it_runs(tmp_path, monkeypatch):
    db = open_db(tmp_path / "c.db")
    real = background_checkpoints

    class Held:
        checkpoints = None

    async def failing(db, origin, *args, **kwargs):
        assert db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == WRITER_BOUND * WAL_BOUND_PAGES
        if origin == "o12.example":  # twelve origins saved by now: the thread has had its turns
            assert await eventually(lambda: Held.checkpoints is not None and Held.checkpoints.checkpoints >= 1)
        raise stage_module.OriginFailed("budget", "cut short here")

    class Capture:
        def __init__(self, db, **kwargs):
            self.inner = real(db, every=1)

        def __enter__(self):
            Held.checkpoints = self.inner.__enter__()
            return Held.checkpoints

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(crawl_module, "background_checkpoints", Capture)
    monkeypatch.setattr(stage_module, "crawl_one", failing)
    origins = [f"o{i}.example" for i in range(20)]
    summary = await asyncio.wait_for(crawl(db, origins, NetworkOptions(concurrency=1), verify=False), 60)
    assert summary.origins == 20
    assert Held.checkpoints is not None and Held.checkpoints.commits == 20
    assert db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    saved = sqlite3.connect(tmp_path / "c.db").execute("SELECT count(*) FROM listings").fetchone()[0]
    assert saved == 20

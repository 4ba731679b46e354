"""WAL checkpoints in a thread of their own while a crawl writes, so the crawl seldom waits
on the disk.

Why: every origin is committed in its own transaction (DESIGN.md), and each transaction
writes every B-tree page it touches to the WAL again: about 130 pages (500 KB) for an origin
of the benchmark's static web, so SQLite's own checkpoint (every 1,000 pages, in the writer's
thread, right after a commit) ran every eight origins and waited twice each time for
``fsync``. ``strace`` of a 10,000-origin crawl with ``--processes 2`` counted 4,009 ``fsync``
calls taking 11.7 s of the writer's wall, during which its event loop, which crawls too,
stood still (docs/benchmarks.md, issue 35).

So during a crawl a second connection copies the WAL into the database in a thread, after
every few commits: a PASSIVE checkpoint, which never waits for the writer or a reader, and
``sqlite3_step`` releases the GIL, so the event loop runs on while that thread waits for the
disk. A WAL starts over from its beginning only when a write transaction begins with every
frame already copied, which a checkpoint in another thread cannot arrange (the writer
commits again while it copies). So once the thread finds the WAL at :data:`WAL_BOUND_PAGES`
it stops, and the writer, after its next commit, copies the few pages committed since
itself (a short checkpoint), and the WAL starts over. SQLite's own checkpoint stays as the
bound should the thread stop (a disk error). Durability is unchanged: WAL with
``synchronous = NORMAL``, each commit whole.

Public API::

    with background_checkpoints(db) as checkpoints:   # counting only for a catalogue in memory
        ...; checkpoints.committed()                    # after each write transaction
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from agentdex.db.connection import catalogue_path

# The WAL's size, in pages, at which the writer takes the last pages over and the WAL starts
# over (64 MiB of 4 KiB pages).
WAL_BOUND_PAGES = 16_384
# SQLite's own checkpoint while the thread runs, in WAL_BOUND_PAGES: the bound if it stops.
WRITER_BOUND = 2
# Commits between two wake-ups of the thread at first and at the least (while it copies,
# further wake-ups wait for it); more when a checkpoint copies under half CHECKPOINT_PAGES,
# SQLite's own default: an origin of the static web writes ~130 pages (8 commits), an empty one of a
# sweep ~5 (each checkpoint costs two fsyncs, so a sweep's would otherwise cost more than
# SQLite's own).
COMMITS_PER_CHECKPOINT = 8
CHECKPOINT_PAGES = 1_000
MOST_COMMITS_PER_CHECKPOINT = 512


class Checkpoints:
    """The writer's side of the checkpoint thread: it counts commits, wakes the thread, and
    makes the short checkpoint that lets the WAL start over."""

    def __init__(
        self, writer: sqlite3.Connection | None, every: int, bound: int, pages: int = CHECKPOINT_PAGES
    ) -> None:
        self.writer = writer
        self.every, self.bound, self.pages = max(1, every), bound, pages
        self.first_every = self.every
        self.commits = 0
        self._since = 0  # commits since the last wake-up
        self._frames = 0  # the WAL's frames at the thread's last checkpoint
        self.checkpoints = 0  # the thread's checkpoints so far
        self.restarts = 0  # the writer's short ones, each letting the WAL start over
        self.error: str | None = None  # why the thread stopped early (a disk error)
        self._wake = threading.Event()
        self._copying = threading.Lock()  # one checkpoint at a time: the thread's or the writer's
        self._full = False  # the thread found the WAL at its bound: the writer's turn
        self._stopping = False

    def committed(self) -> None:
        """Count one write transaction: every ``every``-th wakes the thread; once the WAL is
        full, the writer copies what is left itself (when the thread is not copying)."""
        self.commits += 1
        if self._full and self.writer is not None and self._copying.acquire(blocking=False):
            try:
                self.writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.restarts += 1
            except sqlite3.Error as exc:  # the commits stand (in the WAL); the next one that
                self.error = str(exc)  # meets the cause (a full disk) says so in a sentence
            finally:
                self._full = False
                self._copying.release()
            return
        self._since += 1
        if self._since >= self.every:
            self._since = 0
            self._wake.set()

    def run(self, conn: sqlite3.Connection) -> None:
        """The thread: a PASSIVE checkpoint on each wake-up, until :meth:`stop` (or a disk
        error, which SQLite's own checkpoint in the writer then meets and reports)."""
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            if self._full:
                continue
            try:
                with self._copying:
                    # fetchall: a statement left unfinished would hold the WAL from starting over
                    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
            except sqlite3.Error as exc:
                self.error = str(exc)
                return
            self.checkpoints += 1
            self._full = frames >= self.bound
            self._adapt(frames - self._frames if frames >= self._frames else frames)
            self._frames = frames

    def _adapt(self, pages: int) -> None:
        """Wake the thread less often when its checkpoint found few pages, and more often
        again when many, down to the first cadence (waking it more often than that made
        more checkpoints of fewer pages each: a 100,000-origin first crawl went from 1.035
        to 1.072 times its CPU floor)."""
        if pages < self.pages // 2:
            self.every = min(self.every * 2, MOST_COMMITS_PER_CHECKPOINT)
        elif pages > self.pages * 2:
            self.every = max(self.every // 2, self.first_every)

    def stop(self) -> None:
        """Tell the thread to end after the checkpoint it may be making."""
        self._stopping = True
        self._wake.set()


@contextlib.contextmanager
def background_checkpoints(
    db,
    *,
    bound_pages: int = WAL_BOUND_PAGES,
    every: int = COMMITS_PER_CHECKPOINT,
    checkpoint_pages: int = CHECKPOINT_PAGES,
) -> Iterator[Checkpoints]:
    """Checkpoint the catalogue ``db`` (its writer) in a thread while the block runs, woken
    every ``every`` commits at first, then as often as copies about ``checkpoint_pages`` a
    time; the WAL starts over at about ``bound_pages`` pages; SQLite's own checkpoint in the
    writer waits for twice that, and is restored after. A catalogue in memory, or not in WAL
    mode, gets counting only."""
    path = _wal_file(db)
    checkpoints = Checkpoints(db.conn if path else None, every, bound_pages, checkpoint_pages)
    if path is None:
        yield checkpoints
        return
    conn = sqlite3.connect(str(path), check_same_thread=False)
    before = db.conn.execute("PRAGMA wal_autocheckpoint").fetchall()[0][0]
    thread = threading.Thread(target=checkpoints.run, args=(conn,), name="agentdex-checkpoints", daemon=True)
    try:
        db.conn.execute(f"PRAGMA wal_autocheckpoint = {int(bound_pages) * WRITER_BOUND}")
        thread.start()
        yield checkpoints
    finally:
        checkpoints.stop()
        if thread.is_alive():
            thread.join()
        conn.close()
        with contextlib.suppress(sqlite3.Error):  # never in place of the block's own error
            db.conn.execute(f"PRAGMA wal_autocheckpoint = {int(before)}")


def _wal_file(db) -> Path | None:
    """The catalogue's file when it is one in WAL mode (else None)."""
    path = catalogue_path(db)
    if path is None or db.conn.execute("PRAGMA journal_mode").fetchall()[0][0] != "wal":
        return None
    return path


__all__ = ["COMMITS_PER_CHECKPOINT", "WAL_BOUND_PAGES", "Checkpoints", "background_checkpoints"]

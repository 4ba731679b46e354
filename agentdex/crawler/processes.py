"""A crawl in several processes (``crawl --processes N``): N processes fetch, parse and
verify; this one saves.

Why: one Python process crawls on one core whatever its concurrency (the GIL), at about
0.6 ms of CPU a request, 1,500-1,700 requests/s on the benchmark's web
(``docs/benchmarks.md``); about six sevenths of that CPU is fetching, parsing and verifying
and one seventh saving (a cProfile of 2,000 origins: ``save_origin`` 7.6 s of 54.9).
So the fetching is spread over processes and the saving is not: each crawling process
takes every N-th origin, crawls it with its own event loop, connection pools and
``--concurrency / N`` workers, reading what earlier crawls stored through a read-only
connection (WAL: readers never wait for the writer), and sends the result here. This
process is the catalogue's only writer, as in a one-process crawl: each origin is saved in
its own transaction, with its events, under the run's one crawl row.

Each origin is crawled whole by one process, so its own host sees one connection at a
time as before; a host that several origins declare (a shared API host) may see one from
each process. Whatever one origin does (a bug, its budget, a result that cannot be sent)
becomes that origin's recorded error; a crawling process that dies takes only its
unfinished origins with it, each recorded as such, and the others are saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from math import ceil
from multiprocessing.connection import Connection, wait
from pathlib import Path

from agentdex.crawler.crawl import (
    NetworkOptions,
    OriginFailed,
    Saver,
    StagePlan,
    crawl_one,
    describe_error,
    open_stage,
    run_workers,
)
from agentdex.errors import InputError

# Results in flight from a crawling process, at most: a pipe of 1 MiB (Linux's default
# /proc/sys/fs/pipe-max-size; the 64 KiB default holds only a few results) lets a child run
# ahead while this process commits, and makes it wait once the pipe is full instead of
# piling results up in memory.
PIPE_BYTES = 1 << 20
POLL_SECONDS = 0.5  # how often the parent lets Ctrl-C in while no result arrives
WORKER = "agentdex.crawler.worker"  # the crawling process's module (python -m)


def catalogue_file(db) -> Path:
    """The catalogue's file, which every crawling process opens for reading.

    :raises InputError: the catalogue is not a file (in memory)
    """
    rows = db.conn.execute("PRAGMA database_list").fetchall()
    name = next((row[2] for row in rows if row[1] == "main"), "")
    if not name:
        raise InputError("--processes needs a catalogue in a file (this one is in memory)")
    return Path(name)


def shards(origins: list[str], n: int) -> list[list[str]]:
    """Every ``n``-th origin to each process, in order (a due crawl's most overdue first)."""
    return [part for part in (origins[i::n] for i in range(n)) if part]


async def run_processes(
    db, origins: list[str], net: NetworkOptions, plan: StagePlan, processes: int, saver: Saver
) -> None:
    """Crawl ``origins`` in ``processes`` crawling processes, saving each result here."""
    path = catalogue_file(db)
    parts = shards(origins, processes)
    child_net = dataclasses.replace(net, concurrency=max(1, ceil(net.concurrency / len(parts))))
    board = _Board({i: set(part) for i, part in enumerate(parts)}, saver)
    with _running(len(parts)) as children:
        for child, (index, part) in zip(children, enumerate(parts), strict=True):
            child.send_job((str(path), child_net, plan, part, index))
        while board.waiting():
            # Blocking here is fine (this loop runs nothing else while its children crawl) and
            # cheaper than a thread hop per origin; the sleep lets Ctrl-C's cancellation in.
            ready = wait([c.inbox for c in children if c.open], POLL_SECONDS)
            await asyncio.sleep(0)
            for child in children:
                if child.inbox in ready:
                    _take_from(child, board)
    saver.summary.requests, saver.summary.errors = board.totals()


class _Child:
    """One crawling process: ``python -m agentdex.crawler.worker JOB_FD RESULT_FD``.

    Not multiprocessing's spawn: that re-imports the parent's main module (the whole CLI)
    in every child and starts a resource tracker process of its own; this child imports
    what crawling needs and nothing else (about 14 MB less a child and one process fewer:
    docs/benchmarks.md, round 6). It runs in a session of its own, so a Ctrl-C at the
    terminal reaches only the parent, which stops it.
    """

    def __init__(self, index: int) -> None:
        job_read, job_write = os.pipe()
        result_read, result_write = os.pipe()
        with contextlib.suppress(OSError):  # a smaller pipe still works, it only waits sooner
            fcntl.fcntl(result_write, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        command = [sys.executable, "-m", WORKER, str(job_read), str(result_write)]
        try:
            self.process = subprocess.Popen(command, pass_fds=(job_read, result_write), start_new_session=True)
        finally:
            os.close(job_read)
            os.close(result_write)
        self.index, self.open = index, True
        self.jobs = Connection(job_write, readable=False)
        self.inbox = Connection(result_read, writable=False)

    def send_job(self, job: tuple) -> None:
        """Give the child its share; a child already gone is found by its closed inbox."""
        with contextlib.suppress(OSError):
            self.jobs.send(job)
        self.jobs.close()

    def stop(self) -> None:
        """Terminate the child if it still runs, and reap it."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.inbox.close()


@contextlib.contextmanager
def _running(count: int) -> Iterator[list[_Child]]:
    """Start the crawling processes; on the way out (done, interrupted or failed), stop
    any still running."""
    children: list[_Child] = []
    try:
        for index in range(count):
            children.append(_Child(index))
        yield children
    finally:
        for child in children:
            child.stop()


def _take_from(child: _Child, board: _Board) -> None:
    """Act on the child's next message; once its pipe is closed (it finished or died), record
    each origin it did not finish."""
    try:
        board.take(child.inbox.recv())
    except (EOFError, OSError):
        child.open = False
        code = child.process.wait()
        if board.pending.get(child.index):
            board.lost(child.index, f"its crawling process ended (exit code {code}) before it was finished")


@dataclasses.dataclass
class _Board:
    """What the parent knows: each crawling process's unfinished origins and counters."""

    pending: dict[int, set[str]]
    saver: Saver
    counts: dict[int, tuple[int, int]] = dataclasses.field(default_factory=dict)

    def waiting(self) -> bool:
        """Whether an origin is still to be saved."""
        return any(self.pending.values())

    def totals(self) -> tuple[int, int]:
        """Requests sent and fetches failed, every process together."""
        return sum(r for r, _ in self.counts.values()), sum(e for _, e in self.counts.values())

    def take(self, message: tuple) -> None:
        """Act on one message of a crawling process."""
        kind, index, *rest = message
        if kind == "one":
            origin, payload, requests, errors = rest
            self._count(index, origin, requests, errors)
            self.saver.save(pickle.loads(payload), *self.totals())
        elif kind == "failed":
            origin, code, text, requests, errors = rest
            self._count(index, origin, requests, errors)
            self.saver.failed(origin, code, text, *self.totals())
        elif kind == "broken":
            self.lost(index, f"its crawling process failed: {rest[0]}")

    def lost(self, index: int, why: str) -> None:
        """Record every unfinished origin of process ``index`` as cut off by ``why``."""
        for origin in sorted(self.pending.get(index, ())):
            self.saver.failed(origin, "internal", why, *self.totals())
        self.pending[index] = set()

    def _count(self, index: int, origin: str, requests: int, errors: int) -> None:
        self.pending[index].discard(origin)
        self.counts[index] = (requests, errors)


def child_main(job_fd: int, result_fd: int) -> int:
    """A crawling process: read its share from ``job_fd``, crawl it and send each result to
    the parent through ``result_fd``. Anything that ends this process early is reported
    before it goes. Returns the exit code."""
    outbox = Connection(result_fd, readable=False)
    try:
        with Connection(job_fd, writable=False) as jobs:
            path, net, plan, origins, index = jobs.recv()
    except (EOFError, OSError):
        return 1  # the parent went before giving the share: nothing to report to
    try:
        asyncio.run(_crawl_share(Path(path), net, plan, origins, outbox, index))
    except BaseException as exc:  # noqa: BLE001 - the parent records its unfinished origins
        with contextlib.suppress(OSError):
            outbox.send(("broken", index, describe_error(exc)))
        return 1
    return 0


async def _crawl_share(
    path: Path, net: NetworkOptions, plan: StagePlan, origins: list[str], outbox, index: int
) -> None:
    from agentdex.db import open_db

    db = open_db(path, readonly=True)
    try:
        async with open_stage(net, plan) as stage:
            stats = stage.fetcher.stats

            async def each(origin: str) -> None:
                outbox.send(await _one(db, origin, stage, index, stats))

            # Each message carries the process's running counts: the last one has them all.
            await run_workers(origins, net.concurrency, each)
    finally:
        db.conn.close()


async def _one(db, origin: str, stage, index: int, stats) -> tuple:
    """One origin's message: its pickled result, or why it could not be finished."""
    try:
        payload = pickle.dumps(await crawl_one(db, origin, stage), pickle.HIGHEST_PROTOCOL)
    except OriginFailed as failed:
        return ("failed", index, origin, failed.code, failed.message, stats.requests, stats.errors)
    except Exception as exc:  # noqa: BLE001 - a result that cannot be sent: that origin's error
        return ("failed", index, origin, "internal", describe_error(exc), stats.requests, stats.errors)
    return ("one", index, origin, payload, stats.requests, stats.errors)


__all__ = ["child_main", "run_processes", "shards"]

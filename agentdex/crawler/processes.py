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
import multiprocessing
import pickle
import queue
import signal
from collections.abc import Iterator
from math import ceil
from pathlib import Path
from typing import Any

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

# Results waiting to be saved, at most, per crawling process: a parent slower than its
# children makes them wait instead of piling results up in memory.
BACKLOG = 64
POLL_SECONDS = 0.5  # how often the parent looks for a crawling process that died


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
    context = multiprocessing.get_context("spawn")  # no fork of a process holding threads and a connection
    inbox: Any = context.Queue(maxsize=BACKLOG * len(parts))
    children = [
        context.Process(target=child_main, args=(str(path), child_net, plan, part, inbox, i), daemon=True)
        for i, part in enumerate(parts)
    ]
    board = _Board({i: set(part) for i, part in enumerate(parts)}, saver)
    with _running(children):
        while board.waiting():
            # Blocking here is fine (this loop runs nothing else while its children crawl) and
            # cheaper than a thread hop per origin; the sleep lets Ctrl-C's cancellation in.
            message = _next(inbox)
            await asyncio.sleep(0)
            if message is not None:
                board.take(message)
            elif any(not child.is_alive() for child in children):
                _bury(children, inbox, board)
    saver.summary.requests, saver.summary.errors = board.totals()


@contextlib.contextmanager
def _running(children: list) -> Iterator[None]:
    """Start the crawling processes; on the way out (done, interrupted or failed), stop
    any still running."""
    started = []
    try:
        for child in children:
            child.start()
            started.append(child)
        yield
    finally:
        for child in started:
            if child.is_alive():
                child.terminate()
        for child in started:
            child.join(5)


def _next(inbox, timeout: float = POLL_SECONDS) -> tuple | None:
    try:
        return inbox.get(timeout=timeout)
    except queue.Empty:
        return None


def _bury(children: list, inbox, board: _Board) -> None:
    """Record the unfinished origins of every crawling process that is gone: first what it
    sent before it went (still in the pipe), then each origin it did not finish."""
    while (message := _next(inbox, 0.1)) is not None:
        board.take(message)
    for index, child in enumerate(children):
        if not child.is_alive() and board.pending.get(index):
            code = child.exitcode
            board.lost(index, f"its crawling process ended (exit code {code}) before it was finished")


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


def child_main(path: str, net: NetworkOptions, plan: StagePlan, origins: list[str], outbox, index: int) -> None:
    """A crawling process: crawl ``origins`` and send each result to the parent. Ctrl-C is
    the parent's to handle (it stops its children); anything that ends this process early
    is reported before it goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        asyncio.run(_crawl_share(Path(path), net, plan, origins, outbox, index))
    except BaseException as exc:  # noqa: BLE001 - the parent records its unfinished origins
        outbox.put(("broken", index, describe_error(exc)))
        raise SystemExit(1) from None


async def _crawl_share(
    path: Path, net: NetworkOptions, plan: StagePlan, origins: list[str], outbox, index: int
) -> None:
    from agentdex.db import open_db

    db = open_db(path, readonly=True)
    try:
        async with open_stage(net, plan) as stage:
            stats = stage.fetcher.stats

            async def each(origin: str) -> None:
                outbox.put(await _one(db, origin, stage, index, stats))

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


__all__ = ["BACKLOG", "child_main", "run_processes", "shards"]

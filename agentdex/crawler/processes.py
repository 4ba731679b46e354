"""A crawl in several processes (``crawl --processes N``): N processes fetch, parse and
verify; this one, one of the N, also saves.

Why: one Python process crawls on one core whatever its concurrency (the GIL), at about
0.6 ms of CPU a request, 1,500-1,700 requests/s on the benchmark's web
(``docs/benchmarks.md``); about six sevenths of that CPU is fetching, parsing and verifying
and one seventh saving (a cProfile of 2,000 origins: ``save_origin`` 7.6 s of 54.9).
So the fetching is spread over processes and the saving is not: this process and N - 1
crawling processes take origins from one list, in order, each with its own event loop,
connection pools and ``--concurrency / N`` workers. A crawling process reads what earlier
crawls stored through a read-only connection (WAL: readers never wait for the writer) and
sends each result here. This process is the catalogue's only writer, as in a one-process
crawl: each origin is saved in its own transaction, with its events, under the run's one
crawl row.

Origins are dealt a few at a time, not split up front: a crawling process gets more as it
sends results, so the process that also saves simply takes fewer, and no process sits idle
while another has a backlog. Why this process crawls too, rather than only saving: every
process is a Python interpreter with its imports (about 45 MB); with two crawling processes
and a saving one, a crawl of 100,000 origins held about 190 MB, and the saving one was idle
more than half the time (docs/benchmarks.md, rounds 4 and 6).

Each origin is crawled whole by one process, so its own host sees one connection at a
time as before; a host that several origins declare (a shared API host) may see one from
each process. Whatever one origin does (a bug, its budget, a result that cannot be sent)
becomes that origin's recorded error; a crawling process that dies takes only its
unfinished origins with it, each recorded as such, and the others are saved.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from math import ceil
from pathlib import Path
from typing import BinaryIO

from agentdex.crawler.eventloop import run
from agentdex.crawler.feed import Feed
from agentdex.crawler.fetch import FetchStats
from agentdex.crawler.messages import (
    FROM_CHILD,
    PIPE_BYTES,
    Broken,
    Crawled,
    Failed,
    FromChild,
    Job,
    MessageError,
    Origins,
    Outbox,
    ToChild,
    encode,
    pipe_reader,
    read_message,
    write_message,
)
from agentdex.crawler.options import NetworkOptions
from agentdex.crawler.stage import OriginFailed, Saver, StagePlan, crawl_one, describe_error, open_stage, work_through
from agentdex.db.connection import catalogue_path
from agentdex.errors import InputError
from agentdex.models import OriginCrawl

WORKER = "agentdex.crawler.worker"  # the crawling process's module (python -m)
# Whether the Linux-only calls are made (F_SETPIPE_SZ): the one switch for them, which a test
# flips to run the other platforms' path (macOS has fcntl but not that constant).
LINUX = sys.platform.startswith("linux")
# Crawling processes inherit their pipes (pass_fds), which only POSIX systems do: elsewhere
# (Windows) --processes is refused with a sentence.
POSIX = os.name == "posix"


def widen(pipe: int) -> None:
    """Grow ``pipe`` to :data:`~agentdex.crawler.messages.PIPE_BYTES` on Linux; elsewhere it
    keeps the system's size (a smaller pipe still works, a child only waits sooner)."""
    if not LINUX:
        return
    import fcntl  # POSIX only, and F_SETPIPE_SZ Linux only

    with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: the default stays
        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def catalogue_file(db) -> Path:
    """The catalogue's file, which every crawling process opens for reading.

    :raises InputError: the catalogue is not a file (in memory)
    """
    path = catalogue_path(db)
    if path is None:
        raise InputError("--processes needs a catalogue in a file (this one is in memory)")
    return path


# --- this process: deals, crawls its own part and saves everything ---------------------------


async def run_processes(db, feed: Feed, net: NetworkOptions, plan: StagePlan, processes: int, saver: Saver) -> None:
    """Crawl the origins of ``feed`` in this process and ``processes - 1`` crawling processes,
    saving each result here."""
    if not POSIX:
        raise InputError("--processes needs Linux or macOS (its crawling processes inherit pipes); leave it out here")
    path = catalogue_file(db)
    share = dataclasses.replace(net, concurrency=max(1, ceil(net.concurrency / processes)))
    dealer = _Dealer(feed, share.concurrency, saver)
    saver.follow = feed.follow
    with _running((processes if feed.reading else min(processes, feed.count)) - 1) as children:
        for child in children:  # first, so the first origins go to processes that only crawl
            dealer.join(child, Job(str(path), share, plan))
        try:
            async with asyncio.TaskGroup() as group:
                for child in children:
                    group.create_task(_listen(child, dealer))
                group.create_task(dealer.top_up())
                group.create_task(_crawl_here(db, share, plan, dealer))
        except BaseExceptionGroup as failed:  # the first failure itself (a full disk stays a DatabaseError)
            raise failed.exceptions[0] from None
    if not feed.exhausted:  # origins an AI Catalog named once every process had ended: crawled here
        dealer.retire_here()
        await _crawl_here(db, share, plan, dealer)
    saver.summary.requests, saver.summary.errors = dealer.totals()


async def _crawl_here(db, net: NetworkOptions, plan: StagePlan, dealer: _Dealer) -> None:
    """This process's own part: origins from the dealer, crawled and saved here."""
    async with open_stage(net, plan) as stage:
        dealer.here = stage.fetcher.stats

        async def each(origin: str) -> None:
            await dealer.saver.crawl_and_save(db, origin, stage, dealer.totals)
            # An origin whose answers are all still fresh never waits on the network: without
            # this, one worker here would take origin after origin and never let the crawling
            # processes' results in (a fresh recrawl of 100,000 origins ran 99% in this process).
            await asyncio.sleep(0)

        await work_through(dealer.take, net.concurrency, each)


async def _listen(child: _Child, dealer: _Dealer) -> None:
    """Save what ``child`` sends; once its pipe closes (it finished or died), record each
    origin it did not finish."""
    reader = await pipe_reader(child.take_inbox())
    why = ""
    while not why:
        try:
            dealer.take_result(child, await read_message(reader, FROM_CHILD))
        except EOFError:
            break
        except MessageError as exc:  # not agentdex's own message: nothing more from it is trusted
            why = f"its crawling process sent what this one cannot read ({exc})"
            child.process.terminate()
    code = await asyncio.to_thread(child.process.wait)
    dealer.lost(child, why or f"its crawling process ended (exit code {code}) before it was finished")


class _Child:
    """One crawling process: ``python -m agentdex.crawler.worker JOB_FD RESULT_FD``.

    Not multiprocessing's spawn: that re-imports the parent's main module (the whole CLI)
    in every child and starts a resource tracker process of its own; this child imports
    what crawling needs and nothing else. It runs in a session of its own, so a Ctrl-C at
    the terminal reaches only the parent, which stops it.
    """

    def __init__(self, index: int) -> None:
        job_read, job_write = os.pipe()
        result_read, result_write = os.pipe()
        for pipe in (job_write, result_write):
            widen(pipe)
        # -P: not the working directory first on its path (a folder named agentdex there would be
        # imported instead); PYTHONPATH: this process's path, so it runs the same agentdex
        command = [sys.executable, "-P", "-m", WORKER, str(job_read), str(result_write)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p or os.getcwd() for p in sys.path)}
        try:
            self.process = subprocess.Popen(command, pass_fds=(job_read, result_write), start_new_session=True, env=env)
        finally:
            os.close(job_read)
            os.close(result_write)
        self.index = index
        self.jobs: BinaryIO | None = os.fdopen(job_write, "wb")
        self._inbox: int | None = result_read

    def send(self, message: ToChild) -> None:
        """Send the child its job or more origins; a child already gone is found by its
        closed inbox, so a failed send only closes the way to it."""
        if self.jobs is None:
            return
        try:
            write_message(self.jobs, message)
        except OSError:
            self.close_jobs()

    def close_jobs(self) -> None:
        """No more origins: the child finishes what it has and exits."""
        if self.jobs is not None:
            with contextlib.suppress(OSError):
                self.jobs.close()
            self.jobs = None

    def take_inbox(self) -> int:
        """The descriptor of the child's results (the reader that takes it closes it)."""
        fd, self._inbox = self._inbox, None
        assert fd is not None
        return fd

    def stop(self) -> None:
        """Terminate the child if it still runs, and reap it."""
        self.close_jobs()
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self._inbox is not None:
            os.close(self._inbox)


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


@dataclasses.dataclass
class _Dealer:
    """The origins still to crawl (the run's feed), dealt to this process's workers and to the
    crawling processes a few at a time, as they are read; what each crawling process has not
    finished; the counters."""

    feed: Feed
    concurrency: int  # each process's workers
    saver: Saver
    here: FetchStats | None = None  # this process's fetch counters, once it crawls
    children: list[_Child] = dataclasses.field(default_factory=list)
    pending: dict[int, set[str]] = dataclasses.field(default_factory=dict)
    counts: dict[int, tuple[int, int]] = dataclasses.field(default_factory=dict)

    def retire_here(self) -> None:
        """Keep this process's counters so far (its next stage counts from zero)."""
        if self.here is not None:
            done = self.counts.get(-1, (0, 0))
            self.counts[-1] = (done[0] + self.here.requests, done[1] + self.here.errors)
            self.here = None

    def join(self, child: _Child, job: Job) -> None:
        """Give a new crawling process its job and a first batch (two for each worker)."""
        self.children.append(child)
        self.pending[child.index] = set()
        child.send(job)
        self._deal(child, 2 * self.concurrency)

    async def take(self) -> str | None:
        """The next origin for this process's own workers (waiting for the seeds to name
        one); None when every origin is dealt."""
        origin = await self.feed.take()
        self._close_if_done()
        return origin

    async def top_up(self) -> None:
        """As origins are read, deal them to the crawling processes short of work (a seeds
        file read while the run crawls may have had none for them at first)."""
        while self.feed.reading:
            await self.feed.changed()
            self._deal_short()
        self._deal_short()  # the last read: after it, each result a process sends brings it more
        self._close_if_done()

    def _deal_short(self) -> None:
        for child in self.children:
            pending = self.pending.get(child.index)
            if pending is not None and len(pending) <= self.concurrency:
                self._deal(child, 2 * self.concurrency - len(pending))

    def take_result(self, child: _Child, message: FromChild) -> None:
        """Act on one message of a crawling process, then top up its origins."""
        if isinstance(message, Broken):
            self.lost(child, f"its crawling process failed: {message.reason}")
            return
        self.pending[child.index].discard(message.origin)
        self.counts[child.index] = (message.requests, message.errors)
        if isinstance(message, Crawled):
            self.saver.save(message.result, *self.totals())
        else:
            self.saver.failed(message.origin, message.code, message.message, *self.totals())
        if len(self.pending[child.index]) <= self.concurrency:
            self._deal(child, self.concurrency)

    def lost(self, child: _Child, why: str) -> None:
        """Record every unfinished origin of ``child`` as cut off by ``why``."""
        child.close_jobs()
        for origin in sorted(self.pending.pop(child.index, ())):
            self.saver.failed(origin, "internal", why, *self.totals())

    def totals(self) -> tuple[int, int]:
        """Requests sent and fetches failed, every process together."""
        counts = [*self.counts.values(), (self.here.requests, self.here.errors) if self.here else (0, 0)]
        return sum(r for r, _ in counts), sum(e for _, e in counts)

    def _deal(self, child: _Child, count: int) -> None:
        if child.jobs is None or child.index not in self.pending:
            return  # told it gets no more (or gone): what is left stays for the others
        batch: list[str] = []
        while len(batch) < count and (origin := self.feed.take_now()) is not None:
            batch.append(origin)
        if batch:
            self.pending[child.index].update(batch)
            child.send(Origins(tuple(batch)))
        self._close_if_done()

    def _close_if_done(self) -> None:
        if self.feed.exhausted:
            for child in self.children:
                child.close_jobs()


# --- a crawling process ------------------------------------------------------------------------


def child_main(job_fd: int, result_fd: int) -> int:
    """A crawling process: read its job and its origins from ``job_fd``, crawl them and send
    each result to the parent through ``result_fd``. Anything that ends this process early
    is reported before it goes. Returns the exit code."""
    with os.fdopen(result_fd, "wb") as last_word:
        try:
            # The loop writes through a copy of the descriptor, closed (its buffer sent) when
            # the crawl ends; this one stays open for the last word.
            run(_crawl_share(job_fd, os.dup(result_fd)))
        except BaseException as exc:  # noqa: BLE001 - the parent records its unfinished origins
            with contextlib.suppress(OSError):
                os.set_blocking(result_fd, True)  # the loop's copy made the shared pipe non-blocking
                write_message(last_word, Broken(describe_error(exc)))
            return 1
    return 0


async def _crawl_share(job_fd: int, result_fd: int) -> None:
    from agentdex.db import open_db

    outbox = await Outbox.open(result_fd)
    try:
        reader = await pipe_reader(job_fd)
        try:
            job = await read_message(reader, Job)
        except EOFError:
            return  # the parent went before giving the job: nothing to do, no one to tell
        db = open_db(Path(job.catalogue), readonly=True)
        try:
            await _crawl_origins(db, job, _Inbox(reader), outbox)
        finally:
            db.conn.close()
    finally:
        await outbox.close()


async def _crawl_origins(db, job: Job, inbox: _Inbox, outbox: Outbox) -> None:
    """Crawl the origins as the parent deals them, ``job.net.concurrency`` at a time; each
    result goes to the outbox (a worker whose result waits for the pipe waits with it)."""
    async with open_stage(job.net, job.plan) as stage, asyncio.TaskGroup() as group:
        stats = stage.fetcher.stats
        group.create_task(inbox.fill())

        async def each(origin: str) -> None:
            await outbox.send(await _one(db, origin, stage, stats))

        for _ in range(job.net.concurrency):
            group.create_task(_work(inbox, each))


@dataclasses.dataclass
class _Inbox:
    """The origins the parent deals to a crawling process, as they arrive."""

    reader: asyncio.StreamReader
    todo: collections.deque[str] = dataclasses.field(default_factory=collections.deque)
    arrived: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    done: bool = False

    async def fill(self) -> None:
        """Take each batch as it comes, until the parent closes the pipe."""
        try:
            while True:
                self.todo.extend((await read_message(self.reader, Origins)).origins)
                self.arrived.set()
        except EOFError:
            self.done = True
            self.arrived.set()

    async def next(self) -> str | None:
        """The next origin, waiting for one; None once the parent has no more."""
        while not self.todo:
            if self.done:
                return None
            self.arrived.clear()
            await self.arrived.wait()
        return self.todo.popleft()


async def _work(inbox: _Inbox, each) -> None:
    while (origin := await inbox.next()) is not None:
        await each(origin)


async def _one(db, origin: str, stage, stats: FetchStats) -> bytes:
    """One origin's frame: its result, or why it could not be finished (a result that cannot
    be sent is that origin's error). The counts are read once the origin is done."""
    try:
        return encode(Crawled(origin, _for_saving(await crawl_one(db, origin, stage)), stats.requests, stats.errors))
    except OriginFailed as failed:
        return encode(Failed(origin, failed.code, failed.message, stats.requests, stats.errors))
    except Exception as exc:  # noqa: BLE001 - a result that cannot be sent: that origin's error
        return encode(Failed(origin, "internal", describe_error(exc), stats.requests, stats.errors))


def _for_saving(result: OriginCrawl) -> OriginCrawl:
    """``result`` without what saving never reads: each parsed document's decoded JSON (its
    body travels in its fetch record, and the listing and findings read from it do too), a
    second copy of every manifest in the frame."""
    for parsed in (result.primary, *result.results.values()):
        if parsed is not None:
            parsed.document = None
    return result


__all__ = ["child_main", "run_processes"]

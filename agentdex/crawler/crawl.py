"""The crawl loop: origins in, one saved transaction per origin out.

Stages are separate (fetch → parse → save → verify → save checks): discovery is in
:mod:`agentdex.crawler.discovery`, verification in :mod:`agentdex.crawler.verify`, writes
in :mod:`agentdex.db`. This module wires them, bounds concurrency and reports progress
through a callback. Nothing here prints.

Origins come through a :class:`~agentdex.crawler.feed.Feed`: a seeds file is read while the
run crawls (a bounded queue, each origin once), so its length never shows in memory.

A crawl that is killed loses at most the origins in flight: every finished origin was
committed in its own transaction. Running the same crawl again completes the rest; the
origins that were already done answer 304 and cost almost nothing.

HTTP freshness (:mod:`agentdex.crawler.freshness`) decides per URL whether to ask at all:
a stored answer still fresh is used as it is, and its snapshot says so. The schedule
(:mod:`agentdex.schedule`) is written by the store after each origin; which
origins a run takes (all, or only the due ones) is the caller's choice.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable, Iterable

from agentdex import db as catalogue
from agentdex.crawler import freshness
from agentdex.crawler.feed import BadLine, Feed, Hooks, Item
from agentdex.crawler.options import DEFAULT_REGISTRY, ORIGIN_BUDGET, NetworkOptions, Shard, registry_base
from agentdex.crawler.stage import CrawlSummary, Progress, ProgressFn, Saver, StagePlan, open_stage, work_through
from agentdex.db.checkpoints import background_checkpoints
from agentdex.db.seeds import save_run

# Where the callers of a crawl have always found its settings and results.
__all__ = [
    "DEFAULT_REGISTRY",
    "ORIGIN_BUDGET",
    "CrawlSummary",
    "NetworkOptions",
    "Progress",
    "ProgressFn",
    "crawl",
    "registry_base",
    "run_workers",
]


async def crawl(
    db,
    origins: Iterable[Item],
    net: NetworkOptions,
    *,
    verify: bool = True,
    progress: ProgressFn | None = None,
    kind: str = "crawl",
    policy: freshness.Policy | None = None,
    now: float | None = None,
    processes: int = 1,
    shard: Shard | None = None,
    refused: Callable[[BadLine], None] | None = None,
) -> CrawlSummary:
    """Crawl ``origins`` into the open catalogue ``db``; returns a summary. ``origins``: a list,
    or any iterable of origins and :class:`~agentdex.crawler.feed.Seed` s (a
    :class:`~agentdex.crawler.seedlines.SeedLines` reading a file), read while the run crawls
    (:class:`~agentdex.crawler.feed.Feed`: each origin once, memory flat); the endpoints a seed
    declares are recorded before it is crawled, and each :class:`~agentdex.crawler.feed.BadLine`
    goes to ``refused``. ``kind`` is recorded on the crawl row (``crawl`` or ``verify``).
    ``policy`` is what HTTP freshness agentdex trusts (default
    :class:`~agentdex.crawler.freshness.Policy`: up to 24 hours); ``now`` (epoch seconds) the
    moment freshness is judged at, by default the time of each request (a later moment shows
    what a later crawl would ask). ``processes`` above 1: that many processes fetch, parse and
    verify, this one among them, and this one saves (:mod:`agentdex.crawler.processes`; ``db``
    must then be a file). ``shard``: this run is that part of a sweep: it takes only the
    shard's origins of ``origins``, and follows an origin an AI Catalog names only when it is
    this shard's (another shard's is recorded as named, for its own shard or a later crawl)."""
    started = time.perf_counter()
    # The row's count of origins: a list's now, a stream's once it has been read (finish_crawl)
    crawl_id = catalogue.start_crawl(db, kind, len(origins) if isinstance(origins, list | tuple) else 0)
    summary = CrawlSummary(crawl_id, 0)
    state = Progress(total=0, reading=True)
    owns = shard.owns if shard is not None else None
    feed = Feed(origins, _hooks(db, summary, state, refused), owns=owns)
    plan = StagePlan(verify, policy or freshness.Policy(), now, kind == "verify")
    saver = Saver(db, summary, state, progress, owns=owns)
    try:
        with background_checkpoints(db) as checkpoints:  # the disk's waits off the event loop
            saver.committed = checkpoints.committed
            feed.start()
            if processes > 1 and (feed.reading or feed.count > 1):
                from agentdex.crawler.processes import run_processes

                await run_processes(db, feed, net, plan, processes, saver)
            else:
                await _run_here(db, feed, net, plan, saver)
    except (asyncio.CancelledError, KeyboardInterrupt):
        summary.interrupted = True
        raise
    finally:
        feed.close()
        summary.seconds = round(time.perf_counter() - started, 3)
        status = "interrupted" if summary.interrupted else "finished"
        catalogue.finish_crawl(db, crawl_id, status=status, origins_total=summary.origins)
    return summary


def _hooks(db, summary: CrawlSummary, state: Progress, refused: Callable[[BadLine], None] | None) -> Hooks:
    """What the run does with its seeds as they are read: records the endpoints they declare
    (so the crawl of their origin probes them), reports bad lines, counts the origins."""

    def known(count: int, reading: bool) -> None:
        summary.origins = state.total = count
        state.reading = reading

    def bad(line: BadLine) -> None:
        summary.refused_lines += 1
        if refused is not None:
            refused(line)

    return Hooks(declare=lambda rows: save_run(db, rows, {}, {}), refused=bad, known=known)


async def _run_here(db, feed: Feed, net: NetworkOptions, plan: StagePlan, saver: Saver) -> None:
    """Crawl every origin of ``feed`` in this process, ``net.concurrency`` at a time."""
    async with open_stage(net, plan) as stage:
        stats = stage.fetcher.stats

        async def each(origin: str) -> None:
            await saver.crawl_and_save(db, origin, stage, lambda: (stats.requests, stats.errors))

        # A worker that takes in an origin an AI Catalog names crawls it itself if the others have ended.
        saver.follow = feed.follow
        workers = net.concurrency if feed.reading else min(net.concurrency, feed.count)
        await work_through(feed.take, workers, each)
        saver.summary.requests, saver.summary.errors = stats.requests, stats.errors


async def run_workers(origins: list[str], concurrency: int, each: Callable[[str], Awaitable[None]]) -> None:
    """Run ``each`` on every origin, ``concurrency`` at a time, in order."""
    todo = collections.deque(origins)

    async def take() -> str | None:
        return todo.popleft() if todo else None

    await work_through(take, min(concurrency, len(origins)), each)

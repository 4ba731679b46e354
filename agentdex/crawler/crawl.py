"""The crawl loop: origins in, one saved transaction per origin out.

Stages are separate (fetch → parse → save → verify → save checks): discovery is in
:mod:`agentdex.crawler.discovery`, verification in :mod:`agentdex.crawler.verify`, writes
in :mod:`agentdex.db`. This module wires them, bounds concurrency and reports progress
through a callback. Nothing here prints.

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
from collections.abc import Awaitable, Callable

from agentdex import db as catalogue
from agentdex.crawler import freshness
from agentdex.crawler.options import DEFAULT_REGISTRY, ORIGIN_BUDGET, NetworkOptions, Shard, registry_base
from agentdex.crawler.stage import CrawlSummary, Progress, ProgressFn, Saver, StagePlan, open_stage, work_through

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
    origins: list[str],
    net: NetworkOptions,
    *,
    verify: bool = True,
    progress: ProgressFn | None = None,
    kind: str = "crawl",
    policy: freshness.Policy | None = None,
    now: float | None = None,
    processes: int = 1,
    shard: Shard | None = None,
) -> CrawlSummary:
    """Crawl ``origins`` into the open catalogue ``db``; returns a summary. ``kind`` is
    recorded on the crawl row (``crawl`` or ``verify``). ``policy`` is what HTTP freshness
    agentdex trusts (default :class:`~agentdex.crawler.freshness.Policy`: up to 24 hours);
    ``now`` (epoch seconds) the moment freshness is judged at, by default the time of each
    request (a later moment shows what a later crawl would ask). ``processes`` above 1:
    that many processes fetch, parse and verify, this one among them, and this one saves
    (:mod:`agentdex.crawler.processes`; ``db`` must then be a file). ``shard``: this run is
    that part of a sweep; an origin an AI Catalog names is followed only when it is this
    shard's (another shard's is recorded as named, for its own shard or a later crawl)."""
    started = time.perf_counter()
    crawl_id = catalogue.start_crawl(db, kind, len(origins))
    summary = CrawlSummary(crawl_id, len(origins))
    state = Progress(total=len(origins))
    plan = StagePlan(verify, policy or freshness.Policy(), now, kind == "verify")
    saver = Saver(db, summary, state, progress, owns=shard.owns if shard is not None else None)
    try:
        if processes > 1 and len(origins) > 1:
            from agentdex.crawler.processes import run_processes

            await run_processes(db, origins, net, plan, processes, saver)
        else:
            await _run_here(db, origins, net, plan, saver)
    except (asyncio.CancelledError, KeyboardInterrupt):
        summary.interrupted = True
        raise
    finally:
        summary.seconds = round(time.perf_counter() - started, 3)
        catalogue.finish_crawl(db, crawl_id, status="interrupted" if summary.interrupted else "finished")
    return summary


async def _run_here(db, origins: list[str], net: NetworkOptions, plan: StagePlan, saver: Saver) -> None:
    """Crawl every origin in this process, ``net.concurrency`` at a time."""
    async with open_stage(net, plan) as stage:
        stats = stage.fetcher.stats

        async def each(origin: str) -> None:
            await saver.crawl_and_save(db, origin, stage, lambda: (stats.requests, stats.errors))

        todo, seen = collections.deque(origins), set(origins)

        def follow(more: list[str]) -> int:
            """Queue the origins not in this run yet (an AI Catalog named them); how many."""
            new = [o for o in dict.fromkeys(more) if o not in seen]
            seen.update(new)
            todo.extend(new)
            return len(new)

        saver.follow = follow
        # A worker that queues an origin takes it itself if the others have ended.
        await work_through(lambda: todo.popleft() if todo else None, min(net.concurrency, len(origins)), each)
        saver.summary.requests, saver.summary.errors = stats.requests, stats.errors


async def run_workers(origins: list[str], concurrency: int, each: Callable[[str], Awaitable[None]]) -> None:
    """Run ``each`` on every origin, ``concurrency`` at a time, in order."""
    todo = collections.deque(origins)
    await work_through(lambda: todo.popleft() if todo else None, min(concurrency, len(origins)), each)

"""The TUI's writes: crawls, verifications and feedback, each with its own write connection.

A crawl runs in a thread worker on an event loop of its own (:func:`run_in_own_loop`), so
its parsing, hashing and writes never hold the screen; quitting cancels the worker, which
cancels the crawl on its loop (a cancelled crawl is recorded as interrupted). The write
connection is opened in a thread; every write after that is one short synchronous
transaction, so two jobs never hold the database at the same time. Nothing here touches a
widget: callers pass callbacks.

The crawler and the feedback client are imported when a job starts: they pull in httpx and
the MCP client, which the TUI does not need to show its first screen.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agentdex import db as catalogue
from agentdex.errors import AgentdexError, DatabaseError

T = TypeVar("T")

if TYPE_CHECKING:
    from agentdex.crawler.crawl import CrawlSummary, NetworkOptions, Progress
    from agentdex.feedback import Draft, Outcome


# How often the crawl's own loop looks whether the UI cancelled its worker.
CANCEL_POLL_SECONDS = 0.1


def run_in_own_loop(start: Callable[[], Awaitable[T]], cancelled: Callable[[], bool]) -> T:
    """Run the coroutine ``start()`` makes on a new event loop in this thread, and cancel it
    (raising :class:`asyncio.CancelledError`) once ``cancelled()`` turns true."""
    return asyncio.run(_until_cancelled(start, cancelled))


async def _until_cancelled(start: Callable[[], Awaitable[T]], cancelled: Callable[[], bool]) -> T:
    task = asyncio.ensure_future(start())
    while not task.done():
        if cancelled():
            task.cancel()
            break
        await asyncio.wait({task}, timeout=CANCEL_POLL_SECONDS)
    return await task


async def _writer(path: Path):
    return await asyncio.to_thread(catalogue.open_db, path)


async def crawl_job(
    path: Path, origins: list[str], net: NetworkOptions, *, kind: str, progress: Callable[[Progress], None]
) -> CrawlSummary:
    """Crawl (``kind="crawl"``) or re-verify (``kind="verify"``) ``origins``, verifying
    every claim, into the catalogue at ``path`` (created or upgraded if need be).

    :raises DatabaseError: the file cannot be opened for writing
    """
    from agentdex.crawler.crawl import crawl

    db = await _writer(path)
    try:
        return await crawl(db, origins, net, verify=True, progress=progress, kind=kind)
    finally:
        db.conn.close()


async def feedback_job(path: Path, draft: Draft, net: NetworkOptions) -> tuple[Outcome, int | None, str | None]:
    """Send ``draft`` once (a retry is another call with the same draft) and keep the
    receipt exactly as received: ``(outcome, receipt row id, why it could not be kept)``."""
    from agentdex.feedback import receipt_row, send

    async with net.fetcher() as fetcher:
        outcome = await send(draft, fetcher)
    if outcome.status != "received" or outcome.receipt is None:
        return outcome, None, None
    try:
        db = await _writer(path)
    except DatabaseError as exc:
        return outcome, None, str(exc)
    try:
        return outcome, catalogue.save_feedback_receipt(db, **receipt_row(draft, outcome)), None
    except (sqlite3.Error, AgentdexError) as exc:
        return outcome, None, str(exc)
    finally:
        db.conn.close()


def open_for_writing(path: Path) -> None:
    """Create or upgrade the catalogue at ``path`` (what any crawl would do first).

    :raises DatabaseError: the file cannot be used
    """
    catalogue.open_db(path).conn.close()

"""The TUI's writes: crawls, verifications and feedback, each with its own write connection.

These coroutines run in async workers on the UI's event loop (so quitting cancels them and
a cancelled crawl is recorded as interrupted). The write connection is opened in a thread;
every write after that is one short synchronous transaction, so two jobs never hold the
database at the same time. Nothing here touches a widget: callers pass callbacks.

The crawler and the feedback client are imported when a job starts: they pull in httpx and
the MCP client, which the TUI does not need to show its first screen.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentdex import db as catalogue
from agentdex.errors import AgentdexError, DatabaseError

if TYPE_CHECKING:
    from agentdex.crawler.crawl import CrawlSummary, NetworkOptions, Progress
    from agentdex.feedback import Draft, Outcome


async def _writer(path: Path):
    return await asyncio.to_thread(catalogue.open_db, path)


async def crawl_job(path: Path, origins: list[str], net: NetworkOptions, *, kind: str,
                    progress: Callable[[Progress], None]) -> CrawlSummary:
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

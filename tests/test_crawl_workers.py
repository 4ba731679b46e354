"""The crawl's workers live and die together: when one fails in a way that ends the crawl
(the catalogue itself failing, as a full disk does), the others are cancelled before the
crawl returns, not left running while the fetcher's pools close under them."""

from __future__ import annotations

import asyncio

import pytest

from agentdex.crawler import stage as stage_module
from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.db import open_db
from agentdex.errors import DatabaseError


async def test_one_worker_failing_cancels_the_others_and_its_own_error_reaches_the_caller(tmp_path, monkeypatch):
    db = open_db(tmp_path / "c.db")
    cancelled: list[str] = []
    started: set[str] = set()
    others_under_way = asyncio.Event()

    async def slow_or_failing(db, origin, *args, **kwargs):
        if origin == "full.example":
            await others_under_way.wait()  # a condition, not a guess at how long they take to start
            raise DatabaseError("the disk is full")
        started.add(origin)
        if len(started) == 2:
            others_under_way.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(origin)
            raise

    monkeypatch.setattr(stage_module, "crawl_one", slow_or_failing)
    origins = ["full.example", "slow-a.example", "slow-b.example"]
    with pytest.raises(DatabaseError, match="the disk is full"):
        await asyncio.wait_for(crawl(db, origins, NetworkOptions(concurrency=3), verify=False), 30)
    assert sorted(cancelled) == ["slow-a.example", "slow-b.example"]

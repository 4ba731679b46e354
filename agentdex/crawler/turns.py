"""A request's turn at its host (:mod:`agentdex.crawler.fetch`): the host's slot (one request
at a time by default), a slot of the crawl's concurrency, then the host's pooled transport.

Public API::

    Turn(slots, pools, url, options)     ``async with`` it: the transport, once it is the request's turn
    NO_TURN                              ``async with`` it: None (an answer that was sent ahead)
    Slots(hosts, key, per_host, everyone)   the two slots, held together
    HostSlot(semaphore)                  a host's semaphore and how many use it
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from agentdex.crawler.origins import HttpsURL, Origin
from agentdex.crawler.pools import HostPools

URL = HttpsURL | httpx.URL


class Queued(Protocol):
    """What counts the seconds a request waited for its turn (the fetch's options)."""

    queued: float


class NoTurn:
    """No turn at the host: the answer was sent ahead (:meth:`agentdex.crawler.fetch.Fetcher.prefetch`)."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc_info: object) -> None:
        return None


NO_TURN = NoTurn()


class Turn:
    """A request's turn at its host (``Fetcher._host_turn``): its slots, then its pool's
    transport. A class rather than nested generator-based context managers: one object and
    two calls a request instead of two generators and their wrappers."""

    __slots__ = ("_slots", "_pools", "_url", "_options", "_key")

    def __init__(self, slots: Slots, pools: HostPools, url: URL, options: Queued) -> None:
        self._slots, self._pools, self._url, self._options = slots, pools, url, options
        self._key: Origin | None = None

    async def __aenter__(self) -> httpx.AsyncBaseTransport:
        asked = time.perf_counter()
        await self._slots.__aenter__()
        self._options.queued += time.perf_counter() - asked
        try:
            self._key, transport = self._pools.take(self._url)
        except BaseException:
            await self._slots.__aexit__()
            raise
        return transport

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._key is not None:
                await self._pools.give_back(self._key)
        finally:
            await self._slots.__aexit__()


@dataclass(slots=True)
class HostSlot:
    """A host's semaphore and how many requests hold it or wait for it."""

    semaphore: asyncio.Semaphore
    users: int = 0


class Slots:
    """Hold a per-host slot, then a global one (never a global slot while queueing for a host).

    A host's semaphore lives only while some request uses or awaits it, so a crawl of
    100,000 origins does not keep 100,000 semaphores. Entry and exit update the count
    without awaiting in between, so a semaphore is never dropped while a request needs it.
    """

    def __init__(self, hosts: dict[str, HostSlot], key: str, per_host: int, everyone: asyncio.Semaphore) -> None:
        self._hosts, self._key, self._per_host, self._everyone = hosts, key, per_host, everyone
        self._slot: HostSlot | None = None

    async def __aenter__(self) -> None:
        slot = self._hosts.get(self._key)
        if slot is None:
            slot = self._hosts[self._key] = HostSlot(asyncio.Semaphore(self._per_host))
        slot.users += 1
        self._slot = slot
        try:
            await slot.semaphore.acquire()
        except BaseException:
            self._leave()
            raise
        try:
            await self._everyone.acquire()
        except BaseException:
            slot.semaphore.release()
            self._leave()
            raise

    async def __aexit__(self, *exc_info: Any) -> None:
        self._everyone.release()
        assert self._slot is not None
        self._slot.semaphore.release()
        self._leave()

    def _leave(self) -> None:
        assert self._slot is not None
        self._slot.users -= 1
        if not self._slot.users and self._hosts.get(self._key) is self._slot:
            del self._hosts[self._key]

"""Connection pools for the crawler: one small pool per origin (scheme, host, port).

Public API::

    HostPools(make_transport, keep)
        ``make_transport()`` builds one origin's transport; ``keep`` is how many origins may
        hold a pool. ``async with pools.use(url) as transport``; ``await pools.aclose()``;
        ``key, transport = pools.take(url)`` … ``await pools.give_back(key)``, the same
        without a context manager (the fetch policy's turn at a host).
    origin_key(url) -> (scheme, host, port)    the pool a URL's request goes to.
    guarded_transport(context, backend, connections) -> HostTransport
        one origin's transport (:mod:`agentdex.crawler.h1`) through the address guard.
    release(response, method)   close an answer, keeping its connection when it has no body.
    close_transport(transport)  close it whole, even from a task being cancelled.

A :class:`~agentdex.crawler.fetch.Fetcher` takes any ``transport_factory``
(``() -> httpx.AsyncBaseTransport``); unit tests give it one that returns an
``httpx.MockTransport``, and the default builds :func:`guarded_transport`.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Protocol

import httpx

from agentdex.crawler.h1 import HostTransport, Reply, URLParts
from agentdex.crawler.netpolicy import GuardedBackend
from agentdex.crawler.origins import Origin
from agentdex.crawler.origins import origin_key as _key
from agentdex.errors import TransportError

TransportFactory = Callable[[], httpx.AsyncBaseTransport]


class _OriginParts(URLParts, Protocol):
    @property
    def scheme(self) -> str: ...


def origin_key(url: _OriginParts) -> Origin:
    """``(scheme, host, port)`` of ``url``, the port spelled out when the URL leaves it
    implied: ``https://h/`` and ``https://h:443/`` are one origin, ``https://h:8443/``
    another (a connection to one must never carry a request for the other).
    """
    return _key(url.scheme, url.host, url.port)


class HostPools:
    """One small connection pool per origin, for the origins used most recently.

    Keyed by :func:`origin_key`, not by host name alone: two ports of one host are two
    servers, and an idle connection to one must not take the other's request. A host is
    never sent more than ``per_host`` requests at once, so a pool per origin needs no
    queue of its own and reuses each of its few connections (one pool holding
    the ~2 × concurrency connections of a whole crawl would search them all on every
    request).
    Once more than ``keep`` origins hold a pool, the least recently used pools of origins with
    no request in flight are closed; an idle connection also expires after 5 s.
    """

    def __init__(self, make_transport: TransportFactory, keep: int) -> None:
        self._make, self._keep = make_transport, max(1, keep)
        self._pools: OrderedDict[Origin, httpx.AsyncBaseTransport] = OrderedDict()  # least recent first
        self._active: dict[Origin, int] = {}

    @asynccontextmanager
    async def use(self, url: _OriginParts) -> AsyncIterator[httpx.AsyncBaseTransport]:
        """The transport of the pool of ``url``'s origin, marked busy (never closed) until
        the block ends."""
        key, transport = self.take(url)
        try:
            yield transport
        finally:
            await self.give_back(key)

    def take(self, url: _OriginParts) -> tuple[Origin, httpx.AsyncBaseTransport]:
        """As :meth:`use` without a context manager (the fetch policy's turn at a host holds
        it): the pool's key and transport, busy until :meth:`give_back` of that key."""
        key = origin_key(url)
        transport = self._pools.get(key)
        if transport is None:
            transport = self._pools[key] = self._make()
        else:
            self._pools.move_to_end(key)
        self._active[key] = self._active.get(key, 0) + 1
        return key, transport

    async def give_back(self, key: Origin) -> None:
        """The end of a :meth:`take`: the pool is no longer busy for it."""
        left = self._active[key] - 1
        if left:
            self._active[key] = left
        else:
            del self._active[key]
        if len(self._pools) > self._keep:
            await self._trim()

    async def _trim(self) -> None:
        while len(self._pools) > self._keep:
            key = next((k for k in self._pools if k not in self._active), None)
            if key is None:
                return
            await close_transport(self._pools.pop(key))

    async def aclose(self) -> None:
        """Close every pool."""
        while self._pools:
            await close_transport(self._pools.popitem(last=False)[1])


async def close_transport(transport: httpx.AsyncBaseTransport) -> None:
    """Close ``transport``; shielded (the close runs to its end in a task a cancellation
    does not reach), so a cancelled crawl or probe still closes the sockets it dropped."""
    await asyncio.shield(transport.aclose())


def guarded_transport(context: ssl.SSLContext, backend: GuardedBackend, connections: int) -> HostTransport:
    """An HTTP/1.1 transport for one origin whose every connection goes through ``backend``
    (the address guard and ``--connect-to``), verifying TLS with ``context``; no
    environment, no proxies; at most ``connections`` kept alive."""
    return HostTransport(context, backend, connections)  # ALPN http/1.1 is set where the context is built


async def release(response: httpx.Response | Reply, method: str) -> None:
    """Close ``response``, keeping its connection for the next request when the answer has
    no body to read (a 304, a 204, an answer to HEAD, ``Content-Length: 0``).

    A connection goes back to its pool only once the whole message was read; an
    unread 304 would otherwise close it, and a recrawl (mostly 304s) would pay a TLS
    handshake for nearly every request. Reading an empty body waits for nothing.
    """
    if not response.is_stream_consumed and _bodiless(response, method):
        try:
            async for _ in response.aiter_raw():
                break
        except TransportError:
            pass  # the connection is closed below either way
    await response.aclose()


def _bodiless(response: httpx.Response | Reply, method: str) -> bool:
    status = response.status_code
    return (
        status in (204, 304)
        or status < 200
        or method == "HEAD"
        or (response.headers.get("content-length") or "").strip() == "0"
    )

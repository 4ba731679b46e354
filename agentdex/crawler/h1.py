"""HTTP/1.1 to one origin: the crawler's transport, on h11 and :mod:`agentdex.crawler.netstream`.

Public API::

    HostTransport(context, backend, keep)     an httpx.AsyncBaseTransport for one origin
        await transport.handle_async_request(request) -> httpx.Response (body streamed)
        await transport.aclose()

Why not httpcore's pool: the fetch policy already limits each host to ``per_host``
requests at once (:class:`agentdex.crawler.fetch.Fetcher`) and keeps a pool per origin
(:mod:`agentdex.crawler.pools`), so what is left for a transport is to reuse an idle
connection or open one, and to speak HTTP/1.1 on it. httpcore does that with a pool
scan, several locks and cancel scopes per request; a crawl is mostly tiny answers (the
404s of the discovery paths), and that bookkeeping cost more CPU than the HTTP. Here a
request is one write and as many reads as the answer needs. Measured with
``benchmarks/bench_fetch.py`` (both over the same socket backend, a pool per origin each;
figures in docs/benchmarks.md, "HTTP transport"): httpcore's pool costs 40-50% more CPU a
request. Only h11's public API is used (h11 checks every request head itself).

A connection is reused only after its answer was read to the end, both sides may go on
(h11 says so) and the server sent nothing after that end; one that is cut, cancelled or
left unread is closed. An idle connection is dropped when the server has closed it (its
socket turns readable) or after :data:`KEEPALIVE_EXPIRY` seconds; a GET or HEAD that a
reused connection ends without a byte of answer (the server closed it as the request went
out) is sent again on a new one. Every connection is opened by ``backend`` (the address
guard and ``--connect-to``) and verified with ``context`` against the URL's own host name.
Errors are agentdex's (:class:`agentdex.errors.TransportError`), as the sockets raise them;
h11's word that an answer breaks HTTP/1.1 becomes a ``ProtocolError`` (h11's error its
cause), and an illegal request header stays h11's ``LocalProtocolError`` (a bug of the
caller's: recorded as ``internal``).
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator
from typing import cast

import h11
import httpx

from agentdex.crawler.netstream import NetworkBackend, NetworkStream
from agentdex.errors import ProtocolError, ReadError, WriteError
from agentdex.headers import SAFE_METHODS

KEEPALIVE_EXPIRY = 5.0
READ_SIZE = 64 * 1024
# The largest answer head read (status line and headers): httpcore's own limit; h11's
# default (16 KB) refused real answers with long CSP, Link or Set-Cookie headers.
MAX_HEAD_BYTES = 100 * 1024


class HostTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 connections to one origin (scheme, host, port); see the module docstring."""

    def __init__(self, context: ssl.SSLContext, backend: NetworkBackend, keep: int) -> None:
        self._context, self._backend, self._keep = context, backend, max(1, keep)
        self._idle: list[_Connection] = []  # most recently used last
        self._latest: _Connection | None = None  # the connection opened last

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and read the answer's head; the body streams as it is read."""
        timeouts = request.extensions.get("timeout") or {}
        head = request_head(request)  # checked before any connection: nothing unchecked is sent
        connection, answer = await self._send(request, head, timeouts)
        status, headers, reason = answer
        return httpx.Response(
            status,
            headers=headers,
            stream=_Body(connection, self, timeouts.get("read")),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    async def _send(self, request: httpx.Request, head: h11.Request, timeouts: dict) -> tuple[_Connection, _Head]:
        """The connection ``request`` was answered on, and the answer's head.

        A server may close an idle connection just as a request goes out on it (its
        keep-alive timer ran out), before the closing reached us. When a reused connection
        ends without a byte of answer, a GET or HEAD is sent once more on a new connection
        (it changed nothing: nothing was answered); any other request fails.
        """
        connection = self._idle_connection()
        if connection is not None:
            try:
                return connection, await _exchange(connection, head, request.content, timeouts)
            except _UNANSWERED:
                if connection.heard or request.method not in SAFE_METHODS:
                    raise
        connection = await self._connect(request.url, timeouts.get("connect"))
        return connection, await _exchange(connection, head, request.content, timeouts)

    def _idle_connection(self) -> _Connection | None:
        """The most recently used idle connection the server has not closed."""
        while self._idle:
            connection = self._idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return None

    async def _connect(self, url: httpx.URL, timeout: float | None) -> _Connection:
        if self._latest is not None:  # still open and busy (per_host > 1): its session serves this one
            self._latest.keep_session()
        host, port = url.host, url.port or 443
        stream = await self._backend.connect_tcp(host, port, timeout=timeout)
        try:
            stream = await stream.start_tls(self._context, server_hostname=host, timeout=timeout)
        except BaseException:
            await stream.aclose()
            raise
        self._latest = _Connection(stream)
        return self._latest

    def keep(self, connection: _Connection) -> None:
        """Take back a connection whose answer was read whole (closed if too many are idle)."""
        self._idle.append(connection)
        while len(self._idle) > self._keep:
            self._idle.pop(0).close(keep_session=False)

    async def aclose(self) -> None:
        """Close every idle connection."""
        while self._idle:
            self._idle.pop().close(keep_session=False)


_Head = tuple[int, list[tuple[bytes, bytes]], bytes]  # status, headers, reason
# How a connection the server closed before answering fails (h11's errors as raised here).
_UNANSWERED = (ProtocolError, ReadError, WriteError)


def request_head(request: httpx.Request) -> h11.Request:
    """``request``'s method, target and headers as h11's event, which checks them (RFC 9110:
    header names are tokens, no CR, LF or NUL in a value); an h11 LocalProtocolError naming
    the offending header when one is illegal."""
    try:
        return h11.Request(
            method=request.method.encode("ascii"), target=request.url.raw_path, headers=request.headers.raw
        )
    except h11.LocalProtocolError as exc:
        raise h11.LocalProtocolError(f"illegal request header or target ({exc})") from exc


async def _exchange(connection: _Connection, head: h11.Request, content: bytes, timeouts: dict) -> _Head:
    """``connection.exchange``; a connection that failed or was cancelled on the way is closed."""
    try:
        return await connection.exchange(head, content, timeouts.get("read"), timeouts.get("write"))
    except BaseException:
        connection.close()
        raise


class _Connection:
    """One socket and its h11 state."""

    def __init__(self, stream: NetworkStream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.idle_since = time.monotonic()
        self.heard = False  # a byte of the current exchange's answer arrived

    def usable(self) -> bool:
        """Idle for less than the keep-alive expiry, and not closed by the server (an
        idle connection with something to read has been closed or is broken)."""
        fresh = time.monotonic() - self.idle_since < KEEPALIVE_EXPIRY
        return fresh and not self.stream.get_extra_info("is_readable")

    async def exchange(
        self, head: h11.Request, content: bytes, read_timeout: float | None, write_timeout: float | None
    ) -> _Head:
        """Write the request (``head``, then ``content``) whole; read until the answer's
        head (1xx answers skipped)."""
        self.heard = False
        data = self.h11.send(head)
        if content:
            data += self.h11.send(h11.Data(data=content))
        data += self.h11.send(h11.EndOfMessage())
        await self.stream.write(data, write_timeout)
        while True:
            event = await self.next_event(read_timeout)
            if isinstance(event, h11.Response):
                return event.status_code, event.headers.raw_items(), event.reason
            if not isinstance(event, h11.InformationalResponse):
                raise ProtocolError("the server sent no answer")
            # One read can hold thousands of 1xx heads, each parsed without a read: pass
            # through the event loop, so a due deadline cancels an endless 1xx stream.
            await asyncio.sleep(0)

    async def next_event(self, timeout: float | None) -> h11.Event | type[h11.PAUSED]:
        """The next event of the answer, reading from the socket as needed."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise ProtocolError(str(exc) or type(exc).__name__) from exc
            if event is not h11.NEED_DATA:
                # h11's sentinels are classes: mypy cannot narrow NEED_DATA out by identity.
                return cast("h11.Event | type[h11.PAUSED]", event)
            data = await self.stream.read(READ_SIZE, timeout)
            if not data and self.h11.their_state is h11.SEND_RESPONSE:
                # h11 would say "can't handle event type ConnectionClosed ..."
                raise ProtocolError(
                    "the server closed the connection before its answer's head ended"
                    if self.heard
                    else "the server closed the connection without answering"
                )
            self.heard = self.heard or bool(data)
            self.h11.receive_data(data)

    def reusable(self) -> bool:
        """Both sides finished this exchange and may start another, and the server sent
        nothing after its answer's end (h11 would read those bytes as the next answer)."""
        h = self.h11
        return h.our_state is h11.DONE and h.their_state is h11.DONE and not h.trailing_data[0]

    def keep_session(self) -> None:
        """Keep the TLS session for the next connection to this origin (if still open)."""
        keep = getattr(self.stream, "keep_session", None)
        sock = self.stream.get_extra_info("socket")
        if keep is not None and sock is not None and sock.fileno() >= 0:
            keep()

    def close(self, *, keep_session: bool = True) -> None:
        """Drop the socket (nothing more is read or written on it). Unless the transport
        itself is done with it, a new connection will follow: its TLS session is kept so
        that one resumes it."""
        if keep_session:
            self.keep_session()
        sock = self.stream.get_extra_info("socket")
        if sock is not None:
            sock.close()


class _Body(httpx.AsyncByteStream):
    """The answer's body as it arrives; the connection goes back to the pool when it ends."""

    def __init__(self, connection: _Connection, transport: HostTransport, timeout: float | None) -> None:
        self._connection: _Connection | None = connection
        self._transport, self._timeout = transport, timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            return
        while True:
            try:
                event = await connection.next_event(self._timeout)
            except BaseException:
                await self.aclose()
                raise
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._finish(connection)
                return

    def _finish(self, connection: _Connection) -> None:
        self._connection = None
        if connection.reusable():
            connection.h11.start_next_cycle()
            connection.idle_since = time.monotonic()
            self._transport.keep(connection)
        else:
            connection.close()

    async def aclose(self) -> None:
        """An answer not read to its end leaves its connection unusable: close it."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

"""Raw-socket servers for what HTTP frameworks are too polite to do.

Each :class:`RawServer` listens on 127.0.0.1 (a free port) in a thread of its own and
treats every connection with one *behaviour*: an ``async (reader, writer)`` function.
With ``tls`` (an :class:`ssl.SSLContext`) the handshake is done first; the behaviours
that stall the handshake itself run on plain TCP.

    with RawServer("endless_chunked", tls=context) as server:
        server.port, server.connect_to      # [("*", "127.0.0.1", port)]
        server.connections                  # connections accepted so far

Behaviours (see :data:`BEHAVIOURS`):

    silent            accept, then never read nor write (a TLS client waits for ServerHello)
    stall_handshake   read the ClientHello, then never answer
    header_drip       a status line, then header bytes one a second, forever
    body_drip         Content-Length: 100000, then one body byte a second
    endless_chunked   Transfer-Encoding: chunked, 64 KB chunks forever
    no_length         200 without Content-Length: 8 MB, then close
    many_headers      10,000 header lines
    huge_header       one header of 1 MB
    truncated_chunked a chunk announced as 4 KB, 10 bytes of it, then close
    garbage           bytes that are not HTTP at all
    endless_sse       200 text/event-stream, an event every 10 ms, forever (also to POST)
    endless_continue  HTTP/1.1 100 Continue, as fast as the client reads, forever
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from collections.abc import Awaitable, Callable

Behaviour = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
PLAIN_TCP = frozenset({"silent", "stall_handshake"})  # never get as far as TLS


async def _request(reader: asyncio.StreamReader) -> bytes:
    """Read one request head (and its body, when it says how long): what HTTP clients wait on."""
    head = await reader.readuntil(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            await reader.readexactly(int(line.split(b":", 1)[1]))
    return head


async def _write(writer: asyncio.StreamWriter, data: bytes) -> None:
    """Write and wait for room; a client that left ends the behaviour (ConnectionError)."""
    if writer.transport.is_closing():
        raise ConnectionResetError("the client went away")
    writer.write(data)
    await writer.drain()
    # drain() returns at once while nothing is paused, and over TLS the writer never reads as
    # closing: without a pass through the loop, the news that the client left (a callback the
    # loop has queued) never arrives, and an endless behaviour wrote on to the dead socket,
    # tens of thousands of times a second, each write logged.
    await asyncio.sleep(0)


async def _forever() -> None:
    await asyncio.Event().wait()


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _forever()


async def stall_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(65536)  # the ClientHello
    await _forever()


async def _drip(writer: asyncio.StreamWriter, head: bytes, byte: bytes) -> None:
    """``head``, then ``byte`` once a second, forever."""
    writer.write(head)
    while True:
        await _write(writer, byte)
        await asyncio.sleep(1)


async def header_drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    await _drip(writer, b"HTTP/1.1 200 OK\r\n", b"X")


async def body_drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    await _drip(writer, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", b" ")


async def endless_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    while True:
        await _write(writer, chunk)


async def no_length(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
    for _ in range(128):
        await _write(writer, b" " * 65536)


async def many_headers(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    lines = b"".join(b"X-Filler-%d: %d\r\n" % (i, i) for i in range(10_000))
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + lines + b"\r\n{}")
    await writer.drain()


async def huge_header(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Huge: " + b"a" * (1024 * 1024) + b"\r\n\r\n{}")
    await writer.drain()


async def truncated_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(
        b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n{"name": "cu'
    )
    await writer.drain()


async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(bytes(range(256)) * 16)
    await writer.drain()


async def endless_sse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await _request(reader)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n")
    while True:
        await _write(
            writer,
            b'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message", '
            b'"params": {"level": "info", "data": "' + b"x" * 4000 + b'"}}\n\n',
        )
        await asyncio.sleep(0.01)


async def endless_continue(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    # Each 1xx is a whole answer head of its own, so no head-size cap ever trips.
    await _request(reader)
    batch = b"HTTP/1.1 100 Continue\r\n\r\n" * 2048
    while not reader.at_eof():  # the client hung up: a TLS stream does not always say so on write
        await _write(writer, batch)


BEHAVIOURS: dict[str, Behaviour] = {
    f.__name__: f
    for f in (
        silent,
        stall_handshake,
        header_drip,
        body_drip,
        endless_chunked,
        no_length,
        many_headers,
        huge_header,
        truncated_chunked,
        garbage,
        endless_sse,
        endless_continue,
    )
}


class RawServer:
    """One behaviour on 127.0.0.1:<free port>, served from a background thread."""

    def __init__(self, behaviour: str, tls: ssl.SSLContext | None = None) -> None:
        self.behaviour = BEHAVIOURS[behaviour]
        self._tls = None if behaviour in PLAIN_TCP else tls
        self.port = 0
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rawsock-{behaviour}", daemon=True)

    @property
    def connect_to(self) -> list[tuple[str, str, int]]:
        """Every host name to this server (``--connect-to`` rules)."""
        return [("*", "127.0.0.1", self.port)]

    def __enter__(self) -> RawServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the raw socket server did not start")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.set_exception_handler(lambda _loop, _context: None)  # clients leave mid-answer on purpose
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self._tls))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(Exception):
            await self.behaviour(reader, writer)
        with contextlib.suppress(Exception):
            writer.close()

"""The crawler's sockets: a network stream on a plain non-blocking socket.

httpcore's default backend wraps every socket in anyio streams, and TLS in anyio's
``TLSStream``, which moves every byte through an ``ssl.MemoryBIO`` in Python and opens a
cancel scope for every read and write. A crawl is a great many small answers (most of them
404s of discovery documents), so that bookkeeping was the largest share of its CPU. Here
TLS runs in OpenSSL on the socket itself (``SSLContext.wrap_socket``, non-blocking) and the
event loop is asked only when the socket would block: a read that finds its bytes already
there costs one ``recv``. A peer that keeps the socket full would then never let the event
loop run, and no deadline (a timer on that loop) could fire: after
:data:`READS_BETWEEN_YIELDS` reads in a row that found their bytes waiting, a read passes
through the event loop once.

Public API::

    NetworkStream, NetworkBackend   what the transport (:mod:`agentdex.crawler.h1`) asks of a
                              connection and of what opens one (typing Protocols)
    await open_stream(address, port, *, local_address=None, socket_options=())
        -> SocketStream       (a NetworkStream; address is an IP literal)
    SocketBackend()           the NetworkBackend that opens them (the address guard in
                              :mod:`agentdex.crawler.netpolicy` connects through it)

The two Protocols have the shape of httpcore's stream and backend interfaces (the methods a
connection pool calls), so ``benchmarks/bench_fetch.py`` can still run httpcore's pool over
these sockets for comparison; nothing here imports httpcore. The errors are agentdex's
own (:class:`agentdex.errors.TransportError`): ``ConnectError`` / ``ConnectTimeout`` for
connecting and the TLS handshake (the ``ssl.SSLError`` kept as the cause, where
:func:`agentdex.crawler.fetch_errors.tls_error` finds it), ``ReadError`` / ``ReadTimeout``
and ``WriteError`` / ``WriteTimeout`` after. A TLS connection closed without close_notify
reads as the end of the stream (as httpcore's default does): the transport then tells a cut
answer from a whole one by its framing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import select
import socket
import ssl
import typing
import weakref
from collections import OrderedDict
from collections.abc import Iterable

from agentdex.errors import ConnectError, ConnectTimeout, ReadError, ReadTimeout, WriteError, WriteTimeout

# A few reads in a row are common (a body larger than one read); dozens only come from a
# peer that never lets the socket run dry.
READS_BETWEEN_YIELDS = 16
_WOULD_BLOCK_READ = (BlockingIOError, InterruptedError, ssl.SSLWantReadError)
_WOULD_BLOCK_WRITE = (BlockingIOError, InterruptedError, ssl.SSLWantWriteError)
# socket.setsockopt's arguments: (level, option, value) or (level, option, None, length).
SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class NetworkStream(typing.Protocol):
    """One connection, as the transport uses it. Errors are agentdex's
    :class:`~agentdex.errors.TransportError` subclasses (see the module docstring)."""

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Up to ``max_bytes``; ``b""`` at the end of the stream."""
        ...

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """All of ``buffer``."""
        ...

    async def aclose(self) -> None:
        """Close the connection."""
        ...

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> NetworkStream:
        """The same connection under TLS, verified for ``server_hostname``."""
        ...

    def get_extra_info(self, info: str) -> typing.Any:
        """``"socket"``, ``"ssl_object"``, ``"is_readable"``, ``"client_addr"``, ``"server_addr"``."""
        ...


class NetworkBackend(typing.Protocol):
    """What opens the transport's connections (the address guard, or the plain sockets)."""

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None) -> NetworkStream:
        """A TCP connection to ``host`` and ``port`` within ``timeout`` seconds (the
        implementations also take httpcore's ``local_address`` and ``socket_options``)."""
        ...


async def open_stream(
    address: str,
    port: int,
    *,
    local_address: str | None = None,
    socket_options: Iterable[SocketOption] | None = None,
) -> SocketStream:
    """Connect a TCP socket to ``address`` (an IP literal) and ``port``."""
    family = socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a request is one write
        for option in socket_options or ():
            sock.setsockopt(*option)
        if local_address:
            sock.bind((local_address, 0))
        await asyncio.get_running_loop().sock_connect(sock, (address, port))
    except OSError as exc:
        sock.close()
        raise ConnectError(str(exc) or type(exc).__name__) from exc
    except BaseException:
        sock.close()
        raise
    return SocketStream(sock)


class SocketBackend:
    """Connects to IP literals only: names are resolved and checked by the address guard."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> SocketStream:
        """A connection to ``host`` (an IP literal), within ``timeout`` seconds."""
        try:
            return await asyncio.wait_for(
                open_stream(host, port, local_address=local_address, socket_options=socket_options), timeout
            )
        except TimeoutError as exc:
            raise ConnectTimeout(f"connecting to {host} took longer than {timeout} s") from exc


class SocketStream:
    """One connection; see the module docstring."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._loop = asyncio.get_running_loop()
        self._session_slot: tuple[ssl.SSLContext, tuple[str | None, typing.Any]] | None = None
        self._unwaited = 0  # reads in a row that did not wait for the event loop

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Up to ``max_bytes``; ``b""`` at the end of the stream."""
        self._unwaited += 1
        if self._unwaited > READS_BETWEEN_YIELDS:
            self._unwaited = 0
            await asyncio.sleep(0)  # the loop runs: a deadline that is due cancels this read
        while True:  # every branch that waits then reads again
            try:
                return self._sock.recv(max_bytes)
            except _WOULD_BLOCK_READ:
                await self._wait(True, timeout, ReadTimeout)
            except ssl.SSLWantWriteError:  # TLS must write first (a renegotiation, a key update)
                await self._wait(False, timeout, ReadTimeout)
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
                return b""
            except OSError as exc:
                raise ReadError(str(exc) or type(exc).__name__) from exc

    def keep_session(self) -> None:
        """Keep this connection's TLS session for the next connection to the same name and
        address, once it has a resumable one (TLS 1.3 sends its tickets after the handshake;
        they are read with the first answer). Asked only when another connection will be
        needed (:mod:`agentdex.crawler.h1`): reading a session copies it with the peer's
        certificate, about 0.3 ms, and most origins are crawled on one connection."""
        slot = self._session_slot
        if slot is not None and isinstance(self._sock, ssl.SSLSocket) and _SESSIONS.keep(*slot, self._sock):
            self._session_slot = None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """All of ``buffer``."""
        view = memoryview(buffer)
        while view:
            try:
                view = view[self._sock.send(view) :]
            except _WOULD_BLOCK_WRITE:
                await self._wait(False, timeout, WriteTimeout)
            except ssl.SSLWantReadError:
                await self._wait(True, timeout, WriteTimeout)
            except OSError as exc:
                raise WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        """Close the socket (no close_notify: nothing more is read from it)."""
        self._sock.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> SocketStream:
        """The same connection under TLS, once the handshake is done (``server_hostname``
        is the URL's host: SNI and the certificate check)."""
        key = _session_key(self._sock, server_hostname)
        try:
            tls = ssl_context.wrap_socket(
                self._sock,
                server_hostname=server_hostname,
                do_handshake_on_connect=False,
                session=_SESSIONS.get(ssl_context, key),
            )
        except (OSError, ValueError) as exc:
            self._sock.close()
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        stream = SocketStream(tls)
        stream._session_slot = (ssl_context, key)
        try:
            await stream._handshake(timeout)
        except BaseException:
            tls.close()
            raise
        return stream

    async def _handshake(self, timeout: float | None) -> None:
        while True:
            try:
                self._sock.do_handshake()  # type: ignore[attr-defined]
                return
            except ssl.SSLWantReadError:
                await self._wait(True, timeout, ConnectTimeout)
            except ssl.SSLWantWriteError:
                await self._wait(False, timeout, ConnectTimeout)
            except OSError as exc:
                raise ConnectError(str(exc) or type(exc).__name__) from exc

    def get_extra_info(self, info: str) -> typing.Any:
        """What a transport asks of a stream: the TLS object, addresses, the socket, and
        whether an idle connection has something to read (the server closed it)."""
        sock = self._sock
        if info == "ssl_object":
            return sock if isinstance(sock, ssl.SSLSocket) else None
        if info == "is_readable":
            return _readable(sock)
        if info == "socket":
            return sock
        if info in ("client_addr", "server_addr"):
            try:
                return sock.getsockname() if info == "client_addr" else sock.getpeername()
            except OSError:
                return None
        return None

    async def _wait(self, readable: bool, timeout: float | None, timeout_error: type[Exception]) -> None:
        """Until the socket is readable (or writable), at most ``timeout`` seconds."""
        loop, fd = self._loop, self._sock.fileno()
        self._unwaited = 0
        if fd < 0:
            raise (ReadError if readable else WriteError)("the connection is closed")
        waiter = loop.create_future()
        (loop.add_reader if readable else loop.add_writer)(fd, _wake, waiter)
        timer = loop.call_later(timeout, _expire, waiter) if timeout is not None else None
        try:
            await waiter
        except TimeoutError:
            raise timeout_error(f"no progress within {timeout} s") from None
        finally:
            (loop.remove_reader if readable else loop.remove_writer)(fd)
            if timer is not None:
                timer.cancel()


def _readable(sock: socket.socket) -> bool:
    """Whether ``sock`` has something to read (for an idle connection: the peer closed it
    or sent what it should not have) or is closed; poll(), not select(), which fails on
    descriptors above FD_SETSIZE (1024), and a crawl may hold that many."""
    if sock.fileno() < 0:
        return True
    if not hasattr(select, "poll"):  # Windows
        return bool(select.select([sock], [], [], 0)[0])
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


def _session_key(sock: socket.socket, server_hostname: str | None) -> tuple[str | None, typing.Any]:
    """A session is resumed only for the same name at the same address and port."""
    try:
        return server_hostname, sock.getpeername()
    except OSError:
        return server_hostname, None


class SessionCache:
    """TLS sessions by context, then by (host name, peer address), the most recent 256: an
    origin's connections open while it is crawled, a few dozen origins at a time, and a
    session holds the peer's certificate (about 15 KB each in the benchmark's peak RSS).

    Resuming skips the certificate exchange and its verification, the costliest part of a
    client handshake in CPU; a crawl that asks few URLs on each connection (a revalidating
    recrawl answered by 304s) pays a handshake for every couple of requests. The session was
    established with a verified certificate for the same name and address under the same
    context, so resuming it trusts nothing new."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._by_context: weakref.WeakKeyDictionary[ssl.SSLContext, OrderedDict[typing.Any, ssl.SSLSession]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, context: ssl.SSLContext, key: typing.Any) -> ssl.SSLSession | None:
        """The session kept for ``key`` under ``context``, if any."""
        sessions = self._by_context.get(context)
        return None if sessions is None else sessions.get(key)

    def keep(self, context: ssl.SSLContext, key: typing.Any, sock: ssl.SSLSocket) -> bool:
        """Keep ``sock``'s session if the server offered a resumable one; whether one is
        kept for ``key`` now."""
        sessions = self._by_context.setdefault(context, OrderedDict())
        if sock.session_reused and key in sessions:
            return True  # its ticket still works: reading a session copies it, a costly call
        try:
            session = sock.session
        except (OSError, ValueError):  # closed under us: nothing to keep
            return False
        if session is None or (not session.has_ticket and not session.id):
            return False
        sessions[key] = session
        sessions.move_to_end(key)
        while len(sessions) > self._size:
            sessions.popitem(last=False)
        return True


_SESSIONS = SessionCache()

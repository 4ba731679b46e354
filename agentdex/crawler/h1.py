"""HTTP/1.1 to one origin: the crawler's transport, on httptools and :mod:`agentdex.crawler.netstream`.

Public API::

    HostTransport(context, backend, keep)     an httpx.AsyncBaseTransport for one origin
        await transport.handle_async_request(request) -> httpx.Response (body streamed)
        await transport.aclose()
    await transport.request(method, url, headers, content, timeouts) -> httpx.Response
                                              the same from a request's parts (a stream's)
    await transport.exchange(method, url, headers, content, timeouts) -> Reply
                                              the same, the answer as the fetch policy reads it
                                              (no httpx.Response: see Reply)
    await transport.pipeline(requests, timeouts, answers)
                                              GETs sent in one write (pipelining), their
                                              answers read whole into ``answers``
    request_head(request) -> bytes            the request line and headers, checked

Why not httpcore's pool: the fetch policy already limits each host to ``per_host``
requests at once (:class:`agentdex.crawler.fetch.Fetcher`) and keeps a pool per origin
(:mod:`agentdex.crawler.pools`), so what is left for a transport is to reuse an idle
connection or open one, and to speak HTTP/1.1 on it. httpcore does that with a pool
scan, several locks and cancel scopes per request; a crawl is mostly tiny answers (the
404s of the discovery paths), and that bookkeeping cost more CPU than the HTTP. Here a
request is one write and as many reads as the answer needs. Measured with
``benchmarks/bench_fetch.py`` (both over the same socket backend, a pool per origin each;
figures in docs/benchmarks.md, "HTTP transport"): httpcore's pool costs 40-50% more CPU a
request.

Answers are parsed by httptools (llhttp, the C parser of Node.js, which uvicorn uses), through
its public callback API, in place of h11 (pure Python, about a fifth of the fetch path's CPU;
docs/benchmarks.md, issue 35). What h11 did beside parsing is kept here: the head is capped
at :data:`MAX_HEAD_BYTES`; a Transfer-Encoding other than chunked is refused; a body that
runs to the close (no Content-Length, no chunked) ends there, a framed one cut by the close
is a ``ProtocolError``; the request head is checked before it is sent. llhttp is stricter
than h11 in places (it refuses an answer with both Content-Length and Transfer-Encoding, and
bare LF line ends). An answer to HEAD has no body whatever its headers announce, which
httptools cannot be told: such an answer's head is cut at its empty line and parsed alone.

A connection is reused only after its answer was read to the end, both sides may go on
(HTTP/1.1, no ``Connection: close``) and the server sent nothing after that end; one that is
cut, cancelled or left unread is closed. An idle connection is dropped when the server has
closed it (its socket turns readable) or after :data:`KEEPALIVE_EXPIRY` seconds; a GET or
HEAD that a reused connection ends without a byte of answer (the server closed it as the
request went out) is sent again on a new one. Every connection is opened by ``backend`` (the
address guard and ``--connect-to``) and verified with ``context`` against the URL's own host
name.

Pipelining (RFC 9112, 9.3.2; :meth:`HostTransport.pipeline`): several GETs go out in one
write and their answers, which a server must send in the order asked, are read as they
come, each whole, under its own body cap. The first answer that cannot be kept whole ends
the pipeline there (a body over its cap or running to the close, a connection closed or
broken, ``Connection: close``, or an answer not in time, :class:`_Due`: a server that ignores
pipelined requests never sends the second): the connection is closed and the requests not
answered are the caller's to send again, one at a time.

Errors are agentdex's (:class:`agentdex.errors.TransportError`), as the sockets raise them;
the parser's word that an answer breaks HTTP/1.1 becomes a ``ProtocolError`` (its error the
cause), and an illegal request header a ``ValueError`` (a bug of the caller's: recorded as
``internal``).
"""

from __future__ import annotations

import re
import ssl
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Protocol

import httptools
import httpx

from agentdex.crawler.netstream import NetworkBackend, NetworkStream
from agentdex.errors import ProtocolError, ReadError, TransportError, WriteError
from agentdex.headers import SAFE_METHODS

KEEPALIVE_EXPIRY = 5.0
READ_SIZE = 64 * 1024
# The largest answer head read (status line and headers): httpcore's own limit; h11's
# default (16 KB), used before, refused real answers with long CSP, Link or Set-Cookie headers.
MAX_HEAD_BYTES = 100 * 1024
# How long a pipelined answer after the first may take (:class:`_Due`): a server that drops
# pipelined requests never answers them; a slow one is slow for each.
PIPELINE_STALL = 2.0
PIPELINE_PATIENCE = 4.0


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
        return await self._answer(request.method, request.url, head + request.content, timeouts)

    async def request(
        self, method: str, url: URLParts, headers: list[tuple[str, str]], content: bytes | None, timeouts: dict
    ) -> httpx.Response:
        """As :meth:`handle_async_request` for the request these parts make, without building
        an ``httpx.Request``: the same head goes out, the URL's Host first and a
        Content-Length for a body, as httpx would send them."""
        return await self._answer(method, url, _request_bytes(method, url, headers, content), timeouts)

    async def exchange(
        self, method: str, url: URLParts, headers: list[tuple[str, str]], content: bytes | None, timeouts: dict
    ) -> Reply:
        """As :meth:`request`, the answer as a :class:`Reply` rather than an httpx.Response
        (the fetch policy's own requests: see :class:`Reply`)."""
        connection, answer = await self._send(method, url, _request_bytes(method, url, headers, content), timeouts)
        return Reply(answer, _Body(connection, self, timeouts.get("read")))

    async def pipeline(
        self, requests: Sequence[PipelinedRequest], timeouts: dict, answers: list[Reply], deadline: float
    ) -> None:
        """Send the GETs of ``requests`` (``(url, headers, body cap)`` each) in one write and
        append each answer, read whole, to ``answers`` as it completes (where it stops early:
        the module docstring; when an answer is due: :class:`_Due`). Raises what
        :meth:`exchange` would for the first request only when nothing was answered."""
        due = _Due(deadline, time.monotonic())
        wire = b"".join(_request_bytes("GET", url, headers, None) for url, headers, _ in requests)
        caps = [cap for _, _, cap in requests]
        connection = self._idle_connection()
        if connection is not None:
            try:
                return await self._read_pipeline(connection, wire, caps, timeouts, answers, due)
            except _UNANSWERED:
                if connection.heard:
                    raise
        connection = await self._connect(requests[0][0], timeouts.get("connect"))
        await self._read_pipeline(connection, wire, caps, timeouts, answers, due)

    async def _read_pipeline(
        self, connection: _Connection, wire: bytes, caps: list[int], timeouts: dict, answers: list[Reply], due: _Due
    ) -> None:
        reader, whole = _Pipelined(caps), False
        connection.heard, budget = False, sum(caps) + len(caps) * MAX_HEAD_BYTES  # what may come
        try:
            await connection.stream.write(wire, timeouts.get("write"))
            while len(answers) < len(caps) and not reader.stopped:
                data = await connection.stream.read(READ_SIZE, due.left(time.monotonic()))
                if data:
                    connection.heard, budget = True, budget - len(data)
                    reader.feed(data)
                else:
                    reader.ended(connection.heard)
                ready = reader.take()
                if ready:
                    answers.extend(ready)
                    due.answered(time.monotonic())
                if budget < 0 and not reader.stopped:  # a head that never ends, or more than was asked
                    raise ProtocolError("the answers to pipelined requests run longer than their caps allow")
            whole = len(answers) == len(caps) and reader.reusable()
        except TransportError:
            if not answers:
                raise
        finally:
            if whole:
                connection.idle_since = time.monotonic()
                self.keep(connection)
            else:
                connection.close()

    async def _answer(self, method: str, url: URLParts, request: bytes, timeouts: dict) -> httpx.Response:
        connection, answer = await self._send(method, url, request, timeouts)
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=_Body(connection, self, timeouts.get("read")),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": answer.reason},
        )

    async def _send(self, method: str, url: URLParts, request: bytes, timeouts: dict) -> tuple[_Connection, _Answer]:
        """The connection ``request`` (its bytes) was answered on, and the answer (its head read).

        A server may close an idle connection just as a request goes out on it (its
        keep-alive timer ran out), before the closing reached us. When a reused connection
        ends without a byte of answer, a GET or HEAD is sent once more on a new connection
        (it changed nothing: nothing was answered); any other request fails.
        """
        exchange = _Exchange(request, method == "HEAD", timeouts)
        connection = self._idle_connection()
        if connection is not None:
            try:
                return connection, await exchange.on(connection)
            except _UNANSWERED:
                if connection.heard or method not in SAFE_METHODS:
                    raise
        connection = await self._connect(url, timeouts.get("connect"))
        return connection, await exchange.on(connection)

    def _idle_connection(self) -> _Connection | None:
        """The most recently used idle connection the server has not closed."""
        while self._idle:
            connection = self._idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return None

    async def _connect(self, url: URLParts, timeout: float | None) -> _Connection:
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


# How a connection the server closed before answering fails.
_UNANSWERED = (ProtocolError, ReadError, WriteError)
# RFC 9110: a header name is a token; a value is visible characters (and obs-text) with single
# spaces or tabs between them, never CR, LF or NUL; a request target is visible ASCII.
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_FIELD_VALUE = re.compile(rb"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")
_TARGET = re.compile(rb"[\x21-\x7e]+")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # httpx sends Content-Length: 0 when they have none


class URLParts(Protocol):
    """What the transport reads of a URL: httpx.URL, or :class:`agentdex.crawler.origins.HttpsURL`."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int | None: ...
    @property
    def netloc(self) -> bytes: ...
    @property
    def raw_path(self) -> bytes: ...


def _request_bytes(method: str, url: URLParts, headers: list[tuple[str, str]], content: bytes | None) -> bytes:
    """The request these parts make, head and body, as httpx would send it: checked as
    :func:`build_head` checks it, the fields after Host checked once for each set of them
    (a crawl sends the same few sets again and again)."""
    lines = [_request_line(method.encode("ascii"), url.raw_path), _field_line(b"Host", url.netloc)]
    lines.append(_checked_fields(tuple(headers)))
    if content or method in _BODY_METHODS:
        lines.append(b"Content-Length: %d\r\n" % len(content or b""))
    lines.append(b"\r\n")
    if content:
        lines.append(content)
    return b"".join(lines)


_CHECKED_FIELDS: dict[tuple[tuple[str, str], ...], bytes] = {}
CHECKED_FIELD_SETS = 64  # the field sets kept checked (a crawl's are a handful)


def _checked_fields(fields: tuple[tuple[str, str], ...]) -> bytes:
    """``fields`` as they go on the wire, after the Host line (none may be another Host)."""
    checked = _CHECKED_FIELDS.get(fields)
    if checked is None:
        encoded = [(name.encode("ascii"), value.encode("ascii")) for name, value in fields]
        if any(name.lower() == b"host" for name, _ in encoded):
            raise ValueError("a request needs exactly one Host header, not 2")
        checked = b"".join(_field_line(name, value) for name, value in encoded)
        if len(_CHECKED_FIELDS) < CHECKED_FIELD_SETS:
            _CHECKED_FIELDS[fields] = checked
    return checked


def _request_line(method: bytes, target: bytes) -> bytes:
    if not _TOKEN.fullmatch(method) or not _TARGET.fullmatch(target):
        raise ValueError(f"illegal request method or target ({method!r} {target!r})")
    return b"%s %s HTTP/1.1\r\n" % (method, target)


def _field_line(name: bytes, value: bytes) -> bytes:
    if not _TOKEN.fullmatch(name) or not _FIELD_VALUE.fullmatch(value):
        raise ValueError(f"illegal request header ({name!r}: {value!r})")
    return b"%s: %s\r\n" % (name, value)


def request_head(request: httpx.Request) -> bytes:
    """``request``'s request line and header fields as they go on the wire (:func:`build_head`)."""
    return build_head(request.method, request.url.raw_path, request.headers.raw)


def build_head(method_name: str, target: bytes, fields: Iterable[tuple[bytes, bytes]]) -> bytes:
    """A request line and header fields as they go on the wire, checked as h11 checked them
    (RFC 9110: the method and header names are tokens, no CR, LF or NUL in a value or the
    target, exactly one Host); a ValueError naming the offending part when one is illegal (a
    bug of the caller's: recorded as ``internal``)."""
    lines = [_request_line(method_name.encode("ascii"), target)]
    hosts = 0
    for name, value in fields:
        lines.append(_field_line(name, value))
        hosts += name.lower() == b"host"
    if hosts != 1:
        raise ValueError(f"a request needs exactly one Host header, not {hosts}")
    lines.append(b"\r\n")
    return b"".join(lines)


class _Stop(Exception):  # noqa: N818 - not an error: raised in a parser callback to stop it
    """Raised inside a parser callback to stop the parser where it is."""


class _Answer:
    """One answer as httptools (llhttp) reads it: its callbacks fill this in.

    1xx answers are skipped (their heads parsed and dropped). Once the answer has ended, a
    further answer beginning (bytes the server sent after it) stops the parser and marks the
    connection as not to be reused: those bytes are no answer to anything asked.
    """

    __slots__ = (
        "parser", "status", "reason", "headers", "head_size", "head_done", "done", "trailing", "body",
        "framed", "keep_alive", "informational",
    )  # fmt: skip

    def __init__(self) -> None:
        # A cycle (the parser holds this answer), broken by drop_parser() once it is read.
        self.parser: httptools.HttpResponseParser | None = httptools.HttpResponseParser(self)
        self.status, self.reason = 0, b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.head_size = 0  # bytes of the current head's header fields, as parsed
        self.head_done = self.done = self.trailing = self.informational = False
        self.body: list[bytes] = []  # body bytes parsed and not yet handed on
        self.framed = False  # a Content-Length or Transfer-Encoding says where the body ends
        self.keep_alive = False  # HTTP/1.1, and neither side said close (llhttp's word)

    def new_parser(self) -> None:
        """Parse what follows as a new answer head (an answer to HEAD: one head at a time)."""
        self.parser = httptools.HttpResponseParser(self)

    def drop_parser(self) -> None:
        """Forget the parser (which holds this answer: the two would wait for the collector)."""
        self.parser = None

    def on_message_begin(self) -> None:
        if self.done:
            self.trailing = True
            raise _Stop
        self.reason, self.headers, self.head_size, self.framed = b"", [], 0, False

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_size += len(name) + len(value) + 4
        if self.head_size > MAX_HEAD_BYTES:
            raise ProtocolError(f"the answer's head is longer than {MAX_HEAD_BYTES} bytes")
        self.headers.append((name, value))
        lower = name.lower()
        if lower == b"content-length":
            self.framed = True
        elif lower == b"transfer-encoding":
            # As h11: chunked is the one coding a client must read; another (or chunked not
            # last) would leave the body running to the close, with no way to tell a cut one.
            if value.strip().lower() != b"chunked":
                raise ProtocolError(f"Transfer-Encoding {value[:40]!r} is not supported, only chunked")
            self.framed = True

    def on_headers_complete(self) -> None:
        parser = self.parser
        assert parser is not None  # a callback of that parser
        status = parser.get_status_code()
        if status < 200:  # a 1xx: the answer follows (101 raises HttpParserUpgrade after this)
            self.informational = True
            return
        self.status, self.head_done = status, True
        # Asked now: llhttp forgets the head's flags once the answer ends.
        self.keep_alive = parser.should_keep_alive() and parser.get_http_version() == "1.1"

    def on_body(self, data: bytes) -> None:
        self.body.append(data)

    def on_message_complete(self) -> None:
        self.done = self.head_done  # a 1xx ends too: the real answer follows


class _Due:
    """When the answer being read in a pipeline is due: the first within the deadline of a
    request (connecting included), each next one within that deadline of the end of the one
    before (a server answers them in turn), and, since a server that dropped the requests
    after the first would never answer, within :data:`PIPELINE_PATIENCE` times what the
    first took (:data:`PIPELINE_STALL` at the least)."""

    __slots__ = ("deadline", "started", "at", "patience")

    def __init__(self, deadline: float, now: float) -> None:
        self.deadline, self.started, self.at = deadline, now, now + deadline
        self.patience: float | None = None  # set by the first answer

    def left(self, now: float) -> float:
        """Seconds until the answer being read is due (a read's timeout: 0 when past)."""
        return max(0.0, self.at - now)

    def answered(self, now: float) -> None:
        """An answer (or several) ended at ``now``: the next one is due."""
        if self.patience is None:  # the first: it sets the patience
            self.patience = min(self.deadline, max(PIPELINE_STALL, PIPELINE_PATIENCE * (now - self.started)))
        self.at = now + self.patience


class _Pipelined(_Answer):
    """The answers to pipelined requests on one parser, each kept whole (:meth:`take`) once
    it ends; ``stopped`` at a body over its cap, an answer that closes, bytes past the last."""

    __slots__ = ("caps", "size", "stopped", "_ready", "_count")

    def __init__(self, caps: list[int]) -> None:
        super().__init__()
        self.caps, self.size, self.stopped = caps, 0, False
        self._ready: list[Reply] = []
        self._count = 0  # answers ended so far

    def on_message_begin(self) -> None:
        if self._count >= len(self.caps):  # more answers than requests: none of them is kept
            self.trailing = self.stopped = True
            raise _Stop
        self.reason, self.headers, self.head_size, self.framed = b"", [], 0, False
        self.body, self.size, self.head_done, self.done = [], 0, False, False

    def on_body(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.caps[self._count]:  # left to a request of its own, which refuses it
            self.stopped = True
            raise _Stop
        self.body.append(data)

    def on_message_complete(self) -> None:
        if not self.head_done:  # a 1xx ended: its answer follows
            return
        self._keep_answer()

    def _keep_answer(self) -> None:
        self.done = True
        self._ready.append(Reply.whole(self.status, self.reason, self.headers, b"".join(self.body)))
        self._count += 1
        self.stopped = self.stopped or not self.keep_alive

    def feed(self, data: bytes) -> None:
        """Parse ``data``: a ProtocolError when it breaks HTTP/1.1 before an answer ended."""
        assert self.parser is not None
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade as exc:
            raise ProtocolError("the server switched protocols, which was not asked") from exc
        except httptools.HttpParserError as exc:
            if isinstance(exc.__context__, ProtocolError):  # raised by a callback (a cap)
                raise exc.__context__ from None
            if not isinstance(exc.__context__, _Stop):
                raise ProtocolError(f"the answer breaks HTTP/1.1 ({exc})") from exc

    def ended(self, heard: bool) -> None:
        """The server closed the connection: an answer whose body runs to the close ends here;
        one cut before its end is a ProtocolError when it is the first (as for one request)."""
        self.stopped = True
        if self.head_done and not self.done and not self.framed:
            self.keep_alive = False
            self._keep_answer()
        elif self._count == 0:
            raise ProtocolError(_cut_sentence(self.head_done, heard))

    def take(self) -> list[Reply]:
        """The answers ended since the last call."""
        ready, self._ready = self._ready, []
        return ready

    def reusable(self) -> bool:
        """Every answer ended, the last one keeps the connection, and nothing came after it."""
        return self.keep_alive and not self.trailing and not (self.stopped and not self.done)


class _Exchange:
    """One request and the reading of its answer on a connection."""

    def __init__(self, request: bytes, head_only: bool, timeouts: dict) -> None:
        self.request, self.head_only = request, head_only
        self.read_timeout, self.write_timeout = timeouts.get("read"), timeouts.get("write")

    async def on(self, connection: _Connection) -> _Answer:
        """Write the request whole and read until the answer's head; a connection that
        failed or was cancelled on the way is closed."""
        try:
            answer = connection.start(self.head_only, self.read_timeout)
            await connection.stream.write(self.request, self.write_timeout)
            while not answer.head_done:
                await connection.receive(answer)
            return answer
        except BaseException:
            connection.close()
            raise


class _Connection:
    """One socket and the answer being read on it."""

    def __init__(self, stream: NetworkStream) -> None:
        self.stream = stream
        self.idle_since = time.monotonic()
        self.heard = False  # a byte of the current exchange's answer arrived
        self.answer: _Answer | None = None
        self._head_only = False
        self._unparsed = b""  # an answer to HEAD: bytes read and not yet parsed
        self._pending = 0  # bytes read while the current head is incomplete
        self._timeout: float | None = None

    def start(self, head_only: bool, read_timeout: float | None) -> _Answer:
        """Get ready to read the answer to a new request (``head_only``: to HEAD)."""
        self.heard, self._head_only, self._timeout = False, head_only, read_timeout
        self._unparsed, self._pending = b"", 0
        self.answer = _Answer()
        return self.answer

    def usable(self) -> bool:
        """Idle for less than the keep-alive expiry, and not closed by the server (an
        idle connection with something to read has been closed or is broken)."""
        fresh = time.monotonic() - self.idle_since < KEEPALIVE_EXPIRY
        return fresh and not self.stream.get_extra_info("is_readable")

    async def receive(self, answer: _Answer) -> None:
        """Read once and parse what came; at the end of the stream, end the answer or fail."""
        data = await self.stream.read(READ_SIZE, self._timeout)
        if not data:
            self._ended(answer)
            return
        self.heard = True
        if self._head_only:
            self._feed_heads(answer, data)
        else:
            _feed(answer, data)
        if answer.head_done:
            return
        if answer.informational:  # a 1xx head ended: the cap counts the next head alone
            answer.informational, self._pending = False, 0
        self._pending += len(data)
        if self._pending > MAX_HEAD_BYTES + READ_SIZE:  # one header too long to finish parsing
            raise ProtocolError(f"the answer's head is longer than {MAX_HEAD_BYTES} bytes")

    def _feed_heads(self, answer: _Answer, data: bytes) -> None:
        """Parse the heads in ``data`` (an answer to HEAD): llhttp cannot be told that such an
        answer has no body whatever its Content-Length or Transfer-Encoding say (httptools
        does not pass on llhttp's skip-body return), so each head, ending at its empty line
        (llhttp takes no other line end), is parsed alone."""
        self._unparsed += data
        while not answer.head_done:
            end = self._unparsed.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self._unparsed = self._unparsed[: end + 4], self._unparsed[end + 4 :]
            answer.new_parser()
            _feed(answer, head)
        answer.done, answer.trailing = True, bool(self._unparsed)

    def _ended(self, answer: _Answer) -> None:
        """The server closed the connection: the answer ends here if its body runs to the
        close, else it was cut."""
        if not answer.head_done or answer.framed:
            raise ProtocolError(_cut_sentence(answer.head_done, self.heard))
        answer.done, answer.keep_alive = True, False  # the body ran to the close

    def reusable(self) -> bool:
        """This answer was read to its end, both sides may go on, and the server sent nothing
        after it (those bytes would be read as the next answer)."""
        answer = self.answer
        return answer is not None and answer.done and answer.keep_alive and not answer.trailing

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
        if self.answer is not None:
            self.answer.drop_parser()
        sock = self.stream.get_extra_info("socket")
        if sock is not None:
            sock.close()


def _cut_sentence(head_done: bool, heard: bool) -> str:
    """What a connection the server closed before its answer ended says."""
    if head_done:
        return "the server closed the connection before the answer's body ended"
    if heard:
        return "the server closed the connection before its answer's head ended"
    return "the server closed the connection without answering"


def _feed(answer: _Answer, data: bytes) -> None:
    """Parse ``data`` into ``answer``: a ProtocolError when it breaks HTTP/1.1 (bytes after
    the answer's end only mark it ``trailing``)."""
    assert answer.parser is not None  # dropped only once the answer is read whole
    try:
        answer.parser.feed_data(data)
    except httptools.HttpParserUpgrade as exc:
        raise ProtocolError("the server switched protocols, which was not asked") from exc
    except httptools.HttpParserError as exc:
        if answer.done:  # bytes after the end (a second answer, or garbage): the answer stands
            answer.trailing = True
            return
        if isinstance(exc.__context__, ProtocolError):  # raised by a callback (a cap)
            raise exc.__context__ from None
        raise ProtocolError(f"the answer breaks HTTP/1.1 ({exc})") from exc


class _Body(httpx.AsyncByteStream):
    """The answer's body as it arrives; the connection goes back to the pool when it ends."""

    def __init__(self, connection: _Connection, transport: HostTransport, timeout: float | None) -> None:
        self._connection: _Connection | None = connection
        self._transport, self._timeout = transport, timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None or connection.answer is None:
            return
        answer = connection.answer
        while True:
            if answer.body:
                chunks, answer.body = answer.body, []
                for chunk in chunks:
                    yield chunk
            if answer.done:
                self._finish(connection)
                return
            try:
                await connection.receive(answer)
            except BaseException:
                await self.aclose()
                raise

    def arrived(self) -> bytes | None:
        """The whole body when all of it has arrived already (the connection then goes back
        to its pool), else None (nothing taken: iterate)."""
        connection = self._connection
        answer = connection.answer if connection is not None else None
        if connection is None or answer is None or not answer.done:
            return None
        chunks, answer.body = answer.body, []
        self._finish(connection)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _finish(self, connection: _Connection) -> None:
        self._connection = None
        if connection.answer is not None:
            connection.answer.drop_parser()
        if connection.reusable():
            connection.idle_since = time.monotonic()
            self._transport.keep(connection)
        else:
            connection.close()

    async def aclose(self) -> None:
        """An answer not read to its end leaves its connection unusable: close it."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


class ReplyHeaders:
    """An answer's header fields as the fetch policy reads them: names in lower case, values
    decoded as httpx decodes them (ASCII, else UTF-8, else Latin-1, the one that reads them
    all), the values of a repeated name joined by ", " for :meth:`get`."""

    __slots__ = ("_items", "_joined")

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self._items = _decoded(raw)
        self._joined: dict[str, str] | None = None

    def multi_items(self) -> list[tuple[str, str]]:
        """Every field as ``(lower-case name, value)``, in the order they came."""
        return self._items

    def get(self, name: str, default: str | None = None) -> str | None:
        """The value of ``name`` (any case), its repeats joined by ", "; else ``default``."""
        return self.joined().get(name.lower(), default)

    def joined(self) -> dict[str, str]:
        """Every name (lower case) and its value, a repeated name's values joined by ", "."""
        joined = self._joined
        if joined is None:
            joined = self._joined = {}
            for key, value in self._items:
                joined[key] = f"{joined[key]}, {value}" if key in joined else value
        return joined


def _decoded(raw: list[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    for encoding in ("ascii", "utf-8"):
        try:
            return [(name.lower().decode(encoding), value.decode(encoding)) for name, value in raw]
        except UnicodeDecodeError:
            continue
    return [(name.lower().decode("latin-1"), value.decode("latin-1")) for name, value in raw]


class Reply:
    """An answer as the fetch policy reads it (:meth:`HostTransport.exchange`): the status,
    the reason phrase, :class:`ReplyHeaders` and the body as it arrives, with the names
    httpx.Response gives them (``status_code``, ``reason_phrase``, ``headers``,
    ``aiter_raw()``, ``is_stream_consumed``, ``aclose()``).

    Why not an httpx.Response: building one normalises every header into an httpx.Headers
    and wraps the body in two more async generators; for the crawl's small answers that
    was about a tenth of the fetch path's CPU (benchmarks/bench_fetch.py; docs/benchmarks.md,
    issue 35). Streams read by the MCP probes and the second opinion still get an
    httpx.Response (:meth:`HostTransport.request`)."""

    __slots__ = ("status_code", "reason_phrase", "headers", "is_stream_consumed", "received_at", "_body")

    def __init__(self, answer: _Answer, body: _Body) -> None:
        self.status_code = answer.status
        self.reason_phrase = answer.reason.decode("ascii", errors="ignore")
        self.headers = ReplyHeaders(answer.headers)
        self.is_stream_consumed = False
        self.received_at = 0.0  # set for an answer read whole (:meth:`whole`)
        self._body: _Body | _Read | None = body

    @classmethod
    def whole(cls, status: int, reason: bytes, raw_headers: list[tuple[bytes, bytes]], body: bytes) -> Reply:
        """An answer read whole already (a pipelined one): its body is there to take, and
        ``received_at`` says when (``time.monotonic()``) it ended."""
        reply = cls.__new__(cls)
        reply.status_code, reply.reason_phrase = status, reason.decode("ascii", errors="ignore")
        reply.headers, reply.is_stream_consumed = ReplyHeaders(raw_headers), False
        reply._body, reply.received_at = _Read(body), time.monotonic()
        return reply

    def arrived(self) -> bytes | None:
        """The whole body, when all of it has arrived with the head (a small answer: most of
        a crawl's), read at once without iterating; else None, and :meth:`aiter_raw` reads it."""
        if self.is_stream_consumed or self._body is None:
            return None
        whole = self._body.arrived()
        if whole is not None:
            self.is_stream_consumed = True
        return whole

    def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (once: a second reading is an error, as httpx's)."""
        if self.is_stream_consumed or self._body is None:
            raise RuntimeError("the answer's body was read already")
        self.is_stream_consumed = True
        return self._body.__aiter__()

    async def aclose(self) -> None:
        """Drop the body unread (its connection is closed) or, once read, nothing."""
        body, self._body = self._body, None
        if body is not None:
            await body.aclose()


class _Read:
    """The body of an answer read whole (:meth:`Reply.whole`), as :class:`_Body` hands one on."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = data

    def arrived(self) -> bytes:
        return self._data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._data:
            yield self._data

    async def aclose(self) -> None:
        """Nothing to close: the connection went on without it."""


# A pipelined request: its URL, its header fields and its body cap.
PipelinedRequest = tuple[URLParts, list[tuple[str, str]], int]

"""A real HTTPS server on 127.0.0.1 whose every path misbehaves on purpose.

Use it from a test module with
``from netfixtures import tls_ca, tls_server, tls_server_session  # noqa: F401``
(pytest puts ``tests/`` on ``sys.path``). The server runs its own asyncio loop in a
background thread, so sync and async tests can both use it. Its certificate (from a
throwaway ``trustme`` CA) names ``a.test``, ``b.test``, ``*.sample.test``, ``localhost`` and
``127.0.0.1``; point a Fetcher at it with ``connect_to=server.connect_to`` and
``ca_bundle=server.ca_path``, and request ``https://a.test/...`` on the default port.

Paths (the same on every host name; the Host header says which one was asked):

    /json               200 JSON {"host", "path"}       /html          200 text/html
    /slow               0.2 s pause, then /json           /echo          JSON of the request
    /set-cookie         200 with a Set-Cookie header      /etag          304 when If-None-Match is "v1"
    /drip/N             N bytes, one every 0.5 s          /drip          100 bytes that way
    /chain/N            N redirects (relative), then /json
    /loop               redirects to itself               /to-other      redirects to https://b.test/json
    /to-http            redirects to http://a.test/json   /to-private    redirects to https://localhost/json
    /big/N              N bytes, no Content-Length        /big-cl/N      N bytes with Content-Length
    /huge-length        announces 10 GB, sends 10 bytes   /cut           announces 1000, sends 100, closes
    /gzip, /deflate, /raw-deflate   small JSON, compressed
    /bomb               gzip: ~50 KB expanding to 50 MB   /badgzip       "gzip" that is not
    /gzip-cut           the first half of a gzip body
    /status/CODE        that status                       /flaky/CODE/N  CODE for the first N hits, then 200
    /robots.txt         ``server.robots[host]``: text (200) or an int status; 404 when absent
    /.well-known/agent-app.json   200 JSON

Every request is counted: ``server.hits[(host, path)]``; ``server.max_active[host]`` and
``server.max_active_all`` are the most requests seen in progress at once (counted while a
handler runs, before its answer is written). ``server.routes[path] = handler`` adds a path:
``async def handler(request: Request) -> Reply``.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import json
import socket
import ssl
import threading
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trustme

CERT_NAMES = ("a.test", "b.test", "*.sample.test", "localhost", "127.0.0.1")
DRIP_INTERVAL = 0.5


@dataclass
class Request:
    """One parsed request."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes

    @property
    def host(self) -> str:
        """The Host header without its port."""
        return self.headers.get("host", "").rsplit(":", 1)[0].lower()


Writer = Callable[[asyncio.StreamWriter], Awaitable[None]]


@dataclass
class Reply:
    """An answer: status, headers, body; ``stream`` writes the body itself when given."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = "application/json"
    length: bool = True  # send Content-Length (else the body ends when the connection does)
    stream: Writer | None = None
    reason: str | None = None  # the status line's reason phrase (default: the usual one)

    def head(self) -> bytes:
        reason = self.reason or _REASONS.get(self.status, "Status")
        lines = [f"HTTP/1.1 {self.status} {reason}", "Connection: close"]
        if self.content_type:
            lines.append(f"Content-Type: {self.content_type}")
        if self.length and "Content-Length" not in self.headers:
            lines.append(f"Content-Length: {len(self.body)}")
        lines += [f"{k}: {v}" for k, v in self.headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


_REASONS = {
    200: "OK", 301: "Moved Permanently", 302: "Found", 304: "Not Modified", 400: "Bad Request",
    404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
    503: "Service Unavailable", 504: "Gateway Timeout",
}  # fmt: skip

Handler = Callable[[Request], Awaitable[Reply]]


def json_reply(data: object, status: int = 200, **headers: str) -> Reply:
    """A JSON answer."""
    return Reply(status, json.dumps(data).encode(), dict(headers))


def redirect(location: str, status: int = 302) -> Reply:
    """A redirect answer."""
    return Reply(status, b"", {"Location": location}, content_type=None)


@functools.cache
def gzip_bomb() -> bytes:
    """~50 KB of gzip that inflates to 50 MB of zeros (built once, a megabyte at a time)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1024 * 1024)
    return b"".join(packer.compress(chunk) for _ in range(50)) + packer.flush()


class TLSServer:
    """The fault-injection server; see the module docstring for its paths."""

    def __init__(self, ca: trustme.CA, ca_path: Path, cert: trustme.LeafCert | None = None) -> None:
        self.ca_path = ca_path
        self._context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        (cert or ca.issue_cert(*CERT_NAMES)).configure_cert(self._context)
        self.routes: dict[str, Handler] = {}
        self.robots: dict[str, str | int] = {}
        self.hits: Counter[tuple[str, str]] = Counter()
        self.max_active: Counter[str] = Counter()
        self.max_active_all = 0
        self._active: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="netfixtures-tls", daemon=True)

    @property
    def connect_to(self) -> list[tuple[str, str, int]]:
        """Every host name to this server."""
        return [("*", "127.0.0.1", self.port)]

    def start(self) -> TLSServer:
        ready = threading.Event()
        self._ready = ready
        self._thread.start()
        if not ready.wait(60):  # a generous cap: a loaded machine may start the thread late
            raise RuntimeError("the TLS test server did not start")
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        loop = self._loop
        asyncio.set_event_loop(loop)
        # Handshakes the client aborts on purpose (wrong name, unknown CA) are expected.
        loop.set_exception_handler(lambda _loop, _context: None)
        server = loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self._context))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if request is not None:
                reply = await self._dispatch(request)
                await _write(writer, reply)
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the client went away: that is what several tests do on purpose
        finally:
            writer.close()

    async def _dispatch(self, request: Request) -> Reply:
        host = request.host
        with self._lock:
            self.hits[(host, request.path)] += 1
            self._active[host] += 1
            self.max_active[host] = max(self.max_active[host], self._active[host])
            self.max_active_all = max(self.max_active_all, sum(self._active.values()))
        try:
            return await self._handler_for(request.path)(request)
        finally:
            with self._lock:
                self._active[host] -= 1

    def _handler_for(self, path: str) -> Handler:
        if path in self.routes:
            return self.routes[path]
        name, _, arg = path.strip("/").partition("/")
        handler = _PREFIX_ROUTES.get(name)
        if handler is not None:
            return functools.partial(handler, self, arg)
        return _not_found

    def reset(self) -> None:
        """Forget counters, added routes and robots rules (between tests)."""
        with self._lock:
            self.hits.clear()
            self.max_active.clear()
            self.max_active_all = 0
            self.routes.clear()
            self.robots.clear()

    def hit_count(self, host: str, path: str) -> int:
        """How many requests ``host`` got for ``path``."""
        with self._lock:
            return self.hits[(host, path)]


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (asyncio.LimitOverrunError, asyncio.IncompleteReadError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = await reader.readexactly(length) if length else b""
    path, _, query = target.partition("?")
    return Request(method, path, query, headers, body)


async def _write(writer: asyncio.StreamWriter, reply: Reply) -> None:
    writer.write(reply.head())
    if reply.stream is not None:
        await reply.stream(writer)
    else:
        writer.write(reply.body)
    await writer.drain()


# -- the paths ---------------------------------------------------------------------------


async def _not_found(request: Request) -> Reply:
    return json_reply({"error": "not found", "path": request.path}, 404)


async def _json(server: TLSServer, arg: str, request: Request) -> Reply:
    return json_reply({"host": request.host, "path": request.path})


async def _html(server: TLSServer, arg: str, request: Request) -> Reply:
    return Reply(body=b"<html><body>not json</body></html>", content_type="text/html; charset=utf-8")


async def _slow(server: TLSServer, arg: str, request: Request) -> Reply:
    await asyncio.sleep(0.2)
    return json_reply({"host": request.host, "path": request.path})


async def _echo(server: TLSServer, arg: str, request: Request) -> Reply:
    return json_reply({"method": request.method, "headers": request.headers, "body": request.body.decode("latin-1")})


async def _set_cookie(server: TLSServer, arg: str, request: Request) -> Reply:
    return json_reply({"ok": True}, **{"Set-Cookie": "session=secret; Path=/; Secure"})


async def _etag(server: TLSServer, arg: str, request: Request) -> Reply:
    validators = {"ETag": '"v1"', "Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT"}
    if request.headers.get("if-none-match") == '"v1"':
        return Reply(304, b"", validators, content_type=None, length=False)
    return json_reply({"version": 1}, **validators)


async def _drip(server: TLSServer, arg: str, request: Request) -> Reply:
    count = int(arg or 100)

    async def stream(writer: asyncio.StreamWriter) -> None:
        for _ in range(count):
            await asyncio.sleep(DRIP_INTERVAL)
            writer.write(b"x")
            await writer.drain()

    return Reply(headers={"Content-Length": str(count)}, content_type="text/plain", length=False, stream=stream)


async def _chain(server: TLSServer, arg: str, request: Request) -> Reply:
    left = int(arg or 0)
    return redirect(f"/chain/{left - 1}") if left > 0 else json_reply({"host": request.host, "path": request.path})


async def _loop(server: TLSServer, arg: str, request: Request) -> Reply:
    return redirect("/loop")


async def _to(server: TLSServer, arg: str, request: Request) -> Reply:
    targets = {"other": "https://b.test/json", "http": "http://a.test/json", "private": "https://localhost/json"}
    return redirect(targets[arg])


async def _big(server: TLSServer, arg: str, request: Request) -> Reply:
    return Reply(body=b"y" * int(arg), content_type="text/plain", length=False)


async def _big_cl(server: TLSServer, arg: str, request: Request) -> Reply:
    return Reply(body=b"y" * int(arg), content_type="text/plain")


async def _huge_length(server: TLSServer, arg: str, request: Request) -> Reply:
    return Reply(body=b"z" * 10, headers={"Content-Length": str(10**10)}, content_type="text/plain")


async def _cut(server: TLSServer, arg: str, request: Request) -> Reply:
    return Reply(body=b"c" * 100, headers={"Content-Length": "1000"}, content_type="text/plain")


_SMALL = json.dumps({"compressed": True, "items": list(range(50))}).encode()


async def _encoded(server: TLSServer, arg: str, request: Request) -> Reply:
    kind = request.path.strip("/")
    bodies = {
        "gzip": ("gzip", gzip.compress(_SMALL)),
        "deflate": ("deflate", zlib.compress(_SMALL)),
        "raw-deflate": ("deflate", zlib.compress(_SMALL)[2:-4]),
        "bomb": ("gzip", gzip_bomb()),
        "badgzip": ("gzip", b"this is not gzip at all"),
        "gzip-cut": ("gzip", gzip.compress(_SMALL)[: len(gzip.compress(_SMALL)) // 2]),
    }
    encoding, body = bodies[kind]
    return Reply(body=body, headers={"Content-Encoding": encoding})


async def _status(server: TLSServer, arg: str, request: Request) -> Reply:
    return json_reply({"status": int(arg)}, int(arg))


async def _flaky(server: TLSServer, arg: str, request: Request) -> Reply:
    code, _, times = arg.partition("/")
    if server.hit_count(request.host, request.path) <= int(times or 1):
        extra = {"Retry-After": "0"} if code == "429" else {}
        return json_reply({"status": int(code)}, int(code), **extra)
    return json_reply({"host": request.host, "path": request.path})


async def _robots(server: TLSServer, arg: str, request: Request) -> Reply:
    rules = server.robots.get(request.host)
    if rules is None:
        return await _not_found(request)
    if isinstance(rules, int):
        return Reply(rules, b"unavailable", content_type="text/plain")
    return Reply(body=rules.encode(), content_type="text/plain")


async def _well_known(server: TLSServer, arg: str, request: Request) -> Reply:
    if arg == "agent-app.json":
        return json_reply({"name": "Sample", "host": request.host})
    return await _not_found(request)


_PREFIX_ROUTES = {
    "json": _json, "html": _html, "slow": _slow, "echo": _echo, "set-cookie": _set_cookie,
    "etag": _etag, "drip": _drip, "chain": _chain, "loop": _loop,
    "big": _big, "big-cl": _big_cl, "huge-length": _huge_length, "cut": _cut, "gzip": _encoded,
    "deflate": _encoded, "raw-deflate": _encoded, "bomb": _encoded, "badgzip": _encoded,
    "gzip-cut": _encoded, "status": _status, "flaky": _flaky, "robots.txt": _robots,
    ".well-known": _well_known,
}  # fmt: skip


def _to_named(target: str) -> Callable[..., Awaitable[Reply]]:
    async def handler(server: TLSServer, arg: str, request: Request) -> Reply:
        return await _to(server, target, request)

    return handler


_PREFIX_ROUTES.update(
    {"to-other": _to_named("other"), "to-http": _to_named("http"), "to-private": _to_named("private")}
)


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tls_ca(tmp_path_factory: pytest.TempPathFactory) -> tuple[trustme.CA, Path, trustme.LeafCert]:
    """A throwaway CA, the path of its PEM and a server certificate for CERT_NAMES (one per session)."""
    ca = trustme.CA()
    path = tmp_path_factory.mktemp("tls-ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return ca, path, ca.issue_cert(*CERT_NAMES)


@pytest.fixture(scope="session")
def tls_server_session(tls_ca: tuple[trustme.CA, Path, trustme.LeafCert]) -> Iterator[TLSServer]:
    """The fault-injection server, started once per session."""
    server = TLSServer(*tls_ca).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def tls_server(tls_server_session: TLSServer) -> TLSServer:
    """The fault-injection server on 127.0.0.1 with fresh counters, routes and robots."""
    tls_server_session.reset()
    return tls_server_session


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BlackHole:
    """A loopback address and port where a connection never completes: a host that drops
    every packet (its firewall, or an address that routes nowhere), without leaving the
    machine. A listening socket that never accepts, its one-place queue filled by a
    connection of its own: the kernel then drops every later SYN, and a connect waits until
    its own timeout. ``with BlackHole() as hole:`` gives ``hole.address`` and ``hole.port``;
    ``address`` may be ``"::1"``, or another loopback address (``127.0.0.2``) so that a
    server on the same port elsewhere on 127/8 answers beside it."""

    def __init__(self, address: str = "127.0.0.1", port: int = 0) -> None:
        self.address, self.port = address, port
        self._sockets: list[socket.socket] = []

    def __enter__(self) -> BlackHole:
        family = socket.AF_INET6 if ":" in self.address else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        self._sockets.append(listener)
        listener.bind((self.address, self.port))
        listener.listen(0)  # a queue of one: Linux keeps backlog + 1 completed connections
        self.port = listener.getsockname()[1]
        filler = socket.socket(family, socket.SOCK_STREAM)
        self._sockets.append(filler)
        filler.connect((self.address, self.port))  # completes at once: the queue is now full
        return self

    def __exit__(self, *exc_info: object) -> None:
        for sock in self._sockets:
            sock.close()

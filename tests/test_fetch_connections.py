"""Connection reuse: a crawl pays one TLS handshake per connection, not per request.

A real keep-alive HTTPS server on 127.0.0.1 (trustme CA) counts the connections it
accepts; the Fetcher must send a host's requests over the connections it already has,
keep them after a 304, never share one between hosts, and drop the pools of hosts it
has not used for a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import trustme

from agentdex.crawler.fetch import Fetcher
from conftest import cli_env
from waiting import eventually

ETAG = '"v1"'


class KeepAliveServer:
    """HTTP/1.1 over TLS with keep-alive; ``connections`` counts accepted connections."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.context = context
        self.connections = 0
        self.hosts: list[str] = []  # the Host of each connection's first request
        self.requests: list[tuple[int, str]] = []  # (connection number, path) of every request read
        self.headers: list[dict[str, str]] = []  # the headers of every request read
        self.port = 0
        self.resumed: list[bool] = []  # whether each connection resumed an earlier TLS session

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.resumed.append(writer.get_extra_info("ssl_object").session_reused)
        number = self.connections
        first, drop_next = True, False
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                if drop_next:
                    break  # closed as the request arrived: the race of a server ending an idle keep-alive
                method, path = head[0].split(" ")[:2]
                self.requests.append((number, path))
                headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
                self.headers.append(headers)
                if first:
                    self.hosts.append(headers.get("host", ""))
                    first = False
                answer = self._whoami() if path == "/whoami" else _answer(path, headers)
                writer.write(answer.partition(b"\r\n\r\n")[0] + b"\r\n\r\n" if method == "HEAD" else answer)
                await writer.drain()
                drop_next = path == "/drop-next"
                if path == "/stall":
                    await reader.read()  # the rest of the body never comes: until the client hangs up
                if path == "/half-close":
                    # TCP FIN on our side only: we would still read a request, never answer it
                    await asyncio.sleep(0.01)
                    writer.get_extra_info("socket").shutdown(socket.SHUT_WR)
                if path in CLOSING:
                    break  # "/bye" closes without saying so: as a server ending an idle keep-alive does
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    def _whoami(self) -> bytes:
        body = str(self.port).encode()
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def said_goodbye(port: int) -> bool:
    """Whether every connection of this machine's to the server on ``port`` that is still
    established holds what the server sent last (a closing server's TLS close_notify: bytes
    waiting), as Linux's /proc/net/tcp shows; a FIN (CLOSE_WAIT), or the client's own close,
    leaves none established. The client can then see the server has gone: a test need not
    guess how long that takes on a busy machine."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        _, _, remote, state, queues, *_ = line.split()
        established, waiting = state == "01", int(queues.split(":")[1], 16)
        if int(remote.split(":")[1], 16) == port and established and not waiting:
            return False
    return True


CLOSING = ("/bye", "/closing", "/cut", "/stall", "/old")
SPECIAL = {
    # 100 bytes announced, 5 sent, then the connection closes
    "/cut": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello",
    # 100 bytes announced, 5 sent, then nothing until the client gives up
    "/stall": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello",
    "/chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nchu\r\n4\r\nnked\r\n0\r\n\r\n",
    # HTTP/1.0 without keep-alive: the body ends where the connection does
    "/old": b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nold",
    "/continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    # 40 KB of headers: large, and still well under the 100 KB httpcore read before
    "/bighead": b"HTTP/1.1 200 OK\r\nX-Padding: " + b"p" * 40_000 + b"\r\nContent-Length: 3\r\n\r\nbig",
    "/drop-next": b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndrop",
    "/half-close": b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nhalf",
    # heads of 99 KB (under the 100 KB the transport reads) and 200 KB (over it)
    "/head-99k": b"HTTP/1.1 200 OK\r\nX-Padding: " + b"p" * 99_000 + b"\r\nContent-Length: 3\r\n\r\nbig",
    "/head-200k": b"HTTP/1.1 200 OK\r\nX-Padding: " + b"p" * 200_000 + b"\r\nContent-Length: 3\r\n\r\nbig",
    # no body whatever the headers say (RFC 9112 6.3): a 304 or 204 with a Content-Length, and
    # the answer to HEAD below with chunked framing
    "/304-length": b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\nContent-Length: 5\r\n\r\n',
    "/204-length": b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
    "/head-chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nchu\r\n0\r\n\r\n",
    # a body longer than announced: the extra bytes are a second answer nobody asked for
    "/extra": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfake!",
}


def _answer(path: str, headers: dict[str, str]) -> bytes:
    if path in SPECIAL:
        return SPECIAL[path]
    if path == "/doc" and headers.get("if-none-match") == ETAG:
        return f"HTTP/1.1 304 Not Modified\r\nETag: {ETAG}\r\n\r\n".encode()
    if path == "/doc":
        return f"HTTP/1.1 200 OK\r\nETag: {ETAG}\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello".encode()
    if path in ("/bye", "/closing"):
        close = "Connection: close\r\n" if path == "/closing" else ""
        return f"HTTP/1.1 200 OK\r\n{close}Content-Length: 3\r\n\r\nbye".encode()
    return b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found"


@pytest.fixture
def tls(tmp_path: Path) -> tuple[ssl.SSLContext, Path]:
    """A server context for ``*.sample.test`` and the PEM of the CA that signed it (the
    server's key and certificate chain are also in ``server.pem`` beside it)."""
    ca = trustme.CA()
    ca_path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_path))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    leaf = ca.issue_cert("*.sample.test")
    leaf.configure_cert(context)
    leaf.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "server.pem"))
    return context, ca_path


# A raw-socket server (agentdex/sampleweb/rawsock.py) in a process of its own: in a thread of
# this one it would share the GIL with the client, and could never keep its socket full.
_RAW_SERVER = """
import ssl, sys
from agentdex.sampleweb.rawsock import RawServer
context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(sys.argv[2])
with RawServer(sys.argv[1], tls=context) as server:
    print(server.port, flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


@contextlib.contextmanager
def raw_server_process(behaviour: str, server_pem: Path) -> Iterator[int]:
    """The port of a :class:`RawServer` with ``behaviour`` running in a child process."""
    child = subprocess.Popen(
        [sys.executable, "-c", _RAW_SERVER, behaviour, str(server_pem)],
        env=cli_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield int(child.stdout.readline())
    finally:
        child.stdin.close()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


@pytest.fixture
async def server(tls) -> AsyncIterator[tuple[KeepAliveServer, Path]]:
    context, ca_path = tls
    keep_alive = KeepAliveServer(context)
    await keep_alive.start()
    yield keep_alive, ca_path
    await keep_alive.stop()


def fetcher_for(server: KeepAliveServer, ca_path: Path, **options: object) -> Fetcher:
    return Fetcher(connect_to=[("*", "127.0.0.1", server.port)], ca_bundle=ca_path, retries=0, deadline=5.0, **options)


async def get(fetcher: Fetcher, host: str, path: str = "/doc", etag: str | None = None):
    record = await fetcher.fetch(f"https://{host}{path}", kind="guide", max_bytes=1024, etag=etag, honour_robots=False)
    assert record.error_code in (None, "http_status"), record.error
    return record


async def test_a_new_connection_to_a_host_resumes_its_tls_session(server) -> None:
    # The server closes after each "/bye": every request needs a connection, and only the
    # first to a host name pays a full handshake (certificate sent and verified).
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        for _ in range(3):
            assert (await get(fetcher, "a.sample.test", "/bye")).body == b"bye"
        assert (await get(fetcher, "b.sample.test", "/bye")).body == b"bye"
    assert keep_alive.resumed == [False, True, True, False]


async def test_requests_to_one_host_share_a_connection(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        for _ in range(5):
            assert (await get(fetcher, "a.sample.test")).body == b"hello"
        await get(fetcher, "a.sample.test", "/missing")  # an error answer keeps it too
        await get(fetcher, "a.sample.test")
    assert keep_alive.connections == 1


async def test_a_304_answer_keeps_the_connection(server) -> None:
    # A recrawl is mostly 304s: each must not cost a new TLS handshake.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        for _ in range(4):
            record = await get(fetcher, "a.sample.test", etag=ETAG)
            assert record.not_modified and record.body is None
    assert keep_alive.connections == 1


async def test_hosts_never_share_a_connection(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        for host in ("a.sample.test", "b.sample.test", "a.sample.test", "b.sample.test"):
            await get(fetcher, host)
    assert keep_alive.connections == 2
    assert sorted(keep_alive.hosts) == ["a.sample.test", "b.sample.test"]


@pytest.mark.slow
async def test_two_ports_of_one_host_never_share_a_connection(tls) -> None:
    # Two servers on two ports of one host name (the resolver sends the name to 127.0.0.1,
    # the URL's port picks the server). An idle connection to one port must never carry a
    # request for the other: its answer would be stored under the wrong origin.
    context, ca_path = tls
    first, second = KeepAliveServer(context), KeepAliveServer(context)
    await first.start()
    await second.start()

    async def loopback(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    try:
        async with Fetcher(ca_bundle=ca_path, allow_private=True, resolver=loopback, retries=0) as fetcher:
            for server in (first, second, first, second, first):
                record = await get(fetcher, f"a.sample.test:{server.port}", "/whoami")
                assert record.body == str(server.port).encode()
    finally:
        await first.stop()
        await second.stop()
    assert (first.connections, second.connections) == (1, 1)  # each port's connection was kept and reused


async def test_the_pools_of_hosts_not_used_lately_are_closed(server) -> None:
    # concurrency=1 keeps the pools of the 2 hosts used last: after six other hosts,
    # the first one needs a new connection; the last one still has its own.
    keep_alive, ca_path = server
    hosts = [f"h{i}.sample.test" for i in range(7)]
    async with fetcher_for(keep_alive, ca_path, concurrency=1) as fetcher:
        for host in hosts:
            await get(fetcher, host)
        await get(fetcher, hosts[-1])
        assert keep_alive.connections == 7
        await get(fetcher, hosts[0])
    assert keep_alive.connections == 8


@pytest.mark.parametrize("path", ["/bye", "/closing"])
async def test_a_connection_the_server_closed_is_not_reused(server, path: str) -> None:
    # "/closing" says Connection: close; "/bye" just closes, as servers do with idle
    # keep-alive connections. Either way the next request opens a new connection and is
    # answered: a closed connection must never turn into a failed fetch.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        assert (await get(fetcher, "a.sample.test", path)).body == b"bye"
        assert await eventually(lambda: said_goodbye(keep_alive.port))  # its close reached the idle socket
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == 2


async def test_a_request_header_with_a_line_break_is_never_sent(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch(
            "https://a.sample.test/doc",
            kind="guide",
            max_bytes=1024,
            honour_robots=False,
            headers={"X-Note": "fine\r\nX-Injected: yes"},
        )
    # No header value (visible ASCII, agentdex.headers.field_value) is no header: the request
    # goes without it, as it goes without a server's non-ASCII Mcp-Session-Id.
    assert record.status == 200 and keep_alive.headers
    assert not any("x-note" in h or "x-injected" in h for h in keep_alive.headers)


async def test_an_answer_cut_mid_body_fails_and_leaves_no_connection_behind(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch("https://a.sample.test/cut", kind="guide", max_bytes=1024, honour_robots=False)
        assert record.error_code is not None and record.body is None
        assert (await get(fetcher, "a.sample.test")).body == b"hello"  # on a new connection
    assert keep_alive.connections == 2


async def test_a_fetch_stopped_by_its_deadline_mid_body_leaves_no_connection_behind(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        fetcher.deadline = 0.3
        record = await fetcher.fetch("https://a.sample.test/stall", kind="guide", max_bytes=1024, honour_robots=False)
        assert record.error_code == "timeout" and record.body is None
        fetcher.deadline = 5.0
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == 2


@pytest.mark.parametrize(
    ("path", "body", "connections"),
    [
        ("/chunked", b"chunked", 1),  # chunked framing read to its end: the connection is kept
        ("/continue", b"hello", 1),  # a 1xx before the answer is skipped
        ("/old", b"old", 2),  # an HTTP/1.0 answer without keep-alive: the next request opens another
        ("/bighead", b"big", 1),  # a head of 40 KB is read (a 1 MB one is refused: test_hostile_net)
    ],
)
async def test_each_framing_reads_the_whole_body_and_reuses_only_a_reusable_connection(
    server, path: str, body: bytes, connections: int
) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        assert (await get(fetcher, "a.sample.test", path)).body == body
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == connections


async def test_an_answer_to_head_has_no_body_and_keeps_the_connection(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch(
            "https://a.sample.test/doc", kind="guide", max_bytes=1024, method="HEAD", honour_robots=False
        )
        assert record.status == 200 and record.error_code is None and not record.body
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == 1


async def test_bytes_after_the_end_of_an_answer_are_never_read_as_the_next_answer(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        assert (await get(fetcher, "a.sample.test", "/extra")).body == b"ok"
        assert (await get(fetcher, "a.sample.test")).body == b"hello"  # not the server's "fake!"
    assert keep_alive.connections == 2


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/304-length", 304), ("GET", "/204-length", 204), ("HEAD", "/head-chunked", 200)],
)
async def test_an_answer_without_a_body_is_not_read_past_its_head_whatever_its_headers_announce(
    server, method: str, path: str, status: int
) -> None:
    # A 304 or 204 may carry the Content-Length of the representation; an answer to HEAD, the
    # framing a GET would have had. Waiting for those bytes would stall the fetch; taking the
    # next answer's bytes for them would hand the next request the wrong answer.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch(
            f"https://a.sample.test{path}", kind="guide", max_bytes=1024, method=method, honour_robots=False
        )
        assert record.status == status and not record.body and record.error_code != "timeout"
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == 1  # the connection was kept, its framing intact


async def test_a_half_closed_idle_connection_is_never_sent_a_request(server) -> None:
    # The server shut down its sending side after answering (TCP FIN) and keeps the rest of
    # the connection open. The idle connection reads as ended, so the next request goes on a
    # new one. A POST shows it: one sent on the half-closed connection would end unanswered,
    # and a POST is never sent twice (it may have changed something), so it would fail.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        assert (await get(fetcher, "a.sample.test", "/half-close")).body == b"half"
        assert await eventually(lambda: said_goodbye(keep_alive.port))  # the FIN reached the idle socket
        record = await fetcher.fetch(
            "https://a.sample.test/doc", kind="mcp", max_bytes=1024, method="POST", content=b"{}", honour_robots=False
        )
        assert record.error_code is None and record.body == b"hello", record.error
    assert keep_alive.connections == 2


@pytest.mark.parametrize(("path", "error_code"), [("/head-99k", None), ("/head-200k", "protocol")])
async def test_an_answer_head_is_read_up_to_100_kb_and_refused_beyond(server, path: str, error_code) -> None:
    # Real answers carry long CSP, Link and Set-Cookie headers (h11's own 16 KB default refused
    # some); a head far beyond 100 KB is a hostile one, refused before it is all buffered.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch(f"https://a.sample.test{path}", kind="guide", max_bytes=1024, honour_robots=False)
    assert record.error_code == error_code, record.error
    assert record.body == (b"big" if error_code is None else None)


@pytest.mark.parametrize(("method", "connections"), [("GET", 2), ("HEAD", 2), ("POST", 1)])
async def test_a_request_a_reused_connection_ends_unanswered_is_sent_again_unless_a_post(
    server, method: str, connections: int
) -> None:
    # The server reads the second request and hangs up without a byte of answer (it closed the
    # idle connection just as the request went out). A GET or HEAD changed nothing: it is sent
    # again on a new connection. A POST may have changed something: it fails, once.
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        assert (await get(fetcher, "a.sample.test", "/drop-next")).body == b"drop"
        record = await fetcher.fetch(
            "https://a.sample.test/doc",
            kind="mcp",
            max_bytes=1024,
            method=method,
            content=b"{}" if method == "POST" else None,
            honour_robots=False,
        )
    if method == "POST":
        assert record.error_code == "protocol" and "without answering" in record.error
    else:
        assert record.error_code is None and record.status == 200
    assert keep_alive.connections == connections


@pytest.mark.slow
async def test_an_endless_stream_of_1xx_answers_is_cut_at_the_deadline(tls) -> None:
    # "100 Continue" as fast as the client reads, from a process of its own: every read finds
    # bytes waiting and every 1xx is a whole head, so neither the read's wait nor the head cap
    # stops it. The fetch's deadline must: the crawl goes on to its next origin.
    _, ca_path = tls
    # Long enough for the TLS handshake with the child on a busy machine (the connect timeout
    # is never longer than the deadline: at 0.5 s a loaded handshake once ran into it).
    deadline = 5.0
    with raw_server_process("endless_continue", ca_path.with_name("server.pem")) as port:
        async with Fetcher(
            connect_to=[("*", "127.0.0.1", port)], ca_bundle=ca_path, retries=0, deadline=deadline
        ) as fetcher:
            started = time.monotonic()
            record = await fetcher.fetch("https://a.sample.test/doc", kind="guide", max_bytes=1024, honour_robots=False)
            took = time.monotonic() - started
    assert record.error_code == "timeout" and "5 s deadline" in record.error, record.error
    assert record.status is None and record.body is None
    assert took < 2 * deadline  # cut at its deadline: a busy machine adds less than another one

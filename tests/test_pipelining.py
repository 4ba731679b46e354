"""Pipelining (RFC 9112, 9.3.2): an origin's discovery requests go out several in one write on
its one connection, and what the catalogue learns is what one request at a time learns.

Over real sockets. A keep-alive HTTP/1.1 server on loopback TLS, raw enough to show the wire:
it records how many requests were waiting in what it read when it took each one. It answers
in four manners: pipelined requests in order; only the first request of each read (a server
that reads one request at a time and loses the rest); closing after its first answer; and
what a test's routes say, raw bytes included (chunked, a 1xx before the answer). Beside it,
uvicorn (the sample web, a server nobody here wrote) crawled whole both ways.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import sqlite3
import ssl
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import ClassVar

import pytest
import uvicorn
from sqlite_utils import Database

from agentdex.crawler.crawl import crawl
from agentdex.crawler.fetch import Ask, Fetcher
from agentdex.crawler.h1 import PIPELINE_PATIENCE, PIPELINE_STALL, _Due
from agentdex.crawler.options import NetworkOptions
from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb
from netfixtures import closed_port, tls_ca  # noqa: F401
from tests.conftest import cli_env
from tests.test_merge import facts
from waiting import eventually

pytestmark = pytest.mark.slow  # servers on loopback

ORIGIN = "empty.test"
# An empty origin's requests, as discovery makes them (docs/benchmarks.md, issue 39): the
# manifests with robots.txt, the first path of each discovery document with the bootstrap
# files, then the next paths of the documents that answered 404.
WRITES = [
    ["/.well-known/agent-app.json", "/.well-known/anchor.json", "/robots.txt"],
    [
        "/.well-known/agent-card.json",
        "/.well-known/mcp/server-card.json",
        "/.well-known/api-catalog",
        "/.well-known/x402",
        "/.well-known/ai-catalog.json",
        "/SKILL.md",
        "/llms.txt",
    ],
    ["/.well-known/agent.json", "/.well-known/mcp/server-card", "/.well-known/x402.json"],
    ["/.well-known/mcp/server-cards.json"],
]


class WireServer:
    """HTTP/1.1 over TLS, keep-alive; ``requests`` holds ``(connection, path, waiting)`` for
    every request taken, ``waiting`` counting it and those read with it, not yet taken."""

    def __init__(self, context: ssl.SSLContext, manner: str = "pipelined") -> None:
        self.context, self.manner = context, manner
        self.routes: dict[str, bytes] = {}  # path -> the whole answer, as sent
        self.requests: list[tuple[int, str, int]] = []
        self.connections = 0
        self.port = 0

    async def __aenter__(self) -> WireServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number, buffer = self.connections, b""
        try:
            while data := await reader.read(65536):
                buffer += data
                heads = []
                while b"\r\n\r\n" in buffer:
                    head, _, buffer = buffer.partition(b"\r\n\r\n")
                    heads.append(head)
                if self.manner == "hanging up" and heads:  # reads the requests, answers none
                    self.requests += [(number, h.split(b" ")[1].decode(), len(heads) - i) for i, h in enumerate(heads)]
                    return
                for i, head in enumerate(heads):
                    path = head.split(b" ")[1].decode()
                    self.requests.append((number, path, len(heads) - i))
                    writer.write(self._answer(path))
                    await writer.drain()
                    if self.manner in ("closing", "hanging up"):
                        return
                    if self.manner == "one at a time":  # the rest of what came is lost
                        buffer = b""
                        break
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    def _answer(self, path: str) -> bytes:
        if path in self.routes:
            return self.routes[path]
        close = "Connection: close\r\n" if self.manner == "closing" else ""
        return (
            f"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n{close}Content-Length: 9\r\n\r\nnot here\n".encode()
        )


def grouped(requests: list[tuple[int, str, int]]) -> list[list[str]]:
    """The paths asked, grouped as they arrived together (a request with n waiting starts a
    group of n)."""
    groups: list[list[str]] = []
    left = 0
    for _, path, waiting in requests:
        if left == 0:
            groups.append([])
            left = waiting
        groups[-1].append(path)
        left -= 1
    return groups


@pytest.fixture
def certified(tls_ca) -> tuple[ssl.SSLContext, Path]:  # noqa: F811
    ca, path, cert = tls_ca
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(ORIGIN, "*.test").configure_cert(context)
    return context, path


@pytest.fixture
async def wire(certified) -> AsyncIterator[WireServer]:
    async with WireServer(certified[0]) as server:
        yield server


def options(server: WireServer, ca: Path, pipelining: bool = True) -> NetworkOptions:
    return NetworkOptions(connect_to=[("*", "127.0.0.1", server.port)], ca_bundle=ca, pipelining=pipelining)


async def crawled(tmp_path: Path, server: WireServer, ca: Path, pipelining: bool = True, name: str = "c") -> list:
    """Crawl the origin into a new catalogue; what its compact row says each path answered."""
    db = open_db(tmp_path / f"{name}.db")
    await crawl(db, [ORIGIN], options(server, ca, pipelining), verify=False)
    return answers(db)


def answers(db: Database) -> list:
    rows = db.execute(
        "SELECT a.answers, e.robots_status FROM empty_origins e JOIN answer_sets a ON a.id = e.answers"
    ).fetchall()
    assert len(rows) == 1, rows
    return [*json.loads(rows[0][0]), ["robots", "/robots.txt", rows[0][1]]]


async def test_an_empty_origin_is_asked_in_four_writes_on_one_connection(tmp_path, wire, certified):
    stored = await crawled(tmp_path, wire, certified[1])
    assert grouped(wire.requests) == WRITES
    assert wire.connections == 1  # one TLS handshake for the origin, as before
    assert len(stored) == 14 and all(entry[2] == 404 for entry in stored)


async def test_one_request_at_a_time_asks_the_same_paths_and_stores_the_same(tmp_path, certified):
    async with WireServer(certified[0]) as server:
        pipelined = await crawled(tmp_path, server, certified[1], name="pipelined")
    async with WireServer(certified[0]) as alone:
        one_by_one = await crawled(tmp_path, alone, certified[1], pipelining=False, name="alone")
    assert all(waiting == 1 for _, _, waiting in alone.requests)
    assert sorted(p for _, p, _ in alone.requests) == sorted(p for _, p, _ in server.requests)
    assert pipelined == one_by_one


@pytest.mark.parametrize("manner", ["one at a time", "closing"])
async def test_a_server_that_does_not_answer_pipelined_requests_is_asked_one_at_a_time(tmp_path, certified, manner):
    async with WireServer(certified[0], manner) as server:
        stored = await crawled(tmp_path, server, certified[1])
    async with WireServer(certified[0]) as alone:
        expected = await crawled(tmp_path, alone, certified[1], pipelining=False, name="alone")
    assert stored == expected
    # Every path was answered once (a request the server lost was asked again, alone), and
    # once a pipeline broke, the origin's next requests went one at a time.
    assert sorted(p for _, p, _ in server.requests) == sorted(p for _, p, _ in alone.requests)
    assert [w for _, _, w in server.requests[1:]] == [1] * (len(server.requests) - 1)


def chunked(status: int, body: bytes, before: bytes = b"") -> bytes:
    head = f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
    return before + head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


async def fetch_all(fetcher: Fetcher, paths: list[str], cap: int = 4096) -> list:
    urls = [f"https://{ORIGIN}{path}" for path in paths]
    await fetcher.prefetch([Ask(url, "guide", cap, honour_robots=False) for url in urls])
    return [await fetcher.fetch(url, kind="guide", max_bytes=cap, honour_robots=False) for url in urls]


async def test_pipelined_answers_are_read_in_order_whatever_their_framing(wire, certified):
    wire.routes["/a"] = chunked(200, b'{"a": 1}')
    wire.routes["/b"] = chunked(404, b"{}", before=b"HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n")
    wire.routes["/c"] = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
    async with Fetcher(connect_to=[("*", "127.0.0.1", wire.port)], ca_bundle=certified[1]) as fetcher:
        a, b, c = await fetch_all(fetcher, ["/a", "/b", "/c"])
        assert fetcher.unpark(f"https://{ORIGIN}") == 0
    assert grouped(wire.requests) == [["/a", "/b", "/c"]]
    assert (a.status, a.body, b.status, b.error_code, c.status, c.body) == (
        200,
        b'{"a": 1}',
        404,
        "http_status",
        200,
        b"abc",
    )


async def test_a_body_over_its_cap_ends_the_pipeline_and_is_refused_as_alone(wire, certified):
    wire.routes["/big"] = b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000
    wire.routes["/small"] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    async with Fetcher(connect_to=[("*", "127.0.0.1", wire.port)], ca_bundle=certified[1]) as fetcher:
        big, small = await fetch_all(fetcher, ["/big", "/small"], cap=4096)
    assert grouped(wire.requests)[0] == ["/big", "/small"]  # they went pipelined, then each alone
    assert big.error_code == "too_large" and big.body is None
    assert small.status == 200 and small.body == b"ok"


async def test_a_server_that_hangs_up_unanswered_is_recorded_as_one_request_would_be(certified):
    records = {}
    for pipelining in (True, False):
        async with WireServer(certified[0], "hanging up") as server:
            to = [("*", "127.0.0.1", server.port)]
            async with Fetcher(connect_to=to, ca_bundle=certified[1], pipelining=pipelining) as fetcher:
                records[pipelining] = [(r.error_code, r.error) for r in await fetch_all(fetcher, ["/a", "/b", "/c"])]
    assert records[True] == records[False]
    assert records[True][0] == ("protocol", "The connection to https://empty.test/a failed before a complete answer "
                                "(the server closed the connection without answering).")  # fmt: skip


def test_each_pipelined_answer_is_due_as_one_request_would_be_and_a_dropped_one_is_noticed():
    # The clock is given, not waited for: a slow server is given the time each answer takes
    # (the end-to-end case: test_hostile_boundary's slow loris, 0.9 s an answer, pipelined).
    due = _Due(15.0, now=100.0)
    assert due.left(100.0) == 15.0  # the first: a request's deadline, connecting included
    due.answered(100.3)  # it took 0.3 s: the next within 4 x 0.3 s, and never less than 2 s
    assert due.left(100.3) == PIPELINE_STALL == 2.0
    due.answered(101.9)  # each next one from the end of the one before
    assert due.left(102.9) == 1.0 and due.left(104.0) == 0.0
    slow = _Due(15.0, now=0.0)
    slow.answered(3.0)  # a server that takes 3 s for one is given 4 x 3 s for each next one
    assert slow.left(3.0) == PIPELINE_PATIENCE * 3.0 == 12.0
    slower = _Due(15.0, now=0.0)
    slower.answered(9.0)  # but never more than a request's own deadline
    assert slower.left(9.0) == 15.0


async def test_no_connection_is_met_by_the_first_fetch_as_its_own(certified):
    port = closed_port()
    records = {}
    for pipelining in (True, False):
        async with Fetcher(
            connect_to=[("*", "127.0.0.1", port)], ca_bundle=certified[1], pipelining=pipelining, retries=0
        ) as fetcher:
            records[pipelining] = await fetch_all(fetcher, ["/a", "/b"])
    assert [r.error_code for r in records[True]] == [r.error_code for r in records[False]] == ["refused"] * 2


async def test_a_crawl_delay_keeps_discovery_one_request_at_a_time(tmp_path, wire, certified):
    robots = b"User-agent: *\nCrawl-delay: 0.01\nDisallow: /.well-known/api-catalog\n"
    wire.routes["/robots.txt"] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (
        len(robots),
        robots,
    )
    db = open_db(tmp_path / "c.db")
    await crawl(db, [ORIGIN], options(wire, certified[1]), verify=False)
    after_robots = wire.requests[3:]  # the manifests (exempt from robots.txt) and robots.txt came first
    assert [p for _, p, _ in wire.requests[:3]] == WRITES[0]
    assert after_robots and all(waiting == 1 for _, _, waiting in after_robots)
    assert "/.well-known/api-catalog" not in {p for _, p, _ in wire.requests}  # disallowed: never asked


class _NotHere(http.server.BaseHTTPRequestHandler):
    """Python's own HTTP/1.1 server, keep-alive: 404 to every path."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[int, str]]] = []  # (connection, path)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.seen.append((id(self.connection), self.path))
        body = b"not here\n"
        self.send_response(404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


async def test_pythons_own_http_server_answers_the_pipelines(tmp_path, certified):
    """http.server (a server nobody here wrote) reads pipelined requests from its buffered
    socket one after another: the origin is crawled on one connection, as one at a time."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotHere)
    server.socket = certified[0].wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    to = [("*", "127.0.0.1", server.server_address[1])]
    try:
        async with Fetcher(connect_to=to, ca_bundle=certified[1]) as fetcher:  # 7 GETs in one write
            urls = [f"https://{ORIGIN}{path}" for path in WRITES[1]]
            assert await fetcher.prefetch([Ask(url, "guide", 4096, honour_robots=False) for url in urls]) == 7
            assert [fetcher.parked_status(url) for url in urls] == [404] * 7  # every answer came
            assert fetcher.unpark(f"https://{ORIGIN}") == 7
        _NotHere.seen.clear()
        db = open_db(tmp_path / "c.db")
        await crawl(db, [ORIGIN], NetworkOptions(connect_to=to, ca_bundle=certified[1]), verify=False)
        stored = answers(db)
    finally:
        server.shutdown()
        server.server_close()
    assert len({connection for connection, _ in _NotHere.seen}) == 1
    assert sorted(path for _, path in _NotHere.seen) == sorted(path for group in WRITES for path in group)
    assert len(stored) == 14 and all(entry[2] == 404 for entry in stored)


async def _not_here(scope, receive, send) -> None:  # an ASGI app: 404 to every path
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"not here\n"})


@pytest.mark.parametrize("protocol", ["h11", "httptools"])
async def test_uvicorn_answers_the_pipelines_with_either_parser(tmp_path, certified, tls_ca, protocol):  # noqa: F811
    """uvicorn (a server nobody here wrote) on each of its HTTP/1.1 parsers: a pipeline of 7
    GETs is answered whole on one connection."""
    cert = tmp_path / "server.pem"
    tls_ca[0].issue_cert(ORIGIN).private_key_and_cert_chain_pem.write_to_path(str(cert))
    config = uvicorn.Config(
        _not_here, host="127.0.0.1", port=0, http=protocol, ssl_certfile=str(cert), ssl_keyfile=str(cert),
        log_level="warning", lifespan="off",
    )  # fmt: skip
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    assert await eventually(lambda: server.started)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        async with Fetcher(connect_to=[("*", "127.0.0.1", port)], ca_bundle=certified[1]) as fetcher:
            urls = [f"https://{ORIGIN}{path}" for path in WRITES[1]]
            assert await fetcher.prefetch([Ask(url, "guide", 4096, honour_robots=False) for url in urls]) == 7
            assert [fetcher.parked_status(url) for url in urls] == [404] * 7
            records = [await fetcher.fetch(url, kind="guide", max_bytes=4096, honour_robots=False) for url in urls]
    finally:
        server.should_exit = True
        await serving
    assert [(r.status, r.body) for r in records] == [(404, b"not here\n")] * 7


def test_the_sample_web_crawled_pipelined_or_not_gives_the_same_catalogue(tmp_path):
    """uvicorn (httptools) answers the pipelines: every site of the sample web, and a few
    synthetic origins, crawled both ways, hold the same facts by natural keys."""
    for pipelining in ("--pipelining", "--no-pipelining"):
        with SampleWeb(synthetic=4, empty=4) as web:
            seeds = tmp_path / "seeds.txt"
            seeds.write_text("\n".join(web.hosts + web.synthetic.empty_hosts) + "\n")
            done = subprocess.run(
                [sys.executable, "-m", "agentdex", "crawl", "--db", str(tmp_path / f"{pipelining}.db"),
                 *web.cli_args(), "--seeds", str(seeds), "-q", pipelining],
                env=cli_env(), capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
    both = [facts(tmp_path / f"{p}.db") for p in ("--pipelining", "--no-pipelining")]
    assert both[0] == both[1]
    with sqlite3.connect(tmp_path / "--pipelining.db") as conn:
        assert conn.execute("SELECT count(*) FROM listings").fetchone()[0] > 20

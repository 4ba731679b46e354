"""Connection reuse: a crawl pays one TLS handshake per connection, not per request.

A real keep-alive HTTPS server on 127.0.0.1 (trustme CA) counts the connections it
accepts; the Fetcher must send a host's requests over the connections it already has,
keep them after a 304, never share one between hosts, and drop the pools of hosts it
has not used for a while.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trustme

from agentdex.crawler.fetch import Fetcher

ETAG = '"v1"'


class KeepAliveServer:
    """HTTP/1.1 over TLS with keep-alive; ``connections`` counts accepted connections."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.context = context
        self.connections = 0
        self.hosts: list[str] = []  # the Host of each connection's first request
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        first = True
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                path = head[0].split(" ")[1]
                headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
                if first:
                    self.hosts.append(headers.get("host", ""))
                    first = False
                writer.write(_answer(path, headers))
                await writer.drain()
                if path in ("/bye", "/closing"):
                    break  # "/bye" closes without saying so: as a server ending an idle keep-alive does
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()


def _answer(path: str, headers: dict[str, str]) -> bytes:
    if path == "/doc" and headers.get("if-none-match") == ETAG:
        return f"HTTP/1.1 304 Not Modified\r\nETag: {ETAG}\r\n\r\n".encode()
    if path == "/doc":
        return f"HTTP/1.1 200 OK\r\nETag: {ETAG}\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello".encode()
    if path in ("/bye", "/closing"):
        close = "Connection: close\r\n" if path == "/closing" else ""
        return f"HTTP/1.1 200 OK\r\n{close}Content-Length: 3\r\n\r\nbye".encode()
    return b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[KeepAliveServer, Path]]:
    ca = trustme.CA()
    ca_path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_path))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("*.sample.test").configure_cert(context)
    keep_alive = KeepAliveServer(context)
    await keep_alive.start()
    yield keep_alive, ca_path
    await keep_alive.stop()


def fetcher_for(server: KeepAliveServer, ca_path: Path, **options: object) -> Fetcher:
    return Fetcher(connect_to=[("*", "127.0.0.1", server.port)], ca_bundle=ca_path, retries=0, deadline=5.0,
                   **options)


async def get(fetcher: Fetcher, host: str, path: str = "/doc", etag: str | None = None):
    record = await fetcher.fetch(f"https://{host}{path}", kind="guide", max_bytes=1024, etag=etag,
                                 honour_robots=False)
    assert record.error_code in (None, "http_status"), record.error
    return record


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
        await asyncio.sleep(0.05)  # the server's FIN reaches the idle socket
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
        assert (await get(fetcher, "a.sample.test")).body == b"hello"
    assert keep_alive.connections == 2


async def test_a_request_header_with_a_line_break_is_never_sent(server) -> None:
    keep_alive, ca_path = server
    async with fetcher_for(keep_alive, ca_path) as fetcher:
        record = await fetcher.fetch("https://a.sample.test/doc", kind="guide", max_bytes=1024, honour_robots=False,
                                     headers={"X-Note": "fine\r\nX-Injected: yes"})
    assert record.error_code == "internal" and "illegal request header" in record.error
    assert record.status is None and keep_alive.connections == 0  # refused before connecting

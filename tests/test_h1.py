"""The transport's own rules beside its parser (agentdex/crawler/h1.py on httptools), over the
loopback TLS server: what h11 refused is still refused, and the request head goes out as
checked. The framing matrix itself (chunked, 1xx, HEAD, 304/204, reuse, cuts, head caps) is in
test_fetch_connections.py and test_hostile_net.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.h1 import request_head
from netfixtures import Reply, Request, TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401


@pytest.fixture
async def fetcher(tls_server: TLSServer) -> AsyncIterator[Fetcher]:  # noqa: F811
    async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, retries=0, deadline=5) as f:
        yield f


def answering(headers: dict[str, str], body: bytes = b"") -> object:
    async def handler(request: Request) -> Reply:
        return Reply(200, body, headers, content_type="text/plain", length=False)

    return handler


async def get(fetcher: Fetcher, path: str):
    return await fetcher.fetch(f"https://a.test{path}", kind="guide", max_bytes=1024, honour_robots=False)


async def test_a_transfer_coding_other_than_chunked_is_refused(fetcher: Fetcher, tls_server: TLSServer) -> None:  # noqa: F811
    # Its body would run to the close, and a cut one could not be told from a whole one.
    tls_server.routes["/gzip-coded"] = answering({"Transfer-Encoding": "gzip"}, b"not really gzip")
    record = await get(fetcher, "/gzip-coded")
    assert record.error_code == "protocol" and "Transfer-Encoding" in record.error, record.error
    assert record.body is None


async def test_an_answer_framed_twice_is_refused(fetcher: Fetcher, tls_server: TLSServer) -> None:  # noqa: F811
    # Content-Length beside chunked framing: two readers could end the body in two places
    # (the shape of response smuggling); neither is trusted.
    headers = {"Content-Length": "3", "Transfer-Encoding": "chunked"}
    tls_server.routes["/twice"] = answering(headers, b"3\r\nabc\r\n0\r\n\r\n")
    record = await get(fetcher, "/twice")
    assert record.error_code == "protocol" and record.body is None, record.error


async def test_a_body_running_to_the_close_is_read_whole(fetcher: Fetcher, tls_server: TLSServer) -> None:  # noqa: F811
    tls_server.routes["/to-close"] = answering({}, b"x" * 100_000)
    record = await fetcher.fetch("https://a.test/to-close", kind="guide", max_bytes=200_000, honour_robots=False)
    assert record.error_code is None and record.body == b"x" * 100_000, record.error


def test_the_request_head_goes_out_as_given_once_checked() -> None:
    request = httpx.Request("GET", "https://a.test/p?q=1", headers={"Accept": "text/plain"})
    assert request_head(request) == b"GET /p?q=1 HTTP/1.1\r\nHost: a.test\r\nAccept: text/plain\r\n\r\n"


@pytest.mark.parametrize(
    "headers", [{"Bad Name": "x"}, {"X-Note": "a\x00b"}, {"X-Note": "a\nInjected: yes"}, {"Host": "b.test"}]
)
def test_an_illegal_request_head_is_never_built(headers: dict[str, str]) -> None:
    request = httpx.Request("GET", "https://a.test/", headers=headers)
    if "Host" in headers:  # a second Host beside the URL's
        request.headers = httpx.Headers([*request.headers.raw, (b"Host", b"b.test")])
    with pytest.raises(ValueError, match="illegal request header|exactly one Host"):
        request_head(request)


@pytest.mark.parametrize(("method", "content"), [("GET", None), ("POST", b'{"a": 1}'), ("POST", None)])
async def test_a_request_from_its_parts_goes_out_as_httpx_would_send_it(
    tls_server: TLSServer,  # noqa: F811
    method: str,
    content: bytes | None,
) -> None:
    # The Fetcher sends through transport.request (no httpx.Request built); whatever asks
    # with an httpx.Request (a second opinion, a test) through handle_async_request. The
    # server must read the same request either way.
    from agentdex.crawler.h1 import HostTransport
    from agentdex.crawler.netpolicy import GuardedBackend, build_ssl_context

    url, headers = httpx.URL("https://a.test/echo"), [("User-Agent", "agentdex-test"), ("Accept", "*/*")]
    backend = GuardedBackend(connect_to=tls_server.connect_to)
    transport = HostTransport(build_ssl_context(tls_server.ca_path), backend, keep=1)
    timeouts = {"connect": 5, "read": 5, "write": 5}
    try:
        given = httpx.Request(method, url, headers=headers, content=content, extensions={"timeout": timeouts})
        seen = [
            (await (await transport.handle_async_request(given)).aread()),
            (await (await transport.request(method, url, headers, content, timeouts)).aread()),
        ]
    finally:
        await transport.aclose()
    first, second = (json.loads(answer) for answer in seen)  # the method, headers and body it read
    assert first == second and first["headers"]["host"] == "a.test" and first["body"] == (content or b"").decode()

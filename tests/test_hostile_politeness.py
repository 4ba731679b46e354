"""Politeness under a hostile or fragile host, over real sockets: robots.txt per RFC 9309
(4xx allows, 5xx and 429 hold off, redirect loops count as unavailable), Crawl-delay and
Retry-After honoured, never more than 2 requests in flight to one host whatever the
concurrency.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from agentdex.crawler.crawl import NetworkOptions
from agentdex.crawler.fetch import Fetcher
from netfixtures import Reply, TLSServer, redirect, tls_ca, tls_server, tls_server_session  # noqa: F401

CAP = 64 * 1024


def make_fetcher(server: TLSServer, **options) -> Fetcher:
    return Fetcher(connect_to=server.connect_to, ca_bundle=server.ca_path, **{"deadline": 5.0, **options})


def stamped(server: TLSServer, path: str, status: int = 200, **headers: str) -> list[float]:
    """Serve ``path`` and note when each request arrives."""
    arrivals: list[float] = []

    async def handler(request):
        arrivals.append(time.monotonic())
        return Reply(status, b"{}", dict(headers))

    server.routes[path] = handler
    return arrivals


@pytest.mark.parametrize(
    ("answer", "allowed"), [(404, True), (410, True), (401, True), (429, False), (500, False), (503, False)]
)
async def test_robots_txt_4xx_allows_and_5xx_or_429_holds_off(tls_server: TLSServer, answer, allowed) -> None:  # noqa: F811
    host = f"r{answer}.sample.test"
    tls_server.robots[host] = answer
    async with make_fetcher(tls_server, retries=0) as f:
        page = await f.fetch(f"https://{host}/json", kind="guide", max_bytes=CAP)
        manifest = await f.fetch(f"https://{host}/.well-known/agent-app.json", kind="agent_app", max_bytes=CAP)
    assert page.ok is allowed and manifest.ok
    assert tls_server.hit_count(host, "/json") == int(allowed)
    if not allowed:
        assert page.error_code == "robots" and "holds off" in page.error


async def test_a_robots_txt_that_redirects_forever_counts_as_unavailable(tls_server: TLSServer) -> None:  # noqa: F811
    async def loop(request):
        return redirect("/robots.txt")

    tls_server.routes["/robots.txt"] = loop
    async with make_fetcher(tls_server, retries=0) as f:
        page = await f.fetch("https://rl.sample.test/json", kind="guide", max_bytes=CAP)
    assert page.ok  # RFC 9309 2.3.1.2: "unavailable", so allowed


async def test_crawl_delay_spaces_the_requests_to_an_origin(tls_server: TLSServer) -> None:  # noqa: F811
    tls_server.robots["cd.sample.test"] = "User-agent: *\nCrawl-delay: 1\n"
    arrivals = stamped(tls_server, "/paced")
    async with make_fetcher(tls_server) as f:
        records = await asyncio.gather(
            *(f.fetch(f"https://cd.sample.test/paced?{i}", kind="t", max_bytes=CAP) for i in range(3))
        )
    assert all(r.ok for r in records)
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert len(gaps) == 2 and min(gaps) >= 0.95


async def test_a_crawl_delay_too_long_to_wait_fetches_nothing_more(tls_server: TLSServer) -> None:  # noqa: F811
    tls_server.robots["slowpoke.sample.test"] = "User-agent: agentdex\nCrawl-delay: 3600\n"
    async with make_fetcher(tls_server) as f:
        page = await f.fetch("https://slowpoke.sample.test/json", kind="guide", max_bytes=CAP)
        manifest = await f.fetch("https://slowpoke.sample.test/.well-known/agent-app.json", kind="t", max_bytes=CAP)
    assert page.error_code == "robots" and "3600 s between requests" in page.error
    assert manifest.ok and tls_server.hit_count("slowpoke.sample.test", "/json") == 0


async def test_retry_after_is_waited_out_before_the_retry(tls_server: TLSServer) -> None:  # noqa: F811
    arrivals = stamped(tls_server, "/busy", status=503, **{"Retry-After": "1"})
    async with make_fetcher(tls_server, retries=1) as f:
        record = await f.fetch("https://ra.sample.test/busy", kind="t", max_bytes=CAP, honour_robots=False)
    assert record.status == 503 and len(arrivals) == 2 and arrivals[1] - arrivals[0] >= 0.95


async def test_a_retry_after_beyond_reach_is_not_retried_at_all(tls_server: TLSServer) -> None:  # noqa: F811
    arrivals = stamped(tls_server, "/later", status=429, **{"Retry-After": "600"})
    async with make_fetcher(tls_server, retries=3) as f:
        record = await f.fetch("https://ra.sample.test/later", kind="t", max_bytes=CAP, honour_robots=False)
    assert record.status == 429 and len(arrivals) == 1


async def test_one_request_at_a_time_to_one_host_whatever_the_concurrency(tls_server: TLSServer) -> None:  # noqa: F811
    net = NetworkOptions(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, concurrency=64)
    async with net.fetcher() as f:  # the crawl's own fetcher
        records = await asyncio.gather(
            *(f.fetch("https://busy.sample.test/slow", kind="t", max_bytes=CAP) for _ in range(12))
        )
    assert all(r.ok for r in records)
    assert tls_server.max_active["busy.sample.test"] == 1

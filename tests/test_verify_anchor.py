"""Anchor proofs and probes on a real crawl, where they depend on what changes between
crawls or on the network options: the live x402 price against the declared one, the
registry API asked (``--registry``), the DNS server asked (``--dns-server``) and what a
proof that cannot be checked (rather than one that fails) does.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from dnslib import RCODE, DNSRecord

from agentdex.crawler.crawl import crawl
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import HEAD_WAIT, Verifier
from agentdex.db import list_checks, list_events, open_db
from agentdex.sampleweb.server import UNSERVED_HOST, SampleWeb
from netfixtures import Reply, Request, TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as running:
        yield running


@pytest.fixture
def db(tmp_path):
    return open_db(tmp_path / "catalogue.db")


def run(db, web: SampleWeb, origins: list[str], **changes) -> None:
    asyncio.run(crawl(db, origins, web.network_options(**changes)))


def check(db, origin: str, name: str) -> dict:
    return {c["name"]: c for c in list_checks(db, origin)}[name]


def test_a_live_price_above_the_declared_one_fails_and_the_live_price_wins(web, db):
    web.set_variant("pay.tidewater.test", "v2")  # the 402 now asks 0.02 USD; the manifest still says 0.01
    try:
        run(db, web, ["tidewater.test"])
    finally:
        web.set_variant("pay.tidewater.test", None)
    payments = check(db, "tidewater.test", "anchor.payments")
    assert payments["status"] == "fail"
    assert "declared $0.01 but the live 402 asks $0.02; the live price wins" in payments["detail"]
    forecast = payments["data"]["test.tidewater/forecast-api"]
    assert (forecast["declared_usd"], forecast["live_usd"]) == (0.01, 0.02)
    assert {o["network"] for o in forecast["offers"]} == {"eip155:8453"}


def test_the_price_check_asks_once_without_paying(web, db):
    web.requests_log.clear()
    run(db, web, ["tidewater.test"])
    asks = [r for r in web.requests_log if r.host == "pay.tidewater.test" and r.path == "/v1/forecast"]
    # http.base, the HTTP proof (HEAD) and the unpaid request of the price check.
    assert sorted(r.method for r in asks) == ["GET", "GET", "HEAD"]
    assert not [r for r in asks if any(h.startswith(("x-payment", "payment-signature")) for h in r.headers)]


def test_the_registry_proof_reads_the_latest_version_from_the_registry_given(web, db):
    web.requests_log.clear()
    run(db, web, ["tidewater.test", "driftwood.test"])
    asked = sorted(r.path for r in web.requests_log if r.host == "registry.test" and r.path != "/robots.txt")
    # The official API's shape (the log shows the path decoded); MCP tools only. Discovery
    # also reads the server.json each manifest links (schemas.mcpServerJson), once.
    assert asked == [
        "/v0.1/servers/test.driftwood/notes",
        "/v0.1/servers/test.driftwood/notes/versions/latest",
        "/v0.1/servers/test.tidewater/tides",
        "/v0.1/servers/test.tidewater/tides/versions/latest",
    ]


def test_a_registry_that_cannot_be_asked_is_a_warning_not_a_lost_proof(web, db):
    run(db, web, ["tidewater.test"])
    assert check(db, "tidewater.test", "anchor.verify.registry")["status"] == "pass"
    run(db, web, ["tidewater.test"], registry=f"https://{UNSERVED_HOST}")
    registry = check(db, "tidewater.test", "anchor.verify.registry")
    assert registry["status"] == "warn" and "could not be asked" in registry["detail"]
    assert [e["kind"] for e in list_events(db)] == ["listed"]


@contextmanager
def failing_dns_server() -> Iterator[str]:
    """A DNS server on loopback that answers every query SERVFAIL (a resolver that is
    down or broken); yields ``ADDR:PORT``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.05)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                data, peer = sock.recvfrom(4096)
            except TimeoutError:
                continue
            reply = DNSRecord.parse(data).reply()
            reply.header.rcode = RCODE.SERVFAIL
            sock.sendto(reply.pack(), peer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        sock.close()


def test_a_dns_server_that_fails_is_a_warning_not_a_lost_proof(web, db):
    run(db, web, ["tidewater.test"])
    with failing_dns_server() as address:
        run(db, web, ["tidewater.test"], dns_server=address)
    dns_check = check(db, "tidewater.test", "anchor.verify.dns")
    assert dns_check["status"] == "warn" and "could not ask DNS" in dns_check["detail"]
    assert dns_check["last_pass_at"] is not None
    assert [e["kind"] for e in list_events(db)] == ["listed"]


def test_the_dns_proof_reads_the_record_as_it_is_now(web, db):
    web.dns.set_records("_anchor.driftwood.test", ["anchor-verify=claimed-at-last"])
    try:
        run(db, web, ["driftwood.test"])
    finally:
        web.dns.set_records("_anchor.driftwood.test", ["v=spf1 -all", "google-site-verification=not-an-anchor-token"])
    dns_check = check(db, "driftwood.test", "anchor.verify.dns")
    assert dns_check["status"] == "pass" and dns_check["data"]["tokens"] == ["claimed-at-last"]


def test_a_lying_read_only_variant_is_named_with_its_write_tools(web, db):
    run(db, web, ["driftwood.test"])
    variant = check(db, "driftwood.test", "anchor.read_only_variant")
    assert variant["data"] == {
        "test.driftwood/notes": {
            "url": "https://mcp.driftwood.test/mcp/readonly",
            "state": "ok",
            "write_tools": ["delete_item"],
        }
    }
    assert "tools/call" not in web.requests_log.jsonrpc_methods()


# --- the HTTP proof's "the endpoint responds": HEAD, else a GET read to its headers ---------


def silent_to(methods: tuple[str, ...]):
    """A route that never answers ``methods`` and answers the others with an endless event
    stream (as an MCP SSE endpoint does: it runs its GET handler for HEAD and never ends)."""

    async def route(request: Request) -> Reply:
        if request.method in methods:
            await asyncio.sleep(3600)

        async def endless(writer: asyncio.StreamWriter) -> None:
            while True:
                writer.write(b": ping\n\n")
                await writer.drain()
                await asyncio.sleep(0.1)

        return Reply(content_type="text/event-stream", length=False, stream=endless)

    return route


async def responds(server: TLSServer, deadline: float = 10.0):
    async with Fetcher(connect_to=server.connect_to, ca_bundle=server.ca_path, deadline=deadline) as fetcher:
        return await Verifier(fetcher, None).responds("https://a.test/sse", "anchor_endpoint")


async def test_an_endpoint_that_never_answers_head_responds_to_a_get(tls_server):
    tls_server.routes["/sse"] = silent_to(("HEAD",))
    record = await responds(tls_server)
    assert (record.status, record.headers["content-type"]) == (200, "text/event-stream")
    assert tls_server.hit_count("a.test", "/sse") == 2  # the HEAD, then the GET


async def test_an_endpoint_that_answers_head_gets_nothing_more(tls_server):
    tls_server.routes["/sse"] = silent_to(())
    record = await responds(tls_server)
    assert record.status == 200 and tls_server.hit_count("a.test", "/sse") == 1


async def test_an_endpoint_that_answers_nothing_is_a_timeout_naming_both_requests(tls_server):
    tls_server.routes["/sse"] = silent_to(("HEAD", "GET"))
    record = await responds(tls_server, deadline=1.0)
    assert record.status is None and record.error_code == "timeout"
    assert record.error == f"https://a.test/sse answered neither HEAD nor GET within {HEAD_WAIT + 1:g} seconds."

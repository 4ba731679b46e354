"""A hostile network, over real sockets: servers that stall, drip, never end, flood headers
or answer garbage (agentdex/sampleweb/rawsock.py), every spelling of a private address,
DNS answers that mix or change, and proxies from the environment. Each is stopped at its
cap or deadline and recorded with a code and a sentence; nothing raises.
"""

from __future__ import annotations

import ssl
import threading
import time

import pytest

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.netstream import SocketBackend
from agentdex.sampleweb.rawsock import RawServer
from netfixtures import TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401

pytestmark = pytest.mark.anyio
DEADLINE = 3.0  # short, set by the test: every stalling case must end within it
# What a busy machine may add after the deadline fires (the cancellation, the close): less
# than a deadline, so that a stall given a second deadline (a retry) still fails the test.
SLACK = 2.0
# The deadline of the cases that a cap or the answer itself ends: it never binds, however long
# a loaded machine takes to read 200,000 bytes (a 1.5 s deadline once cut that first).
NEVER = 60.0


@pytest.fixture(scope="module")
def server_tls(tls_ca) -> ssl.SSLContext:  # noqa: F811
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls_ca[2].configure_cert(context)
    return context


async def fetch_from(
    behaviour: str,
    server_tls: ssl.SSLContext,
    ca_path,
    *,
    max_bytes: int = 256 * 1024,
    method: str = "GET",
    deadline: float = NEVER,
):
    with RawServer(behaviour, tls=server_tls) as server:
        async with Fetcher(connect_to=server.connect_to, ca_bundle=ca_path, deadline=deadline, retries=1) as fetcher:
            started = time.monotonic()
            record = await fetcher.fetch(
                "https://a.test/.well-known/agent-app.json",
                kind="manifest",
                max_bytes=max_bytes,
                method=method,
                content=b"{}" if method == "POST" else None,
            )
            return record, time.monotonic() - started


@pytest.mark.parametrize("behaviour", ["silent", "stall_handshake", "header_drip", "body_drip"])
async def test_a_stalling_server_cannot_outlast_the_deadline(behaviour, server_tls, tls_ca) -> None:  # noqa: F811
    record, took = await fetch_from(behaviour, server_tls, tls_ca[1], deadline=DEADLINE)
    assert record.error_code == "timeout", record.error
    assert took < DEADLINE + SLACK
    assert record.body is None and record.error  # recorded, with a sentence, never parsed


@pytest.mark.parametrize(
    ("behaviour", "method"), [("endless_chunked", "GET"), ("no_length", "GET"), ("endless_sse", "POST")]
)
async def test_a_body_that_never_ends_is_stopped_at_its_cap(behaviour, method, server_tls, tls_ca) -> None:  # noqa: F811
    record, _ = await fetch_from(behaviour, server_tls, tls_ca[1], max_bytes=200_000, method=method)
    assert record.error_code == "too_large" and "200000-byte cap" in record.error
    assert record.body is None and record.status == 200
    # the server noticed the client leave and stopped when asked (it once wrote on to the dead
    # socket without a pause, so its loop never took the stop and outlived the test)
    assert not [t for t in threading.enumerate() if t.name == f"rawsock-{behaviour}"]


@pytest.mark.parametrize(
    ("behaviour", "code"),
    [
        ("many_headers", "protocol"),
        ("huge_header", "protocol"),
        ("garbage", "protocol"),
        ("truncated_chunked", "incomplete"),
    ],
)
async def test_a_malformed_or_oversized_answer_is_recorded_and_never_parsed(
    behaviour, code, server_tls, tls_ca
) -> None:  # noqa: F811
    record, _ = await fetch_from(behaviour, server_tls, tls_ca[1])
    assert record.error_code == code, record.error
    assert record.body is None and record.sha256 is None


# -- the address guard -----------------------------------------------------------------

SPELLINGS = [
    ("https://2130706433/", "loopback"),  # 127.0.0.1 as one integer
    ("https://0x7f000001/", "loopback"),  # ... in hex
    ("https://0x7f.1/", "loopback"),  # ... in the short dotted hex form
    ("https://127.1/", "loopback"),
    ("https://localhost/", "loopback"),
    ("https://[::1]/", "loopback"),
    ("https://[::ffff:127.0.0.1]/", "loopback (embedded in"),  # IPv4-mapped IPv6
    ("https://[::ffff:a00:1]/", "private (embedded in"),
    ("https://10.0.0.1/", "private"),
    ("https://192.168.1.1/", "private"),
    ("https://169.254.169.254/latest/meta-data/", "link-local"),  # the cloud metadata address
    ("https://100.64.0.1/", "CGNAT"),
    ("https://0.0.0.0/", "unspecified"),
    ("https://[fd00::1]/", "unique local"),
]


@pytest.mark.parametrize(("url", "reason"), SPELLINGS, ids=[s[0] for s in SPELLINGS])
async def test_every_spelling_of_a_private_address_is_refused_before_connecting(url, reason) -> None:
    async with Fetcher(deadline=DEADLINE, retries=0) as fetcher:
        record = await fetcher.fetch(url, kind="guide", max_bytes=1000, honour_robots=False)
    assert record.error_code == "blocked_address", record.error
    assert reason in record.error and "--allow-private" in record.error
    assert fetcher.stats.requests == 1 and record.status is None


async def test_an_octal_spelling_is_not_even_a_url() -> None:
    async with Fetcher(deadline=DEADLINE) as fetcher:
        record = await fetcher.fetch("https://0177.0.0.1/", kind="guide", max_bytes=1000, honour_robots=False)
    assert record.error_code == "invalid_url"


class LoopbackInternet(SocketBackend):
    """The test's stand-in for the internet: a connection to a public address lands on
    the loopback test server (tests never leave the machine)."""

    def __init__(self, port: int, dialled: list[str]) -> None:
        super().__init__()
        self.port, self.dialled = port, dialled

    async def connect_tcp(self, host, port, **kwargs):
        self.dialled.append(host)
        return await super().connect_tcp("127.0.0.1", self.port, **kwargs)


def answers(*sequence: list[str]):
    calls: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return sequence[min(len(calls), len(sequence)) - 1]

    return resolver, calls


async def test_dns_rebinding_cannot_turn_a_checked_name_private(tls_server: TLSServer) -> None:  # noqa: F811
    resolver, calls = answers(["93.184.215.14"], ["127.0.0.1"])  # first public, then private
    dialled: list[str] = []
    async with Fetcher(ca_bundle=tls_server.ca_path, resolver=resolver, deadline=5, per_host=1, retries=0) as fetcher:
        fetcher.backend._inner = LoopbackInternet(tls_server.port, dialled)
        first = await fetcher.fetch("https://a.test/json", kind="t", max_bytes=10_000, honour_robots=False)
        await fetcher.aclose()  # the next request needs a new connection, so a new answer
        second = await fetcher.fetch("https://a.test/json", kind="t", max_bytes=10_000, honour_robots=False)
    assert first.ok and first.body
    assert second.error_code == "blocked_address" and "127.0.0.1" in second.error
    assert dialled == ["93.184.215.14"]  # the checked address, never the name again, never the private one
    assert calls == ["a.test", "a.test"]


async def test_an_answer_mixing_public_and_private_addresses_is_refused(tls_server: TLSServer) -> None:  # noqa: F811
    resolver, _ = answers(["93.184.215.14", "10.1.2.3"])
    dialled: list[str] = []
    async with Fetcher(ca_bundle=tls_server.ca_path, resolver=resolver, deadline=5, retries=0) as fetcher:
        fetcher.backend._inner = LoopbackInternet(tls_server.port, dialled)
        record = await fetcher.fetch("https://a.test/json", kind="t", max_bytes=10_000, honour_robots=False)
    assert record.error_code == "blocked_address" and "10.1.2.3" in record.error
    assert dialled == []


async def test_a_redirect_into_a_private_spelling_is_refused(tls_server: TLSServer) -> None:  # noqa: F811
    tls_server.routes["/to-integer"] = lambda request: _redirect("https://2130706433/json")
    async with Fetcher(
        connect_to=[("a.test", "127.0.0.1", tls_server.port)], ca_bundle=tls_server.ca_path, deadline=5
    ) as fetcher:
        record = await fetcher.fetch("https://a.test/to-integer", kind="t", max_bytes=10_000, honour_robots=False)
    assert record.error_code == "blocked_address" and record.redirects == ["https://2130706433/json"]


async def _redirect(location: str):
    from netfixtures import redirect

    return redirect(location)


async def test_proxies_from_the_environment_are_ignored(tls_server: TLSServer, monkeypatch, server_tls) -> None:  # noqa: F811
    with RawServer("silent") as proxy:
        for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, deadline=5) as fetcher:
            record = await fetcher.fetch("https://a.test/json", kind="t", max_bytes=10_000, honour_robots=False)
        assert record.ok and proxy.connections == 0

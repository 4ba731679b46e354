"""Connecting, over real sockets on loopback: the addresses of a name raced as RFC 8305
(Happy Eyeballs v2) has it, so a black-holed first address costs a moment rather than the
connect timeout; a host that never answers is dialled once a crawl, not once a path, and
its origin is still recorded unreachable under the grace; retry pauses are jittered.

A black hole (tests/netfixtures.py) is a listening socket that never accepts, its queue
full: the kernel drops every SYN, as a firewalled host on the internet does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator

import pytest

from agentdex.crawler.crawl import crawl
from agentdex.crawler.fetch import Fetcher, backoff, jittered
from agentdex.crawler.netpolicy import interleaved
from agentdex.crawler.netstream import SocketBackend
from agentdex.db import get_listing, open_db
from agentdex.sampleweb.server import SampleWeb
from netfixtures import BlackHole, TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401
from waiting import eventually

pytestmark = pytest.mark.anyio
CAP = 64 * 1024


class Dialled(SocketBackend):
    """The real socket backend, noting every address it is asked to connect to."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []

    async def connect_tcp(self, host, port, **kwargs):
        self.addresses.append(host)
        return await super().connect_tcp(host, port, **kwargs)


def dialling(fetcher: Fetcher) -> Dialled:
    dialled = fetcher.backend._inner = Dialled()
    return dialled


def answers(*addresses: str):
    async def resolver(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolver


# -- Happy Eyeballs ----------------------------------------------------------------------------


def test_the_families_take_turns_from_the_first_answers_family() -> None:
    v6, v4 = ["2001:db8::1", "2001:db8::2", "2001:db8::3"], ["192.0.2.1", "192.0.2.2"]
    assert interleaved([*v6, *v4]) == ["2001:db8::1", "192.0.2.1", "2001:db8::2", "192.0.2.2", "2001:db8::3"]
    assert interleaved([*v4, *v6]) == ["192.0.2.1", "2001:db8::1", "192.0.2.2", "2001:db8::2", "2001:db8::3"]
    assert interleaved(v4) == v4


@contextlib.contextmanager
def black_hole_or_skip(address: str, port: int) -> Iterator[BlackHole]:
    hole = BlackHole(address, port)
    try:
        hole.__enter__()
    except OSError as exc:  # no IPv6 on this machine
        pytest.skip(f"cannot listen on {address}: {exc}")
    try:
        yield hole
    finally:
        hole.__exit__()


@pytest.mark.parametrize("dead", ["::1", "127.0.0.2"], ids=["ipv6-first", "ipv4-first"])
async def test_a_black_holed_first_address_does_not_hold_the_connection(dead, tls_server: TLSServer) -> None:  # noqa: F811
    # The name answers a dead address first (an IPv6 answer for a host that only answers on
    # IPv4, or another IPv4 one; on the server's port) and the server's own second. Dialled
    # one after the other, the first would take the whole connect timeout, which is also the
    # deadline: the fetch would time out. (Both are long, so that a busy machine's slow TLS
    # handshake with the live server never runs into them.)
    with black_hole_or_skip(dead, tls_server.port) as hole:
        async with Fetcher(
            ca_bundle=tls_server.ca_path,
            resolver=answers(hole.address, "127.0.0.1"),
            allow_private=True,
            connect_timeout=20.0,
            deadline=20.0,
            retries=0,
        ) as fetcher:
            dialled = dialling(fetcher)
            url = f"https://a.test:{tls_server.port}/json"
            record = await fetcher.fetch(url, kind="t", max_bytes=CAP, honour_robots=False)
    assert record.ok, record.error
    assert dialled.addresses == [dead, "127.0.0.1"]  # the dead one first, still
    assert tls_server.hit_count("a.test", "/json") == 1


async def test_when_every_address_refuses_the_fetch_says_refused(tls_server: TLSServer) -> None:  # noqa: F811
    with BlackHole() as hole:
        port = hole.port  # nothing listens on it once the hole is closed
    async with Fetcher(
        ca_bundle=tls_server.ca_path, resolver=answers("127.0.0.2", "127.0.0.3"), allow_private=True, retries=0
    ) as fetcher:
        dialled = dialling(fetcher)
        record = await fetcher.fetch(f"https://a.test:{port}/json", kind="t", max_bytes=CAP, honour_robots=False)
    assert record.error_code == "refused" and "Connection refused" in record.error
    assert dialled.addresses == ["127.0.0.2", "127.0.0.3"]


async def test_a_connect_that_times_out_leaves_no_socket_behind(tls_server: TLSServer) -> None:  # noqa: F811
    with BlackHole("127.0.0.2") as first, BlackHole("127.0.0.3", first.port):
        sockets_before = open_sockets()
        async with Fetcher(
            resolver=answers("127.0.0.2", "127.0.0.3"), allow_private=True, connect_timeout=0.6, retries=0
        ) as fetcher:
            dialled = dialling(fetcher)
            record = await fetcher.fetch(f"https://a.test:{first.port}/", kind="t", max_bytes=CAP, honour_robots=False)
            assert record.error_code == "timeout" and dialled.addresses == ["127.0.0.2", "127.0.0.3"]
            # The dropped attempts close as their cancellation reaches them.
            assert await eventually(lambda: open_sockets() <= sockets_before, timeout=30)


def open_sockets() -> int:
    """How many sockets this process holds (Linux's /proc)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return count


# -- a host that never answers -----------------------------------------------------------------


async def test_a_host_that_never_answers_is_dialled_once_for_every_path(tls_server: TLSServer) -> None:  # noqa: F811
    with BlackHole() as hole:
        async with Fetcher(
            connect_to=[("dead.test", hole.address, hole.port), *tls_server.connect_to],
            ca_bundle=tls_server.ca_path,
            connect_timeout=5.0,  # the dead host's is spent once; a.test's TLS handshake fits in it on a busy machine
            deadline=30.0,
            retries=2,
        ) as fetcher:
            dialled = dialling(fetcher)
            first, second = [
                await fetcher.fetch(f"https://dead.test{path}", kind="manifest", max_bytes=CAP, same_origin=True)
                for path in ("/.well-known/agent-app.json", "/.well-known/anchor.json")
            ]
            alive = await fetcher.fetch("https://a.test/json", kind="t", max_bytes=CAP, honour_robots=False)
    assert (first.error_code, second.error_code) == ("timeout", "timeout")
    assert "dead.test (port 443) did not answer" in first.error and "5 s connect timeout" in first.error
    assert "not dialled again" in second.error
    assert dialled.addresses == ["127.0.0.1", "127.0.0.1"]  # the dead host once (no retry), then a.test
    assert alive.ok  # another host is dialled as ever


@pytest.mark.slow
async def test_a_dead_origin_is_unreachable_under_the_grace(tmp_path) -> None:
    with SampleWeb() as web, BlackHole() as hole:
        db = open_db(tmp_path / "catalogue.db")
        await asyncio.to_thread(asyncio.run, crawl(db, ["pantry.test"], web.network_options(), verify=False))
        assert get_listing(db, "pantry.test")["status"] == "listed"
        dead = web.network_options(connect_to=[("pantry.test", hole.address, hole.port)], connect_timeout=0.5)
        await asyncio.to_thread(asyncio.run, crawl(db, ["pantry.test"], dead, verify=False))
        row = get_listing(db, "pantry.test")
        # Listed still, its manifest kept, the reason said: the grace of an unreachable origin.
        assert row["status"] == "listed" and row["name"] and "did not answer" in row["status_detail"]
        last = max(r["crawl_id"] for r in db.query("SELECT crawl_id FROM snapshots"))
        ended = {r["kind"]: r["error"] for r in db.query("SELECT * FROM snapshots WHERE crawl_id = ?", [last])}
        assert set(ended) == {"agent_app", "anchor"}  # nothing else asked of a dead origin
        assert "not dialled again" in ended["anchor"]
        fresh = open_db(tmp_path / "fresh.db")
        await asyncio.to_thread(asyncio.run, crawl(fresh, ["pantry.test"], dead, verify=False))
        assert get_listing(fresh, "pantry.test")["status"] == "unreachable"


# -- retry pauses ------------------------------------------------------------------------------


def test_a_retry_pause_is_jittered_and_never_shorter_than_its_schedule() -> None:
    pauses = {jittered(backoff(1)) for _ in range(50)}
    assert len(pauses) > 1  # not in step with every other request that failed at once
    assert all(0.4 <= p <= 0.6 for p in pauses)
    assert backoff(10) == 2.0 and jittered(3.0) >= 3.0  # capped; a Retry-After is honoured

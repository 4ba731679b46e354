"""The fetch policy against a real HTTPS server on loopback (tests/netfixtures.py)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator

import pytest

from agentdex.crawler.fetch import Fetcher, retry_after_seconds, retry_delay
from netfixtures import TLSServer, closed_port, tls_ca, tls_server, tls_server_session  # noqa: F401

CAP = 64 * 1024


def make_fetcher(server: TLSServer, **options: object) -> Fetcher:
    settings: dict = {"connect_to": server.connect_to, "ca_bundle": server.ca_path, "retries": 0, "deadline": 5.0}
    settings.update(options)
    return Fetcher(**settings)


@pytest.fixture
async def fetcher(tls_server: TLSServer) -> AsyncIterator[Fetcher]:
    async with make_fetcher(tls_server) as f:
        yield f


async def get(fetcher: Fetcher, path: str, host: str = "a.test", **options: object):
    """Fetch a path of the test server (robots.txt is tested in test_fetch_robots.py)."""
    options.setdefault("max_bytes", CAP)
    options.setdefault("honour_robots", False)
    return await fetcher.fetch(f"https://{host}{path}", kind="test", **options)


# -- a good answer ---------------------------------------------------------------------------


async def test_a_good_answer_is_recorded_in_full(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/json")
    assert record.ok and record.error_code is None
    assert record.status == 200 and record.final_url == "https://a.test/json" and record.redirects == []
    assert json.loads(record.body) == {"host": "a.test", "path": "/json"}  # TLS verified a.test, not 127.0.0.1
    assert record.sha256 == hashlib.sha256(record.body).hexdigest()
    assert record.headers["content-type"] == "application/json"
    assert record.fetched_at.endswith("Z") and record.elapsed_ms > 0
    assert fetcher.stats.bytes == len(record.body) and fetcher.stats.errors == 0


async def test_the_user_agent_names_agentdex_and_no_cookie_comes_back(fetcher: Fetcher) -> None:
    assert (await get(fetcher, "/set-cookie")).ok
    echoed = json.loads((await get(fetcher, "/echo")).body)
    assert echoed["headers"]["user-agent"].startswith("agentdex/")
    assert "+https://" in echoed["headers"]["user-agent"]
    assert "cookie" not in echoed["headers"]
    assert echoed["headers"]["accept-encoding"] == "gzip, deflate"


async def test_a_wrong_content_type_is_recorded_not_judged(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/html")
    assert record.ok and record.headers["content-type"].startswith("text/html")


async def test_head_and_post_requests(fetcher: Fetcher) -> None:
    head = await get(fetcher, "/json", method="HEAD")
    assert head.ok and head.body is None
    post = await get(fetcher, "/echo", method="POST", content=b'{"x":1}', headers={"Content-Type": "application/json"})
    echoed = json.loads(post.body)
    assert echoed["method"] == "POST" and echoed["body"] == '{"x":1}'
    assert echoed["headers"]["content-type"] == "application/json"


# -- URLs and schemes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://a.test/json", "scheme"),
        ("ftp://a.test/json", "scheme"),
        ("a.test/json", "invalid_url"),
        ("https://", "invalid_url"),
        ("https://user:secret@a.test/json", "invalid_url"),
    ],
)
async def test_only_plain_https_urls_are_fetched(fetcher: Fetcher, url: str, code: str) -> None:
    record = await fetcher.fetch(url, kind="test", max_bytes=CAP)
    assert record.error_code == code and record.error
    assert fetcher.stats.requests == 0


# -- the address guard, connect-to, TLS, DNS, refusals -----------------------------------------


async def test_a_name_resolving_to_loopback_is_blocked_without_allow_private(tls_server: TLSServer) -> None:
    url = f"https://localhost:{tls_server.port}/json"
    async with Fetcher(ca_bundle=tls_server.ca_path, retries=0) as guarded:
        blocked = await guarded.fetch(url, kind="test", max_bytes=CAP)
    async with Fetcher(ca_bundle=tls_server.ca_path, retries=0, allow_private=True) as open_:
        allowed = await open_.fetch(url, kind="test", max_bytes=CAP)
    assert blocked.error_code == "blocked_address" and "127.0.0.1" in blocked.error
    assert tls_server.hit_count("localhost", "/json") == 1  # only the allowed fetch arrived
    assert allowed.ok


async def test_a_connect_to_target_is_trusted_on_loopback(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, allow_private=False) as f:
        record = await get(f, "/json", host="b.test")
    assert record.ok and json.loads(record.body)["host"] == "b.test"


async def test_a_redirect_to_a_private_address_is_blocked(tls_server: TLSServer) -> None:
    rules = [("*.test", "127.0.0.1", tls_server.port)]  # localhost is not a connect-to target
    async with make_fetcher(tls_server, connect_to=rules) as f:
        record = await get(f, "/to-private")
    assert record.error_code == "blocked_address"


async def test_a_certificate_for_another_name_is_a_tls_error(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/json", host="wrong.test")
    assert record.error_code == "tls" and "wrong.test" in record.error


async def test_an_unknown_ca_is_a_tls_error(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, ca_bundle=None, retries=2) as f:
        record = await get(f, "/json")
    assert record.error_code == "tls"
    assert f.stats.requests == 1  # TLS failures are not retried


async def test_an_unknown_host_name_is_a_dns_error() -> None:
    async with Fetcher(retries=0) as f:
        record = await f.fetch("https://nothing-here.invalid/json", kind="test", max_bytes=CAP)
    assert record.error_code == "dns" and "nothing-here.invalid" in record.error


async def test_a_closed_port_is_refused(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, connect_to=[("*", "127.0.0.1", closed_port())]) as f:
        record = await get(f, "/json")
    assert record.error_code == "refused" and record.status is None


# -- the deadline ---------------------------------------------------------------------------------


async def test_a_dripping_server_cannot_hold_a_fetch_past_the_deadline(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, deadline=30.0) as f:  # connects get the default 5 s
        f.deadline = 1.0
        slow = await get(f, "/drip")  # 100 bytes at one per 0.5 s: 50 s, far past the deadline
        f.deadline = 30.0  # one that never binds, however busy the machine
        after = await get(f, "/json")  # the fetcher is still usable
    async with make_fetcher(tls_server, deadline=30.0) as f:
        quick = await get(f, "/drip/1")  # one byte after 0.5 s: inside the deadline
    assert slow.error_code == "timeout" and slow.body is None and "deadline" in slow.error
    assert after.ok
    assert quick.ok and quick.body == b"x"


# -- byte caps -------------------------------------------------------------------------------------


async def test_the_cap_holds_while_streaming(fetcher: Fetcher) -> None:
    over = await get(fetcher, "/big/2001", max_bytes=2000)  # no Content-Length to warn us
    exact = await get(fetcher, "/big/2000", max_bytes=2000)
    assert over.error_code == "too_large" and over.body is None
    assert exact.ok and len(exact.body) == 2000


async def test_an_announced_length_above_the_cap_is_refused_before_reading(fetcher: Fetcher) -> None:
    announced = await get(fetcher, "/big-cl/3000", max_bytes=2000)
    huge = await get(fetcher, "/huge-length", max_bytes=CAP)
    assert announced.error_code == "too_large" and "3000" in announced.error
    assert huge.error_code == "too_large" and "10000000000" in huge.error


async def test_the_cap_counts_bytes_after_decompression(fetcher: Fetcher) -> None:
    bomb = await get(fetcher, "/bomb", max_bytes=1024 * 1024)  # ~50 KB on the wire, 50 MB inflated
    small = await get(fetcher, "/gzip")
    assert bomb.error_code == "too_large" and "after decompression" in bomb.error
    assert small.ok and json.loads(small.body)["compressed"] is True
    assert fetcher.stats.bytes == len(small.body)


@pytest.mark.parametrize("path", ["/deflate", "/raw-deflate"])
async def test_deflate_bodies_are_decoded(fetcher: Fetcher, path: str) -> None:
    record = await get(fetcher, path)
    assert record.ok and json.loads(record.body)["compressed"] is True


@pytest.mark.parametrize("path", ["/badgzip", "/gzip-cut"])
async def test_a_broken_gzip_body_is_a_decoding_error(fetcher: Fetcher, path: str) -> None:
    record = await get(fetcher, path)
    assert record.error_code == "decoding" and record.body is None


async def test_a_connection_closed_mid_body_is_incomplete(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/cut")
    assert record.error_code == "incomplete" and record.status == 200 and record.body is None


# -- redirects ----------------------------------------------------------------------------------------


async def test_five_redirects_are_followed_and_a_sixth_is_refused(fetcher: Fetcher) -> None:
    five = await get(fetcher, "/chain/5")
    six = await get(fetcher, "/chain/6")
    assert five.ok and five.final_url == "https://a.test/chain/0" and len(five.redirects) == 5
    assert five.redirects[0] == "https://a.test/chain/4"
    assert six.error_code == "too_many_redirects" and six.body is None


async def test_a_redirect_loop_is_refused(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/loop")
    assert record.error_code == "redirect_loop" and record.status == 302


async def test_a_redirect_to_another_origin_is_refused_when_same_origin(fetcher: Fetcher) -> None:
    refused = await get(fetcher, "/to-other", same_origin=True)
    followed = await get(fetcher, "/to-other")
    assert refused.error_code == "cross_origin" and "https://b.test/json" in refused.error
    assert refused.final_url == "https://a.test/to-other" and refused.headers["location"] == "https://b.test/json"
    assert followed.ok and followed.final_url == "https://b.test/json"


async def test_a_redirect_to_http_is_refused(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/to-http")
    assert record.error_code == "scheme" and "http://a.test/json" in record.error


# -- statuses, retries, conditional requests ---------------------------------------------------------


async def test_an_error_status_keeps_status_and_body(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/status/404")
    assert record.error_code == "http_status" and record.status == 404
    assert json.loads(record.body) == {"status": 404} and not record.ok


@pytest.mark.parametrize("code", ["503", "500", "429"])
async def test_a_transient_failure_is_retried(tls_server: TLSServer, code: str) -> None:
    path = f"/flaky/{code}/1"
    async with make_fetcher(tls_server, retries=2) as f:
        record = await get(f, path)
    assert record.ok and tls_server.hit_count("a.test", path) == 2


async def test_retries_run_out(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, retries=1) as f:
        record = await get(f, "/flaky/503/5")
    assert record.error_code == "http_status" and record.status == 503
    assert tls_server.hit_count("a.test", "/flaky/503/5") == 2


async def test_a_client_error_is_not_retried(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, retries=2) as f:
        record = await get(f, "/status/404")
    assert record.error_code == "http_status"
    assert tls_server.hit_count("a.test", "/status/404") == 1


async def test_an_etag_match_is_reported_as_not_modified(fetcher: Fetcher) -> None:
    fresh = await get(fetcher, "/etag")
    same = await get(fetcher, "/etag", etag=fresh.etag, last_modified=fresh.last_modified)
    changed = await get(fetcher, "/etag", etag='"v0"')
    assert fresh.ok and fresh.etag == '"v1"' and fresh.last_modified.endswith("GMT")
    assert same.ok and same.not_modified and same.status == 304 and same.body is None and same.etag == '"v1"'
    assert changed.ok and not changed.not_modified and json.loads(changed.body) == {"version": 1}


async def test_conditional_headers_are_sent(fetcher: Fetcher) -> None:
    record = await get(fetcher, "/echo", etag='"abc"', last_modified="Wed, 01 Jan 2025 00:00:00 GMT")
    headers = json.loads(record.body)["headers"]
    assert headers["if-none-match"] == '"abc"'
    assert headers["if-modified-since"] == "Wed, 01 Jan 2025 00:00:00 GMT"


def test_retry_after_decides_whether_a_429_is_retried() -> None:
    import httpx

    assert retry_delay(httpx.Response(429, headers={"Retry-After": "1"}), 0) == 1.0
    assert retry_delay(httpx.Response(429, headers={"Retry-After": "120"}), 0) is None
    assert retry_delay(httpx.Response(503), 1) == pytest.approx(0.4)
    assert retry_delay(httpx.Response(404), 0) is None
    assert retry_delay(httpx.Response(503), 0, method="POST") is None
    assert retry_after_seconds("Wed, 01 Jan 2020 00:00:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None


# -- concurrency ---------------------------------------------------------------------------------------


async def _burst(fetcher: Fetcher, hosts: list[str], each: int) -> None:
    jobs = [get(fetcher, "/slow", host=host) for host in hosts for _ in range(each)]
    records = await asyncio.gather(*jobs)
    assert all(r.ok for r in records)


@pytest.mark.parametrize("per_host", [2, 4])
async def test_requests_per_host_never_exceed_the_limit(tls_server: TLSServer, per_host: int) -> None:
    async with make_fetcher(tls_server, per_host=per_host) as f:
        await _burst(f, ["conc.sample.test"], each=6)
    assert tls_server.max_active["conc.sample.test"] == per_host


async def test_the_global_limit_holds_across_hosts(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server, concurrency=3, per_host=2) as f:
        await _burst(f, ["x.sample.test", "y.sample.test", "z.sample.test"], each=2)
    assert tls_server.max_active_all == 3
    assert max(tls_server.max_active.values()) <= 2


# -- what counts as an error of the crawl --------------------------------------------------


@pytest.mark.parametrize(
    ("path", "options", "counted"),
    [
        ("/missing", {}, 1),
        ("/missing", {"absent_ok": True}, 0),  # a discovery document the origin does not publish
        ("/missing", {"same_origin": True}, 0),  # a manifest path of the origin's own: an absence too
        ("/status/503", {"same_origin": True}, 1),  # but a failure there is one
        ("/status/402", {}, 1),
        ("/status/402", {"expected": (402,)}, 0),  # the 402 of a paid resource asked unpaid
        ("/missing", {"expected": (402,)}, 1),  # only the status expected
        ("/status/503", {"count_errors": False}, 0),  # a third party's failure (the MCP registry's)
        ("/status/503", {"absent_ok": True, "expected": (402,)}, 1),
    ],
)
async def test_stats_count_the_failures_of_the_crawl_only(tls_server: TLSServer, path, options, counted) -> None:
    async with make_fetcher(tls_server) as fetcher:
        record = await get(fetcher, path, **options)
    assert record.error_code == "http_status" and record.status in (402, 404, 503)  # in the record either way
    assert fetcher.stats.errors == counted

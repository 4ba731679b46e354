"""robots.txt under the fetch policy, against the loopback HTTPS server."""

from __future__ import annotations

import pytest
from netfixtures import TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.robots import robots_exempt

CAP = 64 * 1024
RULES = "User-agent: otherbot\nDisallow: /\n\nUser-agent: agentdex\nDisallow: /private\n"


def make_fetcher(server: TLSServer) -> Fetcher:
    return Fetcher(connect_to=server.connect_to, ca_bundle=server.ca_path, retries=0, deadline=5.0)


async def test_a_disallowed_path_is_not_fetched(tls_server: TLSServer) -> None:
    tls_server.robots["r.sample.test"] = RULES
    async with make_fetcher(tls_server) as f:
        refused = await f.fetch("https://r.sample.test/private/x", kind="test", max_bytes=CAP)
        allowed = await f.fetch("https://r.sample.test/json", kind="test", max_bytes=CAP)
    assert refused.error_code == "robots" and "/private/x" in refused.error and refused.status is None
    assert tls_server.hit_count("r.sample.test", "/private/x") == 0
    assert allowed.ok


async def test_robots_txt_is_fetched_once_per_origin(tls_server: TLSServer) -> None:
    tls_server.robots["r.sample.test"] = RULES
    async with make_fetcher(tls_server) as f:
        for path in ("/json", "/html", "/private", "/echo"):
            await f.fetch(f"https://r.sample.test{path}", kind="test", max_bytes=CAP)
        entry = f.robots.entry("https://r.sample.test")
    assert tls_server.hit_count("r.sample.test", "/robots.txt") == 1
    assert entry is not None and entry.record.ok and entry.note is None


async def test_the_well_known_manifest_and_honour_robots_false_bypass_robots(tls_server: TLSServer) -> None:
    tls_server.robots["r.sample.test"] = "User-agent: *\nDisallow: /\n"
    async with make_fetcher(tls_server) as f:
        manifest = await f.fetch("https://r.sample.test/.well-known/agent-app.json", kind="agent_app", max_bytes=CAP)
        page = await f.fetch("https://r.sample.test/json", kind="test", max_bytes=CAP)
        forced = await f.fetch("https://r.sample.test/json", kind="test", max_bytes=CAP, honour_robots=False)
    assert manifest.ok and forced.ok
    assert page.error_code == "robots"


async def test_a_missing_robots_txt_allows_everything_silently(tls_server: TLSServer) -> None:
    async with make_fetcher(tls_server) as f:
        record = await f.fetch("https://none.sample.test/json", kind="test", max_bytes=CAP)
        entry = f.robots.entry("https://none.sample.test")
    assert record.ok and entry is not None and entry.record.status == 404 and entry.note is None
    assert f.stats.errors == 0 and f.stats.requests == 2  # robots.txt and the page


async def test_a_failing_robots_txt_holds_everything_off_but_the_manifests(tls_server: TLSServer) -> None:
    tls_server.robots["down.sample.test"] = 503
    async with make_fetcher(tls_server) as f:
        record = await f.fetch("https://down.sample.test/json", kind="test", max_bytes=CAP)
        manifest = await f.fetch("https://down.sample.test/.well-known/agent-app.json", kind="test", max_bytes=CAP)
        entry = f.robots.entry("https://down.sample.test")
    assert record.error_code == "robots" and "503" in record.error and "RFC 9309" in record.error
    assert tls_server.hit_count("down.sample.test", "/json") == 0
    assert manifest.ok  # the well-known manifest is exempt
    assert entry is not None and entry.note and "503" in entry.note


@pytest.mark.parametrize(
    ("url", "exempt"),
    [
        ("https://a.test/.well-known/agent-app.json", True),
        ("https://a.test/.well-known/anchor.json", True),
        ("https://a.test/robots.txt", True),
        ("https://a.test/.well-known/other.json", False),
        ("https://a.test/agent.md", False),
    ],
)
def test_only_the_manifests_are_exempt(url: str, exempt: bool) -> None:
    assert robots_exempt(url) is exempt


async def test_a_forgotten_origin_asks_robots_txt_again(tls_server: TLSServer) -> None:
    tls_server.robots["r.sample.test"] = RULES
    async with make_fetcher(tls_server) as f:
        await f.fetch("https://r.sample.test/json", kind="test", max_bytes=CAP)
        f.robots.forget("https://r.sample.test")
        assert f.robots.entry("https://r.sample.test") is None
        refused = await f.fetch("https://r.sample.test/private/x", kind="test", max_bytes=CAP)
    assert tls_server.hit_count("r.sample.test", "/robots.txt") == 2
    assert refused.error_code == "robots"

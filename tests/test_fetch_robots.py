"""robots.txt under the fetch policy, against the loopback HTTPS server."""

from __future__ import annotations

import asyncio

import pytest

from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.robots import ROBOTS_MAX_BYTES, robots_exempt
from agentdex.db import open_db
from freshweb import manifest
from netfixtures import Reply, Request, TLSServer, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401

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


# --- a whole crawl against wildcard rules ---------------------------------------------------------

WILDCARDS = "User-agent: *\nDisallow: /*.md$\nDisallow: /llms*\n"
WELL_KNOWN_ONLY = "User-agent: *\nDisallow: /\nAllow: /.well-known/\n"


def _app_manifest(host: str) -> dict:
    """freshweb's manifest, with a guide, llms.txt and SKILL.md that wildcard rules can match."""
    doc = {
        **manifest(host),
        "guide": {"url": f"https://{host}/docs/guide.md", "llms_txt": f"https://{host}/llms.txt"},
        "skill": {"url": f"https://{host}/SKILL.md"},
    }
    del doc["http"]
    return doc


def _serve_site(server: TLSServer) -> None:
    """Every host: the manifest above, its guide, llms.txt, SKILL.md and an A2A agent card."""

    async def serve_manifest(request: Request) -> Reply:
        return json_reply(_app_manifest(request.host))

    async def text(request: Request) -> Reply:
        return Reply(200, b"# Tidewatch\n\nAsk for a beach and a date.\n", content_type="text/markdown")

    async def card(request: Request) -> Reply:
        return json_reply({"name": "Tidewatch", "url": f"https://{request.host}/a2a", "version": "1.0"})

    server.routes.update(
        {
            "/.well-known/agent-app.json": serve_manifest,
            "/docs/guide.md": text,
            "/llms.txt": text,
            "/SKILL.md": text,
            "/.well-known/agent-card.json": card,
        }
    )


def test_a_crawl_requests_nothing_wildcard_rules_disallow(tls_server: TLSServer, tmp_path) -> None:  # noqa: F811
    _serve_site(tls_server)
    tls_server.robots.update({"md.sample.test": WILDCARDS, "wk.sample.test": WELL_KNOWN_ONLY})
    net = NetworkOptions(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path)
    db = open_db(tmp_path / "catalogue.db")
    asyncio.run(crawl(db, ["md.sample.test", "wk.sample.test", "open.sample.test"], net, verify=False))
    asked = {
        host: {p for (h, p), n in tls_server.hits.items() if h == host and n}
        for host in ("md.sample.test", "wk.sample.test", "open.sample.test")
    }
    # The control origin without robots.txt: every document is read.
    assert {"/docs/guide.md", "/llms.txt", "/SKILL.md", "/.well-known/agent-card.json"} <= asked["open.sample.test"]
    # /*.md$ and /llms*: neither the guide, llms.txt nor SKILL.md; the rest as usual.
    assert not asked["md.sample.test"] & {"/docs/guide.md", "/llms.txt", "/SKILL.md"}
    assert "/.well-known/agent-card.json" in asked["md.sample.test"]
    # Disallow: / with Allow: /.well-known/ (longest match): the discovery documents, nothing else.
    assert "/.well-known/agent-card.json" in asked["wk.sample.test"]
    assert all(p.startswith("/.well-known/") or p == "/robots.txt" for p in asked["wk.sample.test"])
    refused = db.execute("SELECT url FROM snapshots WHERE error_code = 'robots' ORDER BY url").fetchall()
    assert {u for (u,) in refused} >= {"https://md.sample.test/docs/guide.md", "https://wk.sample.test/llms.txt"}


def test_a_robots_txt_longer_than_500_kib_is_obeyed_in_its_prefix(tls_server: TLSServer) -> None:  # noqa: F811
    filler = "# " + "x" * 97 + "\n"
    body = "User-agent: *\nDisallow: /private\n" + filler * (ROBOTS_MAX_BYTES // len(filler) + 50) + "Disallow: /json\n"
    tls_server.robots["long.sample.test"] = body

    async def fetch_both() -> tuple:
        async with make_fetcher(tls_server) as f:
            refused = await f.fetch("https://long.sample.test/private/x", kind="test", max_bytes=CAP)
            allowed = await f.fetch("https://long.sample.test/json", kind="test", max_bytes=CAP)
            return refused, allowed, f.robots.entry("https://long.sample.test")

    refused, allowed, entry = asyncio.run(fetch_both())
    assert refused.error_code == "robots" and tls_server.hit_count("long.sample.test", "/private/x") == 0
    assert allowed.ok  # its rule lies past the first 500 KiB
    assert entry is not None and entry.record.ok and "500 KiB" in (entry.note or "")
    assert len(entry.record.body or b"") == ROBOTS_MAX_BYTES + 1  # the rest was never read

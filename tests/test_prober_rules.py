"""The prober rules census authors learnt from their own bugs (siliroid/mcp-endpoint-census),
each over real sockets: a web of the `mcp` SDK's servers and plain JSON answers on loopback
TLS, crawled by agentdex, its census read back.

- The body comes before the status: a JSON-RPC result under a 400 is an answer (the SDK's
  server behind a gateway that sends every 200 as a 400 is open, its tools listed in both
  eras), and a 400 whose body says a token is required is gated (``auth_required``,
  ``auth_gated``, up), not broken; a 400 that says nothing of credentials stays ``not_mcp``.
- A 405 to a GET (and a HEAD) on a Streamable HTTP endpoint is what the transport allows: a
  2026-only SDK server that refuses GET is open and healthy, and Anchor's endpoint proof counts
  its 405 as an answer.
- A 429 is unmeasurable (tests/test_endpoint_windows.py), and one request a host at a time
  (tests/test_fetch_connections.py).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentdex.crawler.crawl import crawl
from agentdex.crawler.verify import Verifier
from agentdex.db import open_db
from agentdex.db.seeds import census_endpoints
from agentdex.sampleweb.server import SampleWeb

TOOLS = [{"name": "gate", "description": "Whether the gate is open.", "kind": "read"}]
# The MCP endpoint of each origin (mcp.<origin>/mcp) and the rule that serves it.
ENDPOINTS = {
    "under400.test": {"app": "mcp", "options": {"name": "Under400", "status": 400, "tools": TOOLS}},
    "tokengate.test": {
        "app": "json_document",
        "options": {"status": 400, "document": {"error": "Bearer token is required"}},
    },
    "keygate.test": {"app": "json_document", "options": {"status": 400, "document": {"message": "API key required"}}},
    "broken400.test": {
        "app": "json_document",
        "options": {"status": 400, "document": {"error": "Bad Request: malformed request body"}},
    },
    "get405.test": {"app": "mcp", "options": {"name": "NoGet", "eras": "modern", "tools": TOOLS}},
}


def manifest(origin: str) -> dict:
    """A minimal agent-app manifest naming the origin's MCP endpoint."""
    return {
        "agent_app": "1",
        "name": origin.split(".")[0].title(),
        "one_liner": f"{origin}: a sample origin of the prober rules.",
        "description": "A sample origin whose MCP endpoint answers in a way a careless prober misreads.",
        "homepage": f"https://{origin}/",
        "mcp": {"url": f"https://mcp.{origin}/mcp", "transport": "streamable-http", "auth": ["none"]},
        "auth_methods": ["none"],
        "pattern": {"install_by_url": True, "server_llm": False, "human_ui": "none"},
        "categories": ["utilities"],
        "pricing": "free",
        "publisher": {"name": "Sample", "url": f"https://{origin}/", "contact": f"mailto:help@{origin}"},
        "policies": {"privacy": f"https://{origin}/", "terms": f"https://{origin}/"},
    }


def write_web(root: Path) -> None:
    for origin, rule in ENDPOINTS.items():
        (root / origin / ".well-known").mkdir(parents=True)
        (root / origin / ".well-known" / "agent-app.json").write_text(json.dumps(manifest(origin)), "utf-8")
        (root / origin / "index.html").write_text(f"<!doctype html><title>{origin}</title>", "utf-8")
        (root / f"mcp.{origin}").mkdir()
        (root / f"mcp.{origin}" / "_site.json").write_text(json.dumps({"paths": {"/mcp": rule}}), "utf-8")


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    root = tmp_path_factory.mktemp("proberweb")
    write_web(root)
    with SampleWeb(root, dns=False) as running:
        yield running


@pytest.fixture(scope="module")
def census(web, tmp_path_factory):
    """Every origin crawled once; the census rows by origin."""
    db = open_db(tmp_path_factory.mktemp("prober") / "agentdex.db")
    asyncio.run(crawl(db, list(ENDPOINTS), web.network_options(deadline=60)))
    rows = {row["origin"]: row for row in census_endpoints(db)}
    kinds = dict(db.execute("SELECT origin, auth_kind FROM endpoint_probes WHERE role = 'mcp'").fetchall())
    return rows, kinds


@pytest.mark.slow
def test_a_json_rpc_result_under_a_400_is_an_answer(census, web):
    rows, kinds = census
    row = rows["under400.test"]
    assert (row["state"], row["census"], row["era"], kinds["under400.test"]) == ("ok", "open", "dual", "none")
    assert row["healthy"] is True and row["uptime_24h"] == 100.0
    # Both eras' tools/list answers came under 400 too, and were read.
    assert "1 tool(s) listed" in row["detail"]
    assert web.requests_log.jsonrpc_methods("mcp.under400.test").count("tools/list") == 2


@pytest.mark.slow
@pytest.mark.parametrize(("origin", "kind"), [("tokengate.test", "bearer"), ("keygate.test", "unknown")])
def test_a_400_saying_a_token_is_required_is_gated_not_broken(census, origin, kind):
    rows, kinds = census
    row = rows[origin]
    assert (row["state"], row["census"], kinds[origin]) == ("auth_required", "auth_gated", kind)
    assert row["healthy"] is True and row["uptime_24h"] == 100.0  # alive behind credentials


@pytest.mark.slow
def test_a_400_that_says_nothing_of_credentials_is_still_not_mcp(census):
    rows, _ = census
    assert (rows["broken400.test"]["state"], rows["broken400.test"]["healthy"]) == ("not_mcp", True)
    # One failure is not yet unhealthy; the state is what a census counts.
    assert rows["broken400.test"]["census"] == "not_mcp"


@pytest.mark.slow
def test_a_405_to_a_get_on_a_streamable_http_endpoint_is_correct(census, web):
    rows, _ = census
    row = rows["get405.test"]
    assert (row["state"], row["census"], row["era"], row["healthy"]) == ("ok", "open", "modern", True)

    async def answers() -> tuple[int | None, int | None]:
        net = web.network_options(deadline=60)
        async with net.fetcher() as fetcher:
            got = await fetcher.fetch("https://mcp.get405.test/mcp", kind="mcp", method="GET", max_bytes=1000)
            seen = await Verifier(fetcher, net).responds("https://mcp.get405.test/mcp", "anchor_endpoint")
            return got.status, seen.status

    # The server refuses GET and HEAD with 405, as Streamable HTTP allows; that is an answer.
    assert asyncio.run(answers()) == (405, 405)


@pytest.mark.slow
def test_the_probes_sent_no_credential(census, web):
    assert not [r for r in web.requests_log if "authorization" in r.headers]

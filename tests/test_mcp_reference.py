"""The MCP probe against the MCP TypeScript SDK's reference server, ``server-everything``
(npm, pinned in tests/npm), over both of its HTTP transports, behind the suite's TLS.

What the probe reports is compared with what the MCP Python SDK's own clients list from the
same server (its ``sse_client`` and ``streamable_http_client``), so nothing here is a
hard-coded answer. A whole Anchor crawl of a manifest that declares the server's SSE
transport shows the checks a user reads: the tools listed, the transport named deprecated,
and the HTTP proof passing although the server never answers HEAD.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from agentdex.crawler import mcp_probe
from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier
from agentdex.db import list_checks, open_db
from netfixtures import TLSServer, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401
from reference_servers import TLSProxy, everything, node_skip_reason

pytestmark = pytest.mark.skipif(node_skip_reason() is not None, reason=node_skip_reason() or "")

SSE_HOST, HTTP_HOST = "sse.sample.test", "mcp.sample.test"
SSE_URL, HTTP_URL = f"https://{SSE_HOST}/sse", f"https://{HTTP_HOST}/mcp"


@pytest.fixture(scope="module")
def servers(tls_ca):
    """Both reference servers, each behind its TLS proxy: ``{"sse": proxy, "http": proxy}``."""
    _, _, cert = tls_ca
    with everything("sse") as sse_port, everything("streamableHttp") as http_port:
        with TLSProxy(cert, sse_port) as sse, TLSProxy(cert, http_port) as http:
            yield {"sse": sse, "http": http}


def fetcher(tls_ca, servers, deadline: float = 15.0) -> Fetcher:
    rules = servers["sse"].connect_to(SSE_HOST) + servers["http"].connect_to(HTTP_HOST)
    return Fetcher(connect_to=rules, ca_bundle=tls_ca[1], deadline=deadline)


async def probe(tls_ca, servers, url: str, transport: str | None) -> mcp_probe.Probe:
    async with fetcher(tls_ca, servers) as net:
        return await Verifier(net, None).probe(url, transport)


async def sdk_tools(transport) -> dict[str, tuple]:
    """What the MCP Python SDK's client lists: name -> (description, annotations, input schema)."""
    async with Client(transport, mode="legacy") as client:
        tools = (await client.list_tools()).tools
    return {
        t.name: (
            t.description,
            _hints(t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else {}),
            t.model_dump(by_alias=True, exclude_none=True)["inputSchema"],
        )
        for t in tools
    }


def _hints(annotations: dict) -> dict:
    return {k: v for k, v in annotations.items() if k.endswith("Hint")}


def probed_tools(found: mcp_probe.Probe) -> dict[str, tuple]:
    return {t.name: (t.description, _hints(t.annotations), t.input_schema) for t in found.tools}


def upstream(servers, which: str) -> str:
    return f"http://127.0.0.1:{servers[which].upstream}"


async def test_a_declared_sse_endpoint_lists_every_tool_the_sdks_sse_client_lists(tls_ca, servers):
    servers["sse"].sent.clear()
    found = await probe(tls_ca, servers, SSE_URL, "sse")
    assert (found.state, found.transport, found.tools_listed) == ("ok", "sse", True)
    assert found.server_info["name"] and found.protocol_version
    assert "deprecated HTTP+SSE" in found.detail and found.to_dict()["transport_deprecated"] is True
    expected = await sdk_tools(sse_client(upstream(servers, "sse") + "/sse"))
    assert len(expected) > 5 and probed_tools(found) == expected
    assert servers["sse"].methods() == ["initialize", "notifications/initialized", "tools/list"]
    assert found.era == "legacy"


async def test_the_streamable_http_server_is_still_reported_exactly(tls_ca, servers):
    servers["http"].sent.clear()
    found = await probe(tls_ca, servers, HTTP_URL, "streamable-http")
    assert (found.state, found.transport, found.tools_listed) == ("ok", "streamable-http", True)
    assert found.to_dict()["transport_deprecated"] is False and "deprecated" not in found.detail
    expected = await sdk_tools(streamable_http_client(upstream(servers, "http") + "/mcp"))
    assert len(expected) > 5 and probed_tools(found) == expected
    # A 2025-era server: server/discover is refused, so the handshake follows; legacy only.
    assert servers["http"].methods() == ["server/discover", "initialize", "notifications/initialized", "tools/list"]
    assert (found.era, found.versions, found.supported_versions) == ("legacy", [found.protocol_version], [])


async def test_both_transports_of_one_server_list_the_same_tools(tls_ca, servers):
    over_sse, over_http = await asyncio.gather(
        probe(tls_ca, servers, SSE_URL, "sse"), probe(tls_ca, servers, HTTP_URL, "streamable-http")
    )
    assert probed_tools(over_sse) == probed_tools(over_http)


async def test_a_streamable_http_declaration_meeting_the_sse_server_is_the_wrong_transport(tls_ca, servers):
    found = await probe(tls_ca, servers, SSE_URL, "streamable-http")
    assert (found.state, found.http_status, found.transport) == ("wrong_transport", 404, "sse")
    assert "endpoint event" in found.detail and "deprecated HTTP+SSE" in found.detail and not found.tools


async def test_an_sse_declaration_meeting_the_streamable_http_server_is_the_wrong_transport(tls_ca, servers):
    found = await probe(tls_ca, servers, HTTP_URL, "sse")
    assert (found.state, found.transport) == ("wrong_transport", "streamable-http")
    assert "speaks streamable-http, not the declared sse" in found.detail and not found.tools


def anchor(endpoint: str) -> dict:
    return {
        "anchor": "0.1",
        "updated": "2026-12-01",
        "publisher": {
            "name": "Everything",
            "url": "https://everything.sample.test",
            "contact": "agents@everything.sample.test",
        },
        "tools": [
            {
                "id": "test.everything/all",
                "kind": "mcp",
                "name": "Everything",
                "description": "The MCP SDK's reference server.",
                "endpoint": endpoint,
                "transport": "sse",
                "auth": ["none"],
            }
        ],
    }


def test_an_anchor_crawl_of_an_sse_server_lists_its_tools_and_proves_the_endpoint(
    tls_ca, servers, tls_server, tmp_path
):
    tls_server.routes["/.well-known/anchor.json"] = lambda request: _reply(anchor(SSE_URL))
    net = NetworkOptions(
        connect_to=[
            ("everything.sample.test", "127.0.0.1", tls_server.port),
            ("registry.sample.test", "127.0.0.1", tls_server.port),
            *servers["sse"].connect_to(SSE_HOST),
        ],
        ca_bundle=tls_ca[1],
        registry="https://registry.sample.test",
        dns_server="127.0.0.1:9",
    )
    db = open_db(tmp_path / "catalogue.db")
    asyncio.run(crawl(db, ["everything.sample.test"], net))
    checks = {c["name"]: c for c in list_checks(db, "everything.sample.test")}
    assert checks["anchor.verify.http"]["status"] == "pass"
    init, tools = checks["mcp.initialize"], checks["mcp.tools"]
    assert init["status"] == "pass" and "deprecated HTTP+SSE" in init["detail"]
    assert tools["status"] == "pass" and tools["data"]["transport"] == "sse"
    assert tools["data"]["transport_deprecated"] is True and len(tools["data"]["tools"]) > 5
    health = db.execute("select state, detail from endpoint_probes where role = 'mcp'").fetchall()
    assert [(state, "deprecated HTTP+SSE" in detail) for state, detail in health] == [("ok", True)]


async def _reply(doc: dict):
    return json_reply(doc)


def test_the_reference_server_never_answers_head(servers):
    """The fact the HTTP proof's fallback exists for (if the server ever answers HEAD,
    this test says the reference no longer shows the problem)."""
    with socket.create_connection(("127.0.0.1", servers["sse"].upstream)) as sock:
        sock.settimeout(2)
        sock.sendall(b"HEAD /sse HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(TimeoutError):
            sock.recv(100)

"""Redirects that would carry a probe's request to another origin, over real HTTPS on loopback
(the fault server of ``netfixtures``; ``a.test`` is the origin probed, ``b.test`` the other one):
the HTTP+SSE session's POST follows no redirect at all, a Streamable HTTP POST follows one on
its own origin only (the trailing-slash 307 real servers send), and no body reaches ``b.test``."""

from __future__ import annotations

import asyncio
import json

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier
from netfixtures import Reply, Request, TLSServer, json_reply, redirect, tls_ca, tls_server, tls_server_session  # noqa: F401

INIT = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "hand-made"}}
TOOLS = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}


def fetcher(server: TLSServer) -> Fetcher:
    return Fetcher(connect_to=server.connect_to, ca_bundle=server.ca_path, deadline=5.0)


async def probe(server: TLSServer, url: str, transport: str):
    async with fetcher(server) as f:
        return await Verifier(f, None).probe(url, transport)


def answer(request: Request) -> Reply:
    """A Streamable HTTP server's answer to one JSON-RPC message (the 2026 era's methods unknown)."""
    message = json.loads(request.body)
    if "id" not in message:
        return Reply(202, b"", content_type=None)
    results = {"initialize": INIT, "tools/list": TOOLS}
    if message["method"] not in results:
        return json_reply({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not found"}})
    return json_reply({"jsonrpc": "2.0", "id": message["id"], "result": results[message["method"]]})


class Catcher:
    """Counts what reaches a path on ``b.test`` (and answers as an MCP server would)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, request: Request) -> Reply:
        if request.host == "b.test":
            self.bodies.append(request.body)
        return answer(request)


class SseOrigin:
    """An HTTP+SSE server on a.test: GET /sse names the same-origin endpoint /message, whose
    POST answers 307 to ``target``."""

    def __init__(self, server: TLSServer, target: str) -> None:
        self.target = target
        server.routes["/sse"], server.routes["/message"] = self.sse, self.message

    async def sse(self, request: Request) -> Reply:
        async def stream(writer: asyncio.StreamWriter) -> None:
            writer.write(b"event: endpoint\ndata: /message\n\n")
            await writer.drain()
            await asyncio.get_running_loop().create_future()  # open until the server stops (it cancels)

        return Reply(content_type="text/event-stream", length=False, stream=stream)

    async def message(self, request: Request) -> Reply:
        return redirect(self.target, 307)


async def test_the_sse_posts_follow_no_redirect_to_another_origin_or_its_own(tls_server):
    catcher = Catcher()
    tls_server.routes["/collect"] = catcher
    for target in ("https://b.test/collect", "https://a.test/collect"):
        SseOrigin(tls_server, target)
        found = await probe(tls_server, "https://a.test/sse", "sse")
        assert found.state != "ok" and "307" in found.detail, found.detail
        assert tls_server.hit_count("b.test", "/collect") == 0 and tls_server.hit_count("a.test", "/collect") == 0
    assert catcher.bodies == []


async def test_a_streamable_post_follows_its_own_origin_only(tls_server):
    async def mcp(request: Request) -> Reply:
        if request.host == "a.test":
            return redirect("https://b.test/mcp", 307)
        return await catcher(request)

    catcher = Catcher()
    tls_server.routes["/mcp"] = mcp
    found = await probe(tls_server, "https://a.test/mcp", "streamable-http")
    assert found.state != "ok"
    assert catcher.bodies == [] and tls_server.hit_count("b.test", "/mcp") == 0  # no initialize left a.test


async def test_a_trailing_slash_redirect_on_the_same_origin_is_still_followed(tls_server):
    async def mcp(request: Request) -> Reply:
        return redirect("/mcp/", 307)

    async def slash(request: Request) -> Reply:
        return answer(request)

    tls_server.routes["/mcp"], tls_server.routes["/mcp/"] = mcp, slash
    found = await probe(tls_server, "https://a.test/mcp", "streamable-http")
    assert found.state == "ok", found.detail
    assert [t.name for t in found.tools] == ["echo"]

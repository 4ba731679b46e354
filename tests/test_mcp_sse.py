"""The MCP probe over the legacy HTTP+SSE transport: the MCP Python SDK's own SSE server
(``MCPServer.sse_app``, behind the suite's TLS), and hand-made HTTP+SSE servers on the
fault-injection server that misbehave on purpose (an endpoint on another origin, a stream
that never names its endpoint, a stream past the byte cap or the event cap).
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
import uvicorn
from mcp import Client
from mcp.client.sse import sse_client
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations

from agentdex.crawler import mcp_probe, mcp_sse
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier
from netfixtures import Reply, Request, TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401
from reference_servers import TLSProxy, free_port, wait_for_port

PY_HOST = "py.sample.test"


def sdk_server() -> MCPServer:
    server = MCPServer("Harbour", version="1.0.0")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def tides(port: str) -> str:
        """Tide times for a port."""
        return port

    @server.tool(annotations=ToolAnnotations(destructiveHint=True))
    def cancel_booking(booking: str) -> str:
        """Cancel a booking."""
        return booking

    return server


@pytest.fixture(scope="module")
def python_sse(tls_ca):
    """The Python SDK's SSE server (uvicorn, plain HTTP) behind a TLS proxy for PY_HOST."""
    port = free_port()
    app = sdk_server().sse_app(transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for_port(port, _Running(thread))
        with TLSProxy(tls_ca[2], port) as proxy:
            yield proxy
    finally:
        server.should_exit = True
        thread.join(10)


class _Running:
    """``wait_for_port``'s view of a server thread: ``poll()`` is None while it runs."""

    def __init__(self, thread: threading.Thread) -> None:
        self.thread, self.returncode = thread, None

    def poll(self) -> int | None:
        return None if self.thread.is_alive() else 1


async def probe_with(fetcher: Fetcher, url: str, transport: str = "sse") -> mcp_probe.Probe:
    async with fetcher:
        return await Verifier(fetcher, None).probe(url, transport)


async def test_the_python_sdks_sse_server_is_listed_as_its_own_client_lists_it(tls_ca, python_sse):
    python_sse.sent.clear()
    fetcher = Fetcher(connect_to=python_sse.connect_to(PY_HOST), ca_bundle=tls_ca[1])
    found = await probe_with(fetcher, f"https://{PY_HOST}/sse")
    assert (found.state, found.transport, found.server_info["name"]) == ("ok", "sse", "Harbour")
    async with Client(sse_client(f"http://127.0.0.1:{python_sse.upstream}/sse"), mode="legacy") as client:
        expected = {
            t.name: t.annotations.model_dump(by_alias=True, exclude_none=True)
            for t in (await client.list_tools()).tools
        }
    assert {t.name: t.annotations for t in found.tools} == expected
    assert [(t.name, t.read_only) for t in found.tools] == [("tides", True), ("cancel_booking", False)]
    assert python_sse.methods() == ["initialize", "notifications/initialized", "tools/list"]


# --- hand-made HTTP+SSE servers that misbehave ------------------------------------------------


NOTIFICATION = b'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message"}\n\n'
INIT = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": {"name": "hand-made"}}


class Legacy:
    """An HTTP+SSE server on the fault server: GET /sse (any other method: 404) writes
    ``prelude``, the endpoint event (unless ``endpoint`` is None), ``flood`` notifications,
    then the answer to each request POSTed to /message as a ``message`` event (or, with
    ``keep_alive``, only comments)."""

    def __init__(
        self,
        server: TLSServer,
        endpoint: str | None = "/message",
        prelude: bytes = b"",
        flood: int = 0,
        keep_alive: bool = False,
    ) -> None:
        self.endpoint, self.prelude, self.flood, self.keep_alive = endpoint, prelude, flood, keep_alive
        self.queue: asyncio.Queue | None = None
        server.routes["/sse"], server.routes["/message"] = self.sse, self.message

    async def sse(self, request: Request) -> Reply:
        if request.method != "GET":  # as express answers a method the route does not have
            return Reply(status=404, body=b"Cannot POST /sse", content_type="text/html")
        self.queue = asyncio.Queue()

        async def stream(writer: asyncio.StreamWriter) -> None:
            writer.write(self.prelude)
            if self.endpoint is not None:
                writer.write(f"event: endpoint\ndata: {self.endpoint}\n\n".encode())
            writer.write(NOTIFICATION * self.flood)
            await writer.drain()
            while True:
                if self.keep_alive:
                    await asyncio.sleep(0.05)
                    writer.write(b": ping\n\n")
                else:
                    writer.write(b"event: message\ndata: " + json.dumps(await self.queue.get()).encode() + b"\n\n")
                await writer.drain()

        return Reply(content_type="text/event-stream", length=False, stream=stream)

    async def message(self, request: Request) -> Reply:
        message = json.loads(request.body)
        results = {"initialize": INIT, "tools/list": {"tools": [{"name": "echo"}]}}
        if "id" in message and self.queue is not None:
            await self.queue.put({"jsonrpc": "2.0", "id": message["id"], "result": results[message["method"]]})
        return Reply(status=202, body=b"Accepted", content_type="text/plain")


def fault_fetcher(server: TLSServer, deadline: float = 10.0) -> Fetcher:
    return Fetcher(connect_to=server.connect_to, ca_bundle=server.ca_path, deadline=deadline)


async def test_a_hand_made_sse_server_is_listed(tls_server):
    Legacy(tls_server, endpoint="/message?session=1")
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse")
    assert (found.state, [t.name for t in found.tools], found.protocol_version) == ("ok", ["echo"], "2024-11-05")
    assert tls_server.hit_count("a.test", "/message") == 3  # initialize, initialized, tools/list


async def test_an_endpoint_on_another_origin_is_never_posted_to(tls_server):
    Legacy(tls_server, endpoint="https://b.test/message")
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse")
    assert found.state == "not_mcp" and "another origin" in found.detail
    assert tls_server.hit_count("b.test", "/message") == 0


async def test_a_stream_that_never_names_its_endpoint_ends_at_the_deadline(tls_server):
    Legacy(tls_server, endpoint=None, keep_alive=True)
    found = await probe_with(fault_fetcher(tls_server, deadline=1.0), "https://a.test/sse")
    assert found.state == "timeout" and "1-second deadline" in found.detail


async def test_a_stream_past_the_byte_cap_is_not_read_further(tls_server):
    Legacy(tls_server, prelude=b"data: " + b"x" * (mcp_sse.MAX_BYTES + 1))
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse")
    assert found.state == "not_mcp" and "byte cap" in found.detail


async def test_a_stream_past_the_event_cap_is_not_read_further(tls_server):
    Legacy(tls_server, flood=mcp_sse.MAX_EVENTS + 10)
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse")
    assert found.state == "not_mcp" and f"more than {mcp_sse.MAX_EVENTS} events" in found.detail
    assert not found.tools


async def test_a_web_page_declared_as_sse_is_not_mcp(tls_server):
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/html")
    assert found.state == "not_mcp" and "text/html, not an event stream" in found.detail


# --- the event parser ---------------------------------------------------------------------------


def parse(*chunks: bytes) -> list[tuple[str, str]]:
    reader = mcp_sse.EventReader()
    return [(e.type, e.data) for chunk in chunks for e in reader.feed(chunk)]


def test_events_follow_the_whatwg_line_rules():
    stream = b": comment\r\nevent: endpoint\r\ndata: /m?s=1\r\n\r\ndata: a\ndata:b\nid: 7\nretry: 10\n\n"
    assert parse(stream) == [("endpoint", "/m?s=1"), ("message", "a\nb")]


def test_a_crlf_cut_between_chunks_is_one_line_end():
    assert parse(b"data: x\r", b"\ndata: y\r\n\r", b"\n") == [("message", "x\ny")]


def test_an_event_without_data_is_not_dispatched():
    assert parse(b"event: endpoint\n\n: keep-alive\n\ndata: z\n\n") == [("message", "z")]


async def test_a_declared_sse_endpoint_behind_oauth_is_auth_required_with_its_metadata(tls_server):
    async def locked(request: Request) -> Reply:
        meta = "https://a.test/.well-known/oauth-protected-resource/sse"
        return Reply(status=401, body=b"{}", headers={"WWW-Authenticate": f'Bearer resource_metadata="{meta}"'})

    async def metadata(request: Request) -> Reply:
        return Reply(
            body=json.dumps(
                {"resource": "https://a.test/sse", "authorization_servers": ["https://auth.a.test"]}
            ).encode()
        )

    tls_server.routes["/sse"] = locked
    tls_server.routes["/.well-known/oauth-protected-resource/sse"] = metadata
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse")
    assert (found.state, found.http_status, found.auth_scheme) == ("auth_required", 401, "oauth")
    assert found.metadata["authorization_servers"] == ["https://auth.a.test"]
    assert tls_server.hit_count("a.test", "/sse") == 1  # no POST after the refused GET


async def test_a_refused_post_to_a_silent_event_stream_is_still_the_wrong_transport(tls_server):
    Legacy(tls_server, endpoint=None, keep_alive=True)  # a stream that sends only comments
    found = await probe_with(fault_fetcher(tls_server), "https://a.test/sse", "streamable-http")
    assert (found.state, found.transport) == ("wrong_transport", "sse")
    assert "an event stream to GET" in found.detail


async def test_the_event_stream_goes_through_the_address_guard(tls_server):
    Legacy(tls_server)
    # No --connect-to rule for the address: a loopback URL is refused before any request.
    found = await probe_with(Fetcher(ca_bundle=tls_server.ca_path), f"https://127.0.0.1:{tls_server.port}/sse")
    assert found.state == "unreachable" and found.answer.error_code == "blocked_address"
    assert tls_server.hit_count("127.0.0.1", "/sse") == 0

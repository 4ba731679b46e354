"""The MCP probe against real servers: the SDK's streamable-HTTP servers of the sample web
(read-only, behind OAuth, behind a bearer key) and endpoints that are not what their
manifest says (old SSE transport, a web page, a paid endpoint, a silent one, an address
that does not resolve, a private address).

Every probe ends in one state; nothing but ``server/discover``, ``initialize``,
``notifications/initialized`` and ``tools/list`` is ever sent. The sample web's servers are
built with ``mcp`` 2.3.0, which serves both eras (2026-07-28 and the handshake) on one
endpoint; the unit tests at the end drive the probe's era logic with scripted answers.
"""

from __future__ import annotations

import json

import pytest

from agentdex.crawler import mcp_probe, x402
from agentdex.crawler.verify import Verifier, mcp_checks
from agentdex.models import FetchRecord, Listing
from agentdex.sampleweb.server import UNSERVED_HOST, SampleWeb


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as running:
        yield running


async def probe(web: SampleWeb, url: str, deadline: float = 15.0) -> mcp_probe.Probe:
    net = web.network_options(deadline=deadline)
    async with net.fetcher() as fetcher:
        return await Verifier(fetcher, net).probe(url)


def sent(web: SampleWeb, host: str) -> list[tuple[str, str, list[str]]]:
    return [(r.method, r.path, r.jsonrpc_methods()) for r in web.requests_log if r.host == host]


# --- states ---------------------------------------------------------------------------------


async def test_a_read_only_server_lists_its_tools_with_their_annotations(web):
    found = await probe(web, "https://mcp.pantry.test/mcp")
    assert found.state == "ok" and found.tools_listed
    assert found.server_info["name"] == "Pantry" and found.protocol_version
    assert [(t.name, t.read_only, t.annotations.get("readOnlyHint")) for t in found.tools] == [
        ("search", True, True),
        ("get_item", True, True),
    ]
    assert found.tools[0].input_schema["type"] == "object"
    assert found.detail == "2 tool(s) listed; both eras answer (2026-07-28 and 2025-11-25)"
    assert (found.era, found.versions, found.era_difference) == ("dual", ["2026-07-28", "2025-11-25"], None)


async def test_write_and_destructive_tools_are_never_read_only(web):
    found = await probe(web, "https://mcp.tidewater.test/mcp")
    kinds = {t.name: (t.read_only, t.annotations.get("destructiveHint")) for t in found.tools}
    assert kinds == {
        "get_tides": (True, None),
        "harbour_forecast": (True, None),
        "create_alert": (False, False),
        "delete_alert": (False, True),
    }


async def test_the_probe_sends_only_discovery_and_listing_in_both_eras(web):
    web.requests_log.clear()
    await probe(web, "https://mcp.quillnotes.test/mcp")
    methods = [m for _, _, ms in sent(web, "mcp.quillnotes.test") for m in ms]
    assert methods == ["server/discover", "tools/list", "initialize", "notifications/initialized", "tools/list"]


async def test_an_oauth_endpoint_is_auth_required_with_its_rfc9728_metadata(web):
    found = await probe(web, "https://mcp.vault.test/mcp")
    assert (found.state, found.http_status, found.auth_scheme) == ("auth_required", 401, "oauth")
    assert found.resource_metadata == "https://mcp.vault.test/.well-known/oauth-protected-resource"
    assert found.metadata == {
        "resource": "https://mcp.vault.test/mcp",
        "authorization_servers": ["https://vault.test"],
        "scopes_supported": ["documents.read"],
    }
    assert "https://vault.test" in found.detail and not found.tools


async def test_a_bearer_endpoint_is_auth_required_without_metadata(web):
    web.requests_log.clear()
    found = await probe(web, "https://keyring.test/mcp")
    assert (found.state, found.auth_scheme, found.metadata) == ("auth_required", "bearer", {})
    # RFC 9728's well-known locations were asked (the endpoint's path first) and had nothing.
    asked = [path for method, path, _ in sent(web, "keyring.test") if method == "GET"]
    assert asked == ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
    assert not any(r.headers.get("authorization") for r in web.requests_log)  # no credential is ever sent


async def test_a_paid_endpoint_is_payment_required_and_keeps_the_offers(web):
    found = await probe(web, "https://t-paidmcp.test/mcp")
    assert (found.state, found.http_status) == ("payment_required", 402)
    offers, problem = x402.parse_402(found.answer.headers, found.answer.body)
    assert problem is None and {o.price_usd for o in offers} == {0.05}


async def test_an_old_sse_endpoint_is_the_wrong_transport(web):
    web.requests_log.clear()
    found = await probe(web, "https://t-oldsse.test/sse")
    assert (found.state, found.http_status) == ("wrong_transport", 405)
    assert "HTTP+SSE" in found.detail
    assert found.transport == "sse" and found.to_dict()["transport_deprecated"]
    # server/discover and initialize were refused; the event stream was looked at with one
    # GET, read no further than its first event.
    assert [m for m, _, _ in sent(web, "t-oldsse.test")] == ["POST", "POST", "GET"]
    assert found.era == "unknown"


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("https://notmcp.test/mcp", 404),  # a JSON 404 to POST, a web page to GET
        ("https://pantry.test/", 405),  # a static page refuses POST
    ],
)
async def test_a_web_page_is_not_mcp(web, url, status):
    found = await probe(web, url)
    assert (found.state, found.http_status) == ("not_mcp", status)


async def test_an_endpoint_that_never_answers_is_a_timeout(web):
    found = await probe(web, "https://t-slowmcp.test/mcp", deadline=1.0)
    assert found.state == "timeout" and "deadline" in found.detail


@pytest.mark.parametrize(
    ("url", "words"),
    [
        (f"https://{UNSERVED_HOST}/mcp", "could not be resolved"),
        ("https://10.0.0.1/mcp", "private address"),
    ],
)
async def test_an_endpoint_that_cannot_be_reached_is_unreachable(web, url, words):
    found = await probe(web, url)
    assert found.state == "unreachable" and words in found.detail


# --- what the checks make of a probe -------------------------------------------------------------


def listing(**fields) -> Listing:
    return Listing(format="agent_app", mcp_url="https://mcp.example.test/mcp", **fields)


@pytest.mark.parametrize(
    ("declared", "scheme", "status"),
    [
        (["oauth"], "oauth", "pass"),
        (["bearer"], "bearer", "pass"),
        (["none"], "oauth", "fail"),  # the manifest says no credentials are needed
        (["bearer"], "oauth", "warn"),  # credentials declared, but of another kind
    ],
)
def test_an_auth_required_endpoint_is_compared_with_the_declared_auth(declared, scheme, status):
    found = mcp_probe.Probe("auth_required", "HTTP 401", 401, auth_scheme=scheme)
    init, tools, eras = mcp_checks(found, listing(mcp_auth=declared))
    assert (init.name, init.status, tools.status, eras.status) == ("mcp.initialize", status, "skip", "skip")


def test_a_paid_endpoint_passes_only_when_payment_is_declared():
    found = mcp_probe.Probe("payment_required", "HTTP 402", 402)
    anchor = listing(extra={"anchor_tools": [{"endpoint": "https://mcp.example.test/mcp", "auth": ["x402"]}]})
    assert mcp_checks(found, anchor)[0].status == "pass"
    assert mcp_checks(found, listing(mcp_auth=["none"]))[0].status == "warn"


def record(status: int, doc: dict | None = None) -> FetchRecord:
    body = json.dumps(doc).encode() if doc is not None else b""
    return FetchRecord(
        url="https://mcp.example.test/mcp",
        kind="mcp",
        status=status,
        body=body,
        headers={"content-type": "application/json"},
    )


def scripted(answers: dict[str, FetchRecord]):
    """A ``post`` that answers each JSON-RPC method with a fixed record (a unit test of the
    probe's state machine; the real servers are above)."""
    asked: list[str] = []

    async def post(url: str, body: bytes, headers: dict[str, str]) -> FetchRecord:
        message = json.loads(body)
        asked.append(message["method"])
        return answers[message["method"]]

    return post, asked


INIT = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "x"}}}


# What a 2025-era server built on the TypeScript SDK v1 answers server/discover (observed).
NOT_INITIALIZED = record(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "Bad Request"}})


async def test_a_server_whose_tools_list_fails_fails_the_tools_check():
    post, asked = scripted(
        {
            "server/discover": NOT_INITIALIZED,
            "initialize": record(200, INIT),
            "notifications/initialized": record(202),
            "tools/list": record(500),
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.tools_listed, found.era) == ("ok", False, "legacy")
    assert [c.status for c in mcp_checks(found, listing())] == ["pass", "fail", "skip"]
    assert asked == ["server/discover", "initialize", "notifications/initialized", "tools/list"]


async def test_tools_list_follows_every_page():
    pages = iter([{"tools": [{"name": "a"}], "nextCursor": "2"}, {"tools": [{"name": "b"}]}])

    async def post(url, body, headers):
        message = json.loads(body)
        if message["method"] == "server/discover":
            return NOT_INITIALIZED
        if message["method"] == "initialize":
            return record(200, INIT)
        if message["method"] == "tools/list":
            return record(200, {"jsonrpc": "2.0", "id": message["id"], "result": next(pages)})
        return record(202)

    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert [t.name for t in found.tools] == ["a", "b"] and found.tools_listed


def test_the_probe_refuses_to_build_a_tools_call():
    with pytest.raises(ValueError, match="never sends 'tools/call'"):
        mcp_probe.rpc("tools/call", {"name": "delete_item"}, id=9)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            'Bearer resource_metadata="https://a.test/.well-known/oauth-protected-resource"',
            ("oauth", "https://a.test/.well-known/oauth-protected-resource"),
        ),
        ('Bearer realm="a.test"', ("bearer", None)),
        ("", ("unknown", None)),
    ],
)
def test_www_authenticate_tells_oauth_from_bearer(header, expected):
    assert mcp_probe.www_authenticate(header) == expected


def test_metadata_is_looked_up_where_rfc9728_says():
    assert mcp_probe.metadata_urls("https://a.test/v1/mcp", None) == [
        "https://a.test/.well-known/oauth-protected-resource/v1/mcp",
        "https://a.test/.well-known/oauth-protected-resource",
    ]
    assert mcp_probe.metadata_urls("https://a.test/mcp", "https://auth.test/meta") == ["https://auth.test/meta"]


# --- eras, scripted (the real servers of each era are in tests/test_mcp_eras.py) ---------------

DISCOVERED = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "resultType": "complete",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "Modern", "version": "2"}},
    },
}
TOOLS = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}], "resultType": "complete"}}
REFUSED = record(400, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no", "data": {}}})


def unsupported(*versions: str) -> FetchRecord:
    error = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": list(versions)}}
    return record(400, {"jsonrpc": "2.0", "id": 1, "error": error})


def sequence(answers: dict[str, list[FetchRecord]]):
    """A ``post`` answering each method's requests in turn, keeping what was sent."""
    sent: list[tuple[str, dict, dict]] = []

    async def post(url: str, body: bytes, headers: dict[str, str]) -> FetchRecord:
        message = json.loads(body)
        sent.append((message["method"], message.get("params") or {}, headers))
        queue = answers[message["method"]]
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return post, sent


async def test_a_modern_only_server_is_open_with_its_discover_facts_and_the_required_meta():
    post, sent = sequence(
        {"server/discover": [record(200, DISCOVERED)], "tools/list": [record(200, TOOLS)], "initialize": [REFUSED]}
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.era, found.tools_listed, [t.name for t in found.tools]) == ("ok", "modern", True, ["a"])
    assert (found.server_info, found.capabilities) == ({"name": "Modern", "version": "2"}, {"tools": {}})
    assert (found.ttl_ms, found.cache_scope, found.versions) == (60000, "public", ["2026-07-28"])
    assert [m for m, _, _ in sent] == ["server/discover", "tools/list", "initialize"]
    for method, params, headers in sent[:2]:
        assert headers["mcp-protocol-version"] == "2026-07-28" and headers["mcp-method"] == method
        assert headers["content-type"] == "application/json" and "text/event-stream" in headers["accept"]
        meta = params["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "agentdex"
    assert "mcp-method" not in sent[2][2]  # the handshake is asked as a 2025 client asks it


async def test_unsupported_version_naming_a_mutual_revision_is_asked_again_once():
    post, sent = sequence(
        {
            "server/discover": [unsupported("2026-07-28"), record(200, DISCOVERED)],
            "tools/list": [record(200, TOOLS)],
            "initialize": [REFUSED],
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.era) == ("ok", "modern")
    assert [m for m, _, _ in sent] == ["server/discover", "server/discover", "tools/list", "initialize"]


@pytest.mark.parametrize("supported", [["2027-03-01"], []])
async def test_a_modern_server_without_a_mutual_revision_is_incompatible_never_not_mcp(supported):
    post, sent = sequence({"server/discover": [unsupported(*supported)]})
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.era, found.supported_versions) == ("incompatible", "modern", supported)
    assert [m for m, _, _ in sent] == ["server/discover"]  # no handshake for a server of another era


async def test_a_server_that_refuses_the_revision_it_named_twice_is_incompatible():
    post, sent = sequence({"server/discover": [unsupported("2026-07-28")]})
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, [m for m, _, _ in sent]) == ("incompatible", ["server/discover"] * 2)


@pytest.mark.parametrize(
    ("answer", "state"),
    [
        (FetchRecord(url="u", kind="mcp", error_code="timeout", error="no answer in time"), "timeout"),
        (FetchRecord(url="u", kind="mcp", error_code="refused", error="refused"), "unreachable"),
        (record(401), "auth_required"),
        (record(403), "auth_required"),
        (record(402), "payment_required"),
    ],
)
async def test_credentials_payment_silence_and_no_connection_are_no_era(answer, state):
    post, sent = sequence({"server/discover": [answer]})
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.era, [m for m, _, _ in sent]) == (state, "unknown", ["server/discover"])


@pytest.mark.parametrize(
    "discover",
    [
        record(500),  # a server error is no era evidence: the handshake is still tried
        record(200, {**DISCOVERED, "result": {**DISCOVERED["result"], "resultType": "someday"}}),  # invalid
        record(200, {"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2025-06-18"]}}),  # go-sdk
        record(200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
        record(404),
    ],
)
async def test_anything_else_falls_back_to_the_handshake(discover):
    post, sent = sequence(
        {
            "server/discover": [discover],
            "initialize": [record(200, INIT)],
            "notifications/initialized": [record(202)],
            "tools/list": [record(200, {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})],
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.era, found.versions) == ("ok", "legacy", ["2025-11-25"])


async def test_an_unknown_result_type_in_tools_list_is_no_listing():
    bad = {**TOOLS, "result": {**TOOLS["result"], "resultType": "partial"}}
    post, _ = sequence(
        {"server/discover": [record(200, DISCOVERED)], "tools/list": [record(200, bad)], "initialize": [REFUSED]}
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.tools_listed, found.tools) == ("ok", False, [])
    assert "unknown resultType 'partial'" in found.detail


async def test_a_dual_endpoint_whose_eras_list_other_tools_says_how():
    legacy_tools = {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"tools": [{"name": "a", "description": "old"}, {"name": "b"}]},
    }
    post, _ = sequence(
        {
            "server/discover": [record(200, DISCOVERED)],
            "tools/list": [record(200, TOOLS), record(200, legacy_tools)],
            "initialize": [record(200, INIT)],
            "notifications/initialized": [record(202)],
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.era, found.legacy_version) == ("dual", "2025-11-25")
    assert found.era_difference == {"only_legacy": ["b"], "only_modern": [], "changed": ["a"]}
    assert "only over initialize: b" in found.detail and "different in each: a" in found.detail


async def test_the_census_word_for_a_refused_initialized_notification_is_agentdexs_own():
    post, _ = sequence(
        {
            "server/discover": [NOT_INITIALIZED],
            "initialize": [record(200, INIT)],
            "notifications/initialized": [record(400)],
            "tools/list": [record(200, {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})],
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.state, found.cause) == ("ok", "initialized_rejected")


async def test_an_initialize_answered_at_a_2026_revision_is_no_second_era():
    modern_init = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2026-07-28", "serverInfo": {}}}
    post, _ = sequence(
        {
            "server/discover": [record(200, DISCOVERED)],
            "tools/list": [record(200, TOOLS)],
            "initialize": [record(200, modern_init)],
            "notifications/initialized": [record(202)],
        }
    )
    found = await mcp_probe.probe("https://mcp.example.test/mcp", post)
    assert (found.era, found.legacy_version, found.versions) == ("modern", None, ["2026-07-28"])

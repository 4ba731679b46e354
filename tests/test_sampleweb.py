"""The sample web: real HTTPS on loopback, virtual hosts from folders, per-path behaviour,
MCP servers from the SDK, x402, the registry API, feedback, DNS and synthetic origins."""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
import zlib
from email.utils import formatdate
from pathlib import Path

import dns.resolver
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agentdex.formats import agent_app
from agentdex.sampleweb.apps.feedback import Inbox
from agentdex.sampleweb.client import mcp_http_client, sample_client
from agentdex.sampleweb.dns import SampleDNS, port_is_free
from agentdex.sampleweb.server import UNSERVED_HOST, WEB_ROOT, SampleWeb, describe, host_patterns
from agentdex.sampleweb.site import load_sites, safe_parts
from agentdex.sampleweb.synthetic import FILES, site_files, write_synthetic_tree

MANIFEST = "/.well-known/agent-app.json"


@pytest.fixture(scope="module")
def web():
    """One sample web (bundled folders plus 50 synthetic origins) for the whole module."""
    with SampleWeb(synthetic=50) as running:
        yield running


async def get(web: SampleWeb, host: str, path: str, **kwargs) -> httpx.Response:
    async with sample_client(web) as client:
        return await client.get(web.url(host, path), **kwargs)


async def list_tools(web: SampleWeb, url: str, headers: dict[str, str] | None = None):
    async with mcp_http_client(web, headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            return (await client.list_tools()).tools


# --- files, content types, validators -------------------------------------------------------


async def test_a_file_is_served_with_its_content_type_and_a_sha256_etag(web):
    response = await get(web, "pantry.test", MANIFEST)
    on_disk = (WEB_ROOT / "pantry.test" / ".well-known" / "agent-app.json").read_bytes()
    assert response.status_code == 200
    assert response.content == on_disk
    assert response.headers["content-type"] == "application/json"
    assert response.headers["etag"] == '"' + hashlib.sha256(on_disk).hexdigest() + '"'
    assert response.headers["access-control-allow-origin"] == "*"
    assert "last-modified" in response.headers


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/agent.md", "text/markdown; charset=utf-8"),
        ("/llms.txt", "text/plain; charset=utf-8"),
        ("/", "text/html; charset=utf-8"),
        ("/privacy", "text/html; charset=utf-8"),  # privacy.html, found without its extension
    ],
)
async def test_content_type_follows_the_file_extension(web, path, content_type):
    response = await get(web, "pantry.test", path)
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type


async def test_a_matching_if_none_match_gets_304_and_a_stale_one_gets_the_body(web):
    first = await get(web, "pantry.test", MANIFEST)
    again = await get(web, "pantry.test", MANIFEST, headers={"If-None-Match": first.headers["etag"]})
    stale = await get(web, "pantry.test", MANIFEST, headers={"If-None-Match": '"0000"'})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert stale.status_code == 200 and stale.content == first.content


async def test_if_modified_since_gets_304_only_when_nothing_changed_since(web):
    first = await get(web, "pantry.test", "/agent.md")
    same = await get(web, "pantry.test", "/agent.md", headers={"If-Modified-Since": first.headers["last-modified"]})
    older = await get(web, "pantry.test", "/agent.md", headers={"If-Modified-Since": formatdate(0, usegmt=True)})
    assert same.status_code == 304
    assert older.status_code == 200


async def test_internal_files_and_missing_paths_are_404(web):
    assert (await get(web, "pantry.test", "/_site.json")).status_code == 404
    assert (await get(web, "pantry.test", "/_v2/agent.md")).status_code == 404
    assert (await get(web, "pantry.test", "/no-such-page")).status_code == 404
    assert (await get(web, "quillnotes.test", MANIFEST)).status_code == 404  # an inferred origin


def test_request_paths_never_leave_the_host_folder():
    assert safe_parts("/.well-known/agent-app.json") == (".well-known", "agent-app.json")
    assert safe_parts("/a/../../etc/passwd") is None
    assert safe_parts("/_site.json") is None


async def test_a_host_the_server_does_not_serve_gets_421(web):
    response = await get(web, "pantry.test", "/", headers={"Host": "unknown.test"})
    assert response.status_code == 421


# --- per-path behaviour from _site.json ----------------------------------------------------


async def test_a_cross_origin_redirect_of_the_manifest(web):
    response = await get(web, "hopper.test", MANIFEST)
    assert response.status_code == 302
    assert response.headers["location"] == "https://elsewhere.test/.well-known/agent-app.json"


async def test_a_redirect_loop_never_ends(web):
    async with sample_client(web, follow_redirects=True, max_redirects=5) as client:
        with pytest.raises(httpx.TooManyRedirects):
            await client.get(web.url("loop.test", MANIFEST))


async def test_status_and_content_type_rules(web):
    broken = await get(web, "broken.test", MANIFEST)
    wrong = await get(web, "wrongtype.test", MANIFEST)
    assert broken.status_code == 500
    assert wrong.status_code == 200 and wrong.headers["content-type"].startswith("text/html")
    assert "access-control-allow-origin" not in wrong.headers
    assert agent_app.parse(wrong.content).valid  # only how it is served is wrong


async def test_a_delayed_path_sends_nothing_until_its_delay_is_over(web):
    quick = await get(web, "pantry.test", MANIFEST, timeout=30.0)  # a deadline that never binds
    assert quick.status_code == 200
    with pytest.raises(httpx.ReadTimeout):  # sleepy.test answers after 30 s: any short read timeout fires
        await get(web, "sleepy.test", MANIFEST, timeout=httpx.Timeout(30.0, read=1.0))


async def test_a_drip_path_sends_its_body_a_few_bytes_at_a_time(web):
    async with sample_client(web) as client:
        async with client.stream("GET", web.url("slowdrip.test", MANIFEST)) as response:
            total = int(response.headers["content-length"])
            first = await response.aiter_raw().__anext__()
    assert total > 500
    assert 0 < len(first) < 100


async def test_a_gzip_bomb_is_small_on_the_wire_and_huge_inflated(web):
    async with sample_client(web) as client:
        async with client.stream("GET", web.url("bomb.test", MANIFEST)) as response:
            raw = b"".join([chunk async for chunk in response.aiter_raw()])
    assert response.headers["content-encoding"] == "gzip"
    inflater = zlib.decompressobj(31)
    inflated = inflater.decompress(raw, 4 * 1024 * 1024)
    assert len(raw) < 200_000
    assert len(inflated) == 4 * 1024 * 1024 and inflater.unconsumed_tail  # far more remains


async def test_oversize_and_non_utf8_manifests(web):
    big = await get(web, "bigmanifest.test", MANIFEST)
    latin1 = await get(web, "latin1.test", MANIFEST)
    assert len(big.content) == 40960
    assert json.loads(big.content)["agent_app"] == "1"  # padding keeps it valid JSON
    assert not agent_app.parse(big.content).valid  # over the 32 KB limit
    with pytest.raises(UnicodeDecodeError):
        latin1.content.decode("utf-8")


# --- variants -----------------------------------------------------------------------------


async def test_switching_a_variant_changes_the_content_and_its_validators(web):
    before = await get(web, "pantry.test", MANIFEST)
    web.set_variant("pantry.test", "v2")
    try:
        after = await get(web, "pantry.test", MANIFEST, headers={"If-None-Match": before.headers["etag"]})
        guide = await get(web, "pantry.test", "/llms.txt")  # not in _v2/: the base file
    finally:
        web.set_variant("pantry.test", "")
    restored = await get(web, "pantry.test", MANIFEST)
    assert after.status_code == 200
    assert "shopping list" in after.json()["one_liner"]
    assert after.headers["etag"] != before.headers["etag"]
    assert guide.status_code == 200
    assert restored.content == before.content


def test_an_unknown_variant_or_host_is_refused(web):
    assert web.variants("pantry.test") == ["", "v2"]
    with pytest.raises(ValueError):
        web.set_variant("pantry.test", "v9")
    with pytest.raises(ValueError):
        web.set_variant("nowhere.test", "v2")
    with pytest.raises(ValueError):
        web.set_variant("*", "v9")


# --- MCP ------------------------------------------------------------------------------------


async def test_a_readonly_mcp_server_answers_initialize_and_tools_list(web):
    tools = await list_tools(web, "https://mcp.pantry.test/mcp")
    assert [t.name for t in tools] == ["search", "get_item"]
    assert all(t.annotations.read_only_hint for t in tools)
    methods = web.requests_log.jsonrpc_methods("mcp.pantry.test")
    assert "initialize" in methods and "tools/list" in methods
    assert "tools/call" not in methods


async def test_a_lying_read_only_variant_lists_a_destructive_tool(web):
    honest = await list_tools(web, "https://mcp.tidewater.test/mcp/readonly")
    lying = await list_tools(web, "https://mcp.driftwood.test/mcp/readonly")
    assert all(t.annotations.read_only_hint for t in honest)
    destructive = [t.name for t in lying if t.annotations.destructive_hint]
    assert destructive == ["delete_item"]


async def test_an_oauth_mcp_server_answers_401_with_resource_metadata(web):
    async with sample_client(web) as client:
        refused = await client.post("https://mcp.vault.test/mcp", json={})
        metadata = await client.get("https://mcp.vault.test/.well-known/oauth-protected-resource")
    challenge = refused.headers["www-authenticate"]
    assert refused.status_code == 401
    assert challenge == 'Bearer resource_metadata="https://mcp.vault.test/.well-known/oauth-protected-resource"'
    assert metadata.json()["resource"] == "https://mcp.vault.test/mcp"
    assert metadata.json()["authorization_servers"] == ["https://vault.test"]
    tools = await list_tools(web, "https://mcp.vault.test/mcp", {"Authorization": "Bearer sample-token"})
    assert tools  # the token opens it


async def test_a_bearer_mcp_server_names_a_realm_and_no_metadata(web):
    async with sample_client(web) as client:
        refused = await client.post("https://keyring.test/mcp", json={})
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == 'Bearer realm="keyring.test"'


async def test_a_not_mcp_endpoint_is_a_web_page(web):
    async with sample_client(web) as client:
        page = await client.get("https://notmcp.test/mcp")
        post = await client.post("https://notmcp.test/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    assert page.headers["content-type"].startswith("text/html")
    assert post.status_code == 404 and post.json()["error"] == "not_found"


async def test_default_headers_reach_mounted_apps(web):
    async with sample_client(web) as client:
        answer = await client.post("https://mcp.tidewater.test/mcp", json={})
    assert 'rel="anchor-manifest"' in answer.headers["link"]


# --- x402, registry, feedback ------------------------------------------------------------------


async def test_an_unpaid_request_gets_402_with_v1_body_and_v2_header(web):
    response = await get(web, "pay.tidewater.test", "/v1/forecast")
    v1 = response.json()
    v2 = json.loads(base64.b64decode(response.headers["payment-required"]))
    assert response.status_code == 402
    assert v1["x402Version"] == 1
    expected = {
        "scheme": "exact",
        "network": "base",
        "maxAmountRequired": "10000",
        "asset": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "maxTimeoutSeconds": 60,
    }
    assert v1["accepts"][0].items() >= expected.items()
    assert v1["accepts"][0]["resource"] == "https://pay.tidewater.test/v1/forecast"
    assert v2["x402Version"] == 2
    assert v2["accepts"][0]["network"] == "eip155:8453" and v2["accepts"][0]["amount"] == "10000"


async def test_the_price_follows_the_variant(web):
    web.set_variant("pay.tidewater.test", "v2")
    try:
        response = await get(web, "pay.tidewater.test", "/v1/forecast")
    finally:
        web.set_variant("pay.tidewater.test", "")
    assert response.json()["accepts"][0]["maxAmountRequired"] == "20000"


async def test_the_registry_answers_an_encoded_name_and_404_otherwise(web):
    found = await get(web, "registry.test", "/v0.1/servers/test.tidewater%2Ftides")
    missing = await get(web, "registry.test", "/v0.1/servers/test.nobody%2Fnothing")
    listed = await get(web, "registry.test", "/v0.1/servers", params={"search": "driftwood"})
    assert found.status_code == 200
    assert found.json()["server"]["remotes"] == [{"type": "streamable-http", "url": "https://mcp.tidewater.test/mcp"}]
    assert "io.modelcontextprotocol.registry/official" in found.json()["_meta"]
    assert missing.status_code == 404
    assert [e["server"]["name"] for e in listed.json()["servers"]] == ["test.driftwood/notes"]


async def test_feedback_receipts_are_idempotent(web):
    key = str(uuid.uuid4())
    url = "https://api.pantry.test/v1/feedback"
    body = {"message": "  Please make the plans easier to compare.  ", "user_requested": True, "idempotency_key": key}
    async with sample_client(web) as client:
        first = await client.post(url, json=body)
        retry = await client.post(url, json=body)
        conflict = await client.post(url, json=body | {"message": "Something else"})
        extra = await client.post(url, json=body | {"email": "me@example.test"})
    assert first.status_code == 201
    receipt = first.json()["data"]
    assert receipt["status"] == "received" and receipt["feedback_id"] and receipt["received_at"]
    assert retry.status_code == 200 and retry.json()["data"] == receipt
    assert conflict.status_code == 409 and conflict.json()["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    assert extra.status_code == 400 and extra.json()["error"]["code"] == "VALIDATION_ERROR"
    inbox = web.app_state("api.pantry.test", "/v1/feedback")
    assert any(r["message"] == "Please make the plans easier to compare." for r in inbox.receipts())


def test_feedback_is_rate_limited_after_the_configured_count():
    inbox = Inbox(rate_limit=1)
    assert inbox.submit(str(uuid.uuid4()), "first")[0] == 201
    status, answer = inbox.submit(str(uuid.uuid4()), "second")
    assert status == 429 and answer["error"]["code"] == "RATE_LIMITED"


async def test_every_request_is_logged_with_its_body_and_query(web):
    marker = str(uuid.uuid4())
    async with sample_client(web) as client:
        await client.post("https://api.pantry.test/v1/feedback", json={"message": marker})  # a 400
        await client.get("https://registry.test/v0.1/servers", params={"search": marker})
    logged = {r.path: r for r in web.requests_log if marker in r.path or marker.encode() in r.body}
    post = logged["/v1/feedback"]
    assert (post.host, post.method, json.loads(post.body)) == ("api.pantry.test", "POST", {"message": marker})
    assert post.headers["content-type"] == "application/json"
    assert f"/v0.1/servers?search={marker}" in logged


# --- DNS ------------------------------------------------------------------------------------


def resolver_for(address: str) -> dns.resolver.Resolver:
    host, port = address.split(":")
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port = [host], int(port)
    return resolver


@pytest.mark.parametrize("tcp", [False, True])
def test_the_dns_server_answers_txt_records_over_udp_and_tcp(web, tcp):
    answer = resolver_for(web.dns_address).resolve("_anchor.tidewater.test", "TXT", tcp=tcp)
    assert [b"".join(r.strings).decode() for r in answer] == ["anchor-verify=tok123"]


def test_a_name_outside_the_zone_is_nxdomain(web):
    with pytest.raises(dns.resolver.NXDOMAIN):
        resolver_for(web.dns_address).resolve("_anchor.nobody.test", "TXT")


@pytest.mark.slow
def test_dns_records_can_change_while_it_runs():
    with SampleDNS({"_anchor.a.test": ["anchor-verify=one"]}) as server:
        resolver = resolver_for(server.address)
        server.set_records("_anchor.a.test", ["anchor-verify=two", "x" * 300])
        values = sorted(b"".join(r.strings).decode() for r in resolver.resolve("_anchor.a.test", "TXT"))
        server.set_records("_anchor.a.test", None)
        with pytest.raises(dns.resolver.NXDOMAIN):
            resolver.resolve("_anchor.a.test", "TXT")
    assert values == ["anchor-verify=two", "x" * 300]  # a long string split and joined back


# --- synthetic origins --------------------------------------------------------------------------


async def test_fifty_synthetic_origins_serve_fifty_distinct_valid_manifests(web):
    hosts = [h for h in web.hosts if h.endswith(".synthetic.test")]
    async with sample_client(web) as client:
        bodies = [(await client.get(web.url(h, MANIFEST))).content for h in hosts]
    results = [agent_app.parse(b) for b in bodies]
    assert len(hosts) == 50 and len(set(bodies)) == 50
    assert all(r.valid for r in results), [r.findings for r in results if not r.valid][:1]
    assert len({tuple(r.listing.categories) for r in results}) > 5


async def test_synthetic_origins_are_deterministic_and_bounded(web):
    first = await get(web, "site-00007.synthetic.test", MANIFEST)
    again = await get(web, "site-00007.synthetic.test", MANIFEST, headers={"If-None-Match": first.headers["etag"]})
    beyond = await get(web, "site-00051.synthetic.test", MANIFEST)
    assert first.content == site_files(7, "site-00007.synthetic.test", False)[MANIFEST]
    assert again.status_code == 304
    assert beyond.status_code == 421


async def test_variant_v2_changes_every_tenth_synthetic_origin(web):
    web.set_variant("*", "v2")
    try:
        tenth = await get(web, "site-00010.synthetic.test", MANIFEST)
        other = await get(web, "site-00011.synthetic.test", MANIFEST)
    finally:
        web.set_variant("*", "")
    assert tenth.content == site_files(10, "site-00010.synthetic.test", True)[MANIFEST]
    assert other.content == site_files(11, "site-00011.synthetic.test", False)[MANIFEST]


def test_the_synthetic_tree_on_disk_matches_what_the_server_generates(tmp_path):
    hosts = write_synthetic_tree(tmp_path, 12)
    sites = load_sites(tmp_path)
    assert sorted(sites) == hosts
    for path in FILES:
        found = sites["site-00003.synthetic.test"].find_file(path)
        assert found is not None and found.read_bytes() == site_files(3, "site-00003.synthetic.test", False)[path]
    tenth = sites["site-00010.synthetic.test"]
    tenth.set_variant("v2")
    assert tenth.find_file(MANIFEST).read_bytes() == site_files(10, "site-00010.synthetic.test", True)[MANIFEST]
    assert (tmp_path / "seeds.txt").read_text().splitlines()[0] == "https://site-00001.synthetic.test"


# --- what agentdex is told ------------------------------------------------------------------


def test_connect_to_covers_every_served_host_and_not_the_unserved_one(web):
    patterns = [p for p, _addr, _port in web.connect_to()]
    assert all(addr == "127.0.0.1" and port == web.port for _p, addr, port in web.connect_to())
    assert f"pantry.test:127.0.0.1:{web.port}" in web.connect_to_args()
    assert all(any(fnmatch.fnmatchcase(h, p) for p in patterns) for h in web.hosts)
    assert not any(fnmatch.fnmatchcase(UNSERVED_HOST, p) for p in patterns)
    args = web.cli_args()
    assert args[args.index("--ca-bundle") + 1] == str(web.ca_pem)
    assert args[args.index("--dns-server") + 1] == web.dns_address
    assert any(web.ca_pem.name in line for line in describe(web))


def test_a_crowded_parent_domain_becomes_one_wildcard():
    crowded = [f"h{i}.many.test" for i in range(30)]
    assert host_patterns(["a.test", "mcp.a.test", *crowded]) == ["a.test", "mcp.a.test", "*.many.test"]


@pytest.mark.slow
def test_the_server_stops_on_exit_and_leaves_nothing_running(tmp_path):
    (tmp_path / "one.test").mkdir()
    (tmp_path / "one.test" / "index.html").write_text("<p>one</p>")
    (tmp_path / "_dns.json").write_text('{"one.test": ["hello"]}')
    with SampleWeb(tmp_path) as small:
        port, dns_port, ca = small.port, small.dns.port, small.ca_pem
        assert not port_is_free(port) and not port_is_free(dns_port)
        assert small.hosts == ["one.test"]
        running = {t.name for t in threading.enumerate()}
        assert {f"agentdex-sampleweb-{port}", f"agentdex-dns-{dns_port}-udp"} <= running
    assert port_is_free(port) and port_is_free(dns_port)
    assert not ca.exists()
    names = {t.name for t in threading.enumerate()}
    assert f"agentdex-sampleweb-{port}" not in names
    assert not {f"agentdex-dns-{dns_port}-udp", f"agentdex-dns-{dns_port}-tcp"} & names


@pytest.mark.slow
def test_python_m_agentdex_sampleweb_prints_its_arguments_and_stops_on_ctrl_c():
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentdex.sampleweb"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                break
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=120)  # a cap only: stopping every app takes a loaded machine a while
        assert code == 0, proc.stderr.read()[-2000:]
    finally:
        proc.kill()
    text = "".join(lines)
    assert text.count("--connect-to") == 1 and "--connect-to '*.test:127.0.0.1:" in text  # one wildcard, quoted
    assert "--ca-bundle" in text and "--dns-server 127.0.0.1:" in text


# --- the bundled content ------------------------------------------------------------------


EXPECTED_INVALID = {"badmanifest.test", "latin1.test"}


def test_every_bundled_manifest_is_valid_except_the_deliberately_broken_ones():
    for path in sorted(WEB_ROOT.glob("*/**/.well-known/agent-app.json")):
        host = path.relative_to(WEB_ROOT).parts[0]
        result = agent_app.parse(path.read_bytes(), origin=host)
        assert result.valid == (host not in EXPECTED_INVALID), (path, result.findings)


def test_every_bundled_anchor_manifest_is_valid():
    anchor = pytest.importorskip("agentdex.formats.anchor")
    paths = sorted(WEB_ROOT.glob("*/**/.well-known/anchor.json"))
    assert len(paths) >= 3
    for path in paths:
        result = anchor.parse(path.read_bytes())
        assert result.valid, (path, result.findings)

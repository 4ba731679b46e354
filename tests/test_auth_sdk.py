"""Auth kinds against the `mcp` SDK's own resource-server support (mcp 2.3.0): an
``MCPServer`` built with ``AuthSettings`` and a ``TokenVerifier`` publishes RFC 9728
protected-resource metadata at the path-suffixed well-known URL and answers 401 with a
``WWW-Authenticate`` naming it; its authorization server publishes the RFC 8414 metadata the
SDK builds for its own (``build_metadata``), with and without a ``registration_endpoint`` and
``client_id_metadata_document_supported``. Beside them: the SDK as a plain bearer check (no
metadata), a 402, an open server, and 401s naming an API-key header or not.

One crawl of every origin on loopback TLS; each MCP endpoint's stored ``auth_kind`` is
asserted, and the servers' request log shows that no request carried a credential and none
reached an authorization, token or registration endpoint.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentdex.crawler.crawl import crawl
from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb
from test_prober_rules import TOOLS, manifest


def sdk_server(issuer: str | None) -> dict:
    """The SDK's server behind its own auth, on every path of its host (its metadata route too)."""
    options = {"path": "/mcp", "auth": "sdk", "tools": TOOLS} | ({"issuer": issuer} if issuer else {})
    return {"/*": {"app": "mcp", "options": options}}


def unauthorized(challenge: str) -> dict:
    document = {"error": "unauthorized", "error_description": "An API key is required."}
    options = {"status": 401, "document": document, "headers": {"WWW-Authenticate": challenge}}
    return {"/mcp": {"app": "json_document", "options": options}}


def authorization_server(registration: bool, cimd: bool) -> dict:
    return {"/*": {"app": "oauth_server", "options": {"registration": registration, "cimd": cimd}}}


# origin: (its MCP host's rules, the kind a crawl must record)
ORIGINS = {
    "cimd.test": (sdk_server("https://as.cimd.test"), "oauth_cimd"),
    "cimdonly.test": (sdk_server("https://as.cimdonly.test"), "oauth_cimd"),
    "dcr.test": (sdk_server("https://as.dcr.test"), "oauth_dcr"),
    "plainoauth.test": (sdk_server("https://as.plainoauth.test"), "oauth"),
    "sdkbearer.test": (sdk_server(None), "bearer"),
    "paid.test": ({"/mcp": {"app": "json_document", "options": {"status": 402, "document": {}}}}, "payment"),
    "open.test": ({"/mcp": {"app": "mcp", "options": {"tools": TOOLS}}}, "none"),
    "apikey.test": (unauthorized('ApiKey header="X-API-Key"'), "api_key"),
    "barekey.test": (unauthorized("ApiKey"), "unknown"),  # no header documented: it tells nothing
}
# as.<origin>: (registration_endpoint, client_id_metadata_document_supported)
AUTHORIZATION_SERVERS = {
    "cimd.test": (True, True),
    "cimdonly.test": (False, True),
    "dcr.test": (True, False),
    "plainoauth.test": (False, False),
}


def write_site(root: Path, host: str, paths: dict) -> None:
    (root / host).mkdir(parents=True, exist_ok=True)
    (root / host / "_site.json").write_text(json.dumps({"paths": paths}), "utf-8")


def write_web(root: Path) -> None:
    for origin, (rules, _) in ORIGINS.items():
        (root / origin / ".well-known").mkdir(parents=True)
        (root / origin / ".well-known" / "agent-app.json").write_text(json.dumps(manifest(origin)), "utf-8")
        write_site(root, f"mcp.{origin}", rules)
    for origin, (registration, cimd) in AUTHORIZATION_SERVERS.items():
        write_site(root, f"as.{origin}", authorization_server(registration, cimd))


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    root = tmp_path_factory.mktemp("authweb")
    write_web(root)
    db = open_db(tmp_path_factory.mktemp("auth") / "agentdex.db")
    with SampleWeb(root, dns=False) as web:
        asyncio.run(crawl(db, list(ORIGINS), web.network_options(deadline=60)))
        log = list(web.requests_log)
    rows = db.execute("SELECT origin, auth_kind, state, http_status FROM endpoint_probes WHERE role = 'mcp'")
    data = db.execute("SELECT origin, data FROM checks WHERE name = 'mcp.initialize'").fetchall()
    return {origin: (kind, state, status) for origin, kind, state, status in rows}, dict(data), log


@pytest.mark.slow
def test_each_server_is_recorded_as_its_auth_kind(crawled):
    kinds, _, _ = crawled
    assert {origin: kind for origin, (kind, _, _) in kinds.items()} == {o: k for o, (_, k) in ORIGINS.items()}


@pytest.mark.slow
def test_the_sdk_resource_server_answers_401_and_its_own_metadata_names_the_issuer(crawled):
    kinds, data, log = crawled
    assert kinds["cimd.test"][1:] == ("auth_required", 401)
    probe = json.loads(data["cimd.test"])
    assert probe["auth_scheme"] == "oauth"
    # The SDK publishes its metadata at the path-suffixed form and names it in its challenge.
    assert probe["resource_metadata"] == "https://mcp.cimd.test/.well-known/oauth-protected-resource/mcp"
    assert probe["metadata"]["resource"] == "https://mcp.cimd.test/mcp"
    assert probe["metadata"]["authorization_servers"] == ["https://as.cimd.test"]
    assert probe["metadata"]["registration_endpoint"] == "https://as.cimd.test/register"
    assert json.loads(data["cimdonly.test"])["metadata"]["registration_endpoint"] is None
    # A plain bearer check: the SDK's 401 names no metadata, and none is at either well-known URL.
    asked = [r.path for r in log if r.host == "mcp.sdkbearer.test" and r.method == "GET"]
    assert asked == ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]


@pytest.mark.slow
def test_the_api_key_header_is_the_one_the_challenge_names(crawled):
    _, data, _ = crawled
    assert json.loads(data["apikey.test"])["metadata"]["api_key_header"] == "X-API-Key"
    assert "api_key_header" not in json.loads(data["barekey.test"])["metadata"]


@pytest.mark.slow
def test_a_crawl_never_sends_a_credential_nor_starts_a_flow(crawled):
    _, _, log = crawled
    assert log
    assert not [r for r in log if {"authorization", "x-api-key", "cookie"} & {k.lower() for k in r.headers}]
    # Of the authorization servers only their metadata was asked, each once, with a GET.
    to_servers = [(r.host, r.method, r.path) for r in log if r.host.startswith("as.")]
    assert sorted(to_servers) == sorted(
        (f"as.{o}", "GET", "/.well-known/oauth-authorization-server") for o in AUTHORIZATION_SERVERS
    )
    # The MCP hosts got only the probe's POSTs and safe GETs.
    posted = {m for r in log if r.host.startswith("mcp.") for m in r.jsonrpc_methods()}
    assert posted <= {"server/discover", "initialize", "notifications/initialized", "tools/list"}
    assert {r.method for r in log} <= {"GET", "HEAD", "POST"}

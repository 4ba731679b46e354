"""The real discovery documents under shared/realworld/ (agent cards, server cards, server.json,
x402, OpenAPI) go through every discovery format without an exception, and what agentdex
reads from each is what the file says. Oddities of each file: shared/realworld/SOURCES.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentdex.formats import a2a_card, ai_catalog, api_catalog, server_card, server_json, x402_discovery
from agentdex.models import ParseResult

ORIGIN = "example.com"
DISCOVERY = (a2a_card, server_card, server_json, api_catalog, x402_discovery, ai_catalog)
FOLDERS = ("agent_card", "server_cards", "server_json", "x402", "openapi")


def read(shared: Path, module, folder: str, name: str) -> ParseResult:
    return module.parse((shared / "realworld" / folder / name).read_bytes(), origin=ORIGIN)


def found(result: ParseResult) -> set[tuple[str, str, str]]:
    return {(f.severity, f.path, f.code) for f in result.findings}


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_file_goes_through_every_discovery_format(shared, folder):
    files = sorted(p for p in (shared / "realworld" / folder).iterdir() if p.is_file())
    assert files
    for path in files:
        for module in DISCOVERY:
            result = module.parse(path.read_bytes(), origin=ORIGIN)
            assert isinstance(result, ParseResult) and result.format == module.NAME, (path.name, module.NAME)
            assert result.valid or result.findings, (path.name, module.NAME)


# -- A2A agent cards ------------------------------------------------------------------------------
def test_a_v03_card_with_a_vendor_block(shared):
    result = read(shared, a2a_card, "agent_card", "ANAMASGARD__Stitch__.well-known__agent-card.json")
    assert result.valid and result.findings == []  # x-zynd is a vendor extension, signatures are A2A 0.3
    card = result.listing
    assert (card.name, card.publisher_name, card.publisher_url) == ("codereview", "anamasgard", "https://zns01.zynd.ai")
    assert card.extra["a2a_urls"] == ["https://uncut-parted-nearby.ngrok-free.dev/a2a/v1"]
    assert card.auth_methods == ["other"]  # an ed25519 envelope signature scheme
    assert [t.name for t in card.tools] == ["default"] and card.tools[0].detail["kind"] == "a2a_skill"
    assert card.mcp_url is None  # A2A is not MCP


def test_v10_cards_name_their_interfaces(shared):
    # The A2A CLI's "valid" card of PR 1323 is a pre-1.0 draft: its interfaces name a transport
    # where A2A 1.0 (v1.0.1) requires protocolBinding and protocolVersion. Its facts are read.
    full = read(shared, a2a_card, "agent_card", "a2aproject__A2A__pr1323__cli__testdata__valid__full.json")
    assert {(f.path, f.code) for f in full.findings if f.severity == "error"} == {
        (f"supportedInterfaces[{i}].{key}", "required")
        for i in (0, 1)
        for key in ("protocolBinding", "protocolVersion")
    }
    assert [(i["binding"], i["version"]) for i in full.listing.extra["interfaces"]] == [
        ("JSONRPC", None),
        ("GRPC", None),
    ]
    assert full.listing.extra["a2a_urls"] == ["https://recipes.example.com/a2a", "https://recipes.example.com/a2a/grpc"]
    assert full.listing.auth_methods == ["bearer", "api_key"]
    assert [t.name for t in full.listing.tools] == ["search", "recommend", "convert"]
    minified = read(shared, a2a_card, "agent_card", "1Mangesh1__1mangesh1.github.io__.well-known__agent-card.json")
    assert minified.valid and found(minified) == set()  # A2A 1.0 states protocolVersion per interface
    assert (minified.listing.name, minified.listing.publisher_name) == ("Mangesh AI", "Mangesh Bide")
    assert minified.listing.extra["a2a_urls"] == ["https://mangeshbide.tech/a2a"]
    signed = read(
        shared, a2a_card, "agent_card", "a2aproject__A2A__pr1592__examples__aiar-identity__agent-card.signed.json"
    )
    assert signed.valid and signed.listing.extra["a2a_urls"] == ["https://agent.example.com/a2a/v1"]


def test_a_scaffolded_card_with_text_modes_and_a_localhost_url(shared):
    result = read(shared, a2a_card, "agent_card", "0xdeeper__BaseAi8004__.well-known__agent-card.json")
    assert not result.valid  # a v0.3-shaped card (url) without protocolVersion, which v0.3's schema requires
    assert found(result) == {
        ("error", "protocolVersion", "required"),
        ("warning", "authentication", "unknown_key"),  # pre-0.2: read, but no longer an A2A field
        ("warning", "url", "https"),
        ("warning", "defaultInputModes[0]", "media_type"),
        ("warning", "defaultOutputModes[0]", "media_type"),
    }
    assert result.listing.auth_methods == ["x402"]  # the pre-0.2 authentication.schemes list
    assert result.listing.extra["a2a_urls"] == ["http://localhost:3000"]


def test_the_invalid_example_card_gets_each_error(shared):
    result = read(
        shared, a2a_card, "agent_card", "a2aproject__A2A__pr1323__cli__testdata__invalid__invalid-format.json"
    )
    errors = {(f.path, f.code) for f in result.findings if f.severity == "error"}
    # Neither url nor supportedInterfaces: checked as A2A 1.0, where description may be empty
    # (the proto requires it present) and a top-level protocolVersion is an unknown key.
    assert errors == {
        ("name", "type"),
        ("capabilities", "type"),
        ("defaultInputModes", "type"),
        ("url", "one_of_required"),
        ("skills[0].id", "required"),
        ("skills[0].description", "required"),
        ("skills[0].tags", "required"),
    }


def test_documents_at_the_legacy_path_that_are_not_a2a(shared):
    ahp = read(shared, a2a_card, "agent_card", "AHP-Organization__reference-implementation__.well-known__agent.json")
    assert ahp.listing is None and [f.code for f in ahp.findings] == ["not_a2a"]
    assert "Agent Handshake Protocol" in ahp.findings[0].message
    telex = read(shared, a2a_card, "agent_card", "Adewale-tech__telex-dictionary-agent__.well-known__agent.json")
    assert telex.listing is None and [f.code for f in telex.findings] == ["not_a2a"]
    schema = read(shared, a2a_card, "agent_card", "a2aproject__A2A__v0.3.0__specification__json__a2a.json")
    assert [f.code for f in schema.findings] == ["not_a2a"]


# -- MCP server cards -----------------------------------------------------------------------------
def test_a_sep1649_card_with_a_relative_endpoint(shared):
    result = read(
        shared, server_card, "server_cards", "Aelusive__mcp-server-qdrant__.well-known__mcp__server-card.json"
    )
    # A SEP-1649 card fails SEP-2127's schema (no name, no description, a $schema of its own),
    # and its facts are read all the same.
    assert found(result) == {
        ("error", "$schema", "pattern"),
        ("error", "name", "required"),
        ("error", "description", "required"),
        ("warning", "serverInfo.name", "reverse_dns"),
        ("warning", "serverInfo", "draft_shape"),
    }
    assert (result.listing.name, result.listing.mcp_url) == ("mcp-server-qdrant", "https://example.com/mcp/")
    assert result.listing.auth_methods == ["oauth", "bearer"]


def test_the_plural_file_and_its_single_twin_state_the_same_server(shared):
    single = read(
        shared, server_card, "server_cards", "AgoraIO__docs-portal__public__.well-known__mcp__server-card.json"
    )
    plural = read(
        shared, server_card, "server_cards", "AgoraIO__docs-portal__public__.well-known__mcp__server-cards.json"
    )
    for result, at in ((single, ""), (plural, "servers[0].")):
        assert not result.valid and {("error", f"{at}$schema", "required"), ("error", f"{at}name", "pattern")} <= found(
            result
        )
        assert result.listing.name == "agora-docs-search"
        assert result.listing.mcp_url == "https://mcp.agora.io" and result.listing.auth_methods == ["none"]
    assert single.listing.extra["mcp_tools"] is None  # capabilities.tools: true declares no names
    assert plural.listing.extra["mcp_tools"] == [
        "algolia_search_for_facet_values",
        "algolia_search_index_agora_api_refapirefcrawler",
        "algolia_search_index_agora_swift_api_ref",
        "algolia_search_index_docs_portal_en",
    ]
    assert ("warning", "servers[0].serverInfo", "draft_shape") in found(plural)


def test_a_card_hedging_across_drafts_names_one_endpoint(shared):
    result = read(
        shared,
        server_card,
        "server_cards",
        "ashwingopalsamy__ashwingopalsamy.in__public__.well-known__mcp__server-cards.json",
    )
    assert {f.path for f in result.findings if f.severity == "error"} == {"$schema", "name"}
    assert result.listing.extra["mcp_urls"] == ["https://ashwingopalsamy.in/mcp"]
    assert result.listing.name == "ashwingopalsamy.in" and result.listing.auth_methods == []


def test_the_sep_text_is_not_a_card(shared):
    result = read(shared, server_card, "server_cards", "modelcontextprotocol__seps__2127-mcp-server-cards.md")
    assert [f.code for f in result.findings] == ["not_json"]


# -- server.json ----------------------------------------------------------------------------------
VALID_SERVER_JSON = {
    "apify__apify-mcp-server__server.json": (
        "apify-mcp-server",
        "com.apify/apify-mcp-server",
        ["https://mcp.apify.com/"],
    ),
    "brave__brave-search-mcp-server__server.json": (
        "brave-search-mcp-server",
        "io.github.brave/brave-search-mcp-server",
        [],
    ),
    "hashicorp__terraform-mcp-server__server.json": ("Terraform", "io.github.hashicorp/terraform-mcp-server", []),
    "microsoft__playwright-mcp__server.json": ("playwright-mcp", "io.github.microsoft/playwright-mcp", []),
    "upstash__context7__server.json": ("Context7", "io.github.upstash/context7", []),
    "registry__examples__valid__with-package.json": ("local-weather", "io.github.user/local-weather", []),
    "registry__examples__valid__with-remote.json": ("Remote Weather", "io.github.user/remote-weather", []),
}


@pytest.mark.parametrize("name", sorted(VALID_SERVER_JSON))
def test_valid_server_json_files(shared, name):
    result = read(shared, server_json, "server_json", name)
    assert result.valid and result.findings == [], result.findings
    expected = VALID_SERVER_JSON[name]
    assert (result.listing.name, result.listing.extra["registry_name"], result.listing.extra["mcp_urls"]) == expected


def test_remote_auth_and_packages(shared):
    apify = read(shared, server_json, "server_json", "apify__apify-mcp-server__server.json").listing
    assert apify.auth_methods == ["bearer"]  # a secret Authorization header
    remote = read(shared, server_json, "server_json", "registry__examples__valid__with-remote.json").listing
    assert remote.mcp_url is None and remote.auth_methods == ["bearer"]  # https://{host}/mcp is a template
    context7 = read(shared, server_json, "server_json", "upstash__context7__server.json").listing
    assert context7.extra["version"] == "1.0.0"
    assert (
        context7.extra["packages"][0]["registryType"] == "npm" and context7.extra["packages"][0]["version"] != "1.0.0"
    )


def test_server_json_problems_are_located(shared):
    cases = {
        "registry__examples__invalid__bad-name-pattern.json": {("error", "name", "pattern")},
        "registry__examples__invalid__description-too-long.json": {("error", "description", "max_length")},
        "registry__examples__invalid__package-version-latest.json": {("error", "packages[0].version", "not_allowed")},
        "exa-labs__exa-mcp-server__server.json": {("error", "packages[0].transport", "required")},
        "github__github-mcp-server__server.json": {("warning", "version", "placeholder_value")},
        "registry-legacy-2025-07__tools__publisher__server.json": {("error", "", "unsupported_version")},
    }
    for name, expected in cases.items():
        assert found(read(shared, server_json, "server_json", name)) == expected, name
    exa = read(shared, server_json, "server_json", "exa-labs__exa-mcp-server__server.json").listing
    assert exa.mcp_url == "https://mcp.exa.ai/mcp?tools=web_search_exa,web_search_advanced_exa,crawling_exa"


def test_the_shipped_schema_is_the_registry_file_byte_for_byte(shared):
    import hashlib
    from importlib import resources

    from agentdex.formats.schemas import VENDORED

    filename, digest = VENDORED["server_json"]
    shipped = resources.files("agentdex.formats.schemas").joinpath(filename).read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == digest
    assert shipped == (shared / "realworld" / "server_json" / "registry__server.schema.2025-12-11.json").read_bytes()


# -- x402 -----------------------------------------------------------------------------------------
def test_x402_resources_in_the_deployed_form(shared):
    tensorfeed = read(shared, x402_discovery, "x402", "RipperMercs__tensorfeed__public__.well-known__x402")
    assert tensorfeed.valid and len(tensorfeed.listing.extra["resources"]) == 24
    assert tensorfeed.listing.extra["resources"][0] == {
        "method": "GET",
        "url": "https://example.com/api/premium/routing",
    }
    assert tensorfeed.listing.extra["resources"][5]["url"] == "https://example.com/api/premium/providers/{name}"
    assert tensorfeed.listing.extra["resources"][-1] == {
        "method": "POST",
        "url": "https://example.com/api/premium/watches",
    }
    assert tensorfeed.listing.extra["prices"] == {} and tensorfeed.listing.auth_methods == ["x402"]
    auor = read(shared, x402_discovery, "x402", "auor-io__auor.io__.well-known__x402").listing
    assert [r["url"] for r in auor.extra["resources"]][:2] == [
        "https://api.auor.io/holidays/v1/public",
        "https://api.auor.io/holidays/v1/school",
    ]
    assert len(auor.extra["ownership_proofs"]) == 1 and auor.extra["instructions"].startswith("# api.auor.io")


def test_x402_prices_and_a_placeholder_wallet(shared):
    result = read(shared, x402_discovery, "x402", "microsoft__playwright-mcp__PRref__.well-known__x402.json")
    assert found(result) == {("warning", "accepts[0].address", "placeholder_value")}
    assert result.listing.name == "microsoft/playwright-mcp"
    assert len(result.listing.extra["prices"]) == 8 and set(result.listing.extra["prices"].values()) == {0.01}
    assert result.listing.extra["prices"]["https://example.com/navigate"] == 0.01
    # The top-level terms apply to every resource; the unfilled wallet states no payee.
    assert result.listing.extra["offers"]["https://example.com/navigate"] == [
        {"scheme": None, "network": "eip155:8453", "asset": "USDC", "amount": None, "pay_to": None, "price_usd": 0.01}
    ]


def test_x402_files_that_are_not_json(shared):
    for name in (
        "Holygrizzly__grandcosmic-api__.well-known__x402",
        "x402-foundation__x402__specs__extensions__well-known-discovery.md",
    ):
        assert [f.code for f in read(shared, x402_discovery, "x402", name).findings] == ["not_json"], name


# -- OpenAPI documents are none of these formats ---------------------------------------------------
def test_openapi_documents_are_not_catalogs(shared):
    webhook = "OAI__OpenAPI-Specification__examples__v3.1__webhook-example.json"
    assert found(read(shared, api_catalog, "openapi", webhook)) == {("error", "linkset", "required")}
    assert ("error", "resources", "required") in found(read(shared, x402_discovery, "openapi", webhook))
    assert ("error", "specVersion", "required") in found(read(shared, ai_catalog, "openapi", webhook))
    petstore = "OAI__OpenAPI-Specification__examples__v3.0__petstore.yaml"
    assert [f.code for f in read(shared, api_catalog, "openapi", petstore).findings] == ["not_json"]

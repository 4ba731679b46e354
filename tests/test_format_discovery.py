"""The rules of the discovery formats on plain data: what each reads, and each finding at its
path. Real documents are in tests/test_realworld_discovery.py."""

from __future__ import annotations

import json

import pytest

from agentdex import formats
from agentdex.formats import a2a_card, ai_catalog, api_catalog, server_card, server_json, x402_discovery
from agentdex.formats._discovery import auth_words, normalise_url, resolve

USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
SEP_2127_CARD = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    "name": "com.pantry/pantry",
    "version": "1.0.2",
    "title": "Pantry",
    "description": "Meal plans",
    "remotes": [
        {
            "type": "streamable-http",
            "url": "https://pantry.test/mcp",
            "authentication": {"required": True, "schemes": ["oauth2"]},
        }
    ],
    "capabilities": {"tools": {"listChanged": False}},
    "tools": [
        {
            "name": "plan_meals",
            "description": "Plan a week",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
        }
    ],
}


def codes(result) -> set[tuple[str, str, str]]:
    return {(f.severity, f.path, f.code) for f in result.findings}


def test_shared_helpers():
    assert auth_words(["OAuth2", "apiKey", "PAT", "httpsig", "carrier-pigeon", "oauth2"]) == [
        "oauth",
        "api_key",
        "bearer",
        "signature",
        "other",
    ]
    assert resolve("/mcp/", "https://a.test") == "https://a.test/mcp/"
    assert resolve("https://{host}/mcp", None) is None
    assert resolve("/p/{id}", "https://a.test", templates=True) == "https://a.test/p/{id}"
    assert normalise_url("HTTPS://A.Test:443/mcp/#x") == normalise_url("https://a.test/mcp") == "https://a.test/mcp"


# -- server cards ---------------------------------------------------------------------------------
def test_a_sep2127_card_is_read_without_findings():
    result = server_card.validate_document(SEP_2127_CARD, origin="pantry.test")
    assert result.findings == []
    card = result.listing
    assert (card.name, card.extra["registry_name"], card.mcp_url) == (
        "Pantry",
        "com.pantry/pantry",
        "https://pantry.test/mcp",
    )
    assert card.auth_methods == ["oauth"] and card.extra["mcp_tools"] == ["plan_meals"]
    assert card.tools[0].read_only and card.tools[0].input_schema == {"type": "object"}


def test_server_card_problems():
    doc = {
        "servers": [
            {"title": "x", "remotes": [{"type": "websocket", "url": "wss://x"}], "tools": [{"description": "?"}]},
            3,
        ]
    }
    result = server_card.validate_document(doc, origin="x.test")
    assert codes(result) == {
        ("error", "servers[0].$schema", "required"),  # SEP-2127's schema requires all four
        ("error", "servers[0].name", "required"),
        ("error", "servers[0].version", "required"),
        ("error", "servers[0].description", "required"),
        ("error", "servers[0].remotes[0].type", "enum"),
        ("error", "servers[0].remotes[0].url", "pattern"),
        ("warning", "servers[0].remotes", "no_endpoint"),
        ("error", "servers[0].tools[0].name", "required"),
        ("error", "servers[1]", "not_object"),
    }
    assert [f.code for f in server_card.validate_document([], origin=None).findings] == ["not_object"]


def test_a_v2_card_is_closed_and_a_v1_card_is_open():
    v2 = {**SEP_2127_CARD, "$schema": server_card.SCHEMA_URLS["v2"]}
    assert codes(server_card.validate_document(v2)) == {
        ("error", "capabilities", "unknown_key"),
        ("error", "tools", "unknown_key"),
        ("error", "remotes[0].authentication", "unknown_key"),
    }
    assert server_card.validate_document(v2).listing.extra["schema_version"] == "v2"
    assert server_card.validate_document(SEP_2127_CARD).listing.extra["schema_version"] == "v1"


def test_a_card_of_neither_schema_family_is_checked_against_v1_with_one_clear_error():
    card = {
        **SEP_2127_CARD,
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json",
    }
    result = server_card.validate_document(card)
    assert codes(result) == {("error", "$schema", "pattern")}
    assert "versioned by vN, never by date" in result.findings[0].message


def test_where_a_card_lives():
    assert server_card.card_url("https://h.test/mcp/?x=1") == "https://h.test/mcp/server-card"
    assert server_card.card_url("https://h.test") == "https://h.test/server-card"
    for legacy in ("https://h.test/.well-known/mcp/server-card.json", "https://h.test/.well-known/mcp.json"):
        finding = server_card.location_finding(legacy)
        assert finding is not None and (finding.severity, finding.code) == ("warning", "legacy_location")
    assert server_card.location_finding("https://h.test/mcp/server-card") is None
    assert server_card.location_finding("https://h.test/.well-known/mcpx") is None


# -- server.json ----------------------------------------------------------------------------------
def test_server_json_remotes_with_headers_and_a_template_version():
    doc = {
        "name": "io.github.x/y",
        "description": "d",
        "version": "{{VERSION}}",
        "remotes": [{"type": "sse", "url": "https://y.test/sse", "headers": [{"name": "X-Key", "isSecret": True}]}],
    }
    result = server_json.validate_document(doc)
    assert codes(result) == {("warning", "version", "placeholder_value")}
    assert result.listing.mcp_url == "https://y.test/sse" and result.listing.auth_methods == ["api_key"]


def test_server_json_anyof_errors_point_inside_the_shape():
    doc = {
        "name": "io.github.x/y",
        "description": "d",
        "version": "1",
        "remotes": [{"type": "streamable-http"}],
        "packages": [{"registryType": "npm", "identifier": "y", "transport": {"type": "stdio"}, "version": "latest"}],
    }
    found = codes(server_json.validate_document(doc))
    assert ("error", "packages[0].version", "not_allowed") in found
    assert any(path.startswith("remotes[0]") for _, path, _ in found)
    assert codes(server_json.validate_document([1])) == {("error", "", "type")}


# -- api-catalog ----------------------------------------------------------------------------------
def test_an_api_catalog_names_apis_by_item_and_by_anchor():
    doc = {
        "linkset": [
            {
                "anchor": "https://shop.test/.well-known/api-catalog",
                "item": [{"href": "https://api.shop.test/v1"}],
                "api-catalog": [{"href": "/partners/api-catalog"}],
            },
            {
                "anchor": "https://api.shop.test/v2",
                "service-desc": [{"href": "/openapi.json", "type": "application/openapi+json"}],
                "service-doc": [{"href": "https://shop.test/docs"}],
            },
        ]
    }
    result = api_catalog.validate_document(doc, origin="shop.test")
    assert result.findings == []
    assert result.listing.extra["api_bases"] == ["https://api.shop.test/v1", "https://api.shop.test/v2"]
    assert result.listing.http_base == "https://api.shop.test/v1"
    assert result.listing.http_openapi == "https://shop.test/openapi.json"
    assert result.listing.extra["catalogs"] == ["https://shop.test/partners/api-catalog"]


def test_api_catalog_problems():
    assert codes(api_catalog.validate_document({"linkset": []})) == {("warning", "linkset", "empty_catalog")}
    bad = {
        "linkset": [
            {"anchor": "https://a.test/api", "service-desc": {"href": "x"}},
            4,
            {"item": [{"title": "no href"}, {"href": "not a url"}]},
        ]
    }
    assert codes(api_catalog.validate_document(bad)) == {
        ("error", "linkset[0].service-desc", "type"),
        ("error", "linkset[1]", "not_object"),
        ("error", "linkset[2].item[0].href", "required"),
        ("error", "linkset[2].item[1].href", "url"),
    }


# -- x402 -----------------------------------------------------------------------------------------
def test_the_draft_v2_manifest_gives_prices_and_mcp_tools():
    doc = {
        "x402Version": 2,
        "lastUpdated": 1781555511,
        "items": [
            {
                "resource": {"url": "https://pay.test/weather/:city"},
                "type": "http",
                "input": {"method": "GET"},
                "accepts": [{"scheme": "exact", "network": "eip155:8453", "asset": USDC_BASE, "amount": "20000"}],
            },
            {
                "resource": {"url": "/mcp"},
                "type": "mcp",
                "input": {"toolName": "forecast"},
                "accepts": [{"asset": "0xunknown", "amount": "1"}],
            },
        ],
    }
    result = x402_discovery.validate_document(doc, origin="pay.test")
    assert result.findings == []
    assert result.listing.extra["prices"] == {"https://pay.test/weather/:city": 0.02}
    assert result.listing.mcp_url == "https://pay.test/mcp" and result.listing.extra["mcp_tools"] == ["forecast"]
    assert result.listing.extra["resources"][0] == {"method": "GET", "url": "https://pay.test/weather/:city"}
    assert result.listing.extra["offers"]["https://pay.test/weather/:city"] == [
        {
            "scheme": "exact",
            "network": "eip155:8453",
            "asset": USDC_BASE,
            "amount": "20000",
            "pay_to": None,
            "price_usd": 0.02,
        }
    ]


def test_x402_problems():
    assert codes(x402_discovery.validate_document({"version": 3, "resources": ["GET /a"]}, origin="pay.test")) == {
        ("error", "version", "unsupported_version")
    }
    assert codes(x402_discovery.validate_document({"version": 1, "resources": [7, {"price": "1"}]})) == {
        ("error", "resources[0]", "type"),
        ("error", "resources[1]", "url"),
    }
    bad_prices = {
        "resources": [{"path": "/a", "price": "-1"}, {"path": "/b", "price": "NaN"}, {"path": "/c", "price": "$0.5"}]
    }
    result = x402_discovery.validate_document(bad_prices, origin="pay.test")
    assert codes(result) == {("error", "resources[0].price", "type"), ("error", "resources[1].price", "type")}
    assert result.listing.extra["prices"] == {"https://pay.test/c": 0.5}
    assert codes(x402_discovery.validate_document({"x402Version": 2, "items": [{"type": "ftp"}]})) == {
        ("error", "items[0].resource", "required"),
        ("error", "items[0].resource.url", "required"),
        ("error", "items[0].type", "enum"),
    }


# -- ai-catalog -----------------------------------------------------------------------------------
def test_an_ai_catalog_reads_inline_server_cards_and_linked_documents():
    doc = {
        "specVersion": "1.0",
        "host": {"displayName": "Pantry Inc", "identifier": "did:web:pantry.test"},
        "entries": [
            {
                "identifier": "urn:air:pantry.test:mcp:pantry",
                "displayName": "Pantry",
                "type": "application/mcp-server-card+json",
                "data": SEP_2127_CARD,
                "capabilities": ["shopping_list"],
            },
            {
                "identifier": "urn:ai:pantry.test:agent:chef",
                "displayName": "Chef",
                "type": "application/a2a-agent-card+json",
                "url": "https://pantry.test/.well-known/agent-card.json",
            },
        ],
    }
    result = ai_catalog.validate_document(doc, origin="pantry.test")
    # capabilities is an ARD v0.9 key 1.0 does not define: ignored, with a warning; an
    # identifier is open text in 1.0 (urn:ai: is as good as any).
    assert codes(result) == {("warning", "entries[0].capabilities", "unknown_key")}
    catalog = result.listing
    assert (catalog.name, catalog.publisher_name, catalog.mcp_url) == (
        "Pantry Inc",
        "Pantry Inc",
        "https://pantry.test/mcp",
    )
    assert catalog.extra["mcp_tools"] == ["plan_meals"]
    assert catalog.extra["documents"] == [
        {"type": "application/a2a-agent-card+json", "url": "https://pantry.test/.well-known/agent-card.json"}
    ]


def test_ai_catalog_problems():
    doc = {
        "specVersion": "1.0",
        "extra": 1,
        "entries": [
            {
                "identifier": "pantry",
                "displayName": "P",
                "type": "t",
                "url": "https://a.test/x",
                "data": {},
                "representativeQueries": ["only one"],
            },
            "x",
        ],
    }
    assert codes(ai_catalog.validate_document(doc)) == {
        ("warning", "extra", "unknown_key"),
        ("error", "entries[0].url", "exclusive"),
        ("warning", "entries[0].representativeQueries", "unknown_key"),
        ("error", "entries[1]", "type"),
    }
    assert codes(ai_catalog.validate_document({"specVersion": "2.0", "entries": []})) == {
        ("error", "specVersion", "unsupported_version")
    }
    assert ai_catalog.validate_document({"specVersion": "1.3", "entries": []}).valid  # a higher minor is read
    assert codes(ai_catalog.validate_document({"specVersion": "1", "entries": []})) == {
        ("error", "specVersion", "pattern")
    }


def test_ai_catalog_10_rules():
    entry = {"identifier": "urn:air:a.test:mcp:x", "type": "application/mcp-server-card+json", "url": "/x"}
    doc = {
        "specVersion": "1.0",
        "entries": [
            entry,
            {**entry, "version": "2"},
            entry,  # identifier and version (absent) repeat
            {"identifier": "old", "mediaType": "application/a2a-agent-card+json", "url": "https://a.test/c"},
            {**entry, "identifier": "y", "updatedAt": "yesterday"},
        ],
        "signature": {"signer": "did:web:a.test", "profile": "did-web-v1", "issuedAt": "2026-01-01T00:00:00Z"},
    }
    result = ai_catalog.validate_document(doc)
    assert codes(result) == {
        ("error", "entries[2].identifier", "unique"),
        ("error", "entries[3].type", "required"),
        ("error", "entries[4].updatedAt", "timestamp"),
        ("error", "signature.jws", "required"),
    }
    assert "renamed 2026-07-13" in next(f.message for f in result.findings if f.path == "entries[3].type")


def test_ai_catalog_entries_for_the_crawler():
    doc = {
        "specVersion": "1.0",
        "entries": [
            {"identifier": "a", "type": "Application/MCP-Server-Card+JSON; v=1", "url": "cards/a"},
            {"identifier": "b", "type": "application/a2a-agent-card+json", "data": {"name": "B"}},
            {"identifier": "c", "mediaType": "application/ai-catalog+json", "url": "https://other.test/c.json"},
            {"identifier": "d", "type": "x/y", "url": "https://a.test/d", "data": {}},  # both: not followed
            {"identifier": "e", "type": "x/y", "url": "javascript:alert(1)"},  # no http(s) URL
            "f",
        ],
    }
    found = ai_catalog.entries(doc, base="https://a.test/.well-known/ai-catalog.json")
    assert [(e.path, e.identifier, e.type, e.url, e.inline) for e in found] == [
        ("entries[0]", "a", "application/mcp-server-card+json", "https://a.test/.well-known/cards/a", False),
        ("entries[1]", "b", "application/a2a-agent-card+json", None, True),
        ("entries[2]", "c", "application/ai-catalog+json", "https://other.test/c.json", False),
    ]
    assert found[1].data == {"name": "B"}
    assert ai_catalog.entries(doc, base="a.test")[0].url == "https://a.test/cards/a"  # an origin: its root
    assert ai_catalog.entries([1]) == [] and ai_catalog.entries({"entries": 3}) == []


# -- A2A ------------------------------------------------------------------------------------------
A2A_03 = {
    "protocolVersion": "0.3.0",
    "name": "Courier",
    "description": "Books parcel pickups.",
    "url": "https://agent.test/a2a",
    "preferredTransport": "JSONRPC",
    "additionalInterfaces": [{"url": "https://agent.test/a2a/rest", "transport": "HTTP+JSON"}],
    "version": "1.0.0",
    "capabilities": {"streaming": False},
    "supportsAuthenticatedExtendedCard": True,
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "pickup", "name": "Book a pickup", "description": "Books a pickup.", "tags": ["parcel"]}],
}
A2A_10 = {
    "name": "Courier",
    "description": "Books parcel pickups.",
    "supportedInterfaces": [
        {"url": "https://agent.test/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://agent.test/a2a", "protocolBinding": "jsonrpc", "protocolVersion": "0.3", "tenant": "t1"},
    ],
    "version": "1.0.0",
    "capabilities": {"extendedAgentCard": False},
    "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
    "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "pickup", "name": "Book a pickup", "description": "Books a pickup.", "tags": ["parcel"]}],
}


def test_a2a_cards_of_both_versions_and_their_interfaces():
    old, new = a2a_card.validate_document(A2A_03), a2a_card.validate_document(A2A_10)
    assert old.findings == [] and new.findings == []  # securityRequirements is A2A 1.0's own
    assert (old.listing.extra["card_version"], new.listing.extra["card_version"]) == ("0.3", "1.0")
    assert (old.listing.extra["extended_card"], new.listing.extra["extended_card"]) == (True, False)
    assert a2a_card.interfaces(A2A_03) == [
        a2a_card.Interface("https://agent.test/a2a", "JSONRPC", "0.3.0"),
        a2a_card.Interface("https://agent.test/a2a/rest", "HTTP+JSON", "0.3.0"),
    ]
    assert a2a_card.interfaces(A2A_10)[1] == a2a_card.Interface("https://agent.test/a2a", "JSONRPC", "0.3", "t1")
    assert a2a_card.interfaces({"url": "/relative"}) == [] and a2a_card.interfaces(3) == []


def test_a2a_10_unknown_keys_are_warnings_and_required_fields_errors():
    card = {**A2A_10, "x-vendor": 1, "preferredTransport": "GRPC"}
    card["supportedInterfaces"] = [{"url": "https://agent.test/a2a/v1", "protocolBinding": "GRPC"}]
    card["securitySchemes"] = {"both": {"httpAuthSecurityScheme": {"scheme": "Bearer"}, "mtlsSecurityScheme": {}}}
    assert codes(a2a_card.validate_document(card)) == {
        ("warning", "preferredTransport", "unknown_key"),
        ("error", "supportedInterfaces[0].protocolVersion", "required"),
        ("error", "securitySchemes.both", "schema_mismatch"),  # the proto's oneof: one scheme a name
    }


def test_a2a_cross_check_of_a_03_and_a_10_card():
    assert a2a_card.cross_check(A2A_03, A2A_10) == []  # the 0.3 endpoint is one of the 1.0 interfaces
    moved = {
        **A2A_10,
        "name": "Courier Pro",
        "version": "2.0.0",
        "supportedInterfaces": [A2A_10["supportedInterfaces"][0]],
        "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
        "skills": [{"id": "track", "name": "Track", "description": "Tracks.", "tags": []}],
    }
    found = {(f.severity, f.path, f.code) for f in a2a_card.cross_check(A2A_03, moved)}
    assert found == {
        ("warning", "name", "name_differs"),
        ("warning", "version", "version_differs"),
        ("warning", "skills", "skills_differ"),
        ("warning", "securitySchemes", "auth_differs"),
        ("warning", "supportedInterfaces", "a2a_endpoint_differs"),
    }
    assert a2a_card.cross_check(A2A_03, {**A2A_10, "name": "courier"}) == []  # case ignored
    assert a2a_card.cross_check(None, A2A_10) == []


def test_a2a_security_schemes_in_both_spellings():
    base = {
        "name": "a",
        "description": "d",
        "version": "1",
        "protocolVersion": "0.3.0",
        "url": "https://a.test/a2a",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    v03 = dict(
        base,
        securitySchemes={"o": {"type": "oauth2"}, "k": {"type": "apiKey"}, "b": {"type": "http", "scheme": "Basic"}},
    )
    assert a2a_card.validate_document(v03).listing.auth_methods == ["oauth", "api_key", "basic"]
    v10 = dict(base, securitySchemes={"m": {"mtlsSecurityScheme": {}}, "oidc": {"openIdConnectSecurityScheme": {}}})
    assert a2a_card.validate_document(v10).listing.auth_methods == ["mtls", "oauth"]
    assert a2a_card.validate_document(base).listing.auth_methods == []  # says nothing about auth


@pytest.mark.parametrize("module", [a2a_card, server_card, server_json, api_catalog, x402_discovery, ai_catalog])
def test_every_discovery_format_has_the_format_shape(module):
    assert isinstance(module.NAME, str) and module.MAX_BYTES >= 256 * 1024
    assert getattr(module, "WELL_KNOWN_PATHS", None) or getattr(module, "FILE_NAMES", None)
    too_big = module.parse(b" " * (module.MAX_BYTES + 1))
    assert [f.code for f in too_big.findings] == ["too_large"] and too_big.listing is None
    assert module.looks_like(json.loads("[]")) is False


def test_a_registry_api_answer_is_read_as_its_server_json():
    from agentdex.formats import server_json

    server = {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": "test.tidewater/tides",
        "description": "Tide tables.",
        "version": "1.2.0",
        "remotes": [{"type": "streamable-http", "url": "https://mcp.tidewater.test/mcp"}],
    }
    bare = server_json.validate_document(server)
    wrapped = server_json.validate_document(
        {"server": server, "_meta": {"io.modelcontextprotocol.registry/official": {}}}
    )
    assert bare.valid and wrapped.valid and wrapped.findings == bare.findings == []
    assert wrapped.listing.mcp_url == bare.listing.mcp_url == "https://mcp.tidewater.test/mcp"


# The registry's answer is left out: it is the registry's document, listing other namespaces
# too, and a quirk of its JSON is no finding of the origin's.
@pytest.mark.parametrize("name", sorted(set(formats.DISCOVERY_NAMES) - {"registry_server_json"}))
def test_a_repeated_key_in_a_discovery_document_is_a_warning_and_the_last_value_counts(name):
    # As in the manifest formats: a reader that kept the first value would see another document.
    module = formats.get(name)
    result = module.parse(b'{"name": "first", "name": "second"}', origin="pantry.test")
    duplicates = [f for f in result.findings if f.code == "duplicate_key"]
    assert [f.severity for f in duplicates] == ["warning"] and "last" in duplicates[0].message
    assert result.document["name"] == "second"

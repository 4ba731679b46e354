"""Cross-format consistency on plain data: one test per fact, each asserting the exact
disagreement (both documents, both values) and the verdict."""

from __future__ import annotations

from agentdex.formats import agent_app, anchor, consistency, server_card, x402_discovery
from agentdex.formats.codes import CODES
from agentdex.formats.consistency import LIVE_402, LIVE_MCP, Disagreement, Facts, compare, facts_of

CARD = Facts(
    "server_card",
    name="Pantry",
    mcp_urls=("https://pantry.test/mcp",),
    auth=("oauth",),
    tools=("plan_meals", "shopping_list"),
)
MANIFEST = Facts(
    "agent_app",
    name="pantry",
    mcp_urls=("https://pantry.test/mcp",),
    auth=("oauth", "other"),
    publisher="Pantry Labs",
    contact="mailto:team@pantry.test",
)


def only(result) -> Disagreement:
    assert result.verdict == "inconsistent" and len(result.disagreements) == 1, result.disagreements
    return result.disagreements[0]


def test_agreeing_documents_are_consistent():
    result = compare([MANIFEST, CARD], live_tools=["shopping_list", "plan_meals"])
    assert (result.verdict, result.disagreements) == ("consistent", ())
    assert result.sources == ("agent_app", "server_card", LIVE_MCP)


def test_one_document_alone_is_single_source():
    assert compare([CARD]).verdict == "single-source"
    assert compare([CARD, Facts("a2a_card")]).sources == ("server_card",)  # a card that states nothing
    assert compare([]).verdict == "single-source"


def test_names_differ():
    found = only(compare([MANIFEST, Facts("a2a_card", name="Larder")]))
    assert (found.fact, found.code, found.first, found.first_value, found.second, found.second_value) == (
        "name",
        "name_differs",
        "agent_app",
        "pantry",
        "a2a_card",
        "Larder",
    )
    assert found.message == "name: agent_app says 'pantry' but a2a_card says 'Larder'"
    assert compare([Facts("a", name="Agora Docs Search"), Facts("b", name="agora-docs-search")]).verdict == "consistent"


def test_mcp_endpoints_differ():
    found = only(compare([MANIFEST, Facts("server_json", mcp_urls=("https://mcp.pantry.test/v2",))]))
    assert (found.code, found.first_value, found.second_value) == (
        "mcp_endpoint_differs",
        ["https://pantry.test/mcp"],
        ["https://mcp.pantry.test/v2"],
    )
    shares_one = Facts("server_card", mcp_urls=("https://pantry.test/sse", "https://pantry.test/mcp"))
    assert compare([MANIFEST, shares_one]).verdict == "consistent"


def test_api_bases_differ():
    found = only(
        compare(
            [
                Facts("agent_app", api_bases=("https://api.a.test/v1",)),
                Facts("api_catalog", api_bases=("https://api.a.test/v2", "https://api.a.test/v3")),
            ]
        )
    )
    assert (found.code, found.first, found.second) == ("api_base_differs", "agent_app", "api_catalog")
    assert found.second_value == ["https://api.a.test/v2", "https://api.a.test/v3"]


def test_auth_differs_only_when_no_method_is_shared():
    found = only(compare([Facts("agent_app", auth=("none",)), Facts("server_card", auth=("oauth", "bearer"))]))
    assert (found.code, found.first_value, found.second_value) == ("auth_differs", ["none"], ["bearer", "oauth"])
    assert compare([MANIFEST, CARD]).verdict == "consistent"  # oauth in both
    assert compare([Facts("a", auth=("other",)), Facts("b", auth=("none",))]).verdict == "single-source"


def test_publishers_differ():
    found = only(compare([MANIFEST, Facts("a2a_card", publisher="Larder GmbH")]))
    assert (found.fact, found.code, found.first_value, found.second_value) == (
        "publisher",
        "publisher_differs",
        "Pantry Labs",
        "Larder GmbH",
    )
    hosts = only(
        compare([Facts("a", publisher_url="https://www.pantry.test/"), Facts("b", publisher_url="https://larder.test")])
    )
    assert (hosts.fact, hosts.code) == ("publisher_url", "publisher_differs")
    assert (
        compare(
            [
                Facts("a", publisher_url="https://www.pantry.test/"),
                Facts("b", publisher_url="https://pantry.test/about"),
            ]
        ).verdict
        == "consistent"
    )


def test_contacts_differ():
    found = only(compare([MANIFEST, Facts("anchor", contact="help@larder.test")]))
    assert (found.code, found.first_value, found.second_value) == (
        "contact_differs",
        "mailto:team@pantry.test",
        "help@larder.test",
    )
    assert compare([MANIFEST, Facts("anchor", contact="TEAM@pantry.test")]).verdict == "consistent"


def test_declared_tools_against_the_live_list():
    result = compare([CARD], live_tools=["plan_meals", "delete_everything"])
    assert result.verdict == "inconsistent"
    assert [(d.code, d.first, d.second, d.detail) for d in result.disagreements] == [
        ("tool_not_listed", "server_card", LIVE_MCP, "declared but not listed: shopping_list"),
        ("tool_not_declared", "server_card", LIVE_MCP, "listed but not declared: delete_everything"),
    ]
    assert result.disagreements[1].second_value == ["delete_everything", "plan_meals"]
    assert compare([MANIFEST], live_tools=["x"]).verdict == "consistent"  # the manifest declares no tools


def test_documents_declaring_different_tools():
    found = only(compare([CARD, Facts("ai_catalog", tools=("plan_meals",))]))
    assert (found.code, found.first_value, found.second_value) == (
        "tools_differ",
        ["plan_meals", "shopping_list"],
        ["plan_meals"],
    )


def test_prices_between_documents_and_against_the_live_402():
    x402 = Facts("x402_discovery", prices={"https://pay.test/weather": 0.01})
    anchor_doc = Facts("anchor", prices={"https://pay.test/weather": 0.02})
    result = compare([anchor_doc, x402], live_prices={"https://PAY.test/weather/": 0.05})
    assert [(d.code, d.first, d.first_value, d.second, d.second_value) for d in result.disagreements] == [
        ("price_differs", "anchor", 0.02, "x402_discovery", 0.01),
        ("price_differs", "anchor", 0.02, LIVE_402, 0.05),
        ("price_differs", "x402_discovery", 0.01, LIVE_402, 0.05),
    ]
    assert result.disagreements[0].fact == "price https://pay.test/weather"
    assert (
        result.disagreements[1].message == "price https://pay.test/weather: anchor says $0.02 but live 402 says $0.05"
    )
    assert compare([x402], live_prices={"https://pay.test/weather": 0.01}).verdict == "consistent"


def test_findings_carry_the_codes_of_the_catalogue():
    result = compare([MANIFEST, Facts("x", name="Other", contact="a@b.test")], live_tools=[])
    assert [f.code for f in result.findings] == ["name_differs", "contact_differs"]
    assert all(f.severity == "warning" and f.code in CODES for f in result.findings)
    assert (
        set(consistency.CODES.values()) | {"tools_differ", "tool_not_listed", "tool_not_declared", "price_differs"}
        <= CODES.keys()
    )
    assert result.to_dict()["disagreements"][0]["first"] == "agent_app"


def test_facts_of_parsed_documents_of_old_and_new_formats():
    manifest = agent_app.validate_document(
        {
            "agent_app": "1",
            "name": "Pantry",
            "one_liner": "Meals.",
            "description": "Pantry plans meals.",
            "homepage": "https://pantry.test/",
            "guide": {"url": "https://pantry.test/agent.md"},
            "mcp": {"url": "https://pantry.test/mcp/", "transport": "streamable-http", "auth": ["oauth"]},
            "categories": ["lifestyle"],
            "pricing": "free",
            "publisher": {"name": "Pantry Labs", "contact": "mailto:team@pantry.test"},
        },
        origin="pantry.test",
    )
    facts = facts_of(manifest)
    assert (facts.document, facts.name, facts.mcp_urls, facts.auth, facts.contact) == (
        "agent_app",
        "Pantry",
        ("https://pantry.test/mcp",),
        ("oauth",),
        "mailto:team@pantry.test",
    )
    card = server_card.validate_document(
        {
            "name": "test.pantry/pantry",
            "version": "1",
            "title": "Pantry",
            "remotes": [{"type": "streamable-http", "url": "https://pantry.test/mcp"}],
            "tools": [{"name": "plan_meals"}],
        },
        origin="pantry.test",
    )
    paid = x402_discovery.validate_document(
        {"version": 1, "resources": [{"path": "/api/plan", "price": "0.10"}]}, origin="pantry.test"
    )
    result = compare([facts, facts_of(card), facts_of(paid)], live_tools=["plan_meals"])
    assert result.verdict == "consistent" and result.sources == ("agent_app", "server_card", "x402_discovery", LIVE_MCP)
    assert facts_of(paid).prices == {"https://pantry.test/api/plan": 0.1}


def test_anchor_endpoints_and_payment_prices_are_facts():
    doc = {
        "anchor": "0.1",
        "updated": "2026-01-02",
        "publisher": {"name": "Tide", "url": "https://tide.test", "contact": "mailto:a@tide.test"},
        "tools": [
            {
                "id": "test.tide/api",
                "kind": "http",
                "name": "API",
                "description": "d",
                "endpoint": "https://api.tide.test/v1",
                "auth": ["x402"],
                "payments": [
                    {
                        "protocol": "x402",
                        "version": "1",
                        "networks": ["eip155:8453"],
                        "asset": "USDC",
                        "priceUsd": 0.02,
                        "unit": "call",
                        "discovery": "https://api.tide.test/v1/quote",
                    }
                ],
            }
        ],
    }
    facts = facts_of(anchor.validate_document(doc, origin="tide.test"))
    assert facts.api_bases == ("https://api.tide.test/v1",)
    # Priced at the tool's endpoint (payments[].discovery is where x402 discovery data lives).
    assert facts.prices == {"https://api.tide.test/v1": 0.02}
    assert compare([facts], live_prices={"https://api.tide.test/v1": 0.03}).disagreements[0].code == "price_differs"
    assert facts_of(agent_app.parse(b"[]")).states_anything() is False


def test_only_the_mcp_endpoints_auth_is_compared():
    from agentdex.formats import a2a_card

    card = a2a_card.validate_document(
        {
            "name": "Pantry",
            "description": "d",
            "version": "1",
            "url": "https://pantry.test/a2a",
            "capabilities": {},
            "defaultInputModes": [],
            "defaultOutputModes": [],
            "skills": [],
            "securitySchemes": {"k": {"type": "apiKey"}},
        }
    )
    assert card.listing.auth_methods == ["api_key"] and facts_of(card).auth == ()  # the A2A endpoint's, not MCP's
    paid = x402_discovery.validate_document({"version": 1, "resources": ["https://pantry.test/api"]})
    assert facts_of(paid).auth == ()
    assert compare([MANIFEST, facts_of(card), facts_of(paid)]).verdict == "consistent"

"""Every agent-facing origin is a listing: a registry in the official API's shape whose
servers publish no manifest (real MCP SDK servers: one open, one OAuth-gated, a JSON-RPC
server that is not MCP, one unreachable, two on one shared host), an origin with only an
AI Catalog and one with only an A2A card. ``agentdex seeds`` carries each remote endpoint
(with its path) to ``crawl --seeds -``; the crawl probes each, the census counts each with
the state the SDK's own client sees, and each origin is a listing in ``list``, ``show``,
the TUI and Datasette."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpcore2
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.db import open_db
from agentdex.db.seeds import census_endpoints
from agentdex.sampleweb.client import MappedBackend2, ssl_context
from agentdex.sampleweb.server import SampleWeb
from agentdex.serve import make_datasette
from reference_servers import free_port

REGISTRY = "registry:https://registry.test"
OPEN, GATED, RPC, DEAD = (
    "https://open.test/mcp",
    "https://gated.test/mcp",
    "https://rpc.test/rpc",
    "https://dead.test/mcp",
)
ALPHA, BETA = "https://shared.test/alpha/mcp", "https://shared.test/beta/mcp"
LOOKED_UP = "https://lookup.test/mcp"
CATALOGUED = "https://catalog.test/mcp"
ELSEWHERE_CARD, ELSEWHERE = "https://cards.test/cards/weather.json", "https://cards.test/mcp"
INDEXED = "https://index.test/mcp"
MOVED = "https://cards.test/v2/mcp"
TEMPLATE = "https://{tenant}.tenants.test/mcp"


def server_json(name: str, url: str, transport: str = "streamable-http") -> dict:
    return {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": name,
        "description": f"The {name} server.",
        "version": "1.0.0",
        "remotes": [{"type": transport, "url": url}],
    }


def mcp_rule(name: str, *tools: str) -> dict:
    described = [
        {"name": t, "description": f"{t.replace('_', ' ').capitalize()} for the user.", "kind": "read"} for t in tools
    ]
    return {"app": "mcp", "options": {"name": name, "tools": described}}


SITES = {
    "registry.test": {"paths": {"/v0.1/*": {"app": "mcp_registry", "options": {"page_size": 3}}}},
    "open.test": {"paths": {"/mcp": mcp_rule("Open Tides", "get_tides", "harbour_forecast")}},
    "gated.test": {
        "paths": {
            "/mcp": {"app": "mcp", "options": {"profile": "oauth", "name": "Gated"}},
            "/.well-known/oauth-protected-resource": {"app": "oauth_metadata"},
        }
    },
    "rpc.test": {"paths": {"/rpc": {"app": "jsonrpc"}}},
    "shared.test": {
        "paths": {"/alpha/mcp": mcp_rule("Alpha", "alpha_search"), "/beta/mcp": mcp_rule("Beta", "beta_lookup")}
    },
    "catalog.test": {"paths": {"/mcp": mcp_rule("Catalogued", "find_recipe")}},
    "cards.test": {"paths": {"/mcp": mcp_rule("Weather", "forecast")}},
    "index.test": {"paths": {"/mcp": mcp_rule("Index", "search_index")}},
    "agent.test": {"paths": {"/a2a": {"app": "jsonrpc"}}},
    "lookup.test": {"paths": {"/mcp": mcp_rule("Looked up", "look_up")}},  # A2A's JSON-RPC binding: POST only
}
SERVERS = [
    server_json("test.open/tides", OPEN),
    server_json("test.gated/vault", GATED),
    server_json("test.rpc/node", RPC),
    server_json("test.dead/gone", DEAD),
    server_json("test.shared/alpha", ALPHA),
    server_json("test.shared/beta", BETA),
    server_json("test.tenants/any", TEMPLATE),
    server_json("test.lookup/thing", LOOKED_UP),
]
AI_CATALOG = {
    "specVersion": "1.0",
    "host": {"displayName": "Catalog Kitchen"},
    "entries": [
        {
            "identifier": "urn:air:catalog.test:mcp:recipes",
            "displayName": "Recipes",
            "type": "application/mcp-server-card+json",
            "data": {
                "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
                "name": "test.catalog/recipes",
                "version": "1.0.0",
                "description": "Recipes for agents.",
                "remotes": [{"type": "streamable-http", "url": CATALOGUED}],
            },
        },
        {  # a card on another origin: that origin's document, crawled as that origin
            "identifier": "urn:air:cards.test:mcp:weather",
            "displayName": "Weather",
            "type": "application/mcp-server-card+json",
            "url": ELSEWHERE_CARD,
        },
    ],
}


def card(name: str, url: str) -> dict:
    return {
        "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
        "name": name,
        "version": "1.0.0",
        "description": f"The {name} server.",
        "remotes": [{"type": "streamable-http", "url": url}],
    }


INDEX_CATALOG = {  # a card by a relative URL on the catalog's own origin
    "specVersion": "1.0",
    "host": {"displayName": "Index"},
    "entries": [
        {
            "identifier": "urn:air:index.test:mcp:search",
            "displayName": "Search",
            "type": "application/mcp-server-card+json",
            "url": "/cards/search.json",
        }
    ],
}
A2A_CARD = {
    "protocolVersion": "0.3.0",
    "name": "Courier",
    "description": "Books parcel pickups.",
    "url": "https://agent.test/a2a",
    "preferredTransport": "JSONRPC",
    "version": "1.0.0",
    "capabilities": {"streaming": False},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "pickup", "name": "Book a pickup", "description": "Books a parcel pickup.", "tags": ["parcel"]}],
}
ENDPOINTS = {
    OPEN: "open",
    GATED: "auth_gated",
    RPC: "not_mcp",
    DEAD: "unreachable",
    ALPHA: "open",
    BETA: "open",
    LOOKED_UP: "open",
}


def write_web(root: Path) -> None:
    for host, site in SITES.items():
        (root / host).mkdir(parents=True)
        (root / host / "_site.json").write_text(json.dumps(site), "utf-8")
    (root / "registry.test" / "_servers.json").write_text(json.dumps(SERVERS), "utf-8")
    for host, path, doc in (
        ("catalog.test", ".well-known/ai-catalog.json", AI_CATALOG),
        ("agent.test", ".well-known/agent-card.json", A2A_CARD),
        ("index.test", ".well-known/ai-catalog.json", INDEX_CATALOG),
        ("index.test", "cards/search.json", card("test.index/search", INDEXED)),
        ("cards.test", "cards/weather.json", card("test.cards/weather", ELSEWHERE)),
    ):
        (root / host / path).parent.mkdir(parents=True, exist_ok=True)
        (root / host / path).write_text(json.dumps(doc), "utf-8")
    # v2: the weather card moves its endpoint.
    (root / "cards.test" / "_v2" / "cards").mkdir(parents=True)
    (root / "cards.test" / "_v2" / "cards" / "weather.json").write_text(
        json.dumps(card("test.cards/weather", MOVED)), "utf-8"
    )
    (root / "cards.test" / "_v2" / "_site.json").write_text(
        json.dumps({"paths": {"/v2/mcp": mcp_rule("Weather", "forecast")}}), "utf-8"
    )


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    root = tmp_path_factory.mktemp("agentweb")
    write_web(root)
    with SampleWeb(root, dns=False) as running:
        running.dead = ("dead.test", "127.0.0.1", free_port())  # nothing listens there
        yield running


@pytest.fixture(scope="module")
def crawled(web, tmp_path_factory):
    """``seeds`` into one catalogue, its text piped to ``crawl --seeds -`` into another (so
    only the text carries the endpoints), the two catalogue-only origins named beside it."""
    folder = tmp_path_factory.mktemp("crawled")
    args = [*web.cli_args(), "--connect-to", ":".join(map(str, web.dead)), "--timeout", "60"]
    runner = CliRunner()
    seeded = runner.invoke(app, ["seeds", REGISTRY, "--db", str(folder / "seeds.db"), *args])
    assert seeded.exit_code == 0, seeded.output
    as_json = runner.invoke(
        app, ["seeds", REGISTRY, "--json", "--since", "2000-01-01T00:00:00Z", *args, "--db", str(folder / "seeds.db")]
    )
    path = folder / "catalogue.db"
    crawl = runner.invoke(
        app,
        ["crawl", "catalog.test", "agent.test", "index.test", "--seeds", "-", "--db", str(path), *args],
        input=seeded.stdout,
    )
    assert crawl.exit_code == 0, crawl.output
    return {"path": path, "lines": seeded.stdout.splitlines(), "json": json.loads(as_json.stdout)}


def sdk_client(web, statuses: list[int]) -> httpx2.AsyncClient:
    """The SDK's HTTP client, reaching the test web as ``--connect-to`` does; the status of
    every answer it gets goes to ``statuses``."""
    context = ssl_context(web)
    transport = httpx2.AsyncHTTPTransport(verify=context)
    transport._pool = httpcore2.AsyncConnectionPool(
        ssl_context=context, network_backend=MappedBackend2([*web.connect_to(), web.dead])
    )

    async def note(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    return httpx2.AsyncClient(
        transport=transport, timeout=httpx2.Timeout(10.0, read=30.0), event_hooks={"response": [note]}
    )


def _causes(exc: BaseException) -> list[BaseException]:
    found = [exc]
    for inner in getattr(exc, "exceptions", ()) or ():
        found += _causes(inner)
    if exc.__cause__ is not None:
        found += _causes(exc.__cause__)
    return found


async def sdk_state(web, url: str) -> str:
    """What the MCP SDK's own client finds at ``url``, in the census's words: its session
    opens and lists tools (open), its ``initialize`` gets a 401 (auth_gated), no answer at
    all (unreachable), or an answer that is no MCP (not_mcp)."""
    statuses: list[int] = []
    try:
        async with sdk_client(web, statuses) as http:
            async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
                await client.list_tools()
        return "open"
    except BaseException as exc:  # noqa: BLE001 - the SDK raises groups of transport errors
        if statuses[:1] == [401]:
            return "auth_gated"
        if not statuses and any(isinstance(c, httpx2.ConnectError) for c in _causes(exc)):
            return "unreachable"
        return "not_mcp"


async def test_the_sdk_client_sees_what_the_fixture_means(web):
    assert {url: await sdk_state(web, url) for url in ENDPOINTS} == ENDPOINTS


def test_seeds_carry_each_remote_endpoint_with_its_path(crawled):
    endpoints = {e["url"]: e for seed in crawled["json"] if seed["origin"] for e in seed["endpoints"]}
    assert set(endpoints) == set(ENDPOINTS)
    assert endpoints[ALPHA]["name"] == "test.shared/alpha" and endpoints[ALPHA]["transport"] == "streamable-http"
    shared = next(s for s in crawled["json"] if s["origin"] == "shared.test")
    assert {s["url"] for s in shared["sources"]} == {ALPHA, BETA}
    refused = [s for s in crawled["json"] if s["origin"] is None]
    assert [r["refused"] for r in refused] == [TEMPLATE] and "template" in refused[0]["reason"]
    assert f"shared.test mcp={BETA} name=test.shared/beta" in " ".join(crawled["lines"])


async def test_every_remote_endpoint_is_in_the_census_with_the_state_the_sdk_sees(web, crawled):
    rows = {r["url"]: r for r in census_endpoints(open_db(crawled["path"], readonly=True))}
    seen = {url: await sdk_state(web, url) for url in ENDPOINTS}
    assert {url: rows[url]["census"] for url in ENDPOINTS} == seen
    assert rows[ALPHA]["origin"] == rows[BETA]["origin"] == "shared.test"
    assert rows[CATALOGUED]["census"] == "open"
    # An AI Catalog's card by URL is its own origin's: probed and counted there, never under the catalog's.
    assert (rows[ELSEWHERE]["origin"], rows[ELSEWHERE]["census"]) == ("cards.test", "open")
    assert (rows[INDEXED]["origin"], rows[INDEXED]["census"]) == ("index.test", "open")


def show(crawled, origin: str) -> dict:
    result = CliRunner().invoke(app, ["show", origin, "--json", "--db", str(crawled["path"])])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_show_gives_each_origin_its_listing_with_provenance_endpoints_and_tools(crawled):
    opened = show(crawled, "open.test")
    assert (opened["format"], opened["status"], opened["mcp_url"]) == ("server_json", "listed", OPEN)
    assert {t["name"] for t in opened["tools"] if t["source"] == "mcp"} == {"get_tides", "harbour_forecast"}
    assert opened["extra"]["provenance"][0]["name"] == "test.open/tides"
    assert "claude_code" in opened["plans"]
    shared = show(crawled, "shared.test")
    assert {e["url"] for e in shared["endpoints"] if e["role"] == "mcp"} == {ALPHA, BETA}
    gated = show(crawled, "gated.test")
    assert {c["name"]: c["status"] for c in gated["checks"]}["mcp.initialize"] == "warn"
    catalogue = show(crawled, "catalog.test")
    assert (catalogue["format"], catalogue["status"], catalogue["mcp_url"]) == ("ai_catalog", "listed", CATALOGUED)
    agent = show(crawled, "agent.test")
    assert (agent["format"], agent["status"], agent["name"]) == ("a2a_card", "listed", "Courier")
    interface = next(e for e in agent["endpoints"] if e["role"] == "a2a")  # a safe GET, no message sent
    assert (interface["url"], interface["state"]) == ("https://agent.test/a2a", "ok")
    elsewhere = show(crawled, "cards.test")
    assert (elsewhere["format"], elsewhere["mcp_url"]) == ("server_card", ELSEWHERE)
    assert elsewhere["extra"]["provenance"] == [
        {"source": "server_card", "url": ELSEWHERE_CARD, "catalog": "https://catalog.test/.well-known/ai-catalog.json"}
    ]
    assert [s["via"] for s in elsewhere["seed_sources"]] == ["catalog:server_card"]
    assert ELSEWHERE not in {e["url"] for e in catalogue["endpoints"]}
    indexed = show(crawled, "index.test")
    assert (indexed["format"], indexed["mcp_url"]) == ("server_card", INDEXED)
    assert indexed["extra"]["provenance"][0]["catalog"] == "https://index.test/.well-known/ai-catalog.json"


LISTED = {
    "open.test": "server_json",
    "gated.test": "server_json",
    "rpc.test": "server_json",
    "shared.test": "server_json",
    "catalog.test": "ai_catalog",
    "agent.test": "a2a_card",
    "cards.test": "server_card",
    "index.test": "server_card",
    "lookup.test": "server_json",
}


def test_list_shows_the_listings_and_filters_them_by_format(crawled):
    db = ["--db", str(crawled["path"])]
    everything = json.loads(CliRunner().invoke(app, ["list", "--json", *db]).stdout)["listings"]
    assert {r["origin"]: r["format"] for r in everything if r["status"] == "listed"} == LISTED
    only = json.loads(CliRunner().invoke(app, ["list", "--json", "--format", "ai_catalog", *db]).stdout)["listings"]
    assert [r["origin"] for r in only] == ["catalog.test"]


async def test_the_tui_table_shows_them(crawled):
    from agentdex.tui.app import make_app
    from agentdex.tui.widgets.catalogue_table import CatalogueTable
    from test_tui_support import SIZE, screen_text, settle

    tui = make_app(crawled["path"], None)
    async with tui.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = {key.value for key in tui.screen.query_one(CatalogueTable).rows}
        assert set(LISTED) <= shown
        tui.screen.query_one("#filter-format").value = "a2a_card"
        await settle(pilot)
        assert [key.value for key in tui.screen.query_one(CatalogueTable).rows] == ["agent.test"]
        tui.open_listing("open.test")  # its card says where the listing came from
        await settle(pilot)
        text = screen_text(tui)
        assert "open.test" in text and "server_json" in text and OPEN in text


async def test_datasette_shows_them(crawled):
    ds = make_datasette(crawled["path"])
    await ds.invoke_startup()
    response = await ds.client.get("/catalogue/listings.json?_shape=array&_col=format&status=listed")
    assert response.status_code == 200
    assert {r["origin"]: r["format"] for r in response.json()} == LISTED


def test_a_recrawl_of_the_same_web_changes_nothing_and_a_moved_endpoint_is_an_event(web, crawled, tmp_path):
    path = tmp_path / "again.db"
    with sqlite3.connect(crawled["path"]) as source, sqlite3.connect(path) as copy:
        source.backup(copy)  # the write-ahead log included
    args = [*web.cli_args(), "--connect-to", ":".join(map(str, web.dead)), "--db", str(path), "--json"]
    again = CliRunner().invoke(app, ["crawl", *LISTED, "--revalidate", *args])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["events"] == 0
    web.set_variant("cards.test", "v2")
    try:
        moved = CliRunner().invoke(app, ["crawl", "cards.test", *args])
    finally:
        web.set_variant("cards.test", None)
    assert moved.exit_code == 0, moved.output
    events = json.loads(
        CliRunner().invoke(app, ["events", "--origin", "cards.test", "--json", "--db", str(path)]).stdout
    )
    changed = [e for e in events if e["kind"] == "mcp_url_changed"]
    assert [(e["old"], e["new"]) for e in changed] == [(ELSEWHERE, MOVED)]
    rows = {r["url"]: r["census"] for r in census_endpoints(open_db(path, readonly=True))}
    assert rows[MOVED] == "open"


def test_a_shared_host_gets_time_for_each_endpoint_declared_on_it(crawled):
    from agentdex.crawler.stage import ENDPOINT_SECONDS, origin_budget

    db = open_db(crawled["path"], readonly=True)
    assert origin_budget(db, "shared.test", 10.0) == 10.0 + ENDPOINT_SECONDS  # two endpoints
    assert origin_budget(db, "open.test", 10.0) == origin_budget(db, "agent.test", 10.0) == 10.0


def test_with_crawling_processes_a_catalogued_origin_is_crawled_in_the_same_run(web, tmp_path):
    path = tmp_path / "processes.db"
    args = [*web.cli_args(), "--db", str(path), "--json", "--processes", "2"]
    crawl = CliRunner().invoke(app, ["crawl", "catalog.test", "agent.test", *args])
    assert crawl.exit_code == 0, crawl.output
    assert json.loads(crawl.stdout)["origins"] == 3  # cards.test, which the catalog names, too
    assert show({"path": path}, "cards.test")["format"] == "server_card"


def test_what_the_registry_lists_for_an_origin_is_its_listing_when_it_publishes_nothing(web, tmp_path):
    path = tmp_path / "lookup.db"
    args = [*web.cli_args(), "--db", str(path), "--registry-lookup", "--registry", "https://registry.test"]
    crawl = CliRunner().invoke(app, ["crawl", "lookup.test", *args])  # no seeds: only the lookup names it
    assert crawl.exit_code == 0, crawl.output
    found = show({"path": path}, "lookup.test")
    assert (found["format"], found["status"], found["mcp_url"]) == ("registry_server_json", "listed", LOOKED_UP)
    assert {t["name"] for t in found["tools"] if t["source"] == "mcp"} == {"look_up"}

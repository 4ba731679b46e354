"""One module for the MCP registry API (agentdex.formats.registry_api): the URLs every client
asks, the paging rules they follow, the page model they read with, held against the registry's
own OpenAPI document (the trimmed copy in tests/ecosystem/, source in its SOURCES.md); and no
other module spells the API's paths."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import yaml

import agentdex
from agentdex.formats import registry_api as api

SPEC = Path(__file__).resolve().parent / "ecosystem" / "openapi.registry.yaml"
BASE = "https://registry.example"


@pytest.fixture(scope="module")
def document() -> dict:
    return yaml.safe_load(SPEC.read_text("utf-8"))


def test_the_revision_paths_and_parameters_are_the_documents(document):
    assert document["info"]["version"] == api.API_VERSION
    list_path, versions, one = document["paths"]
    assert list_path == api.SERVERS_PATH and re.match(api.LIST_ROUTE, list_path)
    assert re.match(api.VERSIONS_ROUTE, versions.replace("{serverName}", "a.b%2Fc"))
    assert re.match(api.VERSIONS_ROUTE, one.replace("{serverName}", "a.b/c").replace("{version}", "latest"))
    asked = api.list_url(
        BASE, search="s", version="latest", limit=5, include_deleted=True, updated_since="t", cursor="c"
    )
    names = [p.split("=")[0] for p in asked.split("?")[1].split("&")]
    assert set(names) == {p["name"] for p in document["paths"][list_path]["get"]["parameters"]}


def test_the_official_meta_is_read_in_the_documents_fields_and_bounds(document):
    schemas = document["components"]["schemas"]
    official = schemas["ServerResponse"]["properties"]["_meta"]["properties"][api.OFFICIAL]["properties"]
    assert set(api.Official.model_fields) == set(official)
    assert official["statusMessage"]["maxLength"] == api.STATUS_MESSAGE_MAX
    assert schemas["ServerDetail"]["properties"]["name"]["maxLength"] == api.NAME_MAX


def test_each_client_asks_its_url_and_every_value_is_percent_encoded():
    assert api.list_url(BASE + "/", search="test.pantry", version="latest", cursor="a b/c") == (
        BASE + "/v0.1/servers?search=test.pantry&version=latest&cursor=a%20b%2Fc"
    )
    assert api.list_url(BASE, limit=100, include_deleted=True, updated_since="2026-09-03T00:00:00Z") == (
        BASE + "/v0.1/servers?limit=100&include_deleted=true&updated_since=2026-09-03T00%3A00%3A00Z"
    )
    assert api.list_url(BASE) == BASE + "/v0.1/servers"
    assert (
        api.versions_url(BASE, "test.tidewater/tides") == BASE + "/v0.1/servers/test.tidewater%2Ftides/versions/latest"
    )
    assert api.versions_url(BASE, "a.b/c", "1.0.0+build") == BASE + "/v0.1/servers/a.b%2Fc/versions/1.0.0%2Bbuild"
    assert api.versions_url(BASE, "a.b/c", None) == BASE + "/v0.1/servers/a.b%2Fc/versions"


def page(cursor: object = None) -> api.Page:
    return api.read_page(json.dumps({"servers": [], "metadata": {"nextCursor": cursor}}).encode())


@pytest.mark.parametrize("last", [None, "", "   "])
def test_a_missing_null_or_blank_cursor_ends_the_list(last):
    paging = api.Paging()
    assert paging.turn(page(last)) is None and paging.done and paging.pages == 1


def test_a_cursor_is_followed_as_given_until_it_repeats_or_is_too_long():
    paging = api.Paging()
    assert paging.turn(page("x/1")) is None and paging.cursor == "x/1" and not paging.done
    assert paging.turn(page("x/2")) is None and paging.cursor == "x/2"
    assert "given before" in (paging.turn(page("x/1")) or "")
    assert "over 4,096 characters" in (api.Paging().turn(page("c" * (api.MAX_CURSOR + 1))) or "")


def test_a_read_stops_at_its_page_budget():
    paging = api.Paging(max_pages=2)
    for n in range(2):
        assert paging.stop() is None
        paging.turn(page(str(n)))
    assert paging.stop() == "the registry has more than 2 pages (the page budget)"


def test_a_page_that_is_none_and_an_entry_that_cannot_be_read_say_why():
    with pytest.raises(api.NotRead, match="Field required"):
        api.read_page(b'{"metadata": {}}')
    assert api.page_of({"servers": "no list"}) is None
    bad = {"server": {"name": "a.b/c"}, "_meta": {api.OFFICIAL: {"status": 7}}}
    with pytest.raises(api.NotRead, match=re.escape(f"_meta[{api.OFFICIAL}].status: Input should be a valid string")):
        api.read_entry(bad)
    with pytest.raises(api.NotRead, match="server.name: String should have at most 200 characters"):
        api.read_entry({"server": {"name": "n" * 201}})
    assert api.server_name_of({"server": {"name": "n" * 300}}) == "n" * 200


def test_what_agentdex_serves_reads_back_through_the_same_model():
    served = api.server_list([{"server": {"name": "test.pantry/pantry"}, "_meta": {}}], "next")
    assert served["metadata"] == {"nextCursor": "next", "count": 1}
    read = api.read_page(json.dumps(served).encode())
    entry = api.read_entry(read.servers[0])
    assert (entry.server.name, entry.official.status, read.metadata.nextCursor) == (
        "test.pantry/pantry",
        "active",
        "next",
    )
    deleted = api.read_entry(
        b'{"server": {"name": "a.b/c"}, "_meta": {"%s": {"status": "deleted"}}}' % api.OFFICIAL.encode()
    )
    assert (
        deleted.official.skipped
        and api.read_entry({"server": {"name": "a.b/c"}, "_meta": {api.OFFICIAL: {"isLatest": False}}}).official.skipped
    )


def _path_literals(path: Path) -> list[str]:
    """The string constants of a module that are not docstrings."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


def test_no_other_module_spells_the_apis_paths():
    package = Path(agentdex.__file__).parent
    spelling = re.compile(r"/v0\\?\.1/|/versions/latest")
    found = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if any(spelling.search(text) for text in _path_literals(p))
    )
    assert found == ["formats/registry_api.py"]


def test_seeds_and_the_crawls_lookup_take_and_refuse_the_same_entries():
    from agentdex import seeds
    from agentdex.formats import registry_server_json

    def entry(name: str, **official: object) -> dict:
        server = {"name": name, "description": "d", "version": "1.0.0", "websiteUrl": "https://pantry.test"}
        return {"server": server, "_meta": {api.OFFICIAL: official}}

    items = [entry("test.pantry/a"), entry("test.pantry/b", status=7), entry("test.pantry/c", statusMessage="m" * 501)]
    refused = [n for item in items for n in seeds.entry_names(item, "s") if isinstance(n, tuple)]
    assert [named.name for named, _ in refused] == ["test.pantry/b", "test.pantry/c"]
    assert list(registry_server_json.in_namespace({"servers": items}, "test.pantry")) == ["test.pantry/a"]

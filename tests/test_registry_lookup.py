"""What the MCP registry lists for an origin's namespace (``crawl --registry-lookup``): asked
over real sockets of the cross-check sample web's registry (``mcpregistry.test``, two servers a
page), stored, validated and cross-checked like the other discovery documents, its changes
events, and its failures no one's error."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler import crosscheck, discovery
from agentdex.crawler.crawl import crawl
from agentdex.db import open_db
from agentdex.formats import registry_server_json as registry
from agentdex.formats.consistency import facts_of
from agentdex.models import Listing, OriginCrawl
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

REGISTRY = "https://mcpregistry.test"
ORIGINS = ["consistent.test", "regdrift.test", "rugpull.test"]
SEARCH = "/v0.1/servers?search={}&version=latest"
PAGE2 = "https://mcpregistry.test/v0.1/servers?search=test.regdrift&version=latest&cursor=2"


@pytest.fixture(scope="module")
def looked_up(tmp_path_factory):
    """Five crawls of three origins: the registry up; down; not asked; up with a change
    (v3); answering a web page (v4). And a fresh catalogue whose first crawl finds the
    registry down."""
    folder = tmp_path_factory.mktemp("registry")
    path, fresh = folder / "catalogue.db", folder / "fresh.db"
    runner = CliRunner()
    with SampleWeb(CROSSCHECK_ROOT) as web:
        net = [*web.cli_args(), "--registry", REGISTRY, "--no-verify", "--timeout", "60", "--json"]

        def run(db=path, lookup: bool = True) -> tuple[dict, list, list, list]:
            """The crawl's summary, the requests it sent, and the verdicts, registry
            documents and findings right after it."""
            start = len(web.requests_log)
            result = runner.invoke(
                app, ["crawl", *ORIGINS, "--db", str(db), *net, *(["--registry-lookup"] if lookup else [])]
            )
            assert result.exit_code == 0, result.output
            after = rows(
                db,
                "SELECT origin, status, consistency, disagreements, "
                "(SELECT group_concat(kind) FROM documents d WHERE d.origin = l.origin "
                "AND kind LIKE 'registry%') FROM listings l ORDER BY origin",
            )
            findings = rows(
                db, "SELECT origin, format, severity, path, code, message FROM findings ORDER BY origin, format, path"
            )
            return json.loads(result.stdout), list(web.requests_log)[start:], after, findings

        runs = {"up": run()}
        web.set_variant("mcpregistry.test", "v2")
        runs["down"] = run()
        runs["fresh_down"] = run(db=fresh)
        runs["not_asked"] = run(lookup=False)
        web.set_variant("mcpregistry.test", "v3")
        runs["changed"] = run()
        web.set_variant("mcpregistry.test", "v4")
        runs["garbage"] = run()
        web.set_variant("mcpregistry.test", "")
        yield path, fresh, runs, web


def rows(path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def registry_requests(log) -> list[str]:
    return sorted(r.path for r in log if r.host == "mcpregistry.test")


def test_the_registry_is_asked_once_an_origin_for_its_namespace_and_the_next_page_followed(looked_up):
    runs = looked_up[2]
    summary, log, _, _ = runs["up"]
    assert registry_requests(log) == sorted(
        ["/robots.txt"]
        + [SEARCH.format(space) for space in ("test.consistent", "test.regdrift", "test.rugpull")]
        + [SEARCH.format("test.regdrift") + "&cursor=2"]
    )
    assert summary["by_status"] == {"listed": 3}
    assert rows(
        looked_up[0], "SELECT origin, kind, url FROM documents WHERE kind LIKE 'registry%' ORDER BY origin, kind"
    ) == [
        ("consistent.test", "registry_server_json", REGISTRY + SEARCH.format("test.consistent")),
        ("regdrift.test", "registry_server_json", REGISTRY + SEARCH.format("test.regdrift")),
        ("regdrift.test", "registry_server_json_page2", PAGE2),
        ("rugpull.test", "registry_server_json", REGISTRY + SEARCH.format("test.rugpull")),
    ]


def test_an_origin_the_registry_lists_consistently_gains_a_source_and_no_finding(looked_up):
    path = looked_up[0]
    # The search also matched test.consistent.evil/harbor-desk ("Harbour Desk Pro", another
    # endpoint): not the namespace's, so no disagreement.
    assert rows(
        path,
        "SELECT consistency, consistency_sources, disagreements, formats_found FROM listings "
        "WHERE origin = 'consistent.test'",
    ) == [
        (
            "consistent",
            '["agent_app", "a2a_card", "server_card", "registry_server_json", "api_catalog"]',
            0,
            '["a2a_card", "agent_app", "api_catalog", "registry_server_json", "server_card"]',
        )
    ]
    # its card at the legacy /.well-known/mcp/ path says so; nothing else is found
    assert rows(path, "SELECT code FROM findings WHERE origin = 'consistent.test'") == [("legacy_location",)]


def test_a_registry_entry_that_disagrees_is_a_finding_naming_both_documents_and_both_values(looked_up):
    found = [f[1:] for f in looked_up[2]["up"][3] if f[0] == "regdrift.test"]
    assert found == [
        (
            "consistency",
            "warning",
            "mcp_endpoint",
            "mcp_endpoint_differs",
            "mcp_endpoint: agent_app says ['https://mcp.regdrift.test/mcp'] but registry_server_json says "
            "['https://mcp.regdrift.test/v1/mcp']",
        ),
        (
            "consistency",
            "warning",
            "name",
            "name_differs",
            "name: agent_app says 'Tally' but registry_server_json says 'Tally Classic'",
        ),
        # Every server of the namespace is validated; the one compared is the one on the origin.
        (
            "registry_server_json",
            "error",
            "servers[test.regdrift/archive].packages[0].version",
            "not_allowed",
            "packages[0].version: 'latest' should not be valid under {'const': 'latest'}",
        ),
    ]


def test_an_origin_the_registry_does_not_list_has_no_finding_and_no_source(looked_up):
    path = looked_up[0]
    assert rows(
        path, "SELECT consistency, consistency_sources, formats_found FROM listings WHERE origin = 'rugpull.test'"
    ) == [("single-source", '["agent_app"]', '["agent_app"]')]
    assert rows(path, "SELECT count(*) FROM findings WHERE origin = 'rugpull.test'") == [(0,)]
    assert rows(
        path,
        "SELECT status_code, error_code FROM snapshots WHERE origin = 'rugpull.test' "
        "AND kind = 'registry_server_json' ORDER BY id",
    ) == [(200, None), (503, "http_status"), (200, None), (200, None)]


def test_a_registry_that_is_down_changes_nothing_and_loses_nothing(looked_up):
    path, _, runs, _ = looked_up
    summary, log, after, findings = runs["down"]
    assert summary["by_status"] == {"listed": 3} and summary["unchanged"] == 3 and summary["events"] == 0
    # The registry's 503s are not the origins' errors: as many as when no registry is asked
    # (none: the origins' own 404s at optional paths are absences, not errors).
    assert summary["errors"] == runs["not_asked"][0]["errors"] == 0
    assert len([r for r in log if r.host == "mcpregistry.test" and r.path.startswith("/v0.1/")]) == 3  # no retry
    assert rows(
        path,
        "SELECT origin, status_code, error_code FROM snapshots WHERE crawl_id = 2 "
        "AND kind LIKE 'registry%' ORDER BY origin",
    ) == [
        ("consistent.test", 503, "http_status"),
        ("regdrift.test", 503, "http_status"),
        ("rugpull.test", 503, "http_status"),
    ]
    # What it answered before stands: the documents, the verdicts, the disagreements.
    assert (
        after
        == runs["up"][2]
        == [
            ("consistent.test", "listed", "consistent", 0, "registry_server_json"),
            ("regdrift.test", "listed", "inconsistent", 2, "registry_server_json,registry_server_json_page2"),
            ("rugpull.test", "listed", "single-source", 0, "registry_server_json"),
        ]
    )
    assert findings == runs["up"][3]


def test_a_registry_down_on_the_first_crawl_still_lists_every_origin_without_it(looked_up):
    fresh, runs = looked_up[1], looked_up[2]
    assert runs["fresh_down"][0]["by_status"] == {"listed": 3}
    assert runs["fresh_down"][0]["errors"] == runs["up"][0]["errors"]  # the registry's 503s not among them
    assert rows(
        fresh, "SELECT origin, consistency, consistency_sources, disagreements FROM listings ORDER BY origin"
    ) == [
        ("consistent.test", "consistent", '["agent_app", "a2a_card", "server_card", "api_catalog"]', 0),
        ("regdrift.test", "single-source", '["agent_app"]', 0),
        ("rugpull.test", "single-source", '["agent_app"]', 0),
    ]
    assert rows(fresh, "SELECT count(*) FROM documents WHERE kind LIKE 'registry%'") == [(0,)]
    assert rows(fresh, "SELECT count(*) FROM findings WHERE code != 'legacy_location'") == [(0,)]


def test_no_registry_is_asked_unless_told_and_what_it_said_stands(looked_up):
    path, _, runs, _ = looked_up
    summary, log, after, findings = runs["not_asked"]
    assert registry_requests(log) == [] and summary["by_status"] == {"listed": 3} and summary["unchanged"] == 3
    assert after == runs["up"][2] and findings == runs["up"][3]
    assert rows(path, "SELECT count(*) FROM snapshots WHERE crawl_id = 3 AND kind LIKE 'registry%'") == [(0,)]


def test_a_change_in_what_the_registry_lists_is_an_event_with_old_and_new(looked_up):
    path, _, runs, _ = looked_up
    assert runs["changed"][0]["events"] == 1
    events = rows(path, "SELECT origin, kind, subject, old, new FROM events WHERE crawl_id = 4")
    assert [(o, k, s) for o, k, s, _, _ in events] == [("regdrift.test", "registry_changed", "test.regdrift/tally")]
    assert json.loads(events[0][3]) == {
        "test.regdrift/tally": {"version": "3.1.0", "remotes": ["https://mcp.regdrift.test/v1/mcp"]}
    }
    assert json.loads(events[0][4]) == {
        "test.regdrift/tally": {"version": "3.2.0", "remotes": ["https://mcp.regdrift.test/mcp"]}
    }
    assert rows(path, "SELECT path, code FROM findings WHERE origin = 'regdrift.test' AND format = 'consistency'") == [
        ("name", "name_differs")
    ]


def test_a_registry_answering_a_web_page_is_down_too(looked_up):
    path, _, runs, _ = looked_up
    summary, log, after, findings = runs["garbage"]
    assert summary["by_status"] == {"listed": 3} and summary["unchanged"] == 3 and summary["events"] == 0
    assert after == runs["changed"][2] and findings == runs["changed"][3]
    assert rows(
        path,
        "SELECT DISTINCT status_code, error_code, body_sha256 FROM snapshots WHERE crawl_id = 5 "
        "AND kind LIKE 'registry%'",
    ) == [(200, None, None)]


def test_show_prints_the_registry_document_and_its_cross_check(looked_up):
    path = looked_up[0]
    runner = CliRunner()
    data = json.loads(runner.invoke(app, ["show", "regdrift.test", "--db", str(path), "--json"]).stdout)
    assert [(d["kind"], d["url"]) for d in data["documents"] if d["kind"].startswith("registry")] == [
        ("registry_server_json", REGISTRY + SEARCH.format("test.regdrift")),
        ("registry_server_json_page2", PAGE2),
    ]
    assert data["consistency_sources"] == ["agent_app", "registry_server_json"] and data["disagreements"] == 1
    assert [e["kind"] for e in data["events"]] == ["listed", "registry_changed"]
    text = runner.invoke(app, ["show", "regdrift.test", "--db", str(path)]).output
    assert (
        "inconsistent (1 disagreement(s)) across agent_app, registry_server_json\n"
        "    name: agent_app says 'Tally' but registry_server_json says 'Tally Classic' [name_differs]"
    ) in text
    assert (
        'registry_changed  the MCP registry: test.regdrift/tally: version "3.1.0" → "3.2.0", remotes '
        '["https://mcp.regdrift.test/v1/mcp"] → ["https://mcp.regdrift.test/mcp"]'
    ) in text


def test_the_library_bounds_the_pages_it_follows(looked_up, tmp_path, monkeypatch):
    web = looked_up[3]
    monkeypatch.setattr(discovery, "REGISTRY_KINDS", discovery.REGISTRY_KINDS[:1])
    db = open_db(tmp_path / "one-page.db")
    start = len(web.requests_log)
    net = web.network_options(registry=REGISTRY, registry_lookup=True, deadline=60.0)
    try:
        asyncio.run(crawl(db, ["regdrift.test"], net, verify=False))
    finally:
        db.close()
    # One page: the cursor is not followed, so tally (on page 2) is not read; archive is.
    assert registry_requests(list(web.requests_log)[start:]) == ["/robots.txt", SEARCH.format("test.regdrift")]
    assert rows(tmp_path / "one-page.db", "SELECT path, code FROM findings WHERE format = 'consistency'") == [
        ("name", "name_differs")
    ]


@pytest.mark.parametrize(
    "url, said",
    [
        ("http://registry.example", "--registry must be an https URL"),
        ("https://user:secret@registry.example", "must not carry credentials"),
        ("https://registry.example:port", "--registry must be an https URL"),
        ("https://registry.example/?q=1", "--registry must be an https URL"),
    ],
)
def test_a_bad_registry_url_is_a_message_not_a_traceback(tmp_path, url, said):
    result = CliRunner().invoke(
        app, ["crawl", "example.test", "--db", str(tmp_path / "c.db"), "--registry", url, "--registry-lookup"]
    )
    assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output
    assert not (tmp_path / "c.db").exists() or rows(tmp_path / "c.db", "SELECT count(*) FROM snapshots") == [(0,)]


# -- the pure reading, on plain data ------------------------------------------------------------


def entry(name: str, *urls: str, status: str = "active", latest: bool = True) -> dict:
    server = {
        "name": name,
        "description": "d",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": u} for u in urls],
    }
    return {"server": server, "_meta": {registry.OFFICIAL: {"status": status, "isLatest": latest}}}


def test_the_namespace_is_the_host_reversed_without_port_and_none_for_an_address():
    assert [
        registry.namespace(o)
        for o in ("pantry.test", "api.example.com", "api.example.com:8443", "127.0.0.1", "[::1]:8443", "")
    ] == ["test.pantry", "com.example.api", "com.example.api", None, None, None]


def test_only_the_servers_of_the_namespace_are_read_and_deleted_or_older_ones_are_skipped():
    answer = {
        "servers": [
            entry("test.pantry.evil/a", "https://e.test/mcp"),
            entry("test.pantryx/b", "https://x.test/mcp"),
            entry("test.pantry/old", "https://mcp.pantry.test/old", status="deleted"),
            entry("test.pantry/pantry", "https://mcp.pantry.test/v0", latest=False),
            entry("test.pantry/pantry", "https://mcp.pantry.test/mcp"),
        ]
    }
    assert registry.in_namespace(answer, "test.pantry") == {"test.pantry/pantry": answer["servers"][-1]["server"]}
    assert (
        registry.validate_document(
            {"servers": [entry("test.other/x", "https://x.test/mcp")]}, origin="pantry.test"
        ).listing
        is None
    )


def test_the_server_compared_is_the_manifests_endpoint_then_one_on_the_origin_then_the_first():
    listings = {
        name: Listing("server_json", extra={"mcp_urls": list(urls)})
        for name, urls in (
            ("test.pantry/a", ["https://elsewhere.test/mcp"]),
            ("test.pantry/b", ["https://mcp.pantry.test/b"]),
            ("test.pantry/c", ["https://mcp.pantry.test/c/"]),
        )
    }
    assert registry.choose(listings, "pantry.test", ["https://MCP.pantry.test/c"]) == "test.pantry/c"
    assert registry.choose(listings, "pantry.test") == "test.pantry/b"
    assert registry.choose({"test.pantry/a": listings["test.pantry/a"]}, "pantry.test") == "test.pantry/a"


def test_the_registry_url_asks_the_namespace_latest_versions_from_a_cursor():
    assert discovery.registry_url(REGISTRY, "test.pantry") == REGISTRY + SEARCH.format("test.pantry")
    assert (
        discovery.registry_url(REGISTRY, "test.pantry", "a b/c")
        == REGISTRY + SEARCH.format("test.pantry") + "&cursor=a%20b%2Fc"
    )


def test_real_server_json_files_listed_by_a_registry_read_as_their_namespace_origin(shared):
    """Every real server.json, as the registry would list it, is read for the origin its
    namespace names, with server_json's own findings located under the server's name."""
    from agentdex.formats import server_json

    read = 0
    for path in sorted((shared / "realworld" / "server_json").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        name = doc.get("name") if isinstance(doc, dict) else None
        if not isinstance(name, str) or "/" not in name:
            continue  # the schema itself, and an example without a namespace
        origin = ".".join(reversed(name.split("/", 1)[0].split(".")))
        answer = json.dumps({"servers": [{"server": doc}], "metadata": {"count": 1}}).encode()
        result, alone = registry.parse(answer, origin=origin), server_json.validate_document(doc, origin=origin)
        assert [(f.path, f.code) for f in result.findings] == [
            (f"servers[{name}]" + (f".{f.path}" if f.path else ""), f.code) for f in alone.findings
        ], path.name
        if alone.listing is None:  # the pre-2025-09 format: unsupported_version, nothing to compare
            assert result.listing is None and result.findings, path.name
            continue
        assert (result.listing.name, result.listing.mcp_url) == (alone.listing.name, alone.listing.mcp_url), path.name
        assert result.listing.extra["registry_servers"] == [name]
        read += 1
    assert read >= 10


def test_a_registry_answer_on_one_side_only_is_no_event_and_a_new_server_is_one():
    from agentdex.changes import registry_changes

    tally = {"test.pantry/tally": {"version": "1.0.0", "remotes": ["https://mcp.pantry.test/mcp"]}}
    assert (
        registry_changes(None, tally) == []
        and registry_changes(tally, None) == []
        and registry_changes(tally, tally) == []
    )
    [event] = registry_changes({}, tally)
    assert (event.kind, event.old, event.new, event.subject) == ("registry_changed", {}, tally, "test.pantry/tally")


def test_an_unchanged_origin_read_again_compares_the_same_registry_server_as_its_crawl():
    # An unchanged origin that declares prices has its stored documents read again (its live
    # 402s may have moved): the registry's answer must be read as the crawl read it, every
    # page and the server at the manifest's endpoint, or an unchanged recrawl would compare
    # another server and its disagreements would change with nothing changed.
    manifest = (CROSSCHECK_ROOT / "regdrift.test" / ".well-known" / "agent-app.json").read_bytes()
    pages = [
        json.dumps(
            {
                "servers": [entry("test.regdrift/archive", "https://mcp.regdrift.test/archive")],
                "metadata": {"nextCursor": "2"},
            }
        ).encode(),
        json.dumps({"servers": [entry("test.regdrift/tally", "https://mcp.regdrift.test/mcp")]}).encode(),
    ]
    blobs = {"m": manifest, "x": b'{"version": 1, "resources": ["GET /v1/toll"]}', "p1": pages[0], "p2": pages[1]}
    stored = OriginCrawl(
        "regdrift.test",
        status="listed",
        unchanged=True,
        documents={"agent_app": "m", "x402_discovery": "x", registry.NAME: "p1", registry.PAGE_KINDS[1]: "p2"},
    )
    reread = crosscheck.reread(stored, blobs.get)
    crawled = discovery.registry_result(pages, "regdrift.test", reread["agent_app"].listing)
    assert facts_of(reread[registry.NAME]) == facts_of(crawled)
    assert facts_of(reread[registry.NAME]).mcp_urls == ("https://mcp.regdrift.test/mcp",)  # tally, not archive

"""MCP server cards where SEP-2127 puts them (issue 33, item 3): a crawl asks
``<streamable-http-url>/server-card`` of the Streamable HTTP endpoint it knows on an origin,
stores the card as a document of that origin and validates it; a 404 there is a quiet known
absence; a card at a legacy ``/.well-known/mcp/…`` path carries a ``legacy_location``
warning. Real HTTPS (the sample web) and real MCP SDK servers."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.sampleweb import SampleWeb

pytestmark = pytest.mark.slow  # starts the sample web and its MCP servers

CARD = "https://t-endpointcard.test/mcp/server-card"
ORIGINS = ["t-endpointcard.test", "t-legacycard.test"]


@pytest.fixture
def web():
    with SampleWeb(dns=False) as running:
        yield running


def crawl(web: SampleWeb, db: Path, *extra: str) -> int:
    """Crawl the two origins; the number of requests the summary says failed."""
    result = CliRunner().invoke(app, ["crawl", *ORIGINS, "--db", str(db), *web.cli_args(), *extra])
    assert result.exit_code == 0, result.output
    failed = re.search(r"(\d+) failed", result.output)
    return int(failed.group(1)) if failed else 0


def rows(db: Path, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def card_requests(web: SampleWeb) -> list[str]:
    return [r.path for r in web.requests_log if r.host == "t-endpointcard.test" and r.path == "/mcp/server-card"]


def test_the_card_at_the_endpoint_is_the_origins_document_validated(web, tmp_path):
    db = tmp_path / "c.db"
    crawl(web, db)
    documents = dict(rows(db, "SELECT url, kind FROM documents WHERE origin = 't-endpointcard.test'"))
    assert documents[CARD] == "server_card"
    findings = rows(db, "SELECT code FROM findings WHERE origin = 't-endpointcard.test' AND format = 'server_card'")
    assert findings == []  # a valid v1 card at SEP-2127's place: no schema error, no legacy_location
    assert card_requests(web) == ["/mcp/server-card"]


def test_a_card_at_a_legacy_path_says_so(web, tmp_path):
    db = tmp_path / "c.db"
    crawl(web, db)
    found = rows(db, "SELECT severity, code, message FROM findings WHERE origin = 't-legacycard.test'")
    assert [(s, c) for s, c, _ in found] == [("warning", "legacy_location")]
    assert "/.well-known/mcp/server-card.json" in found[0][2]
    # the card is the listing of an origin without a manifest, and its endpoint's card is not asked too
    assert rows(db, "SELECT format FROM listings WHERE origin = 't-legacycard.test'") == [("server_card",)]
    assert not [r for r in web.requests_log if r.host == "t-legacycard.test" and r.path == "/mcp/server-card"]


def test_a_repeating_crawl_asks_the_card_again_and_a_404_is_a_quiet_absence(web, tmp_path):
    db = tmp_path / "c.db"
    failed = crawl(web, db)
    crawl(web, db)  # the manifests repeat: the card is asked again all the same (conditionally)
    assert card_requests(web) == ["/mcp/server-card"] * 2
    web.set_variant("t-endpointcard.test", "v2")  # the card is gone: 404
    assert crawl(web, db) == failed  # the 404 is no failure of the crawl
    assert card_requests(web) == ["/mcp/server-card"] * 3
    listed = rows(db, "SELECT status FROM listings WHERE origin = 't-endpointcard.test'")
    assert listed == [("listed",)]
    assert CARD not in dict(rows(db, "SELECT url, kind FROM documents WHERE origin = 't-endpointcard.test'"))


def consistency(db: Path) -> tuple[str, list[str], list[tuple[str, str]]]:
    verdict, sources = rows(db, "SELECT consistency, consistency_sources FROM listings WHERE origin = ?", ORIGINS[0])[0]
    found = rows(
        db, "SELECT code, message FROM findings WHERE origin = ? AND format = 'consistency' ORDER BY code", ORIGINS[0]
    )
    return verdict, json.loads(sources), found


def test_a_card_that_disagrees_with_the_live_probe_is_a_finding_never_an_override(web, tmp_path):
    db = tmp_path / "c.db"
    crawl(web, db)
    verdict, sources, found = consistency(db)
    assert verdict == "inconsistent" and "live MCP probe" in sources
    # the card lists 2025-03-26 only; the SDK server answered 2026-07-28 and 2025-11-25
    assert [code for code, _ in found] == ["protocol_versions_differ"]
    assert "'2025-03-26'" in found[0][1] and "'2026-07-28'" in found[0][1]
    probed = rows(
        db, "SELECT versions, server_name FROM endpoint_probes WHERE url = ?", "https://t-endpointcard.test/mcp"
    )
    assert probed and all("2026-07-28" in v and name == "Harbour Tides" for v, name in probed)  # the probe stands
    web.set_variant(ORIGINS[0], "v3")  # a card naming another server at another endpoint
    crawl(web, db)
    verdict, sources, found = consistency(db)
    assert verdict == "inconsistent"
    # against the manifest (a document) and against the live probe, one finding each
    probe = [(code, message) for code, message in found if "live MCP probe" in message]
    assert {code for code, _ in found} == {"mcp_endpoint_differs", "name_differs"}
    assert [code for code, _ in probe] == ["mcp_endpoint_differs", "name_differs"]
    assert "served at https://t-endpointcard.test/mcp/server-card" in probe[0][1]
    assert "'Ocean Currents'" in probe[1][1] and "'Harbour Tides'" in probe[1][1]
    listing = rows(db, "SELECT name, mcp_url FROM listings WHERE origin = ?", ORIGINS[0])
    assert listing == [("Harbour Tides", "https://t-endpointcard.test/mcp")]  # the manifest's, not the card's


def test_a_card_that_agrees_with_the_probe_adds_the_probe_as_a_source(web, tmp_path):
    db = tmp_path / "c.db"
    crawl(web, db)
    verdict, sources, found = consistency(db)
    legacy = rows(db, "SELECT consistency, consistency_sources FROM listings WHERE origin = 't-legacycard.test'")
    assert legacy[0][0] == "consistent" and "live MCP probe" in json.loads(legacy[0][1])

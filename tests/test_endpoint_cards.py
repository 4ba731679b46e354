"""MCP server cards where SEP-2127 puts them (issue 33, item 3): a crawl asks
``<streamable-http-url>/server-card`` of the Streamable HTTP endpoint it knows on an origin,
stores the card as a document of that origin and validates it; a 404 there is a quiet known
absence; a card at a legacy ``/.well-known/mcp/…`` path carries a ``legacy_location``
warning. Real HTTPS (the sample web) and real MCP SDK servers."""

from __future__ import annotations

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

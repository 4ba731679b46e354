"""Rules the catalogue keeps across formats and sources."""

from __future__ import annotations

import pytest

from agentdex.db import known_origins, save_origin, start_crawl
from agentdex.formats import agent_app
from agentdex.models import Check, FetchRecord, OriginCrawl
from db_records import anchor_listing, listing_crawl, new_catalogue, pantry_crawl


@pytest.fixture
def db(tmp_path):
    return new_catalogue(tmp_path / "c.db")


def test_a_manifest_too_broken_for_a_listing_keeps_its_format(db):
    crawl_id = start_crawl(db)
    oversize = agent_app.parse(b" " * 40_000)
    crawl = OriginCrawl(
        "big.example.com",
        status="invalid",
        primary=oversize,
        results={"agent_app": oversize},
        fetches=[
            FetchRecord(
                "https://big.example.com/.well-known/agent-app.json",
                "agent_app",
                status=None,
                error_code="too_large",
                error="over the cap",
            )
        ],
    )
    save_origin(db, crawl, crawl_id)
    assert db.execute("SELECT status, format FROM listings").fetchone() == ("invalid", "agent_app")


def test_anchor_proofs_go_when_the_origin_is_listed_from_another_format(db):
    crawl_id = start_crawl(db)
    origin = "pantry.example.com"
    tools = [{"id": "com.example/pantry", "endpoint": "https://mcp.pantry.example.com/mcp"}]
    save_origin(
        db,
        listing_crawl(
            anchor_listing(tools),
            origin=origin,
            checks=[Check("anchor.verify.dns", "pass"), Check("homepage.reachable", "pass")],
        ),
        crawl_id,
    )
    save_origin(db, pantry_crawl(checks=[Check("homepage.reachable", "pass")]), crawl_id)
    names = [r[0] for r in db.execute("SELECT name FROM checks ORDER BY name")]
    assert names == ["homepage.reachable"]


def test_imported_listings_are_not_recrawled_over_the_web(db):
    crawl_id = start_crawl(db)
    save_origin(db, pantry_crawl(), crawl_id)
    imported = pantry_crawl(origin="mcp.exemplo.com")
    for record in imported.fetches:
        record.url = "file:t.adapp"
    save_origin(db, imported, crawl_id)
    assert known_origins(db) == ["pantry.example.com"]

"""The named queries the CLI and the TUI read through, on a small saved catalogue."""

from __future__ import annotations

import pytest

from agentdex.db import (
    count_listings,
    fts_query,
    get_blob,
    get_document_text,
    get_listing,
    list_events,
    list_listings,
    load_listing,
    save_origin,
    start_crawl,
    stats,
)
from agentdex.errors import InputError
from agentdex.models import Check, Listing, Tool
from db_records import (
    AT,
    GUIDE,
    ORIGIN,
    anchor_listing,
    listing_crawl,
    new_catalogue,
    pantry_crawl,
    pantry_doc,
    sha,
    unreachable_crawl,
)

LEDGER = Listing(
    format="findagent",
    name="ledger",
    one_liner="Books for small shops.",
    description="Double-entry bookkeeping for small shops and their accountants.",
    categories=["finance"],
    tags=["accounting"],
    pricing="paid",
    auth_methods=["api_key"],
    http_base="https://api.ledger.example.com",
)
T1, T2, T3 = "2026-05-01T10:00:00.000Z", "2026-05-02T10:00:00.000Z", "2026-05-03T10:00:00.000Z"


@pytest.fixture
def db(tmp_path):
    database = new_catalogue(tmp_path / "catalogue.db")
    crawl = start_crawl(database, at=T1)
    save_origin(database, pantry_crawl(mcp_tools=[Tool("plan_meals", "Plan meals", source="mcp")]), crawl, at=T1)
    save_origin(database, listing_crawl(LEDGER, origin="ledger.example.com"), crawl, at=T1)
    anchor = anchor_listing([{"id": "com.example/search", "endpoint": "https://mcp.example.com/mcp"}])
    save_origin(
        database,
        listing_crawl(
            anchor, origin="anchor.example.com", checks=[Check("anchor.verify.dns", "fail", "no TXT record")]
        ),
        crawl,
        at=T1,
    )
    save_origin(database, unreachable_crawl("down.example.com"), crawl, at=T1)
    save_origin(database, pantry_crawl(pantry_doc(name=42), origin="broken.example.com"), crawl, at=T1)
    renamed = pantry_doc(name="Larder", instructions="Larder tracks the kitchen.")
    save_origin(database, pantry_crawl(renamed), crawl, at=T2)
    save_origin(database, pantry_crawl(), crawl, at=T3)
    yield database
    database.close()


def origins(listings):
    return [row["origin"] for row in listings]


def test_search_finds_a_listing_by_a_word_of_its_description(db):
    assert origins(list_listings(db, search="bookkeeping")) == ["ledger.example.com"]
    assert origins(list_listings(db, search="accountant")) == ["ledger.example.com"]  # stemmed and prefixed
    assert origins(list_listings(db, search="book")) == ["ledger.example.com"]  # a prefix, as typed
    # Every word is required; an invalid listing is found too (its status says what it is).
    assert origins(list_listings(db, search="kitchen meal")) == [ORIGIN, "broken.example.com"]
    assert list_listings(db, search="kitchen bookkeeping") == []


def test_search_index_follows_updates(db):
    moved = Listing(**{**LEDGER.to_dict(), "tools": [], "description": "Invoices for freelancers."})
    save_origin(db, listing_crawl(moved, origin="ledger.example.com"), None)
    assert list_listings(db, search="bookkeeping") == []
    assert origins(list_listings(db, search="invoices")) == ["ledger.example.com"]
    assert count_listings(db, search="freelancers") == 1


@pytest.mark.parametrize(
    "text",
    [
        '"',
        "NEAR(",
        "kitchen OR",
        "*",
        "name:Pantry",
        "-kitchen",
        "^x",
        "()",
        "'; DROP TABLE listings; --",
        "AND",
        "   ",
    ],
)
def test_search_input_is_never_fts_syntax(db, text):
    list_listings(db, search=text)  # never a syntax error
    assert count_listings(db) == 5


def test_blank_search_is_no_filter_and_punctuation_finds_nothing(db):
    assert count_listings(db, search="  ") == 5
    assert list_listings(db, search="- ; *") == []


def test_fts_query_quotes_every_token():
    assert fts_query('meal "plans" OR x') == '"meal"* """plans"""* "OR"* "x"*'
    assert fts_query(" ; - ") is None


# (filters, expected origins in name order)
FILTERS = [
    ({}, ["anchor.example.com", "ledger.example.com", ORIGIN, "broken.example.com", "down.example.com"]),
    ({"status": "listed"}, ["anchor.example.com", "ledger.example.com", ORIGIN]),
    ({"status": ["invalid", "unreachable"]}, ["broken.example.com", "down.example.com"]),
    ({"format": "findagent"}, ["ledger.example.com"]),
    ({"category": "finance"}, ["ledger.example.com"]),
    ({"category": "fin"}, []),
    ({"pricing": "freemium"}, [ORIGIN, "broken.example.com"]),
    ({"auth": "mcp_oauth", "status": "listed"}, [ORIGIN]),
    ({"has_mcp": True}, ["anchor.example.com", ORIGIN, "broken.example.com"]),
    ({"has_mcp": False, "status": "listed"}, ["ledger.example.com"]),
    ({"failing_checks": True}, ["anchor.example.com"]),
    ({"failing_checks": False, "format": "anchor"}, []),
    ({"search": "pantry", "status": "listed"}, [ORIGIN]),
]


@pytest.mark.parametrize(("filters", "expected"), FILTERS, ids=[str(f[0]) for f in FILTERS])
def test_filters(db, filters, expected):
    assert origins(list_listings(db, **filters)) == expected
    assert count_listings(db, **filters) == len(expected)


def test_sorting_and_paging(db):
    # Names sort case-insensitively, origins without a name last; descending is the reverse.
    assert origins(list_listings(db, descending=True)) == origins(list_listings(db))[::-1]
    assert origins(list_listings(db, sort="origin", descending=True))[:2] == [ORIGIN, "ledger.example.com"]
    assert origins(list_listings(db, sort="name", limit=2, offset=1)) == ["ledger.example.com", ORIGIN]
    assert set(origins(list_listings(db, search="kitchen", sort="relevance"))) == {ORIGIN, "broken.example.com"}
    with pytest.raises(InputError, match="cannot sort by 'name; DROP'"):
        list_listings(db, sort="name; DROP")
    with pytest.raises(InputError, match="relevance"):
        list_listings(db, sort="relevance")


def test_list_rows_are_decoded(db):
    [row] = list_listings(db, format="findagent")
    assert row["categories"] == ["finance"] and row["has_mcp"] is False and row["name"] == "ledger"


def test_get_listing_has_everything_show_needs(db):
    listing = get_listing(db, ORIGIN)
    assert {
        "origin",
        "name",
        "format",
        "status",
        "manifest",
        "findings",
        "checks",
        "events",
        "tools",
        "documents",
        "listing",
    } <= set(listing)
    assert (listing["name"], listing["format"], listing["status"]) == ("Pantry", "agent_app", "listed")
    assert listing["manifest"] == pantry_doc()
    assert listing["event_channels"] == ["mcp_events", "email"]
    assert [(e["kind"], e["at"], e["old"], e["new"]) for e in listing["events"]] == [
        ("listed", T1, None, "listed"),
        ("name_changed", T2, "Pantry", "Larder"),
        ("instructions_changed", T2, pantry_doc()["instructions"], "Larder tracks the kitchen."),
        ("name_changed", T3, "Larder", "Pantry"),
        ("instructions_changed", T3, "Larder tracks the kitchen.", pantry_doc()["instructions"]),
    ]
    assert [(t["source"], t["name"]) for t in listing["tools"]] == [("mcp", "plan_meals")]
    assert [(d["kind"], d["sha256"]) for d in listing["documents"]][1] == ("guide", sha(GUIDE))
    assert get_listing(db, "nowhere.example") is None


def test_get_listing_of_an_invalid_origin_shows_its_findings(db):
    listing = get_listing(db, "broken.example.com")
    assert listing["status"] == "invalid"
    assert [(f["path"], f["code"]) for f in listing["findings"]] == [("name", "type")]
    anchor = get_listing(db, "anchor.example.com")
    assert [(c["name"], c["status"], c["detail"]) for c in anchor["checks"]] == [
        ("anchor.verify.dns", "fail", "no TXT record")
    ]


def test_load_listing_rebuilds_the_model(db):
    listing = load_listing(db, "ledger.example.com")
    assert listing == Listing(**{**LEDGER.to_dict(), "tools": [], "origin": "ledger.example.com"})
    assert load_listing(db, "down.example.com") is None


def test_events_newest_first_with_filters(db):
    events = list_events(db)
    assert [(e["origin"], e["kind"]) for e in events][:2] == [
        (ORIGIN, "instructions_changed"),
        (ORIGIN, "name_changed"),
    ]
    assert all(a["at"] >= b["at"] for a, b in zip(events, events[1:], strict=False))
    assert {e["kind"] for e in list_events(db, origin="ledger.example.com")} == {"listed"}
    assert [e["at"] for e in list_events(db, since="2026-05-02")] == [T3, T3, T2, T2]
    assert len(list_events(db, kind="listed", limit=2)) == 2


def test_documents_and_blobs_as_text(db):
    assert get_document_text(db, ORIGIN, "guide") == GUIDE.decode()
    assert get_document_text(db, ORIGIN, "skill") is None
    assert get_blob(db, sha(GUIDE)) == GUIDE


def test_stats(db):
    counts = stats(db)
    assert counts["listings"] == 5
    assert counts["by_status"] == {"invalid": 1, "listed": 3, "unreachable": 1}
    assert counts["by_format"] == {"agent_app": 2, "anchor": 1, "findagent": 1, "none": 1}
    assert (counts["with_mcp"], counts["failing_checks"], counts["crawls"]) == (3, 1, 1)
    assert AT  # the recorded crawl time the fixtures share


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    from agentdex.db import open_db
    from agentdex.db.synthetic import fill_synthetic

    db = open_db(tmp_path_factory.mktemp("many") / "many.db")
    fill_synthetic(db, 1500)
    return db


@pytest.mark.parametrize("search", ["p", "pantry", "swift lantern", "zzzz"])
@pytest.mark.parametrize(
    "filters",
    [{}, {"format": "anchor"}, {"status": "listed", "has_mcp": True}, {"category": "home"}, {"failing_checks": True}],
)
def test_a_search_with_filters_lists_and_counts_what_the_plain_join_finds(many, search, filters):
    # The search runs as a set of rowids walked in the sort's index order; the plain join of
    # the search and the listings, sorted in Python, is the oracle.
    query = fts_query(search)
    joined = many.execute(
        "SELECT listings.origin FROM listings JOIN listings_fts ON listings_fts.rowid = "
        "listings.rowid WHERE listings_fts MATCH ?",
        [query],
    ).fetchall()
    kept = {r["origin"] for r in list_listings(many, limit=100_000, **filters)}
    names = {o: many["listings"].get(o)["name"] for (o,) in joined}  # a search finds unnamed listings by origin
    want = sorted(
        (o for (o,) in joined if o in kept), key=lambda o: (names[o] is None, (names[o] or "").lower() + "\0" + o)
    )
    assert [r["origin"] for r in list_listings(many, search=search, limit=100_000, **filters)] == want
    assert count_listings(many, search=search, **filters) == len(want)
    assert [r["origin"] for r in list_listings(many, search=search, limit=7, offset=5, **filters)] == want[5:12]
    ranked = list_listings(many, search=search, sort="relevance", limit=100_000, **filters)
    assert sorted(r["origin"] for r in ranked) == sorted(want)


@pytest.mark.parametrize(
    "filters",
    [{"status": "listed"}, {"format": "agent_app"}, {"pricing": "free"}, {"status": "listed", "format": "agent_app"}],
)
def test_a_filtered_page_reads_an_index_window_instead_of_sorting_every_match(db, filters):
    # What a user feels as the TUI's filter lag: at 100,000 listings sorting every listed
    # row took ~180 ms a keystroke; read in the index's order, a page costs under 1 ms.
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        page = list_listings(db, limit=60, **filters)
    finally:
        db.conn.set_trace_callback(None)
    [select] = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    plan = " | ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + select).fetchall())
    assert "TEMP B-TREE" not in plan, plan
    assert page == [r for r in list_listings(db, limit=200) if all(r[k] == v for k, v in filters.items())][:60]

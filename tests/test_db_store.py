"""Saving crawls: recorded crawl data -> save_origin on a real SQLite file -> exact rows."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agentdex.changes import UNREACHABLE_LIMIT
from agentdex.db import (
    finish_crawl,
    known_origins,
    last_body,
    previous_validators,
    save_feedback_receipt,
    save_origin,
    save_verification,
    start_crawl,
    transaction,
)
from agentdex.errors import DatabaseError
from agentdex.models import Check, Event, Tool
from db_records import (
    AT,
    GUIDE,
    GUIDE_URL,
    MANIFEST_URL,
    ORIGIN,
    anchor_listing,
    body,
    listing_crawl,
    new_catalogue,
    no_manifest_crawl,
    pantry_crawl,
    pantry_doc,
    sha,
    unchanged_crawl,
    unreachable_crawl,
)

LATER = "2026-05-02T12:00:00.000Z"


@pytest.fixture
def db(tmp_path):
    database = new_catalogue(tmp_path / "catalogue.db")
    yield database
    database.close()


@pytest.fixture
def crawl_id(db):
    return start_crawl(db, "crawl", 1, at=AT)


def rows(db, sql, params=()):
    return [dict(r) for r in db.query(sql, params)]


def count(db, table):
    return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_first_save_writes_exact_rows(db, crawl_id):
    manifest = body(pantry_doc())
    events = save_origin(db, pantry_crawl(), crawl_id, at=AT)
    assert events == [Event("listed", None, "listed")]
    listing = rows(
        db,
        "SELECT origin, format, formats_found, status, status_detail, name, mcp_url, has_mcp, "
        "categories, tags, auth_methods, error_count, warning_count, first_seen_at, first_listed_at, "
        "last_crawled_at, last_changed_at, last_crawl_id FROM listings",
    )
    assert listing == [
        {
            "origin": ORIGIN,
            "format": "agent_app",
            "formats_found": '["agent_app"]',
            "status": "listed",
            "status_detail": "",
            "name": "Pantry",
            "mcp_url": "https://mcp.pantry.example.com/mcp",
            "has_mcp": 1,
            "categories": '["home", "lifestyle"]',
            "tags": '["kitchen", "meal-planning", "groceries"]',
            "auth_methods": '["email_code", "mcp_oauth"]',
            "error_count": 0,
            "warning_count": 0,
            "first_seen_at": AT,
            "first_listed_at": AT,
            "last_crawled_at": AT,
            "last_changed_at": AT,
            "last_crawl_id": crawl_id,
        }
    ]
    stored = json.loads(db.execute("SELECT listing_json FROM listings").fetchone()[0])
    assert stored["name"] == "Pantry" and stored["origin"] == ORIGIN and stored["publisher_name"] == "Pantry Labs"
    assert rows(db, "SELECT sha256, size_bytes, first_seen_at FROM blobs ORDER BY size_bytes") == [
        {"sha256": sha(GUIDE), "size_bytes": len(GUIDE), "first_seen_at": AT},
        {"sha256": sha(manifest), "size_bytes": len(manifest), "first_seen_at": AT},
    ]
    assert rows(db, "SELECT origin, kind, url, sha256, fetched_at FROM documents ORDER BY kind") == [
        {"origin": ORIGIN, "kind": "agent_app", "url": MANIFEST_URL, "sha256": sha(manifest), "fetched_at": AT},
        {"origin": ORIGIN, "kind": "guide", "url": GUIDE_URL, "sha256": sha(GUIDE), "fetched_at": AT},
    ]
    assert rows(
        db,
        "SELECT crawl_id, url, kind, status_code, content_type, body_sha256, body_bytes, not_modified, "
        "headers, redirects FROM snapshots ORDER BY id",
    ) == [
        {
            "crawl_id": crawl_id,
            "url": MANIFEST_URL,
            "kind": "agent_app",
            "status_code": 200,
            "content_type": "application/json",
            "body_sha256": sha(manifest),
            "body_bytes": len(manifest),
            "not_modified": 0,
            "headers": '{"content-type": "application/json"}',
            "redirects": "[]",
        },
        {
            "crawl_id": crawl_id,
            "url": GUIDE_URL,
            "kind": "guide",
            "status_code": 200,
            "content_type": "text/markdown",
            "body_sha256": sha(GUIDE),
            "body_bytes": len(GUIDE),
            "not_modified": 0,
            "headers": '{"content-type": "text/markdown"}',
            "redirects": "[]",
        },
    ]
    assert rows(db, "SELECT origin, kind, at, old, new, subject, crawl_id FROM events") == [
        {
            "origin": ORIGIN,
            "kind": "listed",
            "at": AT,
            "old": None,
            "new": '"listed"',
            "subject": "",
            "crawl_id": crawl_id,
        }
    ]
    assert rows(db, "SELECT origins_done, requests, errors, bytes_fetched, status FROM crawls") == [
        {
            "origins_done": 1,
            "requests": 2,
            "errors": 0,
            "bytes_fetched": len(manifest) + len(GUIDE),
            "status": "running",
        }
    ]
    assert count(db, "findings") == 0


def test_findings_of_every_format_found_are_stored_and_replaced(db, crawl_id):
    save_origin(db, pantry_crawl(pantry_doc(colour="green")), crawl_id, at=AT)
    assert rows(db, "SELECT origin, format, severity, path, code, crawl_id FROM findings") == [
        {
            "origin": ORIGIN,
            "format": "agent_app",
            "severity": "warning",
            "path": "colour",
            "code": "unknown_key",
            "crawl_id": crawl_id,
        }
    ]
    assert db.execute("SELECT status, warning_count FROM listings").fetchone() == ("listed", 1)
    save_origin(db, pantry_crawl(), crawl_id, at=LATER)
    assert count(db, "findings") == 0


def test_an_identical_recrawl_adds_no_blob_and_no_event(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    blobs, events = count(db, "blobs"), count(db, "events")
    assert save_origin(db, pantry_crawl(), crawl_id, at=LATER) == []
    assert (count(db, "blobs"), count(db, "events")) == (blobs, events)
    # The same answers extend their rows (one per URL) instead of adding two more.
    assert (
        rows(db, "SELECT seen, obtained, last_obtained FROM snapshots")
        == [{"seen": 2, "obtained": "fetched", "last_obtained": "fetched"}] * 2
    )
    assert db.execute("SELECT last_crawled_at, last_changed_at FROM listings").fetchone() == (LATER, AT)


def test_unchanged_crawl_records_304s_and_the_crawl_time_only(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    before = rows(db, "SELECT * FROM listings")[0]
    second = start_crawl(db, at=LATER)
    assert save_origin(db, unchanged_crawl(), second, at=LATER) == []
    after = rows(db, "SELECT * FROM listings")[0]
    # Beside the crawl time, only the schedule moves: one unchanged crawl doubles the interval.
    assert {k: v for k, v in after.items() if before[k] != v} == {
        "last_crawled_at": LATER,
        "last_crawl_id": second,
        "unchanged_crawls": 1,
        "recrawl_interval": 7200,
        "next_due_at": "2026-05-02T14:00:00.000Z",
    }
    assert count(db, "blobs") == 2 and count(db, "events") == 1
    # The 304s stand for the stored answers: each extends its URL's row, whose body stays.
    assert rows(
        db,
        "SELECT url, status_code, not_modified, body_sha256 IS NOT NULL AS body, crawl_id, "
        "last_crawl_id, last_obtained, seen FROM snapshots ORDER BY id",
    ) == [
        {
            "url": url,
            "status_code": 200,
            "not_modified": 0,
            "body": 1,
            "crawl_id": crawl_id,
            "last_crawl_id": second,
            "last_obtained": "revalidated",
            "seen": 2,
        }
        for url in (MANIFEST_URL, GUIDE_URL)
    ]
    assert rows(db, "SELECT origins_done, requests, bytes_fetched FROM crawls WHERE id = ?", [second]) == [
        {"origins_done": 1, "requests": 2, "bytes_fetched": 0}
    ]


NEW_MCP = "https://pantry.example.com/mcp"
# (case, second crawl, expected events)
CHANGES = [
    (
        "renamed",
        pantry_crawl(pantry_doc(name="Larder", instructions="Larder tracks the kitchen.")),
        [
            Event("name_changed", "Pantry", "Larder"),
            Event("instructions_changed", pantry_doc()["instructions"], "Larder tracks the kitchen."),
        ],
    ),
    (
        "guide rewritten",
        pantry_crawl(guide=b"# Pantry\n\nNew guide.\n"),
        [Event("guide_changed", sha(GUIDE), sha(b"# Pantry\n\nNew guide.\n"))],
    ),
    (
        "mcp moved",
        pantry_crawl(pantry_doc(mcp__url=NEW_MCP)),
        [Event("mcp_url_changed", "https://mcp.pantry.example.com/mcp", NEW_MCP)],
    ),
    (
        "http api dropped",
        pantry_crawl(pantry_doc(http=None)),
        [Event("http_base_changed", "https://api.pantry.example.com/v1", None)],
    ),
    ("manifest gone", no_manifest_crawl(), [Event("delisted", "listed", "no_manifest")]),
    ("manifest broken", pantry_crawl(pantry_doc(name=42)), [Event("delisted", "listed", "invalid")]),
    ("one network failure", unreachable_crawl(), []),
    ("description only", pantry_crawl(pantry_doc(description="Pantry keeps your kitchen inventory.")), []),
]


@pytest.mark.parametrize(("second", "expected"), [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES])
def test_changes_between_two_saves(db, crawl_id, second, expected):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    assert save_origin(db, second, crawl_id, at=LATER) == expected
    stored = rows(db, "SELECT kind, old, new, subject, at FROM events WHERE at = ? ORDER BY id", [LATER])
    assert stored == [
        {
            "kind": e.kind,
            "old": json.dumps(e.old) if e.old is not None else None,
            "new": json.dumps(e.new) if e.new is not None else None,
            "subject": e.subject,
            "at": LATER,
        }
        for e in expected
    ]
    if expected:
        assert db.execute("SELECT last_changed_at FROM listings").fetchone()[0] == LATER


def test_delisted_origin_keeps_what_it_was_and_is_relisted(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    save_origin(db, no_manifest_crawl(), crawl_id, at=LATER)
    assert db.execute("SELECT status, name, format FROM listings").fetchone() == ("delisted", "Pantry", "agent_app")
    assert count(db, "documents") == 0  # the crawl no longer found them
    assert save_origin(db, pantry_crawl(), crawl_id) == [Event("relisted", "delisted", "listed")]


def test_unreachable_origin_stays_listed_until_the_limit(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    for attempt in range(1, UNREACHABLE_LIMIT):
        assert save_origin(db, unreachable_crawl(), crawl_id) == []
        status, detail, streak = db.execute("SELECT status, status_detail, unreachable_streak FROM listings").fetchone()
        assert (status, streak) == ("listed", attempt)
        assert "unreachable" in detail and "connection refused" in detail
    assert count(db, "documents") == 2  # nothing is thrown away for a network failure
    assert save_origin(db, unreachable_crawl(), crawl_id) == [Event("delisted", "listed", "unreachable")]
    assert db.execute("SELECT status FROM listings").fetchone() == ("delisted",)
    # Back with the very same documents (all 304): listed again.
    assert save_origin(db, unchanged_crawl(), crawl_id) == [Event("relisted", "delisted", "listed")]
    assert db.execute("SELECT status, status_detail, unreachable_streak FROM listings").fetchone() == ("listed", "", 0)


def test_a_304_keeps_its_document_and_a_missing_one_is_dropped(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    crawl = pantry_crawl(pantry_doc(name="Larder", instructions="Larder tracks food."), guide=None)
    save_origin(db, crawl, crawl_id, at=LATER)
    assert [r[0] for r in db.execute("SELECT kind FROM documents")] == ["agent_app"]
    crawl = pantry_crawl(guide=None)
    crawl.fetches.append(unchanged_crawl().fetches[1])  # the guide: 304
    crawl.documents["guide"] = sha(GUIDE)  # known blob, so it can stand again
    save_origin(db, crawl, crawl_id)
    assert sorted(r[0] for r in db.execute("SELECT kind FROM documents")) == ["agent_app", "guide"]


def test_a_failing_save_leaves_nothing_behind(db):
    with pytest.raises(sqlite3.IntegrityError):
        save_origin(db, pantry_crawl(), 999)  # no such crawl: the snapshots' foreign key fails
    assert [count(db, t) for t in ("listings", "blobs", "snapshots", "documents", "events")] == [0, 0, 0, 0, 0]


def test_checks_keep_last_pass_at_and_count(db, crawl_id):
    passing = [Check("mcp.initialize", "pass", "ok"), Check("anchor.verify.dns", "pass", "TXT found")]
    save_origin(db, pantry_crawl(checks=passing), crawl_id, at=AT)
    failing = [Check("mcp.initialize", "fail", "timeout", {"seconds": 10}), Check("anchor.verify.dns", "pass")]
    save_origin(db, pantry_crawl(checks=failing), crawl_id, at=LATER)
    assert rows(db, "SELECT name, status, detail, data, checked_at, last_pass_at FROM checks ORDER BY name") == [
        {
            "name": "anchor.verify.dns",
            "status": "pass",
            "detail": "",
            "data": "{}",
            "checked_at": LATER,
            "last_pass_at": LATER,
        },
        {
            "name": "mcp.initialize",
            "status": "fail",
            "detail": "timeout",
            "data": '{"seconds": 10}',
            "checked_at": LATER,
            "last_pass_at": AT,
        },
    ]
    assert db.execute("SELECT checks_passed, checks_failed FROM listings").fetchone() == (1, 1)
    save_origin(db, pantry_crawl(checks=None), crawl_id)  # not verified this time: kept
    assert count(db, "checks") == 2


def test_mcp_tools_are_replaced_only_when_probed(db, crawl_id):
    tools = [
        Tool("search", "Search", {"readOnlyHint": True}, read_only=True, source="mcp"),
        Tool("wipe", "Delete everything", {"destructiveHint": True}, source="mcp"),
    ]
    save_origin(db, pantry_crawl(mcp_tools=tools), crawl_id, at=AT)
    assert rows(db, "SELECT source, name, read_only, destructive, annotations FROM tools ORDER BY name") == [
        {"source": "mcp", "name": "search", "read_only": 1, "destructive": 0, "annotations": '{"readOnlyHint": true}'},
        {"source": "mcp", "name": "wipe", "read_only": 0, "destructive": 1, "annotations": '{"destructiveHint": true}'},
    ]
    assert save_origin(db, pantry_crawl(mcp_tools=None), crawl_id) == []
    assert count(db, "tools") == 2
    events = save_origin(db, pantry_crawl(mcp_tools=tools[:1]), crawl_id)
    assert events == [
        Event(
            "tools_changed",
            {
                "names": ["search", "wipe"],
                "tools": {"wipe": {"description": "Delete everything", "annotations": {"destructiveHint": True}}},
            },
            {"names": ["search"], "tools": {}},
            "wipe",
        )
    ]
    assert [r[0] for r in db.execute("SELECT name FROM tools")] == ["search"]


def test_manifest_tools_come_from_the_listing(db, crawl_id):
    listing = anchor_listing([{"id": "com.example/search", "endpoint": "https://mcp.example.com/mcp"}])
    listing.tools = [Tool("search", "Search things", detail={"endpoint": "https://mcp.example.com/mcp"})]
    save_origin(db, listing_crawl(listing, origin="anchor.example.com"), crawl_id)
    assert rows(db, "SELECT origin, source, name, endpoint FROM tools") == [
        {
            "origin": "anchor.example.com",
            "source": "manifest",
            "name": "search",
            "endpoint": "https://mcp.example.com/mcp",
        }
    ]
    listing.tools = []
    save_origin(db, listing_crawl(listing, origin="anchor.example.com"), crawl_id)
    assert count(db, "tools") == 0


def test_anchor_changes_are_events_through_the_database(db, crawl_id):
    tool = {
        "id": "com.example/search",
        "endpoint": "https://mcp.example.com/mcp",
        "payments": [{"protocol": "x402", "priceUsd": 0.005, "unit": "call"}],
    }
    save_origin(db, listing_crawl(anchor_listing([tool]), origin="anchor.example.com"), crawl_id)
    cheaper = {**tool, "payments": [{"protocol": "x402", "priceUsd": 0.001, "unit": "call"}]}
    events = save_origin(db, listing_crawl(anchor_listing([cheaper]), origin="anchor.example.com"), crawl_id)
    assert events == [Event("price_changed", tool["payments"], cheaper["payments"], "com.example/search")]


def test_verification_run_reports_lost_proofs(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    verify = start_crawl(db, "verify", 1)
    assert save_verification(db, ORIGIN, verify, checks=[Check("anchor.verify.http", "pass")]) == []
    events = save_verification(
        db, ORIGIN, verify, checks=[Check("anchor.verify.http", "fail", "404")], fetches=unreachable_crawl().fetches
    )
    assert events == [Event("proof_lost", "pass", "fail", "anchor.verify.http")]
    assert db.execute("SELECT count(*) FROM snapshots WHERE crawl_id = ?", [verify]).fetchone()[0] == 1
    with pytest.raises(DatabaseError, match="not in the catalogue"):
        save_verification(db, "unknown.example", verify, checks=[])


def test_previous_validators_and_last_body(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id, at=AT)
    manifest = body(pantry_doc())
    assert previous_validators(db, ORIGIN) == {
        MANIFEST_URL: ('"m-' + sha(manifest)[:8] + '"', None),
        GUIDE_URL: ('"g-' + sha(GUIDE)[:8] + '"', None),
    }
    save_origin(db, unchanged_crawl(), crawl_id)  # 304s carry the validator on
    assert previous_validators(db, ORIGIN) == {MANIFEST_URL: ('"same"', None), GUIDE_URL: ('"same"', None)}
    assert last_body(db, ORIGIN, GUIDE_URL) == GUIDE
    save_origin(db, no_manifest_crawl(), crawl_id)  # the manifest's latest answer is a 404
    assert set(previous_validators(db, ORIGIN)) == {GUIDE_URL}
    assert previous_validators(db, "unknown.example") == {}


def test_known_origins_and_finish_crawl(db, crawl_id):
    save_origin(db, pantry_crawl(origin="b.example.com"), crawl_id)
    save_origin(db, unreachable_crawl("a.example.com"), crawl_id)
    assert known_origins(db) == ["a.example.com", "b.example.com"]
    finish_crawl(db, crawl_id, at=LATER)
    assert rows(db, "SELECT status, finished_at, origins_done, errors FROM crawls") == [
        {"status": "finished", "finished_at": LATER, "origins_done": 2, "errors": 1}
    ]
    finish_crawl(db, crawl_id, status="interrupted", origins_total=5)
    assert db.execute("SELECT status, origins_total FROM crawls").fetchone() == ("interrupted", 5)
    with pytest.raises(TypeError):
        finish_crawl(db, crawl_id, bogus=1)


def test_feedback_receipt_keeps_the_raw_response(db, crawl_id):
    save_origin(db, pantry_crawl(), crawl_id)
    raw = b'{"id": "fb_1",  "status": "received", "note": "merci \xc3\xa0 vous"}'
    receipt = save_feedback_receipt(
        db,
        ORIGIN,
        idempotency_key="k1",
        message_sha256=sha(b"hello"),
        status="received",
        raw_response=raw,
        feedback_id="fb_1",
        sent_at=AT,
    )
    assert rows(
        db, "SELECT id, origin, idempotency_key, feedback_id, status, raw_response, sent_at FROM feedback_receipts"
    ) == [
        {
            "id": receipt,
            "origin": ORIGIN,
            "idempotency_key": "k1",
            "feedback_id": "fb_1",
            "status": "received",
            "raw_response": raw.decode(),
            "sent_at": AT,
        }
    ]


def test_text_that_utf8_cannot_hold_is_stored_not_refused(db, crawl_id):
    crawl = pantry_crawl()
    crawl.primary.listing.description = "broken \ud800 surrogate"
    crawl.status_detail = "odd \udfff detail"
    save_origin(db, crawl, crawl_id)
    assert db.execute("SELECT description FROM listings").fetchone()[0] == "broken \ufffd surrogate"


def test_saves_inside_a_callers_transaction_roll_back_with_it(db, crawl_id):
    with pytest.raises(RuntimeError), transaction(db):
        save_origin(db, pantry_crawl(), crawl_id)
        assert count(db, "listings") == 1
        raise RuntimeError("the caller gives up")
    assert count(db, "listings") == 0
    with transaction(db):
        save_origin(db, pantry_crawl(origin="a.example.com"), crawl_id)
        save_origin(db, pantry_crawl(origin="b.example.com"), crawl_id)
    assert known_origins(db) == ["a.example.com", "b.example.com"]


@pytest.mark.slow
def test_a_run_whose_process_is_gone_is_marked_interrupted_when_the_next_starts(tmp_path):
    import subprocess
    import sys

    db = new_catalogue(tmp_path / "catalogue.db")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    alive = start_crawl(db, at=AT)  # this process: still running
    dead = start_crawl(db, at=AT)
    with db.conn:
        db.execute("UPDATE crawls SET pid = ? WHERE id = ?", [dead_pid, dead])
    start_crawl(db, at=AT)
    statuses = dict(db.execute("SELECT id, status FROM crawls").fetchall())
    assert statuses[alive] == "running" and statuses[dead] == "interrupted"


def test_search_follows_a_renamed_listing_and_an_unchanged_save_leaves_the_index_alone(tmp_path):
    db = new_catalogue(tmp_path / "catalogue.db")
    save_origin(db, pantry_crawl(), start_crawl(db, at=AT), at=AT)
    renamed = {
        **pantry_doc(),
        "name": "Larder",
        "instructions": "Larder " + pantry_doc()["instructions"].split(" ", 1)[1],
    }
    save_origin(db, pantry_crawl(renamed), start_crawl(db, at=AT), at=AT)

    def found(word: str) -> int:
        return db.execute("SELECT count(*) FROM listings_fts WHERE listings_fts MATCH ?", [word]).fetchone()[0]

    assert (found("name:larder"), found("name:pantry")) == (1, 0)
    changes_before = db.conn.total_changes
    save_origin(db, unchanged_crawl(), start_crawl(db, at=AT), at=AT)
    # The crawl row, the listing's crawl time, two snapshots and the crawl's counts: no index rows.
    assert db.conn.total_changes - changes_before <= 6
    db.execute("INSERT INTO listings_fts (listings_fts) VALUES ('integrity-check')")
    assert (found("name:larder"), found("name:pantry")) == (1, 0)

"""Change tracking on a real crawl: the exact events of two crawls with the sample web's
variants switched in between, no event and no new body for an unchanged web, conditional
requests, proofs that disappear, and the unreachable-then-delisted rule.

One sample web for the module; every test crawls into its own catalogue and puts the
variants it switched back.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
from contextlib import contextmanager

import pytest

from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.db import get_listing, list_checks, list_events, list_tools, open_db
from agentdex.sampleweb.server import WEB_ROOT, SampleWeb

MANIFEST = "/.well-known/agent-app.json"
ANCHOR = "/.well-known/anchor.json"


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as running:
        yield running


@pytest.fixture
def db(tmp_path):
    return open_db(tmp_path / "catalogue.db")


def net_for(web: SampleWeb, **changes) -> NetworkOptions:
    return web.network_options(**changes)


def run(db, web: SampleWeb, origins: list[str], **changes):
    return asyncio.run(crawl(db, origins, net_for(web, **changes)))


@contextmanager
def variants(web: SampleWeb, mapping: dict[str, str]):
    """Serve these variants for the duration of the block, then the base trees again."""
    try:
        for host, name in mapping.items():
            web.set_variant(host, name)
        yield
    finally:
        for host in mapping:
            web.set_variant(host, None)


def events_of(db, crawl_id: int) -> dict[str, list[tuple]]:
    """``{origin: [(kind, subject, old, new), ...]}`` for one crawl, in the order stored."""
    out: dict[str, list[tuple]] = {}
    for e in reversed(list_events(db, limit=1000)):
        if e["crawl_id"] == crawl_id:
            out.setdefault(e["origin"], []).append((e["kind"], e["subject"], e["old"], e["new"]))
    return out


def sha256_of(*parts: str) -> str:
    return hashlib.sha256(WEB_ROOT.joinpath(*parts).read_bytes()).hexdigest()


def doc(*parts: str) -> dict:
    return json.loads(WEB_ROOT.joinpath(*parts).read_text("utf-8"))


def payments(anchor: dict, tool_id: str) -> list:
    return next(t["payments"] for t in anchor["tools"] if t["id"] == tool_id)


def assert_never_acted(web: SampleWeb) -> None:
    assert "tools/call" not in web.requests_log.jsonrpc_methods()
    assert not [r for r in web.requests_log if r.method == "POST" and "feedback" in r.path]


# --- two crawls, exact events --------------------------------------------------------------

V2 = {
    "pantry.test": "v2",
    "mcp.pantry.test": "v2",
    "tidewater.test": "v2",
    "pay.tidewater.test": "v2",
    "t-flaky.test": "v2",
}
ORIGINS = ["pantry.test", "tidewater.test", "t-flaky.test"]
ADD_TO_LIST = {
    "description": "Add an item to the user's shopping list.",
    "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
}


def expected_v2_events(add_to_list_fingerprint: str | None = None) -> dict[str, list[tuple]]:
    old_app, new_app = doc("pantry.test", MANIFEST[1:]), doc("pantry.test", "_v2", MANIFEST[1:])
    old_anchor, new_anchor = doc("tidewater.test", ANCHOR[1:]), doc("tidewater.test", "_v2", ANCHOR[1:])
    forecast, tides = "test.tidewater/forecast-api", "test.tidewater/tides"
    (deprecation,) = next(t["deprecations"] for t in new_anchor["tools"] if t["id"] == tides)
    return {
        "pantry.test": [
            ("guide_changed", "", sha256_of("pantry.test", "agent.md"), sha256_of("pantry.test", "_v2", "agent.md")),
            ("instructions_changed", "", old_app["instructions"], new_app["instructions"]),
            (
                "tools_changed",
                "add_to_list",
                {"names": ["get_item", "search"], "tools": {}},
                {"names": ["add_to_list", "get_item", "search"], "tools": {"add_to_list": ADD_TO_LIST}},
            ),
            # The same change seen by the tool fingerprints: a new tool that writes.
            (
                "write_tool_added",
                "add_to_list",
                None,
                {
                    "tool": "add_to_list",
                    "reason": "its name contains the verb 'add'",
                    "fingerprint": add_to_list_fingerprint,
                },
            ),
        ],
        "tidewater.test": [
            ("price_changed", forecast, payments(old_anchor, forecast), payments(new_anchor, forecast)),
            ("price_changed", tides, payments(old_anchor, tides), payments(new_anchor, tides)),
            ("deprecation_declared", tides, None, deprecation),
        ],
        "t-flaky.test": [("delisted", "", "listed", "no_manifest")],
    }


def test_two_crawls_around_a_variant_switch_emit_exactly_the_expected_events(web, db):
    first = run(db, web, ORIGINS)
    assert events_of(db, first.crawl_id) == {o: [("listed", "", None, "listed")] for o in ORIGINS}
    with variants(web, V2):
        second = run(db, web, ORIGINS)
    # The event carries the fingerprint the catalogue stores for the new tool.
    stored = db.execute(
        "SELECT fingerprint FROM tools WHERE origin = 'pantry.test' AND source = 'mcp' AND name = 'add_to_list'"
    ).fetchone()[0]
    assert events_of(db, second.crawl_id) == expected_v2_events(stored)
    assert second.events == 8
    assert_never_acted(web)


def test_switching_back_reverses_each_change_and_relists(web, db):
    run(db, web, ORIGINS)
    with variants(web, V2):
        run(db, web, ORIGINS)
    back = run(db, web, ORIGINS)
    found = events_of(db, back.crawl_id)
    forward = expected_v2_events()
    assert found["t-flaky.test"] == [("relisted", "", "delisted", "listed")]
    assert found["pantry.test"] == [
        ("guide_changed", "", forward["pantry.test"][0][3], forward["pantry.test"][0][2]),
        ("instructions_changed", "", forward["pantry.test"][1][3], forward["pantry.test"][1][2]),
        ("tools_changed", "add_to_list", forward["pantry.test"][2][3], {"names": ["get_item", "search"], "tools": {}}),
    ]  # a write tool that goes away is no event of its own
    # Prices go back; a deprecation that is withdrawn is no event of its own.
    assert found["tidewater.test"] == [(k, s, new, old) for k, s, old, new in forward["tidewater.test"][:2]]


def test_show_lists_an_origins_events_oldest_first(web, db):
    run(db, web, ["pantry.test"])
    with variants(web, {"pantry.test": "v2", "mcp.pantry.test": "v2"}):
        run(db, web, ["pantry.test"])
    events = get_listing(db, "pantry.test")["events"]
    assert [e["kind"] for e in events] == [
        "listed",
        "guide_changed",
        "instructions_changed",
        "tools_changed",
        "write_tool_added",
    ]
    assert all(set(e) >= {"kind", "at", "old", "new"} for e in events)
    assert [e["at"] for e in events] == sorted(e["at"] for e in events)


def test_a_rename_a_new_mcp_endpoint_and_a_moved_api_are_one_event_each(web, db):
    run(db, web, ["t-flaky.test"])
    old, new = doc("t-flaky.test", MANIFEST[1:]), doc("t-flaky.test", "_v3", MANIFEST[1:])
    with variants(web, {"t-flaky.test": "v3"}):
        changed = run(db, web, ["t-flaky.test"])
    assert events_of(db, changed.crawl_id)["t-flaky.test"] == [
        ("name_changed", "", old["name"], new["name"]),
        ("mcp_url_changed", "", None, new["mcp"]["url"]),
        ("http_base_changed", "", old["http"]["base"], new["http"]["base"]),
    ]
    # The first probe of the new endpoint stores its tools; that is no tools_changed event.
    assert [t["name"] for t in list_tools(db, "t-flaky.test", source="mcp")] == ["get_item", "search"]


def test_every_listed_mcp_tool_is_stored_with_its_annotations(web, db):
    with variants(web, {"mcp.pantry.test": "v2"}):
        run(db, web, ["pantry.test"])
    tools = {t["name"]: t for t in list_tools(db, "pantry.test", source="mcp")}
    assert sorted(tools) == ["add_to_list", "get_item", "search"]
    assert tools["search"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert tools["search"]["read_only"] is True
    assert tools["add_to_list"]["annotations"] == ADD_TO_LIST["annotations"]
    assert tools["add_to_list"]["read_only"] is False
    assert tools["get_item"]["description"] == "Return one inventory item with its quantity and expiry date."
    assert tools["get_item"]["input_schema"]["type"] == "object"


# --- an unchanged web ---------------------------------------------------------------------------

STEADY = ["pantry.test", "tidewater.test", "quillnotes.test", "ledgerline.test"]


def test_a_recrawl_of_an_unchanged_web_asks_conditionally_and_adds_no_blob_and_no_event(web, db):
    first = run(db, web, STEADY)
    blobs = db.execute("SELECT count(*), sum(size_bytes) FROM blobs").fetchone()
    events = db.execute("SELECT count(*) FROM events").fetchone()
    web.requests_log.clear()
    second = run(db, web, STEADY)
    assert (first.unchanged, second.unchanged, second.events) == (0, len(STEADY), 0)
    assert db.execute("SELECT count(*), sum(size_bytes) FROM blobs").fetchone() == blobs
    assert db.execute("SELECT count(*) FROM events").fetchone() == events
    bodies = db.execute(
        "SELECT count(*) FROM snapshots WHERE crawl_id = ? AND body_sha256 IS NOT NULL", [second.crawl_id]
    ).fetchone()[0]
    assert bodies == 0
    # pantry.test and ledgerline.test serve an agent-app manifest (the others answer 404).
    asks = [r for r in web.requests_log if r.path == MANIFEST and r.host in ("pantry.test", "ledgerline.test")]
    assert len(asks) == 2 and all(r.headers.get("if-none-match", "").startswith('"') for r in asks)
    # Each 304 extends the row of the answer it stands for: no row is added.
    answers = db.execute(
        "SELECT last_obtained, status_code, seen FROM snapshots WHERE last_crawl_id = ? "
        "AND kind = 'agent_app' AND status_code != 404",
        [second.crawl_id],
    ).fetchall()
    assert answers == [("revalidated", 200, 2), ("revalidated", 200, 2)]
    assert db.execute("SELECT count(*) FROM snapshots WHERE crawl_id = ?", [second.crawl_id]).fetchone() == (0,)


def test_an_unchanged_origin_is_still_verified(web, db):
    run(db, web, ["pantry.test"])
    before = {c["name"]: c["checked_at"] for c in list_checks(db, "pantry.test")}
    web.requests_log.clear()
    second = run(db, web, ["pantry.test"])
    assert second.unchanged == 1
    assert "initialize" in web.requests_log.jsonrpc_methods("mcp.pantry.test")
    after = {c["name"]: c for c in list_checks(db, "pantry.test")}
    assert after["mcp.initialize"]["status"] == "pass"
    assert after["mcp.initialize"]["checked_at"] >= before["mcp.initialize"]


# --- proofs and reachability ------------------------------------------------------------------


def counts(db, origin: str) -> tuple[int, int]:
    return db.execute("SELECT checks_passed, checks_failed FROM listings WHERE origin = ?", [origin]).fetchone()


def test_a_proof_that_disappears_becomes_an_event_and_keeps_its_last_pass(web, db):
    run(db, web, ["tidewater.test"])
    passed = {c["name"]: c for c in list_checks(db, "tidewater.test")}["anchor.verify.dns"]
    assert passed["status"] == "pass" and passed["last_pass_at"] == passed["checked_at"]
    steady = run(db, web, ["tidewater.test"])  # the same bytes, the same verdicts: no event
    assert steady.unchanged == 1 and events_of(db, steady.crawl_id) == {}
    passed_again = {c["name"]: c for c in list_checks(db, "tidewater.test")}["anchor.verify.dns"]
    assert passed_again["last_pass_at"] == passed_again["checked_at"] > passed["checked_at"]
    passes, fails = counts(db, "tidewater.test")
    web.dns.set_records("_anchor.tidewater.test", None)
    try:
        lost = run(db, web, ["tidewater.test"])
    finally:
        web.dns.set_records("_anchor.tidewater.test", ["anchor-verify=tok123"])
    assert lost.unchanged == 1  # same manifest bytes: the proof is re-checked anyway
    assert events_of(db, lost.crawl_id) == {"tidewater.test": [("proof_lost", "anchor.verify.dns", "pass", "fail")]}
    assert counts(db, "tidewater.test") == (passes - 1, fails + 1)
    check = {c["name"]: c for c in list_checks(db, "tidewater.test")}["anchor.verify.dns"]
    assert check["status"] == "fail" and "NXDOMAIN" in check["detail"]
    assert check["last_pass_at"] == passed_again["last_pass_at"]
    back = run(db, web, ["tidewater.test"])
    assert events_of(db, back.crawl_id) == {}  # a proof regained is no event


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_listed_origin_is_delisted_only_after_three_unreachable_crawls(web, db):
    run(db, web, ["t-flaky.test"])
    away = [("t-flaky.test", "127.0.0.1", closed_port())] + web.connect_to()  # the first match wins
    statuses, kinds = [], []
    for _ in range(3):
        summary = run(db, web, ["t-flaky.test"], connect_to=away)
        row = get_listing(db, "t-flaky.test")
        statuses.append(row["status"])
        kinds.append([e[0] for e in events_of(db, summary.crawl_id).get("t-flaky.test", [])])
    assert statuses == ["listed", "listed", "delisted"]
    assert kinds == [[], [], ["delisted"]]
    assert "Connection refused" in get_listing(db, "t-flaky.test")["status_detail"]
    assert get_listing(db, "t-flaky.test")["listing"]["name"] == "Now And Then"  # what it was stays visible
    back = run(db, web, ["t-flaky.test"])
    assert events_of(db, back.crawl_id) == {"t-flaky.test": [("relisted", "", "delisted", "listed")]}

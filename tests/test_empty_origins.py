"""An origin where discovery found nothing is one compact row (agentdex.db.empty): what it
stores, and that show, stats, events, the schedule, known absences and merge tell the same
story as the listing row and snapshots it stands for."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

import pytest
from sqlite_utils import Database

from agentdex.crawler import freshness
from agentdex.crawler.crawl import crawl
from agentdex.crawler.stage import crawl_origin
from agentdex.db import (
    due_origins,
    forget_origins,
    get_listing,
    known_origins,
    knows_origin,
    list_events,
    open_db,
    previous_fetches,
    save_origin,
    stats,
)
from agentdex.db import empty as empty_rows
from agentdex.db.merge import merge_catalogues
from agentdex.db.migrations import migrations
from agentdex.sampleweb.server import SampleWeb
from agentdex.showing import load_show

HOST = "t-comesgoes.test"  # answers 404 everywhere; variant v2 serves a manifest
EMPTY = "site-1000001.synthetic.test"  # the synthetic web's empty origins
PAGE = "<!doctype html>\n<html><head><title>Welcome</title></head><body>Our home page.</body></html>\n"
# Origins with nothing agent-facing that answer otherwise than 404 (site rules of the sample web):
# a "soft 404" (its home page at every path), every path sent to its home page, and every path
# sent to the www. name of the origin (another origin: a manifest path must not leave it).
ELSEWHERE = {
    "t-soft404.test": {"/*": {"status": 200, "content_type": "text/html", "body": PAGE}},
    "t-tohome.test": {
        "/": {"status": 200, "content_type": "text/html", "body": PAGE},
        "/*": {"redirect": "/", "redirect_status": 301},
    },
    "t-bare.test": {"/*": {"redirect": "https://www.t-bare.test/", "redirect_status": 301}},
    "www.t-bare.test": {"/*": {"status": 200, "content_type": "text/html", "body": PAGE}},
    # A home page over agent-app's 32 KiB cap: refused unread there, yet no manifest over its limit.
    "t-bigpage.test": {"/*": {"status": 200, "content_type": "text/html; charset=utf-8", "body": PAGE * 400}},
}
MANIFEST = {
    "agent_app": "1",
    "name": "Comes And Goes",
    "one_liner": "A test origin whose manifest comes and goes.",
    "description": "A test origin: empty, then a manifest, then empty again.",
    "homepage": f"https://{HOST}/",
    "guide": {"url": f"https://{HOST}/agent.md"},
    "http": {"base": f"https://{HOST}/v1"},
    "categories": ["utilities"],
    "pricing": "free",
    "publisher": {"name": "Comes And Goes", "contact": f"mailto:team@{HOST}"},
}


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    root = tmp_path_factory.mktemp("web")
    site = root / HOST
    (site / "_v2" / ".well-known").mkdir(parents=True)
    (site / "_site.json").write_text("{}")
    (site / "_v2" / ".well-known" / "agent-app.json").write_text(json.dumps(MANIFEST))
    (site / "_v2" / "agent.md").write_text("# Comes And Goes\n\nA test origin.\n")
    for host, paths in ELSEWHERE.items():
        (root / host).mkdir()
        (root / host / "_site.json").write_text(json.dumps({"paths": paths}))
    with SampleWeb(root, empty=3, dns=False) as running:
        yield running


@pytest.fixture
def db(tmp_path):
    return open_db(tmp_path / "catalogue.db")


def run(db, web: SampleWeb, origins: list[str], *, revalidate: bool = False):
    policy = freshness.Policy(revalidate=revalidate)
    return asyncio.run(crawl(db, origins, web.network_options(), verify=False, policy=policy))


def rows(db, table: str, origin: str) -> int:
    return db.execute(f"SELECT count(*) FROM {table} WHERE origin = ?", [origin]).fetchone()[0]


def test_an_empty_origin_is_one_compact_row(web, db):
    web.requests_log.clear()
    summary = run(db, web, [EMPTY])
    assert summary.by_status == {"no_manifest": 1}
    asked = [r.path for r in web.requests_log if r.host == EMPTY]
    assert {rows(db, t, EMPTY) for t in ("listings", "snapshots", "robots_txt")} == {0}
    row = empty_rows.load(db, EMPTY)
    assert row is not None and row.robots_status == 404
    # every path asked but robots.txt, once each, with what it answered (in discovery's order:
    # on the wire, its requests go out pipelined a step at a time, agentdex.crawler.fetch)
    assert sorted(a.path for a in row.answered) == sorted(p for p in asked if p != "/robots.txt")
    assert len(row.answered) == len(asked) - 1
    assert {a.status for a in row.answered} == {404}


def test_the_catalogue_knows_an_origin_by_its_listing_its_compact_row_or_a_seed_source(web, db):
    # A crawl reads back an origin's stored answers, schedule and declared endpoints only when
    # one of these holds (a sweep's new origins skip those reads: agentdex.db.knows_origin).
    assert not any(knows_origin(db, o) for o in (EMPTY, HOST, "declared.test"))
    run(db, web, [EMPTY])
    web.set_variant(HOST, "v2")
    try:
        run(db, web, [HOST])
    finally:
        web.set_variant(HOST, None)
    db.execute(
        "INSERT INTO seed_sources (origin, source, via, url, first_seen_at, last_seen_at) "
        "VALUES ('declared.test', 'registry:https://r.test', 'remote', 'https://declared.test/mcp', 'x', 'x')"
    )
    assert get_listing(db, HOST)["status"] == "listed" and empty_rows.load(db, EMPTY) is not None
    assert [knows_origin(db, o) for o in (EMPTY, HOST, "declared.test", "other.test")] == [True, True, True, False]


def test_show_stats_and_schedule_read_it_as_the_listing_it_stands_for(web, db):
    run(db, web, [EMPTY])
    shown = load_show(db, EMPTY)
    assert (shown["status"], shown["format"], shown["events"], shown["last_error"]) == ("no_manifest", None, [], None)
    assert shown["status_detail"].startswith(
        f"agent_app: https://{EMPTY}/.well-known/agent-app.json answered 404 Not Found.; anchor:"
    )
    facts = {f["url"]: f for f in shown["facts"]}
    card = facts[f"https://{EMPTY}/.well-known/agent-card.json"]
    assert (card["status_code"], card["obtained"]) == (404, "fetched") and card["absence_recheck_at"] is not None
    assert facts[f"https://{EMPTY}/.well-known/agent-app.json"]["absence_recheck_at"] is None  # no discovery path
    counts = stats(db)
    assert (counts["listings"], counts["by_status"], counts["by_format"]) == (1, {"no_manifest": 1}, {"none": 1})
    assert known_origins(db) == [EMPTY]
    assert due_origins(db, "9999-01-01T00:00:00Z") == [EMPTY] and due_origins(db, "2000-01-01T00:00:00Z") == []
    absences = db.execute("SELECT kind, status_code, absent_since, next_asked_at FROM known_absences").fetchall()
    assert {kind for kind, *_ in absences} >= {"a2a_card", "server_card", "api_catalog", "ai_catalog"}
    assert "agent_app" not in {kind for kind, *_ in absences}


def test_show_is_the_same_as_from_the_rows_it_stands_for(web, db):
    run(db, web, [EMPTY])
    compact = get_listing(db, EMPTY)
    with db.conn:  # turned back into the listing and snapshots, then rolled back
        db.execute("SAVEPOINT look")
        assert empty_rows.expand(db, EMPTY)
        expanded = get_listing(db, EMPTY)
        db.execute("ROLLBACK TO look")
    assert empty_rows.load(db, EMPTY) is not None
    keys = ("status", "status_detail", "format", "first_seen_at", "last_crawled_at", "next_due_at", "unchanged_crawls")
    assert {k: compact[k] for k in keys} == {k: expanded[k] for k in keys}
    fact_keys = ("kind", "url", "status_code", "error_code", "obtained", "response_at", "absence_recheck_at")
    assert [{k: f[k] for k in fact_keys} for f in compact["facts"]] == [
        {k: f[k] for k in fact_keys} for f in expanded["facts"]
    ]
    assert set(compact) == set(expanded)


def test_a_recrawl_keeps_it_compact_and_asks_known_absences_on_their_schedule(web, db):
    run(db, web, [EMPTY])
    first = empty_rows.load(db, EMPTY)
    web.requests_log.clear()
    summary = run(db, web, [EMPTY], revalidate=True)
    again = empty_rows.load(db, EMPTY)
    assert summary.by_status == {"no_manifest": 1} and summary.unchanged == 1
    assert (again.since, again.asked_at, again.unchanged_crawls) == (first.since, first.asked_at, 2)
    assert again.crawled_at > first.crawled_at and again.next_due_at > first.next_due_at
    asked = {r.path for r in web.requests_log if r.host == EMPTY}
    assert "/.well-known/agent-app.json" in asked and "/.well-known/agent-card.json" not in asked
    assert "/robots.txt" not in asked  # its 404, kept on the row, stands for a day (RFC 9309)
    facts = {f["kind"]: f["obtained"] for f in get_listing(db, EMPTY)["facts"]}
    assert (facts["a2a_card"], facts["agent_app"]) == ("known_absent", "fetched")
    assert db.execute("SELECT DISTINCT last_obtained FROM known_absences").fetchall() == [("known_absent",)]
    prev = previous_fetches(db, EMPTY)[f"https://{EMPTY}/.well-known/agent-card.json"]
    assert (prev["status"], prev["first_seen"], prev["response_at"]) == (404, first.since, first.asked_at)


def test_empty_then_listed_then_empty_gives_the_events_it_always_gave(web, db):
    run(db, web, [HOST])
    seen = empty_rows.load(db, HOST).first_seen_at
    web.set_variant(HOST, "v2")
    try:
        listed = run(db, web, [HOST])
    finally:
        web.set_variant(HOST, None)
    gone = run(db, web, [HOST])
    assert (listed.by_status, gone.by_status) == ({"listed": 1}, {"no_manifest": 1})
    events = [(e["kind"], e["old"], e["new"]) for e in reversed(list_events(db, origin=HOST))]
    assert events == [("listed", "no_manifest", "listed"), ("delisted", "listed", "no_manifest")]
    assert empty_rows.load(db, HOST) is None  # it has a history now: a listing row, delisted
    shown = load_show(db, HOST)
    assert shown["status"] == "delisted" and shown["name"] == "Comes And Goes"
    assert [(e["kind"], e["new"]) for e in shown["events"]] == [("listed", "listed"), ("delisted", "no_manifest")]
    # the manifest path's history: the first crawl's 404, the 200, the 404 again
    history = db.execute(
        "SELECT status_code, crawl_id FROM snapshots WHERE origin = ? AND url LIKE '%agent-app.json' ORDER BY id",
        [HOST],
    ).fetchall()
    assert [status for status, _ in history] == [404, 200, 404]
    assert db.execute("SELECT first_seen_at FROM listings WHERE origin = ?", [HOST]).fetchone()[0] == seen


def test_a_catalogue_from_before_m020_is_migrated_and_its_empty_origin_made_compact(web, tmp_path):
    path = tmp_path / "m019.db"
    old = Database(path)
    migrations.apply(old, stop_before="m020_empty_origins")
    old.execute(
        "INSERT INTO listings (origin, status, status_detail, first_seen_at, unchanged_crawls) "
        "VALUES (?, 'no_manifest', 'no manifest found', '2026-01-01T00:00:00.000Z', 3)",
        [EMPTY],
    )
    old.execute(
        "INSERT INTO snapshots (origin, url, kind, status_code, error_code, fetched_at) "
        "VALUES (?, ?, 'agent_app', 404, 'http_status', '2026-01-01T00:00:00Z')",
        [EMPTY, f"https://{EMPTY}/.well-known/agent-app.json"],
    )
    old.conn.commit()
    old.conn.close()
    db = open_db(path)  # migrated: the old origin stands as it was
    assert get_listing(db, EMPTY)["status"] == "no_manifest" and rows(db, "snapshots", EMPTY) == 1
    run(db, web, [EMPTY])
    assert rows(db, "listings", EMPTY) == 0 and rows(db, "snapshots", EMPTY) == 0
    row = empty_rows.load(db, EMPTY)
    assert (row.first_seen_at, row.unchanged_crawls) == ("2026-01-01T00:00:00.000Z", 4)
    assert list_events(db, origin=EMPTY) == []


def test_merge_takes_empty_origins_once_and_a_listing_over_them(web, tmp_path):
    one, two, out = tmp_path / "one.db", tmp_path / "two.db", tmp_path / "out.db"
    first = open_db(one)
    run(first, web, [EMPTY, "site-1000002.synthetic.test", HOST])
    second = open_db(two)
    run(second, web, ["site-1000003.synthetic.test"])
    web.set_variant(HOST, "v2")
    try:
        run(second, web, [HOST])  # listed in the second catalogue
    finally:
        web.set_variant(HOST, None)
    for catalogue in (first, second):
        catalogue.conn.close()
    merge_catalogues(out, [one, two])
    merged = open_db(out)
    empties = [r[0] for r in merged.execute("SELECT origin FROM empty_origins ORDER BY origin")]
    assert empties == [EMPTY, "site-1000002.synthetic.test", "site-1000003.synthetic.test"]
    assert merged.execute("SELECT count(*) FROM answer_sets").fetchone()[0] == 1  # all answered 404 everywhere
    assert get_listing(merged, HOST)["status"] == "listed"
    snapshot = dump(merged)
    merged.conn.close()
    merge_catalogues(out, [one, two])  # again: nothing changes
    assert dump(open_db(out)) == snapshot


def dump(db) -> list[tuple]:
    return (
        db.execute(
            "SELECT e.*, a.answers FROM empty_origins e JOIN answer_sets a ON a.id = e.answers ORDER BY origin"
        ).fetchall()
        + db.execute("SELECT origin, status FROM listings ORDER BY origin").fetchall()
    )


def test_a_plain_recrawl_asks_every_path_again_and_forget_removes_the_row(web, db):
    run(db, web, [EMPTY])
    first = empty_rows.load(db, EMPTY)
    web.requests_log.clear()
    run(db, web, [EMPTY])
    again = empty_rows.load(db, EMPTY)
    asked = [r.path for r in web.requests_log if r.host == EMPTY]
    assert sorted(asked) == sorted(a.path for a in first.answered)  # robots.txt reused
    assert (again.since, again.unchanged_crawls) == (first.since, 2) and again.asked_at == again.crawled_at
    assert forget_origins(db, [EMPTY]) == {"empty_origins": 1}
    assert get_listing(db, EMPTY) is None and known_origins(db) == []


def test_list_leaves_empty_origins_out_and_says_how_many(web, tmp_path):
    from typer.testing import CliRunner

    from agentdex.cli import app

    path = tmp_path / "listed.db"
    run(open_db(path), web, [EMPTY])

    def listed(*more: str):
        result = CliRunner().invoke(app, ["list", "--db", str(path), "--json", *more])
        assert result.exit_code == 0, result.output
        return [r["origin"] for r in json.loads(result.stdout)["listings"]], result.stderr

    note = "1 origin(s) where discovery found nothing"
    for asked in ((), ("--status", "no_manifest")):
        origins, said = listed(*asked)
        assert f"https://{EMPTY}" not in origins and note in said and "agentdex show ORIGIN" in said
    for asked in (("--status", "listed"), ("--category", "utilities")):  # they could not have been listed
        assert note not in listed(*asked)[1]


async def crawled_and_saved(db, web: SampleWeb, origin: str):
    """What the crawl of ``origin`` fetched (its records), saved as any crawl saves it."""
    async with web.network_options().fetcher() as fetcher:
        result = await crawl_origin(db, origin, fetcher)
    save_origin(db, result, None)
    return result


@pytest.mark.parametrize("origin", ["t-soft404.test", "t-tohome.test", "t-bare.test", "t-bigpage.test"])
def test_a_soft_404_or_a_redirect_everywhere_is_one_compact_row_that_says_what_the_fetches_said(web, db, origin):
    web.requests_log.clear()
    result = asyncio.run(crawled_and_saved(db, web, origin))
    assert result.status == "no_manifest" and not result.documents and not result.results
    row = empty_rows.load(db, origin)
    assert row is not None and [a.path for a in row.answered] == [urlsplit(f.url).path for f in result.fetches]
    assert rows(db, "listings", origin) == rows(db, "snapshots", origin) == rows(db, "robots_txt", origin) == 0
    assert row.robots_status == 200  # its robots.txt is the page too (through the redirect): no rules
    # A site answering every path with its page answers the A2A card's other path so too: not asked.
    assert "/.well-known/agent.json" not in {r.path for r in web.requests_log if r.host == origin}
    shown = load_show(db, origin)
    assert (shown["status"], shown["status_detail"]) == ("no_manifest", result.status_detail)
    failed = [f for f in result.fetches if f.error_code is not None and f.status not in (404, 410)]
    assert (shown["last_error"]["url"], shown["last_error"]["error"]) == (failed[-1].url, failed[-1].error)
    with db.conn:  # the snapshots it stands for are the ones the fetches would have made
        db.execute("SAVEPOINT look")
        assert empty_rows.expand(db, origin)
        stood_for = db.execute(
            "SELECT url, kind, status_code, final_url, error_code, error, redirects FROM snapshots "
            "WHERE origin = ? ORDER BY id",
            [origin],
        ).fetchall()
        db.execute("ROLLBACK TO look")
    made = [
        (f.url, f.kind, f.status, f.final_url, f.error_code, f.error, json.dumps(f.redirects)) for f in result.fetches
    ]
    assert stood_for == made
    web.requests_log.clear()
    again = asyncio.run(crawled_and_saved(db, web, origin))
    assert again.status == "no_manifest" and empty_rows.load(db, origin).since == row.since  # the same answers
    assert "/robots.txt" not in {r.path for r in web.requests_log if r.host == origin}  # reused from the row

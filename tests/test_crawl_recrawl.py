"""A recrawl does only the work a change could need, over real sockets: robots.txt is reused
for up to 24 hours (RFC 9309, 2.4) unless its answer says otherwise, and a manifest that
answers 304 is neither parsed nor validated, while a document it declares that changed
still is."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from agentdex.crawler import robots as robots_module
from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.db import open_db
from agentdex.formats import agent_app
from agentdex.models import FetchRecord
from netfixtures import Reply, Request, TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401

HOST = "r.sample.test"
MANIFEST = "/.well-known/agent-app.json"
RULES = "User-agent: agentdex\nDisallow: /private/\n"


def manifest(guide: str) -> dict:
    return {
        "agent_app": "1",
        "name": "Tidewatch",
        "one_liner": "Tide times and surf forecasts for any beach.",
        "description": "Tidewatch answers questions about tides and surf; the server runs no language model.",
        "homepage": f"https://{HOST}/",
        "guide": {"url": f"https://{HOST}{guide}"},
        "mcp": {"url": f"https://{HOST}/mcp", "transport": "streamable-http", "auth": ["none"]},
        "categories": ["travel"],
        "pricing": "free",
        "publisher": {"name": "Tidewatch", "contact": "mailto:hello@tidewatch.example.org"},
    }


class Site:
    """The origin's documents, each served with an ETag and answering 304 to a match."""

    def __init__(self, server: TLSServer, guide: str = "/agent.md") -> None:
        self.docs: dict[str, tuple[bytes, str]] = {}
        self.put(MANIFEST, json.dumps(manifest(guide)).encode(), "application/json")
        self.put(guide, b"# Tidewatch\n\nAsk for a beach and a date.\n", "text/markdown")
        for path in self.docs:
            server.routes[path] = self.answer

    def put(self, path: str, body: bytes, content_type: str) -> None:
        self.docs[path] = (body, content_type)

    async def answer(self, request: Request) -> Reply:
        body, content_type = self.docs[request.path]
        etag = f'"{hash(body) & 0xFFFFFFFF:x}"'
        if request.headers.get("if-none-match") == etag:
            return Reply(304, b"", {"ETag": etag}, content_type=None, length=False)
        return Reply(200, body, {"ETag": etag}, content_type=content_type)


def run(db, server: TLSServer):
    net = NetworkOptions(connect_to=server.connect_to, ca_bundle=server.ca_path)
    return asyncio.run(crawl(db, [HOST], net, verify=False))


@pytest.fixture
def db(tmp_path):
    return open_db(tmp_path / "catalogue.db")


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The origins whose agent-app manifest was parsed (the real parser still runs)."""
    seen: list[str] = []
    real = agent_app.parse

    def counting(body, *args, **kwargs):
        seen.append(kwargs.get("origin", ""))
        return real(body, *args, **kwargs)

    monkeypatch.setattr(agent_app, "parse", counting)
    return seen


def age_robots(db, hours: float) -> None:
    then = (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds").replace("+00:00", "Z")
    with db.conn:
        db.execute("UPDATE robots_txt SET fetched_at = ?", [then])


def snapshot(db, crawl_id: int, path: str) -> tuple:
    """``(status, 304?, error_code)`` of the answer run ``crawl_id`` got at ``path`` (a 304
    extends the row of the answer it stands for)."""
    return db.execute(
        "SELECT CASE WHEN last_obtained = 'revalidated' THEN 304 ELSE status_code END, "
        "last_obtained = 'revalidated', error_code FROM snapshots WHERE last_crawl_id = ? AND url = ? "
        "ORDER BY id DESC LIMIT 1",
        [crawl_id, f"https://{HOST}{path}"],
    ).fetchone()


# --- robots.txt across crawls ------------------------------------------------------------------


def test_a_recrawl_within_a_day_reuses_robots_txt_and_still_obeys_it(db, tls_server):
    Site(tls_server, guide="/private/agent.md")
    tls_server.robots[HOST] = RULES
    first = run(db, tls_server)
    second = run(db, tls_server)
    assert tls_server.hit_count(HOST, "/robots.txt") == 1
    # The stored rules still refuse the guide: it was never requested, on either crawl.
    assert snapshot(db, second.crawl_id, "/private/agent.md")[2] == "robots"
    assert tls_server.hit_count(HOST, "/private/agent.md") == 0
    assert first.requests - second.requests == 1
    stored = db.execute("SELECT status_code, body FROM robots_txt WHERE origin = ?", [HOST]).fetchone()
    assert stored == (200, RULES)


def test_a_robots_txt_older_than_a_day_is_fetched_again_and_its_new_rules_apply(db, tls_server):
    Site(tls_server, guide="/private/agent.md")
    tls_server.robots[HOST] = RULES
    run(db, tls_server)
    tls_server.robots[HOST] = "User-agent: *\nAllow: /\n"
    age_robots(db, hours=23.5)
    kept = run(db, tls_server)
    assert (
        tls_server.hit_count(HOST, "/robots.txt") == 1
        and snapshot(db, kept.crawl_id, "/private/agent.md")[2] == "robots"
    )
    age_robots(db, hours=24.5)
    fresh = run(db, tls_server)
    assert tls_server.hit_count(HOST, "/robots.txt") == 2
    assert snapshot(db, fresh.crawl_id, "/private/agent.md")[0] == 200


def test_a_robots_txt_that_forbids_caching_is_asked_on_every_crawl(db, tls_server):
    Site(tls_server)

    async def no_store(request: Request) -> Reply:
        return Reply(200, RULES.encode(), {"Cache-Control": "no-store"}, content_type="text/plain")

    tls_server.routes["/robots.txt"] = no_store
    for _ in range(3):
        run(db, tls_server)
    assert tls_server.hit_count(HOST, "/robots.txt") == 3


def test_a_robots_txt_that_failed_is_asked_again_next_time(db, tls_server):
    Site(tls_server)
    tls_server.robots[HOST] = 503
    run(db, tls_server)
    first = tls_server.hit_count(HOST, "/robots.txt")  # retries included
    run(db, tls_server)
    assert tls_server.hit_count(HOST, "/robots.txt") > first
    assert db.execute("SELECT count(*) FROM robots_txt").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("status", "cache_control", "age_hours", "reused"),
    [
        (200, "", 23.9, True),
        (200, "", 24.1, False),
        (404, "", 1, True),  # no robots.txt: everything allowed, for a day too
        (200, "max-age=3600", 0.9, True),
        (200, "max-age=3600", 1.1, False),
        (200, "public, max-age=172800", 25, False),  # never past 24 hours
        (200, "no-cache", 0.01, False),
        (429, "", 0.01, False),  # "not now" is no answer to keep
        (503, "", 0.01, False),
    ],
)
def test_when_a_stored_robots_txt_may_be_reused(status, cache_control, age_hours, reused):
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    fetched = (now - timedelta(hours=age_hours)).isoformat(timespec="seconds").replace("+00:00", "Z")
    record = FetchRecord(
        url=f"https://{HOST}/robots.txt",
        kind="robots",
        status=status,
        headers={"cache-control": cache_control} if cache_control else {},
        body=RULES.encode() if status == 200 else None,
        fetched_at=fetched,
        error_code=None if status == 200 else "http_status",
    )
    assert robots_module.reusable(record, now=now) is reused


# --- no parse for a 304 ------------------------------------------------------------------------


def test_a_manifest_that_answers_304_is_not_parsed_and_its_guide_is_still_revalidated(db, tls_server, parses):
    Site(tls_server)
    run(db, tls_server)
    assert parses == [HOST]
    again = run(db, tls_server)
    assert parses == [HOST], "an unchanged manifest is not parsed again"
    assert again.unchanged == 1 and again.events == 0
    assert snapshot(db, again.crawl_id, MANIFEST)[:2] == (304, 1)
    assert snapshot(db, again.crawl_id, "/agent.md")[:2] == (304, 1)


def test_a_changed_guide_behind_an_unchanged_manifest_is_still_a_guide_changed_event(db, tls_server, parses):
    site = Site(tls_server)
    run(db, tls_server)
    site.put("/agent.md", b"# Tidewatch\n\nAsk for a beach, a date and a time zone.\n", "text/markdown")
    changed = run(db, tls_server)
    assert snapshot(db, changed.crawl_id, MANIFEST)[:2] == (304, 1)
    assert [e[0] for e in db.execute("SELECT kind FROM events WHERE crawl_id = ?", [changed.crawl_id])] == [
        "guide_changed"
    ]
    assert changed.unchanged == 0 and len(parses) == 2  # the stored manifest is read to save the change


def test_a_changed_manifest_is_parsed_and_its_new_guide_fetched(db, tls_server, parses):
    site = Site(tls_server)
    run(db, tls_server)
    moved = json.dumps(manifest("/docs/agent.md")).encode()
    site.put(MANIFEST, moved, "application/json")
    site.put("/docs/agent.md", b"# Tidewatch\n\nMoved.\n", "text/markdown")
    tls_server.routes["/docs/agent.md"] = site.answer
    changed = run(db, tls_server)
    assert len(parses) == 2
    assert snapshot(db, changed.crawl_id, "/docs/agent.md")[0] == 200
    assert snapshot(db, changed.crawl_id, "/agent.md") is None
    stored = db.execute("SELECT guide_url, declared_documents FROM listings").fetchone()
    # the MCP endpoint's SEP-2127 card place is kept beside the guide (asked again, found or not)
    declared = {"guide": f"https://{HOST}/docs/agent.md", "server_card": f"https://{HOST}/mcp/server-card"}
    assert stored == (f"https://{HOST}/docs/agent.md", json.dumps(declared))

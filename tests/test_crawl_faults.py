"""The real crawler against the sample web over TLS: every format is discovered, every
fault is recorded as a readable error on the snapshot or the listing, and no fault stops
the crawl.

One sample web and one crawl (with verification) for the whole module; the tests read
the catalogue that crawl wrote.
"""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import dataclass

import pytest

from agentdex.crawler import mcp_probe
from agentdex.crawler.crawl import CrawlSummary, crawl
from agentdex.db import empty as empty_rows
from agentdex.db import get_listing, open_db
from agentdex.sampleweb.server import UNSERVED_HOST, SampleWeb

# The slow origins get a crawl of their own with a short deadline that cuts them off; the
# rest a deadline that never binds, even on a busy machine.
SHORT_DEADLINE = 1.5
SLOW = ["sleepy.test", "slowdrip.test"]  # 30 s before a byte; 64 bytes a second
REFUSED = "refused.test"  # --connect-to sends it to a port nobody listens on
BAD_CERT = "badcert.test"  # --connect-to sends it to the sample web, whose certificate does not name it
FORMATS = ["pantry.test", "tidewater.test", "quillnotes.test", "t-linked.test"]
FAULTS = [
    UNSERVED_HOST,
    REFUSED,
    BAD_CERT,
    "loop.test",
    "hopper.test",
    "broken.test",
    "registry.test",
    "wrongtype.test",
    "bigmanifest.test",
    "bomb.test",
    "t-badjson.test",
    "latin1.test",
    "privateaddr.test",
    "badmanifest.test",
    "t-spa.test",
]
ORIGINS = FORMATS + FAULTS  # crawled together


def closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Crawled:
    web: SampleWeb
    db: object
    summary: CrawlSummary  # of the crawl of ORIGINS

    def listing(self, origin: str) -> dict:
        found = get_listing(self.db, origin)
        assert found is not None, f"{origin} has no row"
        return found

    def snapshots(self, origin: str, kind: str | None = None) -> list[dict]:
        """The origin's snapshots; an empty origin's (agentdex.db.empty) are the ones its row stands for."""
        sql = "SELECT * FROM snapshots WHERE origin = ?" + (" AND kind = ?" if kind else "") + " ORDER BY id"
        with self.db.conn:  # turned back into its rows, read, then rolled back
            self.db.execute("SAVEPOINT look")
            empty_rows.expand(self.db, origin)
            found = list(self.db.query(sql, [origin, kind] if kind else [origin]))
            self.db.execute("ROLLBACK TO look")
        return found


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    with SampleWeb() as web:
        extra = [(REFUSED, "127.0.0.1", closed_port()), (BAD_CERT, "127.0.0.1", web.port)]
        net = web.network_options(connect_to=web.connect_to() + extra)
        db = open_db(tmp_path_factory.mktemp("faults") / "catalogue.db")
        summary = asyncio.run(crawl(db, ORIGINS, net))
        net.deadline = SHORT_DEADLINE
        asyncio.run(crawl(db, SLOW, net))
        yield Crawled(web, db, summary)


# --- formats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "fmt", "manifest_url"),
    [
        ("pantry.test", "agent_app", "https://pantry.test/.well-known/agent-app.json"),
        ("tidewater.test", "anchor", "https://tidewater.test/.well-known/anchor.json"),
        # No manifest at either well-known path: a Link: rel="anchor-manifest" header names it.
        ("t-linked.test", "anchor", "https://t-linked.test/manifests/anchor.json"),
    ],
)
def test_each_manifest_format_is_discovered_and_listed(crawled, origin, fmt, manifest_url):
    row = crawled.listing(origin)
    assert (row["status"], row["format"]) == ("listed", fmt)
    served = [s for s in crawled.snapshots(origin, fmt) if s["status_code"] == 200]
    assert [s["url"] for s in served] == [manifest_url]
    assert row["manifest"]["publisher" if fmt == "anchor" else "name"]  # the decoded document is stored


def test_an_origin_with_skill_and_guide_but_no_manifest_gets_an_inferred_listing(crawled):
    row = crawled.listing("quillnotes.test")
    assert (row["status"], row["format"]) == ("listed", "inferred")
    assert row["mcp_url"] == "https://mcp.quillnotes.test/mcp"  # from its mcp.json
    assert {s["kind"] for s in crawled.snapshots("quillnotes.test") if s["status_code"] == 200} >= {"skill", "agent_md"}
    assert any(f["code"] == "inferred" for f in row["findings"])


def test_an_origin_with_a_manifest_does_not_fetch_the_bootstrap_files(crawled):
    kinds = {s["kind"] for s in crawled.snapshots("pantry.test")}
    assert "agent_md" not in kinds and "mcp_json" not in kinds
    assert {"agent_app", "anchor", "guide", "llms_txt", "skill"} <= kinds


# --- faults --------------------------------------------------------------------------------

# origin, stored status, kind of the failed snapshot, its error code, words of its sentence
FAULT_TABLE = [
    (UNSERVED_HOST, "unreachable", "agent_app", "dns", "could not be resolved"),
    (REFUSED, "unreachable", "agent_app", "refused", "Connection refused"),
    (BAD_CERT, "unreachable", "agent_app", "tls", "certificate"),
    ("sleepy.test", "unreachable", "agent_app", "timeout", "deadline"),
    ("slowdrip.test", "unreachable", "agent_app", "timeout", "deadline"),
    ("loop.test", "no_manifest", "agent_app", "redirect_loop", "already visited"),
    ("hopper.test", "no_manifest", "agent_app", "cross_origin", "another origin"),
    ("broken.test", "unreachable", "agent_app", "http_status", "500"),
    ("registry.test", "no_manifest", "agent_app", "http_status", "404"),
    ("wrongtype.test", "listed", "agent_app", "content_type", "text/html"),
    ("t-spa.test", "no_manifest", "agent_app", "content_type", "a web page, not a manifest"),
    ("bigmanifest.test", "invalid", "agent_app", "too_large", "40960 bytes"),
    ("bomb.test", "invalid", "agent_app", "too_large", "cap"),
]


@pytest.mark.parametrize(
    ("origin", "status", "kind", "code", "words"), FAULT_TABLE, ids=[row[0] for row in FAULT_TABLE]
)
def test_each_fault_is_recorded_on_the_snapshot_with_a_readable_sentence(crawled, origin, status, kind, code, words):
    row = crawled.listing(origin)
    assert row["status"] == status
    failed = [s for s in crawled.snapshots(origin, kind) if s["error_code"]]
    assert [s["error_code"] for s in failed] == [code]
    sentence = failed[0]["error"]
    assert words in sentence and sentence.endswith(".") and "Traceback" not in sentence


@pytest.mark.parametrize(
    "origin", [UNSERVED_HOST, REFUSED, BAD_CERT, "sleepy.test", "loop.test", "hopper.test", "broken.test"]
)
def test_a_failed_origin_says_why_in_its_status_detail(crawled, origin):
    row = crawled.listing(origin)
    failed = [s for s in crawled.snapshots(origin, "agent_app") if s["error_code"]]
    assert row["status_detail"].startswith("agent_app: " + failed[0]["error"])
    assert row["listing"] is None and row["format"] is None


@pytest.mark.parametrize(
    ("origin", "code", "words"),
    [
        ("bigmanifest.test", "too_large", "32,768"),
        ("bomb.test", "too_large", "32,768"),
        ("t-badjson.test", "not_json", "not valid JSON"),
        ("latin1.test", "encoding", "UTF-8"),
    ],
)
def test_an_unreadable_manifest_makes_the_origin_invalid_with_a_finding(crawled, origin, code, words):
    row = crawled.listing(origin)
    assert row["status"] == "invalid"
    assert [(f["format"], f["severity"], f["path"], f["code"]) for f in row["findings"]] == [
        ("agent_app", "error", "", code)
    ]
    assert words in row["findings"][0]["message"]


def test_an_oversize_manifest_fails_the_size_check(crawled):
    checks = {c["name"]: c for c in crawled.listing("bigmanifest.test")["checks"]}
    assert checks["manifest.size"]["status"] == "fail"
    assert "32,768" in checks["manifest.size"]["detail"]
    # The padded manifest is valid JSON: it was refused for its size, not parsed.
    assert crawled.listing("bigmanifest.test")["listing"] is None


def test_a_gzip_bomb_is_refused_without_inflating_it(crawled):
    (snapshot,) = crawled.snapshots("bomb.test", "agent_app")
    assert snapshot["error_code"] == "too_large"
    assert snapshot["body_sha256"] is None
    assert crawled.db.execute("SELECT max(size_bytes) FROM blobs").fetchone()[0] < 1024 * 1024


def test_an_invalid_manifest_keeps_its_listing_and_every_finding(crawled):
    row = crawled.listing("badmanifest.test")
    assert (row["status"], row["format"]) == ("invalid", "agent_app")
    errors = [f for f in row["findings"] if f["severity"] == "error"]
    warnings = [f for f in row["findings"] if f["severity"] == "warning"]
    assert len(errors) == 12 and [w["code"] for w in warnings] == ["unknown_key"]
    assert row["error_count"] == 12


def test_a_cross_origin_redirect_is_refused_before_the_other_origin_is_asked(crawled):
    snapshot = [s for s in crawled.snapshots("hopper.test", "agent_app")][0]
    assert json.loads(snapshot["redirects"]) == ["https://elsewhere.test/.well-known/agent-app.json"]
    assert not [r for r in crawled.web.requests_log if r.host == "elsewhere.test"]


def test_a_manifest_pointing_at_a_private_address_is_listed_but_never_probed(crawled):
    row = crawled.listing("privateaddr.test")
    assert row["status"] == "listed" and row["mcp_url"] == "https://10.0.0.1/mcp"
    check = {c["name"]: c for c in row["checks"]}["mcp.initialize"]
    assert check["status"] == "fail"
    assert "unreachable" in check["detail"] and "private address" in check["detail"]


def test_a_manifest_served_as_html_is_read_but_its_checks_fail(crawled):
    row = crawled.listing("wrongtype.test")
    checks = {c["name"]: c["status"] for c in row["checks"]}
    assert row["status"] == "listed"
    assert (checks["manifest.content_type"], checks["manifest.cors"]) == ("fail", "fail")


# --- the crawl as a whole ---------------------------------------------------------------------


def test_no_fault_stops_the_crawl(crawled):
    rows = crawled.db.execute("SELECT status, origins_total, origins_done FROM crawls ORDER BY id").fetchall()
    assert rows == [("finished", len(ORIGINS), len(ORIGINS)), ("finished", len(SLOW), len(SLOW))]
    assert sum(crawled.summary.by_status.values()) == len(ORIGINS)
    stored = {
        r["origin"] for r in crawled.db.query("SELECT origin FROM listings UNION SELECT origin FROM empty_origins")
    }
    assert stored == set(ORIGINS + SLOW)


def test_the_summary_counts_statuses_requests_and_errors(crawled):
    statuses = [crawled.listing(o)["status"] for o in ORIGINS]
    assert crawled.summary.by_status == {s: statuses.count(s) for s in set(statuses)}
    assert crawled.summary.events == statuses.count("listed")  # one "listed" event each
    assert crawled.summary.requests > len(ORIGINS) * 2
    assert 0 < crawled.summary.errors < crawled.summary.requests


def test_the_crawler_only_reads(crawled):
    methods = crawled.web.requests_log.jsonrpc_methods()
    assert "tools/call" not in methods
    assert set(methods) <= set(mcp_probe.ALLOWED_METHODS)
    writes = [(r.host, r.method, r.path) for r in crawled.web.requests_log if r.method not in ("GET", "HEAD")]
    assert writes and all(method == "POST" and "feedback" not in path for _, method, path in writes)
    # Every POST went to an MCP endpoint a crawled manifest declared (initialize, tools/list).
    declared = {crawled.listing(o)["mcp_url"] for o in ORIGINS} | {"https://mcp.tidewater.test/mcp/readonly"}
    assert {f"https://{host}{path}" for host, _, path in writes} <= declared

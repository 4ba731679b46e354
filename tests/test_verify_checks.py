"""Verification on a real crawl: each check's passing and failing example, from origins of
the sample web built to pass or to fail it, with real MCP servers from the SDK, a local
DNS server answering TXT records, a local registry API and an x402 endpoint.

One sample web and one crawl (with verification) for the whole module. No server ever
receives a ``tools/call`` or a feedback submission.
"""

from __future__ import annotations

import asyncio

import pytest

from agentdex.checks import CHECKS
from agentdex.crawler import mcp_probe
from agentdex.crawler.crawl import crawl
from agentdex.db import list_checks, open_db
from agentdex.sampleweb.server import SampleWeb

ORIGINS = [
    "pantry.test",
    "ledgerline.test",
    "deadlinks.test",
    "wrongtype.test",
    "notmcp.test",
    "vault.test",
    "keyring.test",
    "bigmanifest.test",
    "t-brokenlinks.test",
    "t-oldsse.test",
    "tidewater.test",
    "driftwood.test",
    "t-paidmcp.test",
    "t-linked.test",
    "pay.tidewater.test",
]
CHECK_NAMES = {
    "manifest.location",
    "manifest.content_type",
    "manifest.cors",
    "manifest.size",
    "guide.reachable",
    "llms_txt.reachable",
    "skill.reachable",
    "homepage.reachable",
    "policies.privacy",
    "policies.terms",
    "mcp.initialize",
    "mcp.tools",
    "mcp.eras",
    "http.base",
    "http.openapi",
    "http.capabilities",
    "feedback.descriptor",
    "x402.live_price",
}
ANCHOR_CHECKS = {
    "anchor.verify.dns",
    "anchor.verify.http",
    "anchor.verify.registry",
    "anchor.read_only_variant",
    "anchor.payments",
}


class Verified:
    def __init__(self, web: SampleWeb, db) -> None:
        self.web, self.db = web, db

    def checks(self, origin: str) -> dict[str, dict]:
        return {c["name"]: c for c in list_checks(self.db, origin)}


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    with SampleWeb() as web:
        net = web.network_options()
        db = open_db(tmp_path_factory.mktemp("verify") / "catalogue.db")
        asyncio.run(crawl(db, ORIGINS, net))
        yield Verified(web, db)


# (check, origin, status, words in the detail): a passing example first, then failing ones.
TABLE = [
    ("manifest.location", "pantry.test", "pass", "served at https://pantry.test/.well-known/agent-app.json"),
    ("manifest.location", "t-linked.test", "warn", "not at https://t-linked.test/.well-known/anchor.json"),
    ("manifest.content_type", "pantry.test", "pass", "application/json"),
    ("manifest.content_type", "wrongtype.test", "fail", "text/html"),
    ("manifest.cors", "pantry.test", "pass", "Access-Control-Allow-Origin *"),
    ("manifest.cors", "wrongtype.test", "fail", "(missing)"),
    ("manifest.size", "pantry.test", "pass", "(limit 32,768)"),
    ("manifest.size", "bigmanifest.test", "fail", "40960"),
    ("guide.reachable", "pantry.test", "pass", "text/markdown"),
    ("guide.reachable", "tidewater.test", "pass", "text/html"),  # Anchor's docs are for people
    ("guide.reachable", "t-brokenlinks.test", "fail", "is an HTML page, not markdown"),
    ("guide.reachable", "deadlinks.test", "fail", "could not be resolved"),
    ("llms_txt.reachable", "pantry.test", "pass", "text/plain"),
    ("llms_txt.reachable", "t-brokenlinks.test", "fail", "404"),
    ("skill.reachable", "pantry.test", "pass", "text/markdown"),
    ("skill.reachable", "t-brokenlinks.test", "fail", "no frontmatter"),
    ("homepage.reachable", "pantry.test", "pass", "HTTP 200"),
    ("homepage.reachable", "t-brokenlinks.test", "fail", "404"),
    ("policies.privacy", "pantry.test", "pass", "HTTP 200"),
    ("policies.privacy", "deadlinks.test", "fail", "could not be resolved"),
    ("policies.privacy", "notmcp.test", "warn", "no privacy policy declared"),
    ("policies.terms", "pantry.test", "pass", "HTTP 200"),
    ("policies.terms", "deadlinks.test", "fail", "404"),
    ("policies.terms", "notmcp.test", "skip", "not declared"),
    ("mcp.initialize", "pantry.test", "pass", "server Pantry"),
    ("mcp.initialize", "vault.test", "pass", "OAuth"),
    ("mcp.initialize", "keyring.test", "pass", "bearer"),
    ("mcp.initialize", "t-paidmcp.test", "pass", "declared x402"),
    # An origin with no manifest but an x402 discovery document: its resource's live 402.
    (
        "x402.live_price",
        "pay.tidewater.test",
        "pass",
        "https://pay.tidewater.test/v1/forecast: the live 402 asks $0.01, as declared",
    ),
    ("x402.live_price", "pantry.test", "skip", "no x402 discovery document"),
    ("mcp.initialize", "notmcp.test", "fail", "not_mcp"),
    ("mcp.initialize", "t-oldsse.test", "fail", "wrong_transport"),
    ("mcp.initialize", "t-brokenlinks.test", "fail", "does not say it needs credentials"),
    ("mcp.tools", "pantry.test", "pass", "2 tool(s) listed"),
    ("mcp.tools", "vault.test", "skip", "needs credentials"),
    ("mcp.tools", "notmcp.test", "skip", "initialize did not succeed"),
    ("mcp.tools", "ledgerline.test", "skip", "no MCP endpoint declared"),
    ("mcp.eras", "pantry.test", "pass", "the same 2 tool(s) in each"),
    ("mcp.eras", "vault.test", "skip", "no eras to compare: auth_required"),
    ("http.base", "ledgerline.test", "pass", "HTTP 200"),
    ("http.base", "deadlinks.test", "warn", "HTTP 404"),
    ("http.base", "t-brokenlinks.test", "fail", "500"),
    ("http.openapi", "ledgerline.test", "pass", "OpenAPI 3.1"),
    ("http.openapi", "t-brokenlinks.test", "fail", "not an OpenAPI 3.x document"),
    ("http.capabilities", "ledgerline.test", "pass", "JSON"),
    ("http.capabilities", "t-brokenlinks.test", "fail", "does not answer JSON"),
    ("feedback.descriptor", "pantry.test", "pass", "never submitted"),
    ("feedback.descriptor", "t-brokenlinks.test", "fail", "404"),
    ("feedback.descriptor", "notmcp.test", "skip", "no feedback descriptor"),
    ("anchor.verify.dns", "tidewater.test", "pass", "_anchor.tidewater.test carries anchor-verify"),
    ("anchor.verify.dns", "driftwood.test", "fail", "no anchor-verify=<token>"),
    ("anchor.verify.dns", "t-linked.test", "fail", "NXDOMAIN"),
    ("anchor.verify.http", "tidewater.test", "pass", "under tidewater.test and responds"),
    ("anchor.verify.http", "t-linked.test", "fail", "is under pantry.test, not t-linked.test"),
    ("anchor.verify.registry", "tidewater.test", "pass", "1 MCP tool(s) registered"),
    ("anchor.verify.registry", "driftwood.test", "fail", "the registry lists https://mcp.driftwood.test/v0/mcp"),
    ("anchor.verify.registry", "t-paidmcp.test", "fail", "not in the registry"),
    ("anchor.read_only_variant", "tidewater.test", "pass", "only read-only tools"),
    ("anchor.read_only_variant", "driftwood.test", "fail", "exposes write tools delete_item"),
    ("anchor.read_only_variant", "t-paidmcp.test", "skip", "no read-only variant"),
    ("anchor.payments", "tidewater.test", "pass", "live price $0.01 matches the declared price"),
    ("anchor.payments", "t-paidmcp.test", "pass", "live price $0.05 matches"),
    ("anchor.payments", "driftwood.test", "skip", "no x402 payments declared"),
]


@pytest.mark.parametrize(("name", "origin", "status", "words"), TABLE, ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in TABLE])
def test_each_check_passes_and_fails_where_it_should(verified, name, origin, status, words):
    check = verified.checks(origin)[name]
    assert check["status"] == status, check["detail"]
    assert words in check["detail"]


def test_the_table_covers_every_check_with_a_pass_and_a_non_pass():
    covered = {(name, status == "pass") for name, _, status, _ in TABLE}
    assert {name for name, _ in covered} == CHECK_NAMES | ANCHOR_CHECKS
    # anchor.payments fails on a live price change: see test_verify_anchor.py.
    assert {name for name, passing in covered if not passing} == CHECK_NAMES | ANCHOR_CHECKS


def test_every_listing_gets_every_check_and_anchor_listings_the_anchor_ones(verified):
    assert set(verified.checks("pantry.test")) == CHECK_NAMES
    assert set(verified.checks("tidewater.test")) == CHECK_NAMES | ANCHOR_CHECKS


def test_every_stored_check_is_in_the_catalogue(verified):
    stored = {name for origin in ORIGINS for name in verified.checks(origin)}
    assert stored == set(CHECKS), "docs/checks.md and Datasette describe exactly the checks that run"


def test_a_passing_check_keeps_the_time_of_its_last_pass(verified):
    checks = verified.checks("pantry.test")
    assert all(c["last_pass_at"] == c["checked_at"] for c in checks.values() if c["status"] == "pass")
    assert all(
        c["last_pass_at"] is None for c in verified.checks("t-brokenlinks.test").values() if c["status"] == "fail"
    )


def test_a_probe_keeps_what_it_learned_in_the_check_data(verified):
    data = verified.checks("vault.test")["mcp.initialize"]["data"]
    assert (data["state"], data["auth_scheme"]) == ("auth_required", "oauth")
    assert data["metadata"]["authorization_servers"] == ["https://vault.test"]
    payments = verified.checks("tidewater.test")["anchor.payments"]["data"]
    assert payments["test.tidewater/forecast-api"]["live_usd"] == 0.01


def test_verification_never_calls_a_tool_and_never_submits_feedback(verified):
    log = verified.web.requests_log
    assert "tools/call" not in log.jsonrpc_methods()
    assert set(log.jsonrpc_methods()) == set(mcp_probe.ALLOWED_METHODS)
    feedback = sorted((r.method, r.host) for r in log if "feedback" in r.path)
    assert feedback == [("GET", "api.pantry.test"), ("GET", "t-brokenlinks.test")]
    assert verified.web.app_state("api.pantry.test", "/v1/feedback").receipts() == []


def test_verification_never_pays(verified):
    paid = [r for r in verified.web.requests_log if r.host in ("pay.tidewater.test", "t-paidmcp.test")]
    assert paid and not [r for r in paid if any(h.startswith(("x-payment", "payment-signature")) for h in r.headers)]

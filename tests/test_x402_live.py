"""The live 402 of the paid resources an x402 discovery document declares: a real crawl of the
cross-check sample web through the CLI. tollgate.test publishes only /.well-known/x402 with
three resources (a live 402 that matches, one that asks more, one that answers 200 free);
pricey.test is a listed Anchor origin whose x402 resource is the Anchor tool's endpoint. Both
are crawled, switched to variant v2 (the live prices move, the documents do not) and crawled
again: the exact check results, disagreements, endpoint health rows and events."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler import verify_x402
from agentdex.formats import consistency, x402_discovery
from agentdex.formats.x402_offers import Difference, declared_offer, differences
from agentdex.models import FetchRecord
from agentdex.sampleweb.server import CROSSCHECK_ROOT, SampleWeb

ORIGINS = ["tollgate.test", "pricey.test"]
DOC = "https://tollgate.test/.well-known/x402"
TOLL, FERRY, BRIDGE = (f"https://tollgate.test/v1/{p}" for p in ("toll", "ferry", "bridge"))
PAYMENT_HEADERS = {"x-payment", "payment-signature", "authorization"}
WHERE = f"(declared at {DOC})"
# /v1/bridge answers 200 in both crawls: the same sentence in the check and the same disagreement.
FREE = f"{BRIDGE}: answered HTTP 200 without payment, though {DOC} declares it paid"
FREE_FINDING = (
    f"payment {BRIDGE}",
    "payment_not_required",
    f"payment {BRIDGE}: x402_discovery says 'payment required' but live 402 says 'HTTP 200 without payment' {WHERE}",
)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """Both origins crawled in the base tree, then again with the live prices of v2."""
    folder = tmp_path_factory.mktemp("x402live")
    path, after_first = folder / "catalogue.db", folder / "first.db"
    runner = CliRunner()
    with SampleWeb(CROSSCHECK_ROOT) as web:
        args = ["--db", str(path), *web.cli_args(), "--timeout", "60", "--json"]
        first = runner.invoke(app, ["crawl", *ORIGINS, *args])
        assert first.exit_code == 0, first.output
        with sqlite3.connect(path) as source, sqlite3.connect(after_first) as copy:
            source.backup(copy)  # the catalogue as the first crawl left it
        with sqlite3.connect(path) as db:  # as if an hour had passed: the second crawl is due
            db.execute("UPDATE listings SET next_due_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 second')")
        for origin in ORIGINS:
            web.set_variant(origin, "v2")
        second = runner.invoke(app, ["crawl", *ORIGINS, *args])
        assert second.exit_code == 0, second.output
        yield path, list(web.requests_log), json.loads(first.stdout), json.loads(second.stdout), after_first


def rows(path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def check_of(path, origin: str) -> tuple[str, str, dict]:
    status, detail, data = rows(
        path, "SELECT status, detail, data FROM checks WHERE origin = ? AND name = 'x402.live_price'", origin
    )[0]
    return status, detail, json.loads(data)


def outcomes(data: dict) -> dict[str, str]:
    return {url: r["result"] for url, r in data["resources"].items()}


def disagreements(path, origin: str) -> list[tuple[str, str, str, int]]:
    return rows(
        path,
        "SELECT path, code, message, crawl_id FROM findings WHERE origin = ? AND format = 'consistency' ORDER BY path",
        origin,
    )


def test_each_declared_resource_is_asked_once_a_crawl_without_paying(crawled):
    log = crawled[1]
    paid = [(r.method, r.path) for r in log if r.host == "tollgate.test" and r.path.startswith("/v1/")]
    # Once a crawl each; the ferry's 503 in the second crawl is tried again twice (the fetch policy).
    assert sorted(paid) == sorted([("GET", "/v1/toll"), ("GET", "/v1/bridge")] * 2 + [("GET", "/v1/ferry")] * 4)
    # pricey.test's resource is also its Anchor tool's endpoint: the payment check and the x402
    # check share one unpaid GET (http.base reads the API base with its own cap, HEAD is the proof).
    quote = [r.method for r in log if r.host == "pricey.test" and r.path == "/v1/quote"]
    assert sorted(quote) == ["GET"] * 4 + ["HEAD"] * 2
    sent = {name.lower() for r in log if r.host in ("tollgate.test", "pricey.test") for name in r.headers}
    assert not sent & PAYMENT_HEADERS


def test_the_first_crawl_compares_each_live_402_with_the_declared_terms(crawled):
    path = crawled[4]
    status, detail, data = check_of(path, "tollgate.test")
    assert status == "fail"
    assert detail == (
        f"{TOLL}: the live 402 asks $0.01, as declared; "
        f"{FERRY}: price declared $0.02 in {DOC} but the live 402 offers $0.05; {FREE}"
    )
    assert outcomes(data) == {TOLL: "match", FERRY: "differs", BRIDGE: "free"}
    assert data["document"] == DOC and data["skipped"] == []
    assert data["resources"][FERRY]["differences"] == [{"term": "price", "declared": 0.02, "live": [0.05]}]
    assert disagreements(path, "tollgate.test") == [
        (*FREE_FINDING, 1),
        (
            f"price {FERRY}",
            "price_differs",
            f"price {FERRY}: x402_discovery says $0.02 but live 402 says $0.05 {WHERE}",
            1,
        ),
    ]
    assert rows(
        path,
        "SELECT status, consistency, consistency_sources, disagreements FROM listings WHERE origin = 'tollgate.test'",
    ) == [("no_manifest", "inconsistent", '["x402_discovery", "live 402"]', 2)]
    assert rows(
        path, "SELECT role, url, state, http_status FROM endpoint_probes WHERE origin = 'tollgate.test' ORDER BY url"
    ) == [
        ("x402", BRIDGE, "ok", 200),
        ("x402", FERRY, "payment_required", 402),
        ("x402", TOLL, "payment_required", 402),
    ]


def test_a_recrawl_whose_live_prices_moved_changes_the_check_and_the_disagreements(crawled):
    path, _, _, second, _ = crawled
    assert second["unchanged"] == 2 and sum(second["by_status"].values()) == 2  # documents 304: only live answers moved
    status, detail, data = check_of(path, "tollgate.test")
    assert status == "fail"
    assert detail == (
        f"{TOLL}: price declared $0.01 in {DOC} but the live 402 offers $0.015; "
        f"{FERRY}: an unpaid GET got HTTP 503, not 402; {FREE}"
    )
    assert outcomes(data) == {TOLL: "differs", FERRY: "not_402", BRIDGE: "free"}
    assert disagreements(path, "tollgate.test") == [
        (*FREE_FINDING, 2),
        (
            f"payment {FERRY}",
            "payment_not_asked",
            f"payment {FERRY}: x402_discovery says 'payment required' but live 402 says 'HTTP 503' {WHERE}",
            2,
        ),
        (
            f"price {TOLL}",
            "price_differs",
            f"price {TOLL}: x402_discovery says $0.01 but live 402 says $0.015 {WHERE}",
            2,
        ),
    ]
    assert rows(path, "SELECT consistency, disagreements FROM listings WHERE origin = 'tollgate.test'") == [
        ("inconsistent", 3)
    ]
    # The Datasette view: declared against live price, a row a resource.
    assert rows(
        path,
        "SELECT resource, method, result, http_status, declared_usd, live_usd, document, check_status "
        "FROM x402_live_prices WHERE origin = 'tollgate.test' ORDER BY resource",
    ) == [
        (BRIDGE, "GET", "free", 200, 0.01, None, DOC, "fail"),
        (FERRY, "GET", "not_402", 503, 0.02, None, DOC, "fail"),
        (TOLL, "GET", "differs", 402, 0.01, 0.015, DOC, "fail"),
    ]


def test_a_listed_origin_gets_a_live_price_changed_event(crawled):
    path, _, first, second, _ = crawled
    quote = "https://pricey.test/v1/quote"
    assert rows(path, "SELECT kind, subject, old, new, crawl_id FROM events WHERE kind = 'live_price_changed'") == [
        ("live_price_changed", quote, "0.03", "0.04", 2)
    ]
    assert (first["events"], second["events"]) == (1, 1)  # pricey.test listed, then its live price; tollgate none
    assert (
        check_of(path, "pricey.test")[1] == f"{quote}: price declared $0.02 in https://pricey.test/.well-known/x402 "
        "but the live 402 offers $0.04"
    )
    # The Anchor check reads the same live 402: both documents' prices now disagree with $0.04.
    assert [m for _, _, m, _ in disagreements(path, "pricey.test")] == [
        f"price {quote}: anchor says $0.01 but x402_discovery says $0.02",
        f"price {quote}: anchor says $0.01 but live 402 says $0.04 (declared at https://pricey.test/.well-known/anchor.json)",
        f"price {quote}: x402_discovery says $0.02 but live 402 says $0.04 (declared at https://pricey.test/.well-known/x402)",
    ]
    shown = CliRunner().invoke(app, ["show", "pricey.test", "--db", str(path)]).output
    assert f"live_price_changed  0.03 → 0.04 ({quote})" in shown


def test_each_resource_has_a_health_row_a_crawl_and_a_402_counts_as_up(crawled):
    path = crawled[0]
    # A row per run of probes in a row that found the same state.
    assert rows(
        path,
        "SELECT url, state, http_status, crawl_id, runs FROM endpoint_probes "
        "WHERE origin = 'tollgate.test' ORDER BY crawl_id, url",
    ) == [
        (BRIDGE, "ok", 200, 1, 2),
        (FERRY, "payment_required", 402, 1, 1),
        (TOLL, "payment_required", 402, 1, 2),
        (FERRY, "server_error", 503, 2, 1),
    ]
    first, last = [
        at for (at,) in rows(path, "SELECT DISTINCT at FROM endpoint_probes WHERE origin = 'tollgate.test' ORDER BY at")
    ]
    assert rows(
        path,
        "SELECT url, state, recent_probes, recent_ok, probes, first_seen_at, last_ok_at "
        "FROM endpoint_health WHERE origin = 'tollgate.test' ORDER BY url",
    ) == [
        (BRIDGE, "ok", 2, 2, 2, first, last),
        (FERRY, "server_error", 2, 1, 2, first, first),
        (TOLL, "payment_required", 2, 2, 2, first, last),
    ]
    text = CliRunner().invoke(app, ["show", "tollgate.test", "--db", str(path)]).output
    assert f"x402         {TOLL}  payment_required  ██  up 2/2 (100%), first seen {first}, last ok {last}" in text
    assert f"x402         {FERRY}  server_error  █▁  up 1/2 (50%), first seen {first}, last ok {first}" in text
    assert "fail x402.live_price" in text
    data = json.loads(CliRunner().invoke(app, ["show", "tollgate.test", "--db", str(path), "--json"]).stdout)
    assert [c["name"] for c in data["checks"]] == ["x402.live_price"]
    toll = next(e for e in data["endpoints"] if e["url"] == TOLL)
    assert (toll["history"], toll["up"], toll["uptime"]) == (["payment_required"] * 2, [True, True], 1.0)


async def test_the_tui_checks_tab_shows_the_live_price_check(crawled):
    from agentdex.tui.app import make_app
    from agentdex.tui.widgets.safe_table import SafeTable
    from test_tui_support import SIZE, open_listing

    app_ = make_app(crawled[0])
    async with app_.run_test(size=SIZE) as pilot:
        screen = await open_listing(app_, pilot, "tollgate.test", "3")
        table = screen.query_one("#checks-table", SafeTable).table
        shown = [[c.plain for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[:2] for r in shown] == [["fail", "x402.live_price"]]
        assert shown[0][2].startswith(f"{TOLL}: price declared $0.01")


# -- which resources are asked (pure) ----------------------------------------------------------
def test_at_most_five_resources_of_the_origin_are_asked_and_the_rest_are_named(shared):
    body = (shared / "realworld" / "x402" / "RipperMercs__tensorfeed__public__.well-known__x402").read_bytes()
    listing = x402_discovery.parse(body, origin="tensorfeed.ai").listing
    asked, skipped = verify_x402.plan(listing, "tensorfeed.ai")
    assert asked == [
        ("GET", f"https://tensorfeed.ai/api/premium/{p}")
        for p in ("routing", "news/search", "cost/projection", "whats-new", "compare/models")
    ]
    reasons = [s["reason"] for s in skipped]
    assert len(skipped) == 19 and reasons.count("a route template, not one URL") == 2
    assert reasons.count("over the limit of 5 resources an origin") == 16
    assert [s["url"] for s in skipped if s["reason"] == "agentdex never sends POST"] == [
        "https://tensorfeed.ai/api/premium/watches"
    ]  # a POST could act: named, never sent
    note = verify_x402.skipped_note(skipped)
    assert note == (
        "; 19 resource(s) not asked: 2 a route template, not one URL, "
        "16 over the limit of 5 resources an origin, 1 agentdex never sends POST"
    )


def test_resources_on_another_host_mcp_items_and_writing_methods_are_not_asked(shared):
    body = (shared / "realworld" / "x402" / "auor-io__auor.io__.well-known__x402").read_bytes()
    asked, skipped = verify_x402.plan(x402_discovery.parse(body, origin="auor.io").listing, "auor.io")
    assert asked == [] and {s["reason"] for s in skipped} == {"not on this origin"} and len(skipped) == 8
    doc = {
        "x402Version": 2,
        "items": [
            {"resource": {"url": "/mcp"}, "type": "mcp", "accepts": [], "input": {"toolName": "t"}},
            {"resource": {"url": "/orders"}, "type": "http", "accepts": [], "input": {"method": "DELETE"}},
            {"resource": {"url": "/quote"}, "type": "http", "accepts": [], "input": {"method": "POST"}},
            {"resource": {"url": "/odd"}, "type": "http", "accepts": [], "input": {"method": "\x1b[2JGET"}},
            {"resource": {"url": "http://pay.test/plain"}, "type": "http", "accepts": []},
        ],
    }
    listing = x402_discovery.validate_document(doc, origin="pay.test").listing
    asked, skipped = verify_x402.plan(listing, "pay.test")
    assert asked == []
    assert [(s["url"], s["reason"]) for s in skipped] == [
        ("https://pay.test/mcp", "an MCP resource charges per tool call, which agentdex never makes"),
        ("https://pay.test/orders", "agentdex never sends DELETE"),
        ("https://pay.test/quote", "agentdex never sends POST"),
        ("https://pay.test/odd", "not an HTTP method"),
        ("http://pay.test/plain", "not on this origin"),
    ]


def test_a_resource_is_on_the_origin_by_the_crawlers_one_origin_rule():
    """RFC 6454 (origins.origin_of): letter case, an explicit default port and a user name
    change no origin; another port, or a port that is no port, is another (never a traceback)."""
    urls = ["https://PAY.test:443/a", "https://user@pay.test/b", "https://pay.test:8443/c", "https://pay.test:99999/d"]
    doc = {"x402Version": 2, "items": [{"resource": {"url": u}, "type": "http", "accepts": []} for u in urls]}
    asked, skipped = verify_x402.plan(x402_discovery.validate_document(doc, origin="pay.test").listing, "pay.test")
    assert asked == [("GET", urls[0]), ("GET", urls[1])]
    assert [(s["url"], s["reason"]) for s in skipped] == [(u, "not on this origin") for u in urls[2:]]


# -- declared terms against live offers (pure) -------------------------------------------------
USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
LIVE = {
    "version": 2,
    "scheme": "exact",
    "network": "eip155:8453",
    "asset": USDC.lower(),
    "amount": "10000",
    "price_usd": 0.01,
    "pay_to": "0xAbC0000000000000000000000000000000000001",
}


def test_each_declared_term_is_compared_in_order_and_the_first_unshared_one_reported():
    same = declared_offer(
        {
            "scheme": "EXACT",
            "network": "base",
            "asset": USDC,
            "amount": "10000",
            "payTo": "0xabc0000000000000000000000000000000000001",
        }
    )
    assert differences([same], [LIVE]) == []  # v1 network name, address case, scheme case
    payee = dict(same, pay_to="0x9999")
    assert differences([payee], [LIVE]) == [Difference("pay_to", "0x9999", (LIVE["pay_to"],))]
    other_chain = dict(same, network="eip155:137")
    assert differences([other_chain], [LIVE]) == [Difference("network", "eip155:137", ("eip155:8453",))]
    assert declared_offer({"network": "Base"})["network"] == "eip155:8453"  # a hand-written v1 name
    assert differences([dict(same, price_usd=0.02)], [LIVE]) == [Difference("price", 0.02, (0.01,))]
    assert differences([dict(same, price_usd=0.02)], [LIVE], price=False) == []
    # The copied pattern: a symbol, a price in dollars and an unfilled payee say what they can.
    copied = declared_offer({"network": "eip155:8453", "asset": "USDC", "address": "YOUR_WALLET_ADDRESS"}, 0.01)
    assert copied["pay_to"] is None and differences([copied], [LIVE]) == []
    # An asset agentdex cannot value is compared in base units.
    token = declared_offer({"network": "eip155:8453", "asset": "0xtoken", "amount": "7"})
    assert differences([token], [dict(LIVE, asset="0xTOKEN", amount="8", price_usd=None)]) == [
        Difference("price", "7", ("8",))
    ]


def test_a_price_is_compared_and_shown_in_one_unit_on_both_sides():
    unknown = dict(LIVE, asset="0xtoken", amount="10000", price_usd=None)
    dollars = declared_offer({"network": "base"}, 0.01)  # a price in dollars, no asset named
    # Dollars against base units of an asset agentdex cannot value: nothing to compare.
    assert differences([dollars], [unknown]) == []
    assert differences([dict(dollars, price_usd=0.02)], [LIVE]) == [Difference("price", 0.02, (0.01,))]
    # An amount without an asset is in base units: compared and shown as amounts, not as $0.01.
    amount = declared_offer({"network": "base", "amount": "20000"})
    assert differences([amount], [LIVE]) == [Difference("price", "20000", ("10000",))]
    assert differences([dict(amount, amount="10000")], [LIVE]) == []


def test_the_cross_check_reports_live_terms_and_answers_as_disagreements_naming_the_document():
    facts = consistency.Facts(
        "x402_discovery",
        paid=("https://pay.test/a", "https://pay.test/b", "https://pay.test/c"),
        offers={"https://pay.test/a": ({"network": "eip155:8453", "pay_to": "0x1"},)},
        url="https://pay.test/.well-known/x402",
    )
    live = {
        "https://pay.test/a": {"url": "https://pay.test/a", "status": 402, "offers": [dict(LIVE, pay_to="0x2")]},
        "https://pay.test/b": {"url": "https://pay.test/b", "status": 402, "offers": []},
        "https://pay.test/c": {"url": "https://pay.test/c", "status": None, "error": "connection refused"},
    }
    result = consistency.compare([facts], live_402=live)
    assert result.verdict == "inconsistent" and result.sources == ("x402_discovery", consistency.LIVE_402)
    assert [d.message for d in result.disagreements] == [
        "pay_to https://pay.test/a: x402_discovery says '0x1' but live 402 says ['0x2'] "
        "(declared at https://pay.test/.well-known/x402)",
        "payment https://pay.test/b: x402_discovery says 'payment required' but live 402 says "
        "'a 402 without x402 payment requirements' (declared at https://pay.test/.well-known/x402)",
        "payment https://pay.test/c: x402_discovery says 'payment required' but live 402 says "
        "'connection refused' (declared at https://pay.test/.well-known/x402)",
    ]
    assert [d.code for d in result.disagreements] == ["x402_terms_differ", "payment_not_asked", "payment_not_asked"]


@pytest.mark.parametrize(
    ("record", "result", "status"),
    [
        (
            FetchRecord(
                url=TOLL,
                kind="x402",
                status=402,
                error_code="http_status",
                body=b'{"x402Version": 1, "accepts": [{"scheme": "exact", "network": "base", "asset": "'
                + USDC.encode()
                + b'", "maxAmountRequired": "10000", "payTo": "0xabc"}]}',
            ),
            "match",
            "pass",
        ),
        (
            FetchRecord(url=TOLL, kind="x402", status=402, error_code="http_status", body=b"<html>pay</html>"),
            "unreadable",
            "warn",
        ),
        (FetchRecord(url=TOLL, kind="x402", status=200, body=b"{}"), "free", "fail"),
        (FetchRecord(url=TOLL, kind="x402", status=404, error_code="http_status"), "not_402", "warn"),
        (FetchRecord(url=TOLL, kind="x402", error_code="robots", error="robots.txt disallows it"), "blocked", "warn"),
    ],
)
def test_each_answer_has_its_outcome_and_status(record, result, status):
    declared = [declared_offer({"network": "eip155:8453", "asset": USDC, "amount": "10000", "payTo": "0xABC"})]
    found = verify_x402.outcome("GET", TOLL, record, declared)
    assert found["result"] == result and found["asked"] is (result != "blocked")
    assert verify_x402.summary([found], [], DOC).status == status

"""Reading x402 402 answers: both forms, prices in USD, the live price wins."""

import base64
import json

from agentdex.crawler.x402 import compare_price, parse_402

USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


def v1_body(amount="10000", asset=USDC_BASE, network="base"):
    return json.dumps(
        {
            "x402Version": 1,
            "error": "X-PAYMENT header is required",
            "accepts": [
                {
                    "scheme": "exact",
                    "network": network,
                    "maxAmountRequired": amount,
                    "asset": asset,
                    "payTo": "0xabc",
                    "resource": "https://x.test/mcp",
                    "maxTimeoutSeconds": 60,
                }
            ],
        }
    ).encode()


def v2_header(amount="5000"):
    doc = {
        "x402Version": 2,
        "resource": {"url": "https://x.test/mcp"},
        "accepts": [
            {"scheme": "exact", "network": "eip155:8453", "amount": amount, "asset": USDC_BASE, "payTo": "0xabc"}
        ],
    }
    return base64.b64encode(json.dumps(doc).encode()).decode()


def test_v1_body_gives_usd_price_and_caip2_network():
    offers, problem = parse_402({}, v1_body())
    assert problem is None
    assert offers[0].price_usd == 0.01 and offers[0].network == "eip155:8453" and offers[0].version == 1


def test_v2_header_wins_over_body():
    offers, _ = parse_402({"payment-required": v2_header()}, v1_body())
    assert offers[0].version == 2 and offers[0].price_usd == 0.005


def test_unknown_asset_has_no_usd_price():
    offers, _ = parse_402({}, v1_body(asset="0xdeadbeef"))
    assert offers[0].price_usd is None
    assert compare_price(0.01, offers)[0] == "warn"


def test_garbage_is_a_problem_not_an_exception():
    assert parse_402({"payment-required": "%%%not-base64"}, None)[1]
    assert parse_402({}, b"<html>pay me</html>")[1]
    assert parse_402({}, None)[1]


def test_declared_price_compared_with_live():
    offers, _ = parse_402({}, v1_body("10000"))
    assert compare_price(0.01, offers)[0] == "pass"
    status, detail = compare_price(0.005, offers)
    assert status == "fail" and "0.01" in detail and "live price wins" in detail

"""Every number read from the network has a stated domain: HTTP numbers are ASCII digits
within bounds (RFC 9110), x402 prices and decimals use bounded exact arithmetic; anything
else is a typed rejection (``None``, a ``MoneyError``, a finding), never a crash.

Property-based tests feed every header, date and price reader arbitrary text; a real crawl of
``numbers.test`` (the hostile sample web) shows a whole origin of such numbers is read and
listed, with its out-of-range offers as findings.
"""

from __future__ import annotations

import asyncio
import json
import math
from decimal import Decimal

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdex.crawler import freshness
from agentdex.crawler.body import read_capped
from agentdex.crawler.crawl import crawl
from agentdex.crawler.x402 import parse_402
from agentdex.db import get_listing, open_db
from agentdex.errors import FetchError
from agentdex.formats import x402_discovery
from agentdex.formats.x402_money import (
    AMOUNT_MAX,
    DECIMALS_MAX,
    PRICE_USD_MAX,
    MoneyError,
    amount_problem,
    base_units,
    dollars,
    usd_price,
)
from agentdex.headers import DELTA_SECONDS_MAX, decimal_seconds, http_date, http_digits, retry_after_seconds
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb

USDC = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
# Text a header could carry: anything, digits of every script, and near-misses of numbers.
header_text = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1),
    st.from_regex(r"\A[ \t]*[+-]?[0-9_]{0,30}(\.[0-9]*)?([eE][+-]?[0-9]+)?[ \t]*\Z"),
    st.integers(min_value=0, max_value=10**40).map(str),
    st.builds(lambda n: "9" * n, st.integers(min_value=1, max_value=6000)),
)


@given(header_text)
def test_http_digits_is_a_bounded_integer_or_none(text):
    value = http_digits(text)
    stripped = text.strip(" \t")
    if stripped and stripped.isascii() and stripped.isdigit():
        digits = stripped.lstrip("0") or "0"  # int() takes at most 4,300 digits
        assert value == (DELTA_SECONDS_MAX if len(digits) > 10 else min(int(digits), DELTA_SECONDS_MAX))
    else:
        assert value is None


def test_unicode_digits_are_not_http_digits():
    for text in ("²", "١٢", "１２", "1_000", "+5", "1e3", "٣"):
        assert http_digits(text) is None, text
    assert http_digits("9" * 5000) == DELTA_SECONDS_MAX and http_digits(" 42\t") == 42


@given(st.one_of(header_text, st.sampled_from(["inf", "nan", "1e308", "-1", "0.5", "٣.٥", " 2.25 ", "1."])))
def test_a_crawl_delay_is_a_bounded_finite_number_or_none(text):
    seconds = decimal_seconds(text)
    assert seconds is None or (math.isfinite(seconds) and 0 <= seconds <= DELTA_SECONDS_MAX)
    if text.strip(" \t") in ("0.5", "2.25", "1."):
        assert seconds == float(text)
    if text in ("inf", "nan", "1e308", "-1", "٣.٥"):
        assert seconds is None


@given(header_text)
def test_retry_after_is_a_finite_wait_or_none(text):
    seconds = retry_after_seconds(text)
    assert seconds is None or (math.isfinite(seconds) and 0 <= seconds <= DELTA_SECONDS_MAX)


@given(st.one_of(st.text(), st.from_regex(r"\A(Mon|Fri), [0-9]{1,3} (Jan|Dec) [0-9]{1,6} [0-9:]{1,9} GMT\Z")))
def test_an_http_date_is_a_finite_moment_or_none(text):
    when = http_date(text)
    assert when is None or math.isfinite(when)


@given(
    st.dictionaries(
        st.sampled_from(["cache-control", "age", "date", "expires"]),
        st.one_of(header_text, st.builds("max-age={}".format, header_text)),
        max_size=4,
    ),
    st.sampled_from([200, 203, 404, 410, 500, None]),
)
def test_freshness_of_any_headers_is_a_moment_or_none(headers, status):
    until = freshness.fresh_until(headers, status, 1_000.0, 1_001.0)
    assert until is None or (math.isfinite(until) and until > 1_001.0)
    assert 0 <= freshness.age_value(headers.get("age")) <= DELTA_SECONDS_MAX


@given(header_text)
async def test_any_content_length_is_read_or_refused_with_a_code(length):
    response = httpx.Response(
        200, headers=[(b"content-length", length.encode("utf-8", "surrogatepass"))], stream=httpx.ByteStream(b"{}")
    )
    try:
        assert await read_capped(response, 1024) == b"{}"
    except FetchError as exc:
        assert exc.code == "too_large"


amounts = st.one_of(header_text, st.decimals(allow_nan=True, allow_infinity=True).map(str), st.integers().map(str))
extras = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["USDC", "USD Coin", "EURC"]),
            "decimals": st.one_of(st.integers(), header_text, st.floats()),
        }
    ),
)


@given(st.sampled_from([USDC, "0xabc", ""]), amounts, extras)
def test_a_price_is_finite_and_in_range_or_none(asset, amount, extra):
    price = usd_price(asset, amount, extra)
    assert price is None or (math.isfinite(price) and 0 <= price <= AMOUNT_MAX)
    problem = amount_problem(asset, amount, extra)
    assert problem is None or isinstance(problem, str)


@given(amounts)
def test_base_units_are_exact_and_in_range_or_a_typed_rejection(amount):
    try:
        value = base_units(amount)
    except MoneyError as exc:
        assert exc.code in ("type", "maximum")
    else:
        assert 0 <= value <= AMOUNT_MAX and value == Decimal(amount.strip())


@given(st.one_of(amounts, st.floats(), st.integers(), st.booleans(), st.none()))
def test_a_dollar_price_is_in_range_or_a_typed_rejection(value):
    try:
        price = dollars(value)
    except MoneyError as exc:
        assert exc.code in ("type", "maximum")
    else:
        assert 0 <= price <= PRICE_USD_MAX


def test_prices_beyond_any_sane_range_are_rejected_not_overflowed():
    assert usd_price("0xabc", "1", {"name": "USDC", "decimals": 999_999_999_999}) is None
    assert usd_price(USDC, "1e999999999999999999") is None and usd_price(USDC, "9" * 90) is None
    assert "outside 0..36" in amount_problem("0xabc", "1", {"name": "USDC", "decimals": 10**12})
    assert "2^256" in amount_problem(USDC, "9" * 90)
    assert (
        usd_price(USDC, "10000") == 0.01
        and usd_price("0xabc", "1", {"name": "USDC", "decimals": DECIMALS_MAX}) == 1e-36
    )


@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "scheme": st.just("exact"),
                "network": st.sampled_from(["base", "eip155:8453"]),
                "asset": st.sampled_from([USDC, "0xabc"]),
                "amount": amounts,
                "maxAmountRequired": amounts,
                "extra": extras,
            }
        ),
        max_size=3,
    )
)
def test_any_402_offer_is_read_without_a_crash(accepts):
    offers, _ = parse_402({}, json.dumps({"x402Version": 1, "accepts": accepts}).encode())
    assert all(o.price_usd is None or math.isfinite(o.price_usd) for o in offers)
    document = {
        "x402Version": 2,
        "items": [{"resource": {"url": "https://a.test/x"}, "type": "http", "accepts": accepts}],
    }
    result = x402_discovery.parse(json.dumps(document).encode(), origin="a.test")
    if result.listing is None:  # a NaN among the decimals: JSON has none, a typed finding
        assert {f.code for f in result.findings} == {"non_finite"}
    else:
        assert all(p is None or math.isfinite(p) for p in result.listing.extra.get("prices", {}).values())


@pytest.mark.slow
def test_an_origin_of_hostile_numbers_is_crawled_and_its_offers_are_findings(tmp_path):
    db = open_db(tmp_path / "catalogue.db")
    with SampleWeb(HOSTILE_ROOT) as web:
        net = web.network_options(deadline=60)
        summary = asyncio.run(crawl(db, ["numbers.test", "poisoned.test"], net, verify=False))

        async def status():
            async with net.fetcher() as fetcher:
                return await fetcher.fetch("https://numbers.test/status", kind="page", max_bytes=1000), fetcher.stats

        record, stats = asyncio.run(status())
    assert summary.internal == 0
    assert get_listing(db, "numbers.test")["status"] == "listed"
    assert get_listing(db, "poisoned.test")["status"] == "listed"
    findings = {
        (f["path"], f["code"]): f["message"]
        for f in db.query(
            "SELECT path, code, message FROM findings WHERE origin = 'numbers.test' AND format = 'x402_discovery'"
        )
    }
    assert "outside 0..36" in findings[("items[0].accepts[0].amount", "maximum")]
    assert "2^256" in findings[("items[1].accepts[0].amount", "maximum")]
    assert ("items[2].accepts[0].amount", "maximum") not in findings
    # Retry-After: ² is no number: the 503 is final, not a crash and not retried.
    assert record.error_code == "http_status" and record.status == 503 and stats.requests == 2  # robots.txt + one

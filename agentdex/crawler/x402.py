"""Reading the payment requirements of an x402 ``402 Payment Required`` answer. Pure.

Two forms exist: version 1 puts ``{"x402Version": 1, "accepts": [...]}`` in the body with
``maxAmountRequired`` in the asset's base units and a network name (``base``); version 2
puts a base64 JSON document in the ``PAYMENT-REQUIRED`` header with ``amount`` and a CAIP-2
network (``eip155:8453``). agentdex reads both and turns each offer into a price in USD
when the asset is a dollar stablecoin it knows; it never pays.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from agentdex.formats._load import loads as safe_loads
from agentdex.formats.x402_money import V1_NETWORKS, usd_price

HEADER_NAMES = ("payment-required", "x-payment-required")


@dataclass(frozen=True, slots=True)
class Offer:
    """One way to pay that a 402 answer accepts."""

    version: int
    scheme: str
    network: str  # CAIP-2
    asset: str
    amount: str  # base units, as sent
    price_usd: float | None  # None when the asset is not a known dollar stablecoin
    pay_to: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def parse_402(headers: dict[str, str], body: bytes | None) -> tuple[list[Offer], str | None]:
    """The offers of a 402 answer (header form first, then body) and a problem, if any."""
    for name in HEADER_NAMES:
        if headers.get(name):
            doc, problem = _decode_header(headers[name])
            if doc is not None:
                return _offers(doc), None
            return [], problem
    if body:
        try:
            doc = safe_loads(body.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError and JSONDecodeError included
            return [], "the 402 body is not JSON and no PAYMENT-REQUIRED header was sent"
        if isinstance(doc, dict) and isinstance(doc.get("accepts"), list):
            return _offers(doc), None
    return [], "the 402 answer carries no x402 payment requirements"


def _decode_header(value: str) -> tuple[dict | None, str | None]:
    try:
        raw = base64.b64decode(value.strip() + "=" * (-len(value.strip()) % 4), validate=False)
        doc = safe_loads(raw.decode("utf-8"))
    except ValueError:  # binascii.Error, UnicodeDecodeError and JSONDecodeError included
        return None, "the PAYMENT-REQUIRED header is not base64-encoded JSON"
    return (doc, None) if isinstance(doc, dict) else (None, "the PAYMENT-REQUIRED header is not a JSON object")


def _offers(doc: dict) -> list[Offer]:
    declared = doc.get("x402Version")
    version = declared if isinstance(declared, int) else 1
    offers = []
    for item in doc.get("accepts") or []:
        if isinstance(item, dict):
            offers.append(_offer(version, item))
    return offers


def _offer(version: int, item: dict) -> Offer:
    network = str(item.get("network", ""))
    network = V1_NETWORKS.get(network, network)
    amount = str(item.get("amount", item.get("maxAmountRequired", "")))
    asset = str(item.get("asset", ""))
    return Offer(
        version,
        str(item.get("scheme", "")),
        network,
        asset,
        amount,
        usd_price(asset, amount, item.get("extra")),
        str(item.get("payTo", "")),
    )


def compare_price(declared: float | None, offers: list[Offer]) -> tuple[str, str]:
    """``(status, detail)`` for the declared price against the live offers: the live
    price wins; a mismatch is recorded."""
    live = [o.price_usd for o in offers if o.price_usd is not None]
    if not live:
        return "warn", "the 402 answer names no price in a known dollar stablecoin"
    if declared is None:
        return "pass", f"live price ${min(live):g}; none declared"
    if any(abs(p - declared) < 1e-9 for p in live):
        return "pass", f"live price ${declared:g} matches the declared price"
    return "fail", f"declared ${declared:g} but the live 402 asks ${min(live):g}; the live price wins"

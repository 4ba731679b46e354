"""Prices in x402 offers, in US dollars. Pure.

x402 states an amount in the asset's base units; agentdex turns it into dollars for the
dollar stablecoins it knows (USDC on the networks x402 facilitators support). Shared by the
live 402 reader (``crawler/x402.py``) and the ``/.well-known/x402`` discovery format.

Every amount is read with bounded exact arithmetic: :data:`MONEY` is a decimal context
whose precision and exponents are bounded and whose every signal but rounding raises, so no
offer can overflow it or make it compute with a million digits. The stated ranges: an amount
is ``0 <= amount <= AMOUNT_MAX`` base units (2^256 - 1, the largest an EVM token holds),
written in ASCII digits with an optional fraction; an asset has ``0..DECIMALS_MAX`` decimals.
Anything beyond is no price (``usd_price`` gives ``None``) and :func:`amount_problem` says
why, for a finding.
"""

from __future__ import annotations

import re
from decimal import (
    Clamped,
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    FloatOperation,
    InvalidOperation,
    Overflow,
    Underflow,
)
from typing import Any

V1_NETWORKS = {
    "base": "eip155:8453",
    "base-sepolia": "eip155:84532",
    "ethereum": "eip155:1",
    "polygon": "eip155:137",
    "polygon-amoy": "eip155:80002",
    "avalanche": "eip155:43114",
    "avalanche-fuji": "eip155:43113",
    "solana": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    "solana-devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
}
# USDC contracts (6 decimals) on the networks x402 facilitators support.
USD_ASSETS = {
    "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913": 6,  # Base
    "0x036cbd53842c5426634e7929541ec2318f3dcf7e": 6,  # Base Sepolia
    "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": 6,  # Ethereum
    "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359": 6,  # Polygon
    "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e": 6,  # Avalanche
    "epjfwjd5wm8xqzjz3rq1xp1kyhc1ovghmxmvh3n6mn8v": 6,  # Solana (compared lower-case)
}
AMOUNT_MAX = 2**256 - 1
DECIMALS_MAX = 36
# 100 significant digits hold AMOUNT_MAX (78 digits) with its fraction; exponents far
# beyond any amount / 10**DECIMALS_MAX. Rounding a fraction is no error; everything else is.
MONEY = Context(
    prec=100,
    Emax=200,
    Emin=-200,
    traps=[InvalidOperation, DivisionByZero, Overflow, Underflow, Clamped, FloatOperation],
)
_AMOUNT = re.compile(r"[0-9]{1,100}(?:\.[0-9]{1,100})?", re.ASCII)


PRICE_USD_MAX = 10**9  # a dollar price above a billion is no price an agent pays per call
_DOLLARS = re.compile(r"\$?([0-9]{1,30}(?:\.[0-9]{1,30})?(?:[eE][-+]?[0-9]{1,3})?)", re.ASCII)


class MoneyError(ValueError):
    """An amount, price or number of decimals that is unreadable (``code`` ``type``) or
    outside the stated range (``code`` ``maximum``); the message says which."""

    def __init__(self, message: str, code: str = "maximum") -> None:
        super().__init__(message)
        self.code = code


def dollars(value: Any) -> Decimal:
    """A price in dollars (``"0.01"``, ``"$0.01"``, the JSON number ``0.01``) as an exact
    Decimal in ``0..PRICE_USD_MAX``.

    :raises MoneyError: not such a number (``type``) or above ``PRICE_USD_MAX`` (``maximum``)
    """
    text = "" if isinstance(value, bool) or not isinstance(value, (str, int, float)) else str(value).strip()
    found = _DOLLARS.fullmatch(text)
    if found is None:
        raise MoneyError(f'{text[:40]!r} is not a price in dollars ("0.01")', "type")
    try:
        price = MONEY.create_decimal(found.group(1))
    except DecimalException as exc:  # an exponent beyond the context's bounds
        raise MoneyError(f"the price {text[:40]!r} is beyond {PRICE_USD_MAX} dollars") from exc
    if price > PRICE_USD_MAX:
        raise MoneyError(f"the price {text[:40]!r} is above {PRICE_USD_MAX} dollars")
    return price


def base_units(amount: Any) -> Decimal:
    """``amount`` (base units) as an exact Decimal in ``0..AMOUNT_MAX``.

    :raises MoneyError: not ASCII digits with an optional fraction, or beyond ``AMOUNT_MAX``
    """
    text = str(amount).strip()
    if not _AMOUNT.fullmatch(text):
        raise MoneyError(f"the amount {text[:40]!r} is not a number of base units (ASCII digits)", "type")
    value = MONEY.create_decimal(text)
    if value > AMOUNT_MAX:
        raise MoneyError(f"the amount {text[:40]!r} is above 2^256 - 1 base units, the most any token holds")
    return value


def asset_decimals(asset: str, extra: Any = None) -> int | None:
    """The decimals of ``asset`` when it is a dollar stablecoin agentdex knows (``None``
    otherwise). :raises MoneyError: ``extra.decimals`` beyond ``0..DECIMALS_MAX``"""
    decimals = USD_ASSETS.get(str(asset).lower())
    if decimals is not None or not isinstance(extra, dict):
        return decimals
    if str(extra.get("name", "")).upper() not in ("USDC", "USD COIN"):
        return None
    stated = extra.get("decimals", 6)
    number = _whole(stated)
    if number is None:
        return 6  # unreadable: USDC's own six
    if not 0 <= number <= DECIMALS_MAX:
        raise MoneyError(f"the asset's decimals {str(stated)[:40]} are outside 0..{DECIMALS_MAX}")
    return number


def _whole(value: Any) -> int | None:
    """An integer as JSON gives it, or a string of ASCII digits (a bounded count of them)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,40}", value.strip(), re.ASCII):
        return int(value)
    return None


def usd_price(asset: str, amount: Any, extra: Any = None) -> float | None:
    """``amount`` base units of ``asset`` in USD, for known dollar stablecoins; ``None``
    for another asset or an amount outside the stated range (see :func:`amount_problem`)."""
    try:
        decimals = asset_decimals(asset, extra)
        if decimals is None:
            return None
        return float(MONEY.divide(base_units(amount), MONEY.power(10, decimals)))
    except (MoneyError, DecimalException):
        return None


def amount_problem(asset: Any, amount: Any, extra: Any = None) -> str | None:
    """Why ``amount`` of ``asset`` is outside the stated range, or ``None`` when it is not
    (an unstated or unreadable amount is no problem of range)."""
    try:
        asset_decimals(str(asset or ""), extra)
        if amount is not None and str(amount).strip():
            base_units(amount)
    except MoneyError as exc:
        return str(exc) if exc.code == "maximum" else None
    return None

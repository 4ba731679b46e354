"""The payment terms an x402 discovery document declares for a resource, set against the offers
its live ``402 Payment Required`` answer makes. Pure.

A declared offer is ``{scheme, network, asset, amount, pay_to, price_usd}`` (``None`` where the
document does not say; an unfilled placeholder such as ``YOUR_WALLET_ADDRESS`` says nothing).
A live offer has the same keys (:meth:`agentdex.crawler.x402.Offer.to_dict`). The live 402 is
authoritative: a declared offer holds when one live offer carries every term it states.

Terms are compared in the order of :data:`TERMS`, each narrowing the live offers to those that
share it, so the difference reported is the first term no remaining live offer shares (a
payee that differs on the right network, rather than every offer on another network):

- ``network``: CAIP-2, x402 v1 names (``base``, case ignored: ``Base``) read as their CAIP-2 id;
- ``asset``: the contract address (case ignored for ``0x`` addresses); the symbol ``USDC``
  matches any dollar stablecoin agentdex knows;
- ``scheme``: case ignored; ``pay_to``: the address (case ignored for ``0x`` addresses);
- ``price``: dollars when both sides have a dollar price, else the amount in base units when
  both have one (a difference names the price in the unit compared); a declared dollar price
  set against a live offer in an asset agentdex cannot value is no difference (nothing to
  compare it with).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from agentdex.formats._discovery import template_in
from agentdex.formats.x402_money import USD_ASSETS, V1_NETWORKS, MoneyError, base_units, usd_price

TERMS = ("network", "asset", "scheme", "pay_to", "price")
USD_SYMBOLS = frozenset({"USDC", "USD COIN"})
PRICE_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Difference:
    """A declared term that no live offer shares: the declared value and the live ones."""

    term: str
    declared: Any
    live: tuple[Any, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {"term": self.term, "declared": self.declared, "live": list(self.live)}


def declared_offer(item: dict[str, Any], price_usd: float | None = None) -> dict[str, Any]:
    """The terms one declared offer states (an x402 ``PaymentRequirements`` object, or the
    ``{network, asset, address}`` of a top-level ``accepts``); ``price_usd`` is a price the
    document states in dollars beside it."""
    asset = _text(item.get("asset"))
    amount = _text(item.get("amount", item.get("maxAmountRequired")))
    network = _text(item.get("network"))
    if price_usd is None and asset and amount:
        price_usd = usd_price(asset, amount, item.get("extra"))
    if price_usd is not None and not math.isfinite(price_usd):
        price_usd = None
    return {
        "scheme": _text(item.get("scheme")),
        "network": V1_NETWORKS.get(network.lower(), network) if network else None,
        "asset": asset,
        "amount": amount,
        "pay_to": _text(item.get("payTo", item.get("address"))),
        "price_usd": price_usd,
    }


def _text(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    return text if text and template_in(text) is None else None


def differences(declared: list[dict[str, Any]], live: list[dict[str, Any]], *, price: bool = True) -> list[Difference]:
    """The first unshared term of each declared offer (none: every declared offer is live).
    ``price=False`` leaves the price out (the consistency check compares prices on its own)."""
    found = [difference(offer, live, price=price) for offer in declared]
    return list(dict.fromkeys(d for d in found if d is not None))


def difference(declared: dict[str, Any], live: list[dict[str, Any]], *, price: bool = True) -> Difference | None:
    """The first term of ``declared`` no live offer shares, or ``None`` when one carries them all."""
    candidates = list(live)
    for term in TERMS if price else TERMS[:-1]:
        value = stated(declared, term)
        if value is None:
            continue
        same = [offer for offer in candidates if _same(term, declared, offer)]
        if not same:
            if term == "price":  # in the unit compared: dollars, or base units on both sides
                # A side without a comparable price (key None) is shown as stated, never indexed.
                key = _price_key(declared, candidates[0])
                value = declared[key] if key else value
                shown = {offer[k] for offer in candidates if (k := _price_key(declared, offer))}
            else:
                shown = {stated(offer, term) for offer in candidates} - {None}
            return Difference(term, value, tuple(sorted(shown, key=str)))
        candidates = same
    return None


def stated(offer: dict[str, Any], term: str) -> Any:
    """The value an offer states for ``term`` (the price in dollars, else its amount)."""
    if term == "price":
        return offer.get("price_usd") if offer.get("price_usd") is not None else offer.get("amount")
    return offer.get(term)


def _same(term: str, declared: dict[str, Any], live: dict[str, Any]) -> bool:
    if term == "price":
        return _same_price(declared, live)
    if term == "asset" and str(declared["asset"]).upper() in USD_SYMBOLS:
        return live.get("price_usd") is not None or str(live.get("asset", "")).lower() in USD_ASSETS
    return _folded(term, str(declared[term])) == _folded(term, str(live.get(term) or ""))


def _price_key(declared: dict[str, Any], live: dict[str, Any]) -> str | None:
    """What a price is compared by: ``price_usd`` when both sides have one, else ``amount``
    when both do, else ``None`` (dollars on one side, base units of an unknown asset on the other)."""
    if declared.get("price_usd") is not None and live.get("price_usd") is not None:
        return "price_usd"
    return "amount" if declared.get("amount") is not None and live.get("amount") else None


def _same_price(declared: dict[str, Any], live: dict[str, Any]) -> bool:
    key = _price_key(declared, live)
    if key is None:
        return True  # no unit in common: the live price cannot be said to differ
    if key == "price_usd":
        return abs(declared["price_usd"] - live["price_usd"]) <= PRICE_TOLERANCE
    try:
        return base_units(declared["amount"]) == base_units(live["amount"])
    except MoneyError:  # unreadable or beyond range: no price to be the same
        return False


def _folded(term: str, value: str) -> str:
    # Schemes, EVM addresses and eip155 ids ignore case; base58 (Solana) addresses do not.
    return value.lower() if term == "scheme" or value.lower().startswith(("0x", "eip155:")) else value

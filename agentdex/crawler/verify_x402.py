"""The live 402 of the paid resources an origin's x402 discovery document declares
(``/.well-known/x402``): the ``x402.live_price`` check.

Each resource the document names on the origin itself (https, the same host) is asked once,
with the method the document gives (GET when it gives none), without paying and under the
fetch policy, robots.txt included. At most :data:`MAX_RESOURCES` an origin are asked; the rest,
and the resources agentdex does not ask (another host, a route template, an MCP item that
charges per tool call, a method that could change something), are named in the check's
detail and data. The answer is read with :mod:`agentdex.crawler.x402` and its offers are set
against the declared ones (:func:`agentdex.formats.x402_offers.differences`).

Each outcome is one of: ``match`` (a 402 whose offers carry every declared term: pass),
``differs`` (a declared term no live offer shares: fail), ``free`` (2xx without payment: fail),
``not_402`` (any other answer, or none: warn), ``unreadable`` (a 402 without x402 payment
requirements: warn), ``blocked`` (never asked: robots.txt or the address guard: warn). The
cross-check (:mod:`agentdex.crawler.crosscheck`) turns the same data into disagreements.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import urlsplit

from agentdex.crawler import x402
from agentdex.crawler.origins import origin_of, origin_url
from agentdex.formats import x402_discovery
from agentdex.formats._discovery import normalise_url
from agentdex.formats.x402_offers import differences
from agentdex.headers import SAFE_METHODS
from agentdex.models import Check, FetchRecord, Listing, OriginCrawl

NAME = "x402.live_price"
ROLE = "x402"  # the fetch kind and endpoint-health role of a probed resource
MAX_RESOURCES = 5
MAX_BYTES = 64 * 1024
# An unpaid request to an x402 route is refused before it runs; to a route that is free after
# all it would run, so agentdex sends only the safe methods (RFC 9110 9.2.1): a POST, common
# as x402 routes are, may create or send something, and is named, not asked.
_TEMPLATE = re.compile(r"\{[^}]*\}|/:[A-Za-z_]")
_METHOD = re.compile(r"[A-Z]{1,16}")
_BLOCKED = {"blocked_address", "robots", "invalid_url", "scheme", "cross_origin"}
_STATUS = {
    "match": "pass",
    "differs": "fail",
    "free": "fail",
    "not_402": "warn",
    "unreadable": "warn",
    "blocked": "warn",
}


def document_of(crawl: OriginCrawl) -> tuple[Listing, str] | None:
    """The x402 discovery document this crawl read (its listing) and where it was read."""
    result = crawl.results.get(x402_discovery.NAME)
    if result is None or result.listing is None:
        return None
    return result.listing, crawl.read_at(x402_discovery.NAME) or origin_url(
        crawl.origin, x402_discovery.WELL_KNOWN_PATHS[0]
    )


def plan(listing: Listing, origin: str) -> tuple[list[tuple[str, str]], list[dict[str, str]]]:
    """``(asked, skipped)``: the ``(method, url)`` to ask, in the document's order, and each
    resource not asked with the reason."""
    home = origin_of(origin_url(origin))
    mcp = {normalise_url(u) for u in listing.facts.mcp_urls}
    asked: list[tuple[str, str]] = []
    skipped: list[dict[str, str]] = []
    for resource in listing.facts.resources:
        method, url = str(resource.get("method") or "GET").upper(), str(resource.get("url", ""))
        reason = _not_asked(method, url, home, mcp)
        if reason is None and (method, url) in asked:
            continue
        if reason is None and len(asked) >= MAX_RESOURCES:
            reason = f"over the limit of {MAX_RESOURCES} resources an origin"
        if reason is None:
            asked.append((method, url))
        else:
            skipped.append({"method": method, "url": url, "reason": reason})
    return asked, skipped


def _not_asked(method: str, url: str, home: str, mcp: set[str]) -> str | None:
    parts = urlsplit(url)
    if origin_of(url) != home:  # RFC 6454, as every same-origin rule of the crawler (a port that is none: no origin)
        return "not on this origin"
    if _TEMPLATE.search(parts.path):
        return "a route template, not one URL"
    if normalise_url(url) in mcp:
        return "an MCP resource charges per tool call, which agentdex never makes"
    if method not in SAFE_METHODS:
        return f"agentdex never sends {method}" if _METHOD.fullmatch(method) else "not an HTTP method"
    return None


async def x402_checks(verifier, crawl: OriginCrawl) -> list[Check]:
    """``x402.live_price`` for the crawl's x402 discovery document (skip without one)."""
    found = document_of(crawl)
    if found is None:
        return [Check(NAME, "skip", "no x402 discovery document (/.well-known/x402)")]
    listing, where = found
    asked, skipped = plan(listing, crawl.origin)
    if not asked:
        return [
            Check(
                NAME,
                "skip",
                "no resource to ask" + skipped_note(skipped),
                {"document": where, "resources": {}, "skipped": skipped},
            )
        ]
    # A 402 is the answer asked for: no error of the crawl.
    records = await asyncio.gather(
        *(verifier.get(url, ROLE, MAX_BYTES, method=method, expected=(402,)) for method, url in asked)
    )
    offers = listing.facts.offers
    outcomes = [
        outcome(m, u, r, [dict(o) for o in offers.get(normalise_url(u), ())])
        for (m, u), r in zip(asked, records, strict=True)
    ]
    return [summary(outcomes, skipped, where)]


def outcome(method: str, url: str, record: FetchRecord, declared: list[dict[str, Any]]) -> dict[str, Any]:
    """What one resource answered an unpaid request, set against its declared offers."""
    out: dict[str, Any] = {
        "url": url,
        "method": method,
        "status": record.status,
        "error": record.error,
        "asked": record.error_code not in _BLOCKED,
        "declared": declared,
        "offers": [],
        "live_usd": None,
        "differences": [],
    }
    if not out["asked"]:
        return {**out, "result": "blocked"}
    if record.status is not None and 200 <= record.status < 300:
        return {**out, "result": "free", "error": None}
    if record.status != 402:
        return {**out, "result": "not_402"}
    live, problem = x402.parse_402(record.headers, record.body)
    if problem or not live:
        return {**out, "result": "unreadable", "error": problem or "the 402 answer offers no way to pay"}
    offers = [o.to_dict() for o in live]
    found = differences(declared, offers)
    return {
        **out,
        "error": None,
        "offers": offers,
        "result": "differs" if found else "match",
        "live_usd": min((o.price_usd for o in live if o.price_usd is not None), default=None),
        "differences": [d.to_dict() for d in found],
    }


def summary(outcomes: list[dict[str, Any]], skipped: list[dict[str, str]], where: str) -> Check:
    """The check over every resource asked: its worst status, one sentence a resource."""
    statuses = {_STATUS[o["result"]] for o in outcomes}
    status = next(s for s in ("fail", "warn", "pass") if s in statuses)
    detail = "; ".join(_sentence(o, where) for o in outcomes) + skipped_note(skipped)
    return Check(
        NAME, status, detail, {"document": where, "resources": {o["url"]: o for o in outcomes}, "skipped": skipped}
    )


def _sentence(o: dict[str, Any], where: str) -> str:
    url, result = o["url"], o["result"]
    if result == "match":
        price = f"${o['live_usd']:g}" if o["live_usd"] is not None else "a price in an asset agentdex cannot value"
        return f"{url}: the live 402 asks {price}" + (", as declared" if o["declared"] else "; no terms declared")
    if result == "differs":
        return f"{url}: " + ", ".join(
            f"{d['term']} declared {_show(d['declared'])} in {where} but the live 402 "
            f"offers {', '.join(_show(v) for v in d['live']) or 'none'}"
            for d in o["differences"]
        )
    if result == "free":
        return f"{url}: answered HTTP {o['status']} without payment, though {where} declares it paid"
    if result == "not_402":
        got = f"HTTP {o['status']}" if o["status"] is not None else o["error"]
        return f"{url}: an unpaid {o['method']} got {got}, not 402"
    return f"{url}: " + (f"not asked ({o['error']})" if result == "blocked" else str(o["error"]))


def _show(value: Any) -> str:
    return f"${value:g}" if isinstance(value, float) else str(value)


def skipped_note(skipped: list[dict[str, str]]) -> str:
    """The end of a check's detail that counts the resources not asked, by reason (``""``
    when every one was asked)."""
    if not skipped:
        return ""
    reasons: dict[str, int] = {}
    for item in skipped:
        reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
    return f"; {len(skipped)} resource(s) not asked: " + ", ".join(f"{n} {why}" for why, n in reasons.items())


def live_answers(checks: list[Check] | None) -> dict[str, dict[str, Any]]:
    """``{resource URL: {url, status, error, offers}}`` of the resources the check asked (the
    cross-check's ``live_402``)."""
    return {
        url: {k: o.get(k) for k in ("url", "status", "error", "offers")}
        for url, o in _resources(checks).items()
        if isinstance(o, dict) and o.get("asked")
    }


def live_prices(checks: list[Check] | None) -> dict[str, float]:
    """``{resource URL: USD}`` the live 402s asked (for the cross-check's price comparison)."""
    return {
        url: float(o["live_usd"])
        for url, o in _resources(checks).items()
        if isinstance(o, dict) and isinstance(o.get("live_usd"), (int, float))
    }


def _resources(checks: list[Check] | None) -> dict[str, Any]:
    """The ``resources`` of the ``x402.live_price`` check among ``checks`` (``{}`` without one)."""
    check = next((c for c in checks or [] if c.name == NAME), None)
    resources = (check.data or {}).get("resources") if check is not None else None
    return resources if isinstance(resources, dict) else {}

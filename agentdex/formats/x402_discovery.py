"""x402 discovery documents (``/.well-known/x402``, and the draft's ``/.well-known/x402.json``).

No ratified spec exists; agentdex reads the three shapes found on real sites:

* The deployed form indexed by x402scan: ``{"version": 1, "resources": [...]}`` where each
  resource is ``"METHOD /path"``, a path, or an absolute URL; optional ``ownershipProofs``
  (strings) and ``instructions`` (markdown for agents, kept as untrusted text, never acted on).
* The x402 foundation's draft ``specs/extensions/well-known-discovery.md``:
  ``{"x402Version": 2, "lastUpdated", "items": [{"resource": {"url", …}, "type": "http" |
  "mcp", "accepts": [PaymentRequirements], "input": {"method", "toolName", …}}]}``. Prices
  come from ``accepts`` (base units of a known dollar stablecoin); the draft calls them
  advisory: the live 402 is authoritative, which the consistency check compares.
* Resource objects ``{"path", "price", "description"}`` with a top-level ``accepts`` list
  (a pattern copied across many repositories); ``price`` is in dollars.

Findings: ``unsupported_version`` for another version number; ``required`` when the document
lists no resources at all; ``type``/``not_object``/``url`` for unreadable entries; an unfilled
placeholder (``YOUR_WALLET_ADDRESS``) as a ``placeholder_value`` warning.

Facts read: every paid resource (``extra["resources"]``, ``{method, url}`` made absolute
against the origin), their declared prices in dollars (``extra["prices"]``), the payment
terms declared for each (``extra["offers"]``: normalised URL -> offers ``{scheme, network,
asset, amount, pay_to, price_usd}``, ``None`` where unstated; the draft's ``accepts`` per item,
or the top-level ``accepts`` with each resource's ``price``), MCP endpoints and tool names of
``type: "mcp"`` items, and ``x402`` as the auth the resources ask for. The crawler compares
the offers with each resource's live 402 (:mod:`agentdex.crawler.verify_x402`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from agentdex.formats._check import Checker, join
from agentdex.formats._discovery import base_url, normalise_url, resolve, template_in, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.formats.x402_money import MoneyError, amount_problem, dollars, usd_price
from agentdex.formats.x402_offers import declared_offer
from agentdex.models import Listing, PaidResource, ParseResult, StatedFacts

NAME = "x402_discovery"
WELL_KNOWN_PATHS = ("/.well-known/x402", "/.well-known/x402.json")
MAX_BYTES = 256 * 1024
SPEC = FormatSpec(
    NAME,
    priority=150,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATHS[0],
    also_at=WELL_KNOWN_PATHS[1:],
    discovery=True,
    title="an x402 discovery document",
    keys=frozenset({"x402Version", "resources", "accepts", "ownershipProofs", "items", "instructions"}),
    detect_rank=40,
)
VERSIONS = {"version": 1, "x402Version": 2}
_METHOD_RE = re.compile(r"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(\S+)", re.I)


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an x402 discovery document."""
    return read_document(
        data, validate_document, name=NAME, what="x402 discovery document", max_bytes=MAX_BYTES, origin=origin
    )


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is an x402 discovery document."""
    return isinstance(doc, dict) and (
        "x402Version" in doc
        or ("resources" in doc and ("version" in doc or "accepts" in doc or "ownershipProofs" in doc))
    )


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded x402 discovery document and read the resources and prices it states."""
    c = Checker()
    if not isinstance(doc, dict):
        c.error("", "not_object", "an x402 discovery document must be a JSON object")
        return ParseResult(NAME, None, c.findings, doc)
    _version(c, doc)
    base = base_url(origin)
    resources: list[PaidResource] = []
    prices: dict[str, float] = {}
    offers: dict[str, list[dict[str, Any]]] = {}
    mcp: dict[str, list[str]] = {"urls": [], "tools": []}
    if "items" in doc:
        _items(c, doc, base, resources, prices, mcp, offers)
    if "resources" in doc:
        _resources(c, doc, base, resources, prices, offers)
    if "items" not in doc and "resources" not in doc:
        c.error("resources", "required", "the document lists no paid resources (resources or items)")
    _placeholders(c, doc)
    stated = StatedFacts(
        resources=resources,
        prices=prices,
        offers=offers,
        mcp_urls=unique(mcp["urls"]),
        mcp_tools=unique(mcp["tools"]) or None,
    )
    return ParseResult(NAME, _listing(c, doc, origin, stated), c.findings, doc)


def _listing(c: Checker, doc: dict, origin: str | None, stated: StatedFacts) -> Listing:
    """The listing a discovery document stands for (x402 its auth, its first MCP endpoint),
    the facts it states kept in ``extra`` with its instructions and ownership proofs."""
    instructions = doc.get("instructions") if isinstance(doc.get("instructions"), str) else None
    urls = stated["mcp_urls"]
    listing = Listing(
        format=NAME,
        origin=origin,
        name=c.string(doc, "name", ""),
        description=c.string(doc, "description", ""),
        auth_methods=["x402"],
        mcp_url=urls[0] if urls else None,
    )
    listing.extra = {
        **stated,
        "auth": ["x402"],
        "instructions": instructions,
        "ownership_proofs": [p for p in doc.get("ownershipProofs") or [] if isinstance(p, str)]
        if isinstance(doc.get("ownershipProofs"), list)
        else [],
    }
    return listing


def _version(c: Checker, doc: dict) -> None:
    for key, expected in VERSIONS.items():
        if key in doc and doc[key] != expected:
            c.error(key, "unsupported_version", f"{key} is {doc[key]!r}; agentdex reads {key} {expected}")


def _resources(c: Checker, doc: dict, base: str | None, out: list[PaidResource], prices: dict, offers: dict) -> None:
    # The top-level ``accepts`` (network, asset, address) are the terms of every resource.
    terms = [a for a in doc.get("accepts") or [] if isinstance(a, dict)] if isinstance(doc.get("accepts"), list) else []
    for i, item in enumerate(c.array(doc, "resources", "") or []):
        where = join("resources", i)
        method: str | None
        url: Any
        if isinstance(item, str):
            method, url = _method_url(item)
        elif isinstance(item, dict):
            method, url = None, item.get("url") or item.get("path")
        else:
            c.error(where, "type", f'{where} must be a string ("GET /path") or an object')
            continue
        absolute = resolve(url, base, templates=True)
        if absolute is None and base is None and isinstance(url, str) and url.startswith("/"):
            continue  # a path read with no origin (``agentdex validate`` on a file): fine, nothing to resolve
        if absolute is None:
            c.error(where, "url", f"{where} names no path or URL agentdex can read: {str(url)[:80]!r}")
            continue
        out.append({"method": method, "url": absolute})
        key = normalise_url(absolute)
        if isinstance(item, dict) and "price" in item:
            _price(c, item["price"], where, key, prices)
        if terms or key in prices:
            offers[key] = [declared_offer(t, prices.get(key)) for t in terms or [{}]]


def _price(c: Checker, value: Any, where: str, key: str, prices: dict) -> None:
    try:
        prices[key] = float(dollars(value))
    except MoneyError as exc:
        if exc.code == "maximum":
            c.error(join(where, "price"), "maximum", f"{where}.price: {exc}")
        else:
            c.error(
                join(where, "price"),
                "type",
                f'{where}.price must be a price in dollars ("0.01"), not {str(value)[:40]!r}',
            )


def _items(
    c: Checker, doc: dict, base: str | None, out: list[PaidResource], prices: dict, mcp: dict, offers: dict
) -> None:
    for i, item in enumerate(c.array(doc, "items", "") or []):
        where = join("items", i)
        if not isinstance(item, dict):
            c.error(where, "not_object", f"{where} must be an object")
            continue
        resource = c.obj(item, "resource", where, required=True) or {}
        url = resolve(c.string(resource, "url", join(where, "resource"), required=True), base, templates=True)
        kind = c.enum(item, "type", where, ("http", "mcp"), required=True)
        given = item.get("input")
        entry_input: dict[str, Any] = given if isinstance(given, dict) else {}
        if url is None:
            continue
        out.append({"method": entry_input.get("method"), "url": url})
        if kind == "mcp":
            mcp["urls"].append(url)
            mcp["tools"].append(str(entry_input.get("toolName") or ""))
        accepts = [a for a in c.array(item, "accepts", where) or [] if isinstance(a, dict)]
        _amounts(c, accepts, join(where, "accepts"))
        if accepts:
            offers[normalise_url(url)] = [declared_offer(a) for a in accepts]
        stated = (
            usd_price(str(a.get("asset", "")), str(a.get("amount", a.get("maxAmountRequired", ""))), a.get("extra"))
            for a in accepts
        )
        offered = [p for p in stated if p is not None and math.isfinite(p) and p >= 0]
        if offered:
            prices[normalise_url(url)] = min(offered)


def _amounts(c: Checker, accepts: list[dict], where: str) -> None:
    """A warning for each offer whose amount or decimals lie beyond the range agentdex reads
    (:mod:`agentdex.formats.x402_money`): the offer has no price, the document stays readable."""
    for i, offer in enumerate(accepts):
        amount = offer.get("amount", offer.get("maxAmountRequired"))
        problem = amount_problem(offer.get("asset"), amount, offer.get("extra"))
        if problem:
            key = "amount" if "amount" in offer else "maxAmountRequired"
            c.warn(join(join(where, i), key), "maximum", f"{join(where, i)}: {problem}; it has no price")


def _method_url(text: str) -> tuple[str | None, str]:
    found = _METHOD_RE.fullmatch(text.strip())
    return (found.group(1).upper(), found.group(2)) if found else (None, text.strip())


def _placeholders(c: Checker, doc: dict) -> None:
    given = doc.get("accepts")
    for i, offer in enumerate(given if isinstance(given, list) else []):
        for key in ("address", "payTo"):
            found = template_in(offer.get(key)) if isinstance(offer, dict) else None
            if found:
                where = join(join("accepts", i), key)
                c.warn(
                    where, "placeholder_value", f"{where} holds the unfilled placeholder {found!r}: nobody can be paid"
                )

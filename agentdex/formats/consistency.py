"""Cross-format consistency: does what an origin says about itself agree across documents? Pure.

An origin may publish an agent-app manifest, an Anchor manifest, an A2A card, an MCP server
card, a server.json, an api-catalog, an x402 discovery document and an ai-catalog, and its MCP
server and 402 answers say more. :func:`facts_of` reads the same facts from any of them (a
:class:`Facts`); :func:`compare` sets them side by side, with the live MCP tool list and the
live 402 prices when the crawler has them, and returns a :class:`Consistency`: each
disagreement names both documents and both values, and a verdict:

- ``single-source``: fewer than two sources state anything comparable;
- ``consistent``: two or more do, and nothing disagrees;
- ``inconsistent``: at least one disagreement.

What counts as the same value (so only real disagreements are reported):

- **name**: case, spaces and punctuation ignored (``agora-docs-search`` = ``Agora Docs Search``);
- **MCP endpoint**, **API base**: URLs compared by :func:`~agentdex.formats._discovery.normalise_url`;
  documents naming several agree when they share one;
- **auth**: how the MCP endpoint is reached (``Listing.mcp_auth``: agent-app's ``mcp.auth``,
  Anchor's MCP tool auth, server cards and server.json); in agentdex's auth words, two
  documents agree when they share one (``other``, a word agentdex does not know, is never
  compared). An A2A card's schemes guard its A2A endpoint, agent-app's ``auth_methods`` are
  how a user signs in and x402 resources ask for payment: none of them is the MCP endpoint's
  auth, so none is compared with it;
- **publisher**: the name as for names; the publisher URL by host; the contact with ``mailto:``
  and case ignored;
- **tools**: the MCP tool names a document declares against the live ``tools/list``: declared
  but not listed (``tool_not_listed``), listed but not declared (``tool_not_declared``);
- **prices**: dollar prices per resource URL, between documents and against the live 402;
- **x402 terms**: each paid resource an x402 discovery document declares, against its live
  answer to an unpaid request (``live_402``): a 2xx is ``payment_not_required``, any other
  answer but a readable x402 402 ``payment_not_asked``, and a declared network, asset,
  scheme or payee no live offer shares ``x402_terms_differ``
  (:func:`agentdex.formats.x402_offers.differences`; the price is compared as above).

- **server card vs live probe** (:func:`against_live_servers`): the name the server reports,
  the protocol revisions the probe saw, and the endpoint a card is served at; cards are
  advisory, so a difference is a finding and the probe's answer stands.

A disagreement with a live answer names the document's URL when it is known
(``declared at https://…/.well-known/x402``); its fact names the resource.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any
from urllib.parse import urlsplit

from agentdex.formats._discovery import auth_words, normalise_url
from agentdex.formats.x402_offers import differences
from agentdex.models import CardFacts, CrossFacts, Finding, Listing, ParseResult

LIVE_MCP = "live MCP tools/list"
LIVE_402 = "live 402"
LIVE_PROBE = "live MCP probe"  # serverInfo and the revisions an endpoint answered in
CARD_SUFFIX = "/server-card"  # where SEP-2127 lets a server host its card (server_card.card_url)
VERDICTS = ("consistent", "inconsistent", "single-source")
# fact -> finding code (tools and prices have their own codes below)
CODES = {
    "name": "name_differs",
    "mcp_endpoint": "mcp_endpoint_differs",
    "api_base": "api_base_differs",
    "auth": "auth_differs",
    "publisher": "publisher_differs",
    "publisher_url": "publisher_differs",
    "contact": "contact_differs",
}
# Codes of a paid resource's live answer against the x402 discovery document declaring it.
LIVE_402_CODES = ("payment_not_required", "payment_not_asked", "x402_terms_differ")
PRICE_TOLERANCE = 1e-9
_NOT_ALNUM = re.compile(r"[\W_]+")


@dataclass(frozen=True, slots=True)
class Facts:
    """What one document states about its origin, normalised for comparison (``None`` or
    empty: the document does not say)."""

    document: str
    name: str | None = None
    mcp_urls: tuple[str, ...] = ()
    api_bases: tuple[str, ...] = ()
    auth: tuple[str, ...] = ()
    publisher: str | None = None
    publisher_url: str | None = None
    contact: str | None = None
    tools: tuple[str, ...] | None = None  # declared MCP tool names
    prices: dict[str, float] = field(default_factory=dict)  # normalised resource URL -> USD
    paid: tuple[str, ...] = ()  # normalised URLs of the resources declared paid (x402 discovery)
    offers: dict[str, tuple[dict, ...]] = field(default_factory=dict)  # normalised URL -> declared x402 offers
    url: str | None = None  # where the document was read, when known

    def states_anything(self) -> bool:
        """Whether the document states any fact that can be compared."""
        return any(
            (
                self.name,
                self.mcp_urls,
                self.api_bases,
                self.comparable_auth(),
                self.publisher,
                self.publisher_url,
                self.contact,
                self.tools is not None,
                self.prices,
                self.paid,
            )
        )

    def where(self) -> str:
        """``declared at <url>`` for a disagreement with a live answer (empty when unknown)."""
        return f"declared at {self.url}" if self.url else ""

    def comparable_auth(self) -> set[str]:
        """The auth words that can be compared (``other`` cannot)."""
        return set(self.auth) - {"other"}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Two sources that state one fact differently."""

    fact: str
    code: str
    first: str  # a document's name, or LIVE_MCP / LIVE_402
    first_value: Any
    second: str
    second_value: Any
    detail: str = ""  # what in particular differs, when the values are lists

    @property
    def message(self) -> str:
        """One sentence naming both sources and both values."""
        said = (
            f"{self.fact}: {self.first} says {_show(self.first_value)} "
            f"but {self.second} says {_show(self.second_value)}"
        )
        return f"{said} ({self.detail})" if self.detail else said

    def finding(self) -> Finding:
        """The disagreement as a warning finding located at the fact."""
        return Finding("warning", self.fact, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for storage and ``--json``."""
        return {
            "fact": self.fact,
            "code": self.code,
            "first": self.first,
            "first_value": self.first_value,
            "second": self.second,
            "second_value": self.second_value,
            "detail": self.detail,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Consistency:
    """The verdict for one origin and every disagreement behind it."""

    verdict: str
    sources: tuple[str, ...]
    disagreements: tuple[Disagreement, ...] = ()

    @property
    def findings(self) -> list[Finding]:
        """Every disagreement as a finding."""
        return [d.finding() for d in self.disagreements]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for storage and ``--json``."""
        return {
            "verdict": self.verdict,
            "sources": list(self.sources),
            "disagreements": [d.to_dict() for d in self.disagreements],
        }


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple, set, frozenset)):
        return "[" + ", ".join(repr(v) for v in sorted(value, key=str)) + "]" if value else "nothing"
    return repr(value) if not isinstance(value, float) else f"${value:g}"


# -- reading facts --------------------------------------------------------------------------------
def facts_of(source: ParseResult | Listing, document: str | None = None, url: str | None = None) -> Facts:
    """The comparable facts of a parsed document of any format (manifest or discovery);
    ``url`` is where it was read."""
    listing = source.listing if isinstance(source, ParseResult) else source
    name = document or (source.format if isinstance(source, ParseResult) else listing.format if listing else "?")
    if listing is None:
        return Facts(document=name, url=url)
    facts = listing.facts
    mcp_urls = _urls(facts.mcp_urls or [listing.mcp_url, *_anchor_endpoints(facts, "mcp")])
    api_bases = _urls(facts.api_bases or [listing.http_base, *_anchor_endpoints(facts, "http", "openapi")])
    return Facts(
        document=name,
        name=listing.name,
        mcp_urls=mcp_urls,
        api_bases=api_bases,
        auth=tuple(auth_words(list(listing.mcp_auth))),
        publisher=listing.publisher_name,
        publisher_url=listing.publisher_url,
        contact=listing.publisher_contact,
        tools=facts.mcp_tools,
        prices=_prices(facts),
        paid=_paid(facts),
        offers={url: tuple(dict(o) for o in offers) for url, offers in facts.offers.items()},
        url=url,
    )


def _paid(facts: CrossFacts) -> tuple[str, ...]:
    # Only an x402 discovery document lists its paid resources (``resources``); its MCP
    # items charge per tool call, which no unpaid request can show.
    mcp = set(_urls(facts.mcp_urls))
    found = _urls(r.get("url") for r in facts.resources)
    return tuple(u for u in found if u not in mcp)


def _urls(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(normalise_url(v) for v in values if isinstance(v, str) and v))


def _anchor_endpoints(facts: CrossFacts, *kinds: str) -> list[Any]:
    """The declared endpoints, unchecked: :func:`_urls` keeps the strings."""
    return [t.get("endpoint") for t in facts.anchor_tools if t.get("kind") in kinds and t.get("transport") != "stdio"]


def _prices(facts: CrossFacts) -> dict[str, float]:
    prices = {normalise_url(k): v for k, v in facts.prices.items()}
    # Anchor prices a tool's endpoint (the resource its live 402 answers for); a payment's
    # ``discovery`` is where x402 discovery data lives, not the resource (Anchor v0.1).
    for tool in facts.anchor_tools:
        endpoint = tool.get("endpoint")
        if not isinstance(endpoint, str):
            continue
        for payment in tool.get("payments") or []:
            if (
                isinstance(payment, dict)
                and payment.get("protocol") == "x402"
                and isinstance(payment.get("priceUsd"), (int, float))
            ):
                prices.setdefault(normalise_url(endpoint), float(payment["priceUsd"]))
    return prices


# -- comparing ------------------------------------------------------------------------------------
def compare(
    documents: Iterable[Facts],
    *,
    live_tools: Iterable[str] | None = None,
    live_prices: dict[str, float] | None = None,
    live_402: dict[str, dict] | None = None,
) -> Consistency:
    """Compare the facts of one origin's documents with each other and with what is live
    (``live_tools``: the names ``tools/list`` answered; ``live_prices``: ``{resource URL:
    USD}`` from 402 answers; ``live_402``: ``{resource URL: {url, status, error, offers}}``,
    the answers of the resources an x402 discovery document declares to an unpaid request).
    ``None`` means not probed."""
    stating = [d for d in documents if d.states_anything()]
    live_402 = {normalise_url(k): v for k, v in (live_402 or {}).items()}
    sources = (
        [d.document for d in stating]
        + ([LIVE_MCP] if live_tools is not None else [])
        + ([LIVE_402] if live_prices or live_402 else [])
    )
    found: list[Disagreement] = []
    for first, second in combinations(stating, 2):
        found += _pair(first, second)
    if live_tools is not None:
        found += _against_live_tools(stating, set(live_tools))
    if live_prices:
        found += _against_live_prices(stating, {normalise_url(k): v for k, v in live_prices.items()})
    if live_402:
        found += _against_live_402(stating, live_402)
    verdict = "single-source" if len(sources) < 2 else ("inconsistent" if found else "consistent")
    return Consistency(verdict, tuple(sources), tuple(found))


def _pair(a: Facts, b: Facts) -> list[Disagreement]:
    checks: list[tuple[str, Any, Any, Callable[[Any, Any], bool]]] = [
        ("name", a.name, b.name, _same_text),
        ("mcp_endpoint", a.mcp_urls, b.mcp_urls, _overlap),
        ("api_base", a.api_bases, b.api_bases, _overlap),
        ("auth", a.comparable_auth(), b.comparable_auth(), _overlap),
        ("publisher", a.publisher, b.publisher, _same_text),
        ("publisher_url", a.publisher_url, b.publisher_url, _same_host),
        ("contact", a.contact, b.contact, _same_contact),
    ]
    out = [
        Disagreement(fact, CODES[fact], a.document, _plain(x), b.document, _plain(y))
        for fact, x, y, same in checks
        if x and y and not same(x, y)
    ]
    if a.tools is not None and b.tools is not None and set(a.tools) != set(b.tools):
        out.append(Disagreement("tools", "tools_differ", a.document, sorted(a.tools), b.document, sorted(b.tools)))
    for url in sorted(a.prices.keys() & b.prices.keys()):
        if abs(a.prices[url] - b.prices[url]) > PRICE_TOLERANCE:
            out.append(
                Disagreement(f"price {url}", "price_differs", a.document, a.prices[url], b.document, b.prices[url])
            )
    return out


def _plain(value: Any) -> Any:
    return sorted(value) if isinstance(value, (set, tuple, list)) else value


def _same_text(a: str, b: str) -> bool:
    return _NOT_ALNUM.sub("", a.casefold()) == _NOT_ALNUM.sub("", b.casefold())


def _overlap(a: Iterable[str], b: Iterable[str]) -> bool:
    return bool(set(a) & set(b))


def _host(url: str) -> str:
    return (urlsplit(url).hostname or url).lower().removeprefix("www.")


def _same_host(a: str, b: str) -> bool:
    return _host(a) == _host(b)


def _contact(value: str) -> str:
    return value.strip().lower().removeprefix("mailto:").rstrip("/")


def _same_contact(a: str, b: str) -> bool:
    return _contact(a) == _contact(b)


def _against_live_tools(documents: list[Facts], live: set[str]) -> list[Disagreement]:
    out = []
    for doc in documents:
        if doc.tools is None:
            continue
        missing, undeclared = sorted(set(doc.tools) - live), sorted(live - set(doc.tools))
        if missing:
            out.append(
                Disagreement(
                    "tools",
                    "tool_not_listed",
                    doc.document,
                    sorted(doc.tools),
                    LIVE_MCP,
                    sorted(live),
                    f"declared but not listed: {', '.join(missing)}",
                )
            )
        if undeclared:
            out.append(
                Disagreement(
                    "tools",
                    "tool_not_declared",
                    doc.document,
                    sorted(doc.tools),
                    LIVE_MCP,
                    sorted(live),
                    f"listed but not declared: {', '.join(undeclared)}",
                )
            )
    return out


def _against_live_prices(documents: list[Facts], live: dict[str, float]) -> list[Disagreement]:
    out = []
    for doc in documents:
        for url in sorted(doc.prices.keys() & live.keys()):
            if abs(doc.prices[url] - live[url]) > PRICE_TOLERANCE:
                out.append(
                    Disagreement(
                        f"price {url}", "price_differs", doc.document, doc.prices[url], LIVE_402, live[url], doc.where()
                    )
                )
    return out


def _against_live_402(documents: list[Facts], live: dict[str, dict]) -> list[Disagreement]:
    out = []
    for doc in documents:
        for url in sorted(set(doc.paid) & live.keys()):
            out += _resource_against_live(doc, url, live[url])
    return out


def _resource_against_live(doc: Facts, url: str, answer: dict) -> list[Disagreement]:
    status = answer.get("status")
    if isinstance(status, int) and 200 <= status < 300:
        return [
            Disagreement(
                f"payment {url}",
                "payment_not_required",
                doc.document,
                "payment required",
                LIVE_402,
                f"HTTP {status} without payment",
                doc.where(),
            )
        ]
    if status != 402 or not answer.get("offers"):
        said = (
            "a 402 without x402 payment requirements"
            if status == 402
            else f"HTTP {status}"
            if status is not None
            else str(answer.get("error") or "no answer")
        )
        return [
            Disagreement(
                f"payment {url}", "payment_not_asked", doc.document, "payment required", LIVE_402, said, doc.where()
            )
        ]
    return [
        Disagreement(
            f"{d.term} {url}", "x402_terms_differ", doc.document, d.declared, LIVE_402, list(d.live), doc.where()
        )
        for d in differences(list(doc.offers.get(url, ())), answer["offers"], price=False)
    ]


@dataclass(frozen=True, slots=True)
class LiveServer:
    """What the probe of one MCP endpoint saw: the name the server reports
    (``serverInfo.name``) and every protocol revision it answered in."""

    url: str
    name: str | None
    versions: tuple[str, ...] = ()


def against_live_servers(
    card: ParseResult, live: Iterable[LiveServer], served_at: str | None = None
) -> list[Disagreement]:
    """A server card against the live probes of the endpoints it names, and of the endpoint it
    is served at (``served_at``: ``<endpoint>/server-card``). Cards are advisory (SEP-2127 has
    clients prefer the runtime values), so a difference is a finding and the probe's answer
    stands: a reported name that is neither the card's ``title`` nor its ``name``
    (``name_differs``), revisions the card lists of which the probe saw none
    (``protocol_versions_differ``), and remotes that do not name the endpoint the card is
    served at (``mcp_endpoint_differs``)."""
    listing = card.listing
    if listing is None:
        return []
    probes = {normalise_url(p.url): p for p in live}
    endpoint = served_endpoint(served_at)
    found = _served_endpoint(card.format, listing, served_at, endpoint) if served_at and endpoint else []
    for entry in listing.facts.cards:
        urls = [*(entry.get("mcp_urls") or []), *([endpoint] if endpoint else [])]
        for key in dict.fromkeys(normalise_url(u) for u in urls):
            probe = probes.get(key)
            found += _card_against_probe(card.format, entry, probe) if probe is not None else []
    return found


def served_endpoint(served_at: str | None) -> str | None:
    """The endpoint whose card is at ``served_at`` (``<endpoint>/server-card``), else ``None``."""
    if not served_at or not served_at.endswith(CARD_SUFFIX):
        return None
    return served_at.removesuffix(CARD_SUFFIX) or None


def _served_endpoint(document: str, listing: Listing, served_at: str, endpoint: str) -> list[Disagreement]:
    urls = list(listing.facts.mcp_urls)
    if not urls or normalise_url(endpoint) in {normalise_url(u) for u in urls}:
        return []
    detail = f"the card is served at {served_at}, the place of the endpoint {endpoint}"
    return [
        Disagreement("served_endpoint", "mcp_endpoint_differs", document, sorted(urls), LIVE_PROBE, [endpoint], detail)
    ]


def _card_against_probe(document: str, entry: CardFacts, probe: LiveServer) -> list[Disagreement]:
    found = []
    names = [n for n in (entry.get("name"), entry.get("registry_name")) if isinstance(n, str) and n]
    names += [n.rsplit("/", 1)[-1] for n in names if "/" in n]  # test.host/tides: its server is "tides"
    if probe.name and names and not any(_same_text(probe.name, n) for n in names):
        where = f"serverInfo.name of {probe.url}"
        found.append(Disagreement("server_name", "name_differs", document, names[0], LIVE_PROBE, probe.name, where))
    listed = [v for v in entry.get("protocol_versions") or [] if isinstance(v, str)]
    if listed and probe.versions and not _overlap(listed, probe.versions):
        where = f"no revision in common at {probe.url}"
        found.append(
            Disagreement(
                "protocol_versions",
                "protocol_versions_differ",
                document,
                sorted(listed),
                LIVE_PROBE,
                sorted(probe.versions),
                where,
            )
        )
    return found

"""Listings from discovery documents: every agent-facing origin is a listing.

An origin that publishes no manifest of agentdex's own formats (agent-app, Anchor,
FindAgent, adapp, nor the inferred SKILL.md pair) is still an agent app when its
agent-facing documents say so: an MCP server card, an A2A agent card, an AI Catalog, the
MCP registry's ``server.json`` for a remote on the origin (named by a registry seed, or
found with ``crawl --registry-lookup``), an API catalog. Then the first of those documents
that gives a listing, in :data:`LISTING_ORDER` (a valid one before an invalid one), is the
origin's listing: its ``format`` is the document's format, its validity that format's rules,
and ``extra["provenance"]`` says where it came from (the document's URL, or the registry
entries that declared its endpoints). A manifest, where there is one, stays primary: the
discovery documents are then cross-checked with it as before.

Every MCP endpoint such a listing declares (a server card's remotes, the inline cards of an
AI Catalog, a registry entry's remotes) is probed by the verifier, the first with the
``mcp.*`` checks as a manifest's, each with its endpoint health row; so is every remote a
registry names on the origin, whatever the origin's listing (:func:`extra_endpoints`).

An AI Catalog's entries by URL (:func:`catalog_links`) are the documents of the origins their
URLs name: one on the catalog's own origin is read in the catalog's crawl, one elsewhere is
recorded under its origin (``seed_sources``, ``via`` ``catalog:<format>``, the catalog's URL
as the source) and that origin is crawled (:class:`Linked`); never is it stored under the
catalog's origin.

Pure: discovery and the crawl call these functions with what they fetched and read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from agentdex import formats
from agentdex.crawler.origins import origin_of, origin_url, public_origin
from agentdex.errors import InputError
from agentdex.formats import a2a_card as a2a_format
from agentdex.formats._discovery import normalise_url, unique
from agentdex.models import CrossFacts, Finding, Listing, ParseResult, StatedFacts

# The discovery formats that make a listing, in the order an origin's listing is chosen
# from them (the origin's own documents first; the registry's word after them).
LISTING_ORDER = formats.LISTING_DISCOVERY
REGISTRY_FORMAT = "server_json"  # a registry entry's remotes make a server_json listing
CATALOG_FORMAT = "ai_catalog"
TRANSPORTS = ("streamable-http", "sse")
# The AI Catalog entry media types agentdex follows by URL, and the format each is read as.
CATALOG_KINDS = {
    "application/mcp-server-card+json": "server_card",
    "application/mcp-server+json": "server_json",
    "application/a2a-agent-card+json": "a2a_card",
    "application/agent-card+json": "a2a_card",
}
LINK_VIA = "catalog:"  # seed_sources.via of a document an AI Catalog names: catalog:<kind>
MAX_LINKS = 100  # the entries of one catalog followed at most (a catalog is one publisher's)


@dataclass(frozen=True, slots=True)
class Declared:
    """An MCP endpoint a registry entry (or another source) declares on an origin: its URL,
    the transport declared, the server's name, the source that named it and the status
    the source gives it (``active``, ``deprecated``, ``deleted``)."""

    url: str
    transport: str | None = None
    name: str = ""
    source: str = ""
    status: str = "active"

    def provenance(self) -> dict[str, Any]:
        """The declaration as a listing's provenance entry."""
        return {"source": self.source, "name": self.name, "url": self.url, "status": self.status}


@dataclass(frozen=True, slots=True)
class Linked:
    """A document an AI Catalog names by URL: the origin it lives on (it is that origin's
    document, never the catalog's), its URL, the format it is read as, the entry's
    identifier and the catalog's URL (its provenance)."""

    origin: str
    url: str
    kind: str
    name: str = ""
    catalog: str = ""

    def seed_row(self) -> dict[str, Any]:
        """The link as a ``seed_sources`` row (:func:`agentdex.db.seeds.save_run`): the
        catalog named the document's origin."""
        return {
            "origin": self.origin,
            "source": self.catalog,
            "name": self.name,
            "via": LINK_VIA + self.kind,
            "url": self.url,
            "status": "active",
            "status_message": None,
            "refused": None,
            "updated_at": None,
            "transport": None,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Linked:
        """The link back from a ``seed_sources`` row of :meth:`seed_row`."""
        kind = str(row["via"]).removeprefix(LINK_VIA)
        return cls(row["origin"], row["url"], kind, row.get("name") or "", row.get("source") or "")


def catalog_links(result: ParseResult | None, catalog_url: str | None) -> list[Linked]:
    """The documents an AI Catalog (read at ``catalog_url``) names by URL, of the media types
    agentdex reads (:data:`CATALOG_KINDS`), each under the origin its https URL names."""
    doc = result.document if result is not None and result.listing is not None else None
    if not isinstance(doc, dict) or not catalog_url:
        return []
    links: list[Linked] = []
    for entry in _list(doc.get("entries"))[:MAX_LINKS]:
        link = _link(entry, catalog_url)
        if link is not None and link not in links:
            links.append(link)
    return links


def _link(entry: Any, catalog_url: str) -> Linked | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
        return None
    kind = CATALOG_KINDS.get(str(entry.get("type", "")).split(";")[0].strip().lower())
    url = urljoin(catalog_url, entry["url"].strip())
    origin = url_origin(url)
    if kind is None or origin is None or "{" in url:
        return None
    name = entry.get("identifier")
    return Linked(origin, url, kind, name[:200] if isinstance(name, str) else "", catalog_url)


def url_origin(url: str) -> str | None:
    """The public origin an https URL names (``None`` for another scheme, a private host,
    no URL at all), as :func:`~agentdex.crawler.origins.public_origin` decides."""
    if not url.lower().startswith("https://"):
        return None
    try:
        return public_origin(url)
    except InputError:
        return None


def choose(results: dict[str, ParseResult], declared: list[Declared], origin: str) -> ParseResult | None:
    """The origin's listing from its discovery documents (``results``) and the endpoints
    sources declare on it (``declared``), or ``None`` when none gives a listing."""
    found = [r for name in LISTING_ORDER if (r := results.get(name)) is not None and r.listing is not None]
    if REGISTRY_FORMAT not in results and declared:
        found.append(declared_result(origin, declared))
    if not found:
        return None
    found.sort(key=lambda r: (not r.valid, LISTING_ORDER.index(r.format)))
    return found[0]


def declared_result(origin: str, declared: list[Declared]) -> ParseResult:
    """A ``server_json`` listing made of the endpoints registry entries declare on ``origin``
    (the entries' names and statuses are its provenance; a deleted entry's endpoint is
    still probed, but names the listing only when no other entry does)."""
    live = [d for d in declared if d.status != "deleted"] or declared
    first = live[0]
    listing = Listing(format=REGISTRY_FORMAT, origin=origin, name=first.name or None)
    listing.mcp_url, listing.mcp_transport = first.url, first.transport
    listing.extra = {
        **StatedFacts(mcp_urls=unique([d.url for d in live])),
        "registry_name": first.name or None,
        **StatedFacts(
            mcp_transports={normalise_url(d.url): d.transport for d in live if d.transport},
            provenance=[d.provenance() for d in declared],
        ),
    }
    return ParseResult(REGISTRY_FORMAT, listing, [])


def describe(result: ParseResult, url: str | None, catalog: str | None = None) -> ParseResult:
    """``result`` as an origin's listing: ``extra["provenance"]`` names the document it was
    read from (and the AI Catalog that named it by URL, if one did; a registry declaration
    names its entries already), ``extra["mcp_transports"]`` the transport each remote
    declares, and ``mcp_transport`` the first endpoint's."""
    listing = result.listing
    if listing is None:
        return result
    facts, extra = listing.facts, dict(listing.extra or {})
    if url and not facts.provenance:
        extra.update(
            StatedFacts(provenance=[{"source": result.format, "url": url, **({"catalog": catalog} if catalog else {})}])
        )
    if not facts.mcp_transports:
        extra.update(StatedFacts(mcp_transports=transports_of(result.document)))
    listing.extra = extra
    listing.mcp_transport = listing.mcp_transport or mcp_transport(result, listing.mcp_url)
    return result


def mcp_transport(result: ParseResult, url: str | None) -> str | None:
    """The transport a document declares for the MCP endpoint ``url`` (``remotes[].type``
    of a server card or server.json, inline cards of an AI Catalog included), or ``None``."""
    return transports_of(result.document).get(normalise_url(url)) if url else None


def transports_of(doc: Any) -> dict[str, str]:
    """``{normalised URL: transport}`` of every remote a document (or the cards inside it) declares."""
    found: dict[str, str] = {}
    for remote in _remotes(doc, depth=0):
        url, kind = remote.get("url"), remote.get("type")
        if isinstance(url, str) and kind in TRANSPORTS:
            found.setdefault(normalise_url(url), kind)
    return found


def _remotes(doc: Any, depth: int) -> list[dict]:
    """The ``remotes[]`` objects of a card, a server.json, a registry entry, a plural card
    file or an AI Catalog's inline entries (at most three levels down)."""
    if not isinstance(doc, dict) or depth > 3:
        return []
    found = [r for r in _list(doc.get("remotes")) if isinstance(r, dict)]
    inner = [doc.get("server"), doc.get("data"), *_list(doc.get("servers")), *_list(doc.get("entries"))]
    for item in inner:
        found += _remotes(item, depth + 1)
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def extra_endpoints(listing: Listing | None, declared: list[Declared]) -> list[Declared]:
    """The MCP endpoints the verifier probes besides the listing's own ``mcp_url``: every
    other one its document names, and every one sources declare on the origin (once each)."""
    primary = normalise_url(listing.mcp_url) if listing is not None and listing.mcp_url else None
    facts = listing.facts if listing is not None else CrossFacts()
    named = [Declared(u, facts.mcp_transports.get(normalise_url(u))) for u in facts.mcp_urls]
    out: dict[str, Declared] = {}
    for item in [*declared, *named]:
        key = normalise_url(item.url)
        if key != primary and key not in out:
            out[key] = item
    return list(out.values())


def card_endpoint(origin: str, listing: Listing | None, declared: list[Declared]) -> str | None:
    """The Streamable HTTP endpoint on ``origin`` whose ``<url>/server-card`` (SEP-2127) a crawl
    asks: the listing's own MCP endpoint, else the first other it names, else the first one
    sources declare; never one on another origin (that origin's crawl asks it) nor one
    declared over the deprecated SSE transport (the SEP puts cards at Streamable HTTP URLs)."""
    named: list[Declared] = []
    if listing is not None and listing.mcp_url:
        named.append(Declared(listing.mcp_url, listing.mcp_transport))
    named += extra_endpoints(listing, declared)
    for item in named:
        if item.transport in (None, "streamable-http") and "{" not in item.url and same_origin(origin, item.url):
            return item.url
    return None


def same_origin(origin: str, url: str) -> bool:
    """Whether ``url`` is on the crawled ``origin`` (RFC 6454)."""
    return origin_of(url) == origin_of(origin_url(origin))


A2A_FORMAT = "a2a_card"
A2A_SECOND = "a2a_card_second"  # the card at the other well-known path, read only to cross-check


def a2a_pair(first: Any, second: Any) -> list[Finding]:
    """Where an origin's A2A 0.3 and 1.0 cards disagree (:func:`agentdex.formats.a2a_card.cross_check`):
    the cards at its two well-known paths when one is of each version, or one card written
    in both shapes (a top-level ``url`` beside ``supportedInterfaces``, read as 0.3 without
    the interfaces). Empty when the origin serves one version only."""
    by_version = {a2a_format.card_version(d): d for d in (second, first) if isinstance(d, dict)}
    if "0.3" in by_version and "1.0" in by_version:
        return a2a_format.cross_check(by_version["0.3"], by_version["1.0"])
    if isinstance(first, dict) and "url" in first and "supportedInterfaces" in first:
        return a2a_format.cross_check({k: v for k, v in first.items() if k != "supportedInterfaces"}, first)
    return []

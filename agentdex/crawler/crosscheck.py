"""What one origin says about itself, set side by side: every document a crawl parsed (the
manifests and the discovery documents) and what is live (the MCP ``tools/list``, the 402
answers of priced resources), compared by :func:`agentdex.formats.consistency.compare`.

The comparison runs after verification (so the live answers are known) and only for a crawl
that parsed something. An unchanged origin keeps the verdict stored last time, unless it
declares prices: its live 402s may have moved while its documents did not, so its stored
documents are read again (:func:`reread`) and compared with this crawl's answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentdex import formats
from agentdex.crawler import verify_x402
from agentdex.crawler.discovery import REGISTRY_KINDS, choose_primary, registry_result
from agentdex.formats._discovery import normalise_url
from agentdex.formats.consistency import (
    LIVE_PROBE,
    Consistency,
    LiveServer,
    against_live_servers,
    compare,
    facts_of,
    served_endpoint,
)
from agentdex.formats.server_card import NAME as CARD
from agentdex.formats.server_card import location_finding
from agentdex.models import OriginCrawl, ParseResult

# Documents in registry order (manifests first), so each disagreement names them in one order.
_ORDER = {name: i for i, name in enumerate(formats.REGISTRY)}
# The documents whose prices only a live 402 can confirm.
PRICED = ("anchor", "x402_discovery")


def cross_check(crawl: OriginCrawl) -> Consistency | None:
    """The consistency of the documents ``crawl`` parsed with each other and with the live
    MCP tool list and 402 answers, or ``None`` when this crawl parsed nothing (unchanged or
    unreachable)."""
    if crawl.status == "unreachable" or not crawl.results:
        return None
    results = sorted(crawl.results.values(), key=lambda r: _ORDER.get(r.format, len(_ORDER)))
    documents = [facts_of(r, url=crawl.read_at(r.format)) for r in results if r.listing is not None]
    live = [t.name for t in crawl.mcp_tools] if crawl.mcp_tools is not None else None
    prices = {**live_prices(crawl), **verify_x402.live_prices(crawl.checks)}
    found = compare(documents, live_tools=live, live_prices=prices, live_402=verify_x402.live_answers(crawl.checks))
    return with_card_probes(found, crawl)


def with_card_probes(found: Consistency, crawl: OriginCrawl) -> Consistency:
    """``found`` with the origin's server card set against the live probes of the endpoints
    it names (:func:`agentdex.formats.consistency.against_live_servers`): the probe is one
    more source when it answered at an endpoint the card names."""
    card = crawl.results.get(CARD)
    if card is None or card.listing is None:
        return found
    live = live_servers(crawl)
    url = crawl.read_at(CARD)
    served_at = url if url and location_finding(url) is None else None  # a legacy path is no endpoint's
    endpoint = served_endpoint(served_at)
    named = {normalise_url(u) for u in [*card.listing.facts.mcp_urls, endpoint] if isinstance(u, str)}
    if not any(normalise_url(p.url) in named for p in live):
        return found
    more = against_live_servers(card, live, served_at)
    sources = (*found.sources, LIVE_PROBE)
    disagreements = (*found.disagreements, *more)
    verdict = "inconsistent" if disagreements else "consistent" if len(sources) > 1 else "single-source"
    return Consistency(verdict, sources, disagreements)


def live_servers(crawl: OriginCrawl) -> list[LiveServer]:
    """The MCP endpoints this crawl probed that answered as MCP servers (a name or a revision
    seen): the listing's own from its ``mcp.initialize`` check (a health row is kept only when
    the state changed), the others from their health rows."""
    rows = [e for e in crawl.endpoints or [] if e.role == "mcp" and (e.server_name or e.versions)]
    found = [LiveServer(e.url, e.server_name, tuple(e.versions)) for e in rows]
    listing = crawl.primary.listing if crawl.primary is not None else None
    check = next((c for c in crawl.checks or [] if c.name == "mcp.initialize"), None)
    data = check.data if check is not None and isinstance(check.data, dict) else {}
    name, versions = (data.get("server_info") or {}).get("name"), data.get("versions") or []
    if listing is not None and listing.mcp_url and (name or versions):
        found.append(LiveServer(listing.mcp_url, name if isinstance(name, str) else None, tuple(versions)))
    return found


def reread(crawl: OriginCrawl, load_blob: Callable[[str], bytes | None]) -> dict[str, ParseResult]:
    """The stored documents of an unchanged origin that declares prices (``load_blob`` reads
    a body by sha256), parsed again for the cross-check; empty for any other origin, whose
    comparison nothing live can move but the MCP tools, which a changed crawl compares."""
    if not crawl.unchanged or not any(kind in crawl.documents for kind in PRICED):
        return {}
    kinds = (set(formats.MANIFEST_PATHS) | set(formats.DISCOVERY_NAMES)) - set(REGISTRY_KINDS)
    bodies = {kind: load_blob(sha) for kind, sha in crawl.documents.items() if kind in kinds}
    results = {kind: formats.get(kind).parse(body, origin=crawl.origin) for kind, body in bodies.items() if body}
    # The registry's answer as the crawl that stored it read it: every page, and the server
    # chosen by the manifest's endpoints (its first page alone may compare another server).
    pages = [load_blob(crawl.documents[kind]) for kind in REGISTRY_KINDS if kind in crawl.documents]
    primary = choose_primary(results)
    registry = registry_result([p for p in pages if p], crawl.origin, primary.listing if primary else None)
    if registry is not None:
        results[registry.format] = registry
    return results


def live_prices(crawl: OriginCrawl) -> dict[str, float]:
    """``{endpoint: USD}`` the live 402 answers asked this crawl (the ``anchor.payments``
    check reads them for an Anchor listing's x402 tools, by tool id)."""
    check = next((c for c in crawl.checks or [] if c.name == "anchor.payments"), None)
    anchor = crawl.results.get("anchor")  # the primary document whenever the check ran
    listing = anchor.listing if anchor is not None else None
    if check is None or listing is None:
        return {}
    endpoints: dict[Any, Any] = {t.get("id"): t.get("endpoint") for t in listing.facts.anchor_tools}
    return {
        endpoints[tid]: float(data["live_usd"])
        for tid, data in (check.data or {}).items()
        if isinstance(data, dict)
        and isinstance(data.get("live_usd"), (int, float))
        and isinstance(endpoints.get(tid), str)
    }

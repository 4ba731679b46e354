"""What one origin says about itself, set side by side: every document a crawl parsed (the
manifests and the discovery documents) and the live MCP ``tools/list``, compared by
:func:`agentdex.formats.consistency.compare`.

The comparison runs after verification (so the live tool list is known) and only for a crawl
that parsed something: an unchanged origin keeps the verdict stored last time.
"""

from __future__ import annotations

from agentdex import formats
from agentdex.formats.consistency import Consistency, compare, facts_of
from agentdex.models import OriginCrawl

# Documents in registry order (manifests first), so each disagreement names them in one order.
_ORDER = {name: i for i, name in enumerate(formats.REGISTRY)}


def cross_check(crawl: OriginCrawl) -> Consistency | None:
    """The consistency of the documents ``crawl`` parsed with each other and with the live
    MCP tool list, or ``None`` when this crawl parsed nothing (unchanged or unreachable)."""
    if crawl.unchanged or crawl.status == "unreachable" or not crawl.results:
        return None
    results = sorted(crawl.results.values(), key=lambda r: _ORDER.get(r.format, len(_ORDER)))
    documents = [facts_of(r) for r in results if r.listing is not None]
    live = [t.name for t in crawl.mcp_tools] if crawl.mcp_tools is not None else None
    return compare(documents, live_tools=live, live_prices=live_prices(crawl))


def live_prices(crawl: OriginCrawl) -> dict[str, float]:
    """``{endpoint: USD}`` the live 402 answers asked this crawl (the ``anchor.payments``
    check reads them for an Anchor listing's x402 tools, by tool id)."""
    check = next((c for c in crawl.checks or [] if c.name == "anchor.payments"), None)
    listing = crawl.primary.listing if crawl.primary is not None else None
    if check is None or listing is None:
        return {}
    endpoints = {t.get("id"): t.get("endpoint") for t in (listing.extra or {}).get("anchor_tools") or []
                 if isinstance(t, dict)}
    return {endpoints[tid]: float(data["live_usd"]) for tid, data in (check.data or {}).items()
            if isinstance(data, dict) and isinstance(data.get("live_usd"), (int, float))
            and isinstance(endpoints.get(tid), str)}

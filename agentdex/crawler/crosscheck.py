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
from agentdex.formats.consistency import Consistency, compare, facts_of
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
    return compare(documents, live_tools=live, live_prices=prices, live_402=verify_x402.live_answers(crawl.checks))


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
    endpoints: dict[Any, Any] = {
        t.get("id"): t.get("endpoint") for t in (listing.extra or {}).get("anchor_tools") or [] if isinstance(t, dict)
    }
    return {
        endpoints[tid]: float(data["live_usd"])
        for tid, data in (check.data or {}).items()
        if isinstance(data, dict)
        and isinstance(data.get("live_usd"), (int, float))
        and isinstance(endpoints.get(tid), str)
    }

"""Anchor proofs and probes: DNS TXT, HTTP (same registrable domain), the MCP registry,
the read-only variant and live x402 prices.

A failed proof is recorded and the manifest is ignored for trust, never penalised: the
checks say what holds, the listing keeps its facts.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any, Literal
from urllib.parse import urlsplit

from agentdex.crawler import x402
from agentdex.formats import registry_api
from agentdex.models import Check, FetchRecord, Listing

TXT_PREFIX = "anchor-verify="


@cache
def _extractor():
    import tldextract

    # The public suffix list shipped inside tldextract: no network, private suffixes
    # (github.io, …) count, so two users of one host are not one registrable domain.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True)


def registrable_domain(host: str) -> str:
    """``mcp.example.com`` -> ``example.com``; an unknown suffix keeps the last two labels."""
    host = host.split(":")[0].lower().rstrip(".")
    parts = _extractor()(host)
    if parts.suffix and parts.domain:
        return f"{parts.domain}.{parts.suffix}"
    return ".".join(host.split(".")[-2:])


def hosted_tools(listing: Listing) -> list[dict[str, Any]]:
    """Anchor tool entries that have a hosted endpoint."""
    return [dict(t) for t in listing.facts.anchor_tools if t.get("endpoint")]


async def anchor_checks(verifier, listing: Listing) -> list[Check]:
    """Every Anchor-specific check for one listing."""
    return list(
        await asyncio.gather(
            dns_check(verifier.net, listing),
            http_proof(verifier, listing),
            registry_proof(verifier, listing),
            read_only_variant(verifier, listing),
            payments_check(verifier, listing),
        )
    )


async def txt_records(name: str, dns_server: str | None, lifetime: float = 5.0) -> list[str]:
    """The TXT strings at ``name`` (``dns_server`` as ``ADDR:PORT``, else the system's),
    asked for at most ``lifetime`` seconds."""
    import dns.asyncresolver

    resolver = dns.asyncresolver.Resolver(configure=dns_server is None)
    if dns_server:
        addr, _, port = dns_server.rpartition(":")
        resolver.nameservers = [addr.strip("[]") or "127.0.0.1"]
        resolver.port = int(port)
    resolver.lifetime = lifetime
    answer = await resolver.resolve(name, "TXT")
    return [b"".join(r.strings).decode("utf-8", "replace") for r in answer]


async def dns_check(net, listing: Listing) -> Check:
    """``_anchor.<publisher-domain>`` carries ``anchor-verify=<token>``. A name that does
    not exist (or has no TXT) fails; a resolver that does not answer is only a warning, so
    a network blip never reads as a lost proof."""
    import dns.exception
    import dns.resolver

    verify = listing.facts.verify
    name = verify.get("dnsTxt") or f"_anchor.{(listing.origin or '').split(':')[0]}"
    try:
        records = await txt_records(name, net.dns_server, min(5.0, net.deadline))
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer) as exc:
        return Check("anchor.verify.dns", "fail", f"no TXT record at {name} ({type(exc).__name__})")
    except (dns.exception.DNSException, OSError) as exc:
        return Check("anchor.verify.dns", "warn", f"could not ask DNS for {name}: {type(exc).__name__}")
    tokens = [r[len(TXT_PREFIX) :] for r in records if r.startswith(TXT_PREFIX) and len(r) > len(TXT_PREFIX)]
    if tokens:
        return Check("anchor.verify.dns", "pass", f"{name} carries anchor-verify", {"name": name, "tokens": tokens})
    return Check("anchor.verify.dns", "fail", f"{name} has TXT records but no anchor-verify=<token>")


async def http_proof(verifier, listing: Listing) -> Check:
    """The manifest's origin and each tool endpoint share a registrable domain, and the
    endpoint responds."""
    tools = hosted_tools(listing)
    if not tools:
        return Check("anchor.verify.http", "skip", "no hosted tool endpoint to compare")
    home = registrable_domain(listing.origin or "")
    results = await asyncio.gather(*(_http_one(verifier, home, t) for t in tools))
    failed = [r for r in results if r]
    if failed:
        return Check("anchor.verify.http", "fail", "; ".join(failed))
    return Check("anchor.verify.http", "pass", f"every endpoint is under {home} and responds")


async def _http_one(verifier, home: str, tool: dict) -> str:
    endpoint = tool["endpoint"]
    domain = registrable_domain(urlsplit(endpoint).hostname or "")
    if domain != home:
        return f"{tool.get('id')}: {endpoint} is under {domain}, not {home}"
    # Any answer shows the endpoint responds: a HEAD, or (a server that never answers HEAD)
    # a GET read no further than its headers, as an MCP endpoint's GET may be an endless stream.
    record = await verifier.responds(endpoint, "anchor_endpoint")
    if record.status is None:
        return f"{tool.get('id')}: {endpoint} does not respond ({record.error})"
    return ""


def registry_tools(listing: Listing) -> list[dict[str, Any]]:
    """The hosted MCP tools: the only ones the MCP registry can list."""
    return [t for t in hosted_tools(listing) if t.get("kind") == "mcp" and t.get("transport") != "stdio"]


async def registry_proof(verifier, listing: Listing) -> Check:
    """Each hosted MCP tool's id is in the MCP registry (``--registry``) and its latest
    server.json lists the same endpoint. A registry that cannot be asked is a warning."""
    tools = registry_tools(listing)
    if not tools:
        return Check("anchor.verify.registry", "skip", "no hosted MCP tool to look up")
    results = await asyncio.gather(*(_registry_one(verifier, t) for t in tools))
    failed = [text for status, text in results if status == "fail"]
    unknown = [text for status, text in results if status == "warn"]
    if failed:
        return Check("anchor.verify.registry", "fail", "; ".join(failed + unknown))
    if unknown:
        return Check("anchor.verify.registry", "warn", "; ".join(unknown))
    return Check(
        "anchor.verify.registry",
        "pass",
        f"{len(tools)} MCP tool(s) registered at {verifier.net.registry} with the same endpoint",
    )


async def _registry_one(verifier, tool: dict) -> tuple[str, str]:
    tid = str(tool.get("id", ""))
    record = await verifier.get(registry_api.versions_url(verifier.net.registry, tid), "registry", 512 * 1024)
    if record.status in (404, 410):
        return "fail", f"{tid}: not in the registry"
    if record.status != 200 or record.body is None:
        return "warn", f"{tid}: the registry could not be asked ({record.error or 'HTTP ' + str(record.status)})"
    try:
        entry = registry_api.read_entry(record.body)
    except registry_api.NotRead:
        return "warn", f"{tid}: the registry's answer is not a server entry"
    if entry.official.status == "deleted":
        return "fail", f"{tid}: deleted from the registry"
    urls = {r.url for r in entry.server.remotes if r.url}
    if tool["endpoint"] not in urls:
        listed = ", ".join(sorted(urls)) or "no remote"
        return "fail", f"{tid}: the registry lists {listed}, not {tool['endpoint']}"
    return "pass", ""


async def read_only_variant(verifier, listing: Listing) -> Check:
    """Probe each declared ``readOnlyVariant``: a tool not explicitly read-only (or one
    marked destructive) makes the declaration false."""
    tools = [t for t in listing.facts.anchor_tools if t.get("readOnlyVariant")]
    if not tools:
        return Check("anchor.read_only_variant", "skip", "no read-only variant declared")
    probes = await asyncio.gather(*(verifier.probe(t["readOnlyVariant"], t.get("transport")) for t in tools))
    lies, unknown, data = [], [], {}
    for tool, found in zip(tools, probes, strict=True):
        writers = [t.name for t in found.tools if not t.read_only]
        data[tool.get("id", "")] = {"url": tool["readOnlyVariant"], "state": found.state, "write_tools": writers}
        if found.state != "ok":
            unknown.append(f"{tool.get('id')}: {found.state}")
        elif writers:
            lies.append(f"{tool.get('id')}: the read-only variant exposes write tools {', '.join(writers)}")
    if lies:
        return Check("anchor.read_only_variant", "fail", "declaration is false: " + "; ".join(lies), data)
    if unknown:
        return Check("anchor.read_only_variant", "warn", "could not list tools: " + "; ".join(unknown), data)
    return Check("anchor.read_only_variant", "pass", "every read-only variant exposes only read-only tools", data)


async def payments_check(verifier, listing: Listing) -> Check:
    """One unpaid request per priced tool; the live 402 price wins over the declared one.

    An HTTP tool gets a GET; an MCP tool gets the probe's ``initialize`` (a GET to an MCP
    endpoint may open an event stream). An MCP server that initializes without asking for
    payment charges per tool call, which agentdex never makes: that tool's price cannot be
    seen and does not change the check's status.
    """
    priced = [t for t in hosted_tools(listing) if any(p.get("protocol") == "x402" for p in t.get("payments") or [])]
    if not priced:
        return Check("anchor.payments", "skip", "no x402 payments declared")
    results = await asyncio.gather(*(_payment_one(verifier, t) for t in priced))
    statuses = [r[0] for r in results]
    worst_first: tuple[Literal["fail", "warn", "pass"], ...] = ("fail", "warn", "pass")
    status: Literal["fail", "warn", "pass", "skip"] = next((s for s in worst_first if s in statuses), "skip")
    return Check("anchor.payments", status, "; ".join(r[1] for r in results), {r[2]: r[3] for r in results})


async def _payment_one(verifier, tool: dict) -> tuple[str, str, str, dict]:
    declared = next((p.get("priceUsd") for p in tool.get("payments") or [] if p.get("protocol") == "x402"), None)
    tid = str(tool.get("id", ""))
    if tool.get("kind") == "mcp":
        found = await verifier.probe(tool["endpoint"], tool.get("transport"))
        if found.state in ("ok", "auth_required"):
            return (
                "skip",
                (
                    f"{tid}: the MCP server answers initialize without payment; x402 applies per "
                    "tool call, which agentdex never makes"
                ),
                tid,
                {"declared_usd": declared},
            )
        record = found.answer or FetchRecord(url=tool["endpoint"], kind="payment", error=found.detail)
    else:
        record = await verifier.get(tool["endpoint"], "payment", 64 * 1024, expected=(402,))
    if record.status != 402:
        return "warn", f"{tid}: an unpaid request got {record.error or 'HTTP ' + str(record.status)}, not 402", tid, {}
    offers, problem = x402.parse_402(record.headers, record.body)
    if problem:
        return "warn", f"{tid}: {problem}", tid, {}
    status, detail = x402.compare_price(declared, offers)
    live = min((o.price_usd for o in offers if o.price_usd is not None), default=None)
    return (
        status,
        f"{tid}: {detail}",
        tid,
        {"declared_usd": declared, "live_usd": live, "offers": [o.to_dict() for o in offers]},
    )

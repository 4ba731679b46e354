"""What the MCP registry lists for an origin's namespace: the registry API's answer to
``GET /v0.1/servers?search=<namespace>&version=latest`` (spec: modelcontextprotocol/registry
``docs/reference/api/openapi.yaml``; the shape :mod:`agentdex.federation` serves), read as the
server.json documents of that namespace. Pure: the crawler asks the registry
(:mod:`agentdex.crawler.discovery`, only with ``crawl --registry-lookup``), this reads the answer.

**A kind of its own**, not ``server_json`` with another source URL: an origin may have both,
the server.json its Anchor manifest links (the publisher's claim) and what the registry lists
for its namespace (what the registry accepted from a publisher that proved the domain). They
are two documents that can disagree, so each is stored, validated and compared on its own, and
a disagreement names them apart (``registry_server_json says …``).

**The namespace** is the origin's host labels reversed (``pantry.test`` → ``test.pantry``,
``api.example.com`` → ``com.example.api``; the port dropped), the registry's reverse-DNS form
and the one :func:`agentdex.federation.server_name` gives listings. The registry's ``search`` is
a substring match, so only servers named ``<namespace>/…`` exactly are read
(``test.pantry.evil/x`` and ``test.pantryx/y`` are not ``test.pantry``'s); an entry the
registry marks ``deleted``, or not ``isLatest``, is skipped, and so is one the registry API's
models cannot read (:mod:`agentdex.formats.registry_api`, as ``agentdex seeds`` refuses it). An
origin named by an IP address has no namespace. The pages are read by those models too, their
``metadata.nextCursor`` followed by its paging rules.

**Several servers** in one namespace are each validated as a server.json
(:mod:`agentdex.formats.server_json`), their findings located ``servers[<name>].<path>``. The
facts compared with the origin's other documents are one server's, because a namespace's other
servers are other apps whose names would all "disagree" with the manifest's: the first, in name
order, of those with a remote URL the origin's manifest names as an MCP endpoint; else of those
with a remote on the origin's host or one of its subdomains; else of all.
``extra["registry_servers"]`` names every server of the namespace, ``extra["registry_name"]``
the one compared.

An answer that names no server of the namespace (or that is no registry answer at all: the
registry's failure, not the origin's) gives a result without a listing and without findings,
which the crawl drops: no finding, no source. Servers too broken to read any fact from give
their findings and no listing (nothing to compare).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from agentdex.formats import registry_api, server_json
from agentdex.formats._discovery import normalise_url
from agentdex.formats._load import load_json
from agentdex.formats._spec import FormatSpec
from agentdex.formats.registry_api import OFFICIAL  # noqa: F401 - the key, for readers of this module
from agentdex.models import Finding, Listing, ParseResult

NAME = "registry_server_json"
MAX_BYTES = 512 * 1024  # one page of the registry's answer (at most 100 servers)
# Never at a path of the origin: asked of the registry given to ``crawl --registry-lookup``.
SPEC = FormatSpec(NAME, priority=135, max_bytes=MAX_BYTES, discovery=True, title="an MCP registry API answer")
# One stored document a page of the answer: page 1 of kind NAME, the next ones NAME + "_page2"
# …, at most PAGES pages (a namespace of more than a few pages of servers is no one origin's).
PAGES = 3
PAGE_KINDS = (NAME,) + tuple(f"{NAME}_page{n}" for n in range(2, PAGES + 1))


def namespace(origin: str | None) -> str | None:
    """The registry namespace of an origin (``api.example.com`` → ``com.example.api``), or
    ``None`` for an origin that has none (an IP address, nothing)."""
    text = (origin or "").strip()
    try:
        host = (urlsplit(text if "://" in text else f"https://{text}").hostname or "").strip(".")
    except ValueError:
        return None
    if not host:
        return None
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        return ".".join(reversed(host.split(".")))


def answer_of(data: bytes | None) -> registry_api.Page | None:
    """One page of a registry answer, decoded as every stored document is and read by the
    registry API's page model, or ``None`` when the bytes are no such answer (an error page, a
    web page: the registry failed)."""
    doc, _ = load_json(data or b"", max_bytes=MAX_BYTES, what="registry answer")
    return registry_api.page_of(doc) if doc is not None else None


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Read one page of the registry's answer for ``origin``'s namespace."""
    return parse_pages([data], origin=origin)


def parse_pages(pages: Iterable[bytes], *, origin: str | None = None, endpoints: Iterable[str] = ()) -> ParseResult:
    """Read the pages of the registry's answer, in order, as one answer; ``endpoints`` are
    the MCP endpoints the origin's manifest names (they choose the server compared)."""
    doc, problems = merged(pages)
    if doc is None:
        return ParseResult(NAME, None, problems)
    return validate_document(doc, origin=origin, endpoints=endpoints)


def merged(pages: Iterable[bytes]) -> tuple[dict | None, list[Finding]]:
    """The pages as one answer ``{"servers": [...]}`` (``None`` and why, when the first page
    is no JSON object; a later page that is none ends the answer)."""
    entries: list[Any] = []
    for number, data in enumerate(pages):
        doc, problems = load_json(data, max_bytes=MAX_BYTES, what="registry answer")
        if doc is None:
            if number == 0:
                return None, problems
            break
        page = registry_api.page_of(doc)
        entries += page.servers if page is not None else []
    return {"servers": entries}, []


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is a registry API list answer (``{"servers": [{"server": …}]}``)."""
    page = registry_api.page_of(doc)
    return page is not None and all(isinstance(e, dict) and isinstance(e.get("server"), dict) for e in page.servers)


def validate_document(doc: Any, *, origin: str | None = None, endpoints: Iterable[str] = ()) -> ParseResult:
    """Validate every server of ``origin``'s namespace in a decoded registry answer and read
    the facts of the one compared (see the module docstring)."""
    servers = in_namespace(doc, namespace(origin))
    if not servers:
        return ParseResult(NAME, None, [], doc)
    findings: list[Finding] = []
    listings: dict[str, Listing] = {}
    for name, server in servers.items():
        result = server_json.validate_document(server, origin=origin)
        findings += [_located(f, name) for f in result.findings]
        if result.listing is not None:
            listings[name] = result.listing
    chosen = choose(listings, origin, endpoints)
    if chosen is None:
        return ParseResult(NAME, None, findings, doc)
    listing = listings[chosen]
    listing.format = NAME
    listing.extra = {**listing.extra, "registry_servers": list(servers)}
    return ParseResult(NAME, listing, findings, doc)


def summary(pages: Iterable[bytes], origin: str | None) -> dict[str, dict[str, Any]]:
    """``{name: {version, remotes}}`` of the servers the pages list in ``origin``'s namespace:
    what a ``registry_changed`` event compares between two crawls."""
    out = {}
    for name, server in in_namespace(merged(pages)[0], namespace(origin)).items():
        remotes = server.get("remotes")
        remotes = remotes if isinstance(remotes, list) else []
        out[name] = {
            "version": server.get("version"),
            "remotes": sorted(str(r.get("url")) for r in remotes if isinstance(r, dict) and r.get("url")),
        }
    return out


def in_namespace(doc: Any, space: str | None) -> dict[str, dict]:
    """``{name: server.json}`` of the servers named ``<space>/…`` in an answer, in name
    order, without the entries the registry marks deleted or not the latest version, nor those
    the registry API's models cannot read (as ``seeds`` refuses them)."""
    page = registry_api.page_of(doc) if space else None
    if page is None:
        return {}
    found: dict[str, dict] = {}
    for item in page.servers:
        try:
            entry = registry_api.read_entry(item)
        except registry_api.NotRead:
            continue
        name = entry.server.name
        if name.startswith(f"{space}/") and not entry.official.skipped:
            found.setdefault(name, item["server"])
    return dict(sorted(found.items()))


def _located(finding: Finding, name: str) -> Finding:
    where = f"servers[{name}]" + (f".{finding.path}" if finding.path else "")
    return Finding(finding.severity, where, finding.code, finding.message)


def choose(listings: dict[str, Listing], origin: str | None, endpoints: Iterable[str] = ()) -> str | None:
    """The name of the server compared with the origin's documents (``listings`` in name order)."""
    declared = {normalise_url(u) for u in endpoints}
    on_origin = [n for n, item in listings.items() if declared & set(_remotes(item))]
    on_host = [n for n, item in listings.items() if any(_on_host(u, origin) for u in _remotes(item))]
    return next(iter(on_origin + on_host + list(listings)), None)


def _remotes(listing: Listing) -> list[str]:
    return [normalise_url(u) for u in listing.facts.mcp_urls]


def _on_host(url: str, origin: str | None) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    mine = (origin or "").lower().rsplit(":", 1)[0]
    return bool(mine) and (host == mine or host.endswith("." + mine))

"""AI catalogs (``/.well-known/ai-catalog.json``): the manifest of Agentic Resource Discovery
(ARD, ards-project/ard-spec, v0.9 draft) built on the AI Catalog data model
(Agent-Card/ai-catalog).

Spec: ``spec/schemas/ai-catalog.schema.json`` of ard-spec. A catalog is ``{"specVersion":
"1.0", "host": {"displayName", "identifier", "documentationUrl", "logoUrl"}, "entries":
[…]}``; each entry has an ``identifier`` (a ``urn:air:`` URN), a ``displayName``, a
``type`` (the media type of the artifact: ``application/mcp-server-card+json``,
``application/a2a-agent-card+json``, ``application/ai-catalog+json`` for a nested catalog …)
and exactly one of ``url`` (where the artifact lives) and ``data`` (the artifact inline).
``representativeQueries`` holds 2 to 5 strings.

Rules as the schema states them, with two choices: an identifier in the older ``urn:ai:``
namespace (still in ard-spec's own conformance examples) is a ``pattern`` warning, not an
error; unknown keys at the top level and in ``host`` are ``unknown_key`` warnings (the schema
forbids them, but a newer catalog may add some).

Facts read: the host's display name (as name and publisher); for each entry, the artifact's
URL by media type (``extra["documents"]``, for discovery to fetch); an MCP server card given
inline is read with :mod:`~agentdex.formats.server_card` (its endpoints and tools become the
catalog's); the ``capabilities`` of MCP entries are their declared tool names.
"""

from __future__ import annotations

import re
from typing import Any

from agentdex.formats import server_card
from agentdex.formats._check import Checker, join
from agentdex.formats._discovery import base_url, read_document, resolve, unique
from agentdex.formats._spec import FormatSpec
from agentdex.models import Listing, ParseResult

NAME = "ai_catalog"
WELL_KNOWN_PATHS = ("/.well-known/ai-catalog.json",)
MAX_BYTES = 512 * 1024
SPEC = FormatSpec(
    NAME,
    priority=160,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATHS[0],
    also_at=WELL_KNOWN_PATHS[1:],
    discovery=True,
    title="an AI catalog",
    keys=frozenset({"specVersion", "entries", "host"}),
    schema_marks=("ai-catalog",),
    detect_rank=20,
)
SPEC_VERSIONS = ("1.0",)
MCP_TYPES = ("application/mcp-server-card+json", "application/mcp-server+json")
TOP_LEVEL = ("specVersion", "host", "entries")
HOST_KEYS = ("displayName", "identifier", "documentationUrl", "logoUrl", "trustManifest")
URN_RE = re.compile(r"urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+")
OLD_URN_RE = re.compile(r"urn:ai:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+")


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an ai-catalog.json."""
    return read_document(data, validate_document, name=NAME, what="AI catalog", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is an AI catalog (``specVersion`` and ``entries``)."""
    return isinstance(doc, dict) and "specVersion" in doc and "entries" in doc


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded AI catalog and read the resources it lists."""
    c = Checker()
    if not isinstance(doc, dict):
        c.error("", "not_object", "an AI catalog must be a JSON object")
        return ParseResult(NAME, None, c.findings, doc)
    c.unknown_keys(doc, "", TOP_LEVEL)
    if c.enum(doc, "specVersion", "", SPEC_VERSIONS, required=True) is None and "specVersion" in doc:
        return ParseResult(NAME, None, c.findings, doc)
    host = _host(c, doc)
    listing = Listing(format=NAME, origin=origin, name=host, publisher_name=host)
    read = [
        _entry(c, entry, join("entries", i), origin)
        for i, entry in enumerate(c.array(doc, "entries", "", required=True) or [])
    ]
    entries = [e for e in read if e]
    mcp_urls = unique([u for e in entries for u in e.get("mcp_urls", [])])
    tools = [t for e in entries for t in e.get("tools", [])]
    listing.mcp_url = mcp_urls[0] if mcp_urls else None
    listing.extra = {
        "documents": [{"type": e["type"], "url": e["url"]} for e in entries if e.get("url")],
        "entries": [{k: v for k, v in e.items() if k != "tools"} for e in entries],
        "mcp_urls": mcp_urls,
        "mcp_tools": tools or None,
    }
    return ParseResult(NAME, listing, c.findings, doc)


def _host(c: Checker, doc: dict) -> str | None:
    host = c.obj(doc, "host", "")
    if host is None:
        return None
    c.unknown_keys(host, "host", HOST_KEYS)
    for key in ("documentationUrl", "logoUrl"):
        c.url(host, key, "host")
    c.string(host, "identifier", "host")
    return c.string(host, "displayName", "host", required=True)


def _entry(c: Checker, entry: Any, where: str, origin: str | None) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        c.error(where, "not_object", f"{where} must be an object")
        return None
    _identifier(c, entry, where)
    name = c.string(entry, "displayName", where, required=True)
    kind = c.string(entry, "type", where, required=True)
    if ("url" in entry) == ("data" in entry):
        c.error(join(where, "url"), "exclusive", f"{where} needs exactly one of url and data")
    url = c.url(entry, "url", where)
    c.array(entry, "representativeQueries", where, min_items=2, max_items=5)
    read: dict[str, Any] = {"name": name, "type": kind, "url": resolve(url, base_url(origin)) if url else None}
    if kind in MCP_TYPES:
        read["tools"] = [str(t) for t in c.array(entry, "capabilities", where) or [] if isinstance(t, str)]
        data = c.obj(entry, "data", where)
        if data is not None:
            card = server_card.validate_document(data, origin=origin).listing
            read["mcp_urls"] = card.extra["mcp_urls"] if card else []
            read["tools"] += [t.name for t in card.tools] if card else []
    return read


def _identifier(c: Checker, entry: dict, where: str) -> None:
    identifier = c.string(entry, "identifier", where, required=True)
    at = join(where, "identifier")
    if identifier is None or URN_RE.fullmatch(identifier):
        return
    if OLD_URN_RE.fullmatch(identifier):
        c.warn(at, "pattern", f"{at} uses the older urn:ai: namespace; ARD now names resources urn:air:<publisher>:…")
    else:
        c.error(at, "pattern", f"{at} must be a URN of the form urn:air:<publisher>:<namespace>:<name>")

"""MCP server cards (``/.well-known/mcp/server-card.json``, and the plural
``/.well-known/mcp/server-cards.json`` some sites publish).

Spec: SEP-2127 "MCP Server Cards" (a draft; it names the path ``/.well-known/mcp/server-card``
and a card shaped like the registry's ``server.json`` without packages: ``$schema``, ``name``
in reverse-DNS form, ``version``, ``description``, ``title``, ``remotes[]``, ``capabilities``,
``tools[]`` …). Deployed cards still follow earlier drafts, so agentdex reads all of them and
says which shape it read:

* SEP-2127: ``remotes[].url`` (streamable-http or sse) with ``remotes[].authentication``
  ``{required, schemes}`` and secret ``headers``.
* SEP-1649 (the draft it replaced): ``serverInfo {name, version}``, ``transport {type,
  endpoint}`` (the endpoint may be relative to the origin), ``authentication``; and informal
  cards with a bare ``url``/``endpoint``/``transports[]`` and ``authentication: "none"``.
  These are read with a ``draft_shape`` warning naming the SEP-2127 spelling.
* The plural file is ``{"servers": [card, …]}``; a single card there is read as one card.
  Findings inside the wrapper are located ``servers[i].…``.

Only what makes a card unusable is an error: not an object, no name at all, wrong types of
the fields read. A name outside the reverse-DNS form SEP-2127 asks for is a ``reverse_dns``
warning; a card that names no endpoint a ``no_endpoint`` warning. Keys are not checked for
typos: the drafts differ too much for such a warning to help.

Facts read: name (``title``, else ``name``, else ``serverInfo.name``; the reverse-DNS name is
``extra["registry_name"]``), every MCP endpoint, auth, and the declared tools (MCP tool
objects, compared with the live ``tools/list`` by the consistency check).
"""

from __future__ import annotations

import re
from typing import Any

from agentdex.formats._check import Checker, join
from agentdex.formats._discovery import auth_words, base_url, header_auth, read_document, resolve, tool_from_mcp, unique
from agentdex.formats._spec import FormatSpec
from agentdex.models import Listing, ParseResult, Tool

NAME = "server_card"
# The single card, the same without ".json" (SEP-2127's spelling), then the plural list.
WELL_KNOWN_PATHS = (
    "/.well-known/mcp/server-card.json",
    "/.well-known/mcp/server-card",
    "/.well-known/mcp/server-cards.json",
)
MAX_BYTES = 512 * 1024  # a card may carry every tool's input schema
SPEC = FormatSpec(
    NAME,
    priority=120,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATHS[0],
    also_at=WELL_KNOWN_PATHS[1:],
    discovery=True,
    title="an MCP server card",
    keys=frozenset(
        {"serverInfo", "transport", "transports", "endpoint", "discovery", "authentication", "capabilities"}
    ),
    schema_marks=("server-card",),
    detect_rank=50,
)
REVERSE_DNS_RE = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
DRAFT_KEYS = ("serverInfo", "transport", "transports", "endpoint", "url")
REMOTE_TYPES = ("streamable-http", "sse")


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of a server card or a ``{"servers": [...]}`` file."""
    return read_document(data, validate_document, name=NAME, what="server card", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as a server card (or a list of them)."""
    if not isinstance(doc, dict):
        return False
    return isinstance(doc.get("servers"), list) or "serverInfo" in doc or ("remotes" in doc and "packages" not in doc)


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded card (or plural file) and read the facts it states."""
    c = Checker()
    cards = _cards(c, doc)
    if cards is None:
        return ParseResult(NAME, None, c.findings, doc)
    base = base_url(origin)
    read = [_card(c, card, where, base) for where, card in cards]
    listing = Listing(format=NAME, origin=origin)
    first = read[0] if read else {}
    listing.name, listing.description = first.get("name"), first.get("description")
    mcp_urls = unique([u for card in read for u in card["mcp_urls"]])
    listing.mcp_url = mcp_urls[0] if mcp_urls else None
    listing.auth_methods = unique([w for card in read for w in card["auth"]])
    listing.mcp_auth = list(listing.auth_methods)
    listing.tools = [t for card in read for t in card["tools"]]
    listing.extra = {
        "mcp_urls": mcp_urls,
        "registry_name": first.get("registry_name"),
        "mcp_tools": [t.name for t in listing.tools] if any(card["declares_tools"] for card in read) else None,
        "auth": listing.auth_methods,
        "cards": [{k: v for k, v in card.items() if k != "tools"} for card in read],
    }
    return ParseResult(NAME, listing, c.findings, doc)


def _cards(c: Checker, doc: Any) -> list[tuple[str, dict]] | None:
    if not isinstance(doc, dict):
        c.error("", "not_object", "a server card must be a JSON object")
        return None
    if "servers" not in doc:
        return [("", doc)]
    servers = c.array(doc, "servers", "", required=True, min_items=1)
    cards = []
    for i, card in enumerate(servers or []):
        if isinstance(card, dict):
            cards.append((join("servers", i), card))
        else:
            c.error(join("servers", i), "not_object", f"servers[{i}] must be a server card object")
    return cards if servers is not None else None


def _card(c: Checker, card: dict, where: str, base: str | None) -> dict[str, Any]:
    info = c.obj(card, "serverInfo", where) or {}
    name = c.string(card, "name", where) or c.string(info, "name", join(where, "serverInfo"))
    if name is None and "name" not in card and "name" not in info:
        c.error(join(where, "name"), "required", f"{join(where, 'name')} is required (SEP-2127: a reverse-DNS name)")
    elif name is not None and not REVERSE_DNS_RE.fullmatch(name):
        c.warn(
            join(where, "name"),
            "reverse_dns",
            f"{join(where, 'name')} is {name!r}; SEP-2127 names a server in reverse-DNS form (com.example/server)",
        )
    draft = [k for k in DRAFT_KEYS if k in card]
    if draft:
        c.warn(
            join(where, draft[0]),
            "draft_shape",
            f"{', '.join(draft)}: keys of an earlier server-card draft; SEP-2127 names endpoints in remotes[]",
        )
    urls, auth = _remotes(c, card, where, base)
    urls += _draft_endpoints(c, card, where, base)
    auth += _auth(card.get("authentication"))
    if not urls:
        c.warn(join(where, "remotes"), "no_endpoint", "the card names no MCP endpoint to connect to")
    tools = _tools(c, card, where)
    title = c.string(card, "title", where)
    return {
        "name": title or name,
        "registry_name": name if name and REVERSE_DNS_RE.fullmatch(name) else None,
        "description": c.string(card, "description", where),
        "version": card.get("version") or info.get("version"),
        "mcp_urls": unique(urls),
        "auth": unique(auth),
        "tools": tools,
        "declares_tools": "tools" in card,
    }


def _remotes(c: Checker, card: dict, where: str, base: str | None) -> tuple[list[str], list[str]]:
    urls, auth = [], []
    for i, remote in enumerate(c.array(card, "remotes", where) or []):
        at = join(join(where, "remotes"), i)
        if not isinstance(remote, dict):
            c.error(at, "not_object", f"{at} must be an object")
            continue
        c.enum(remote, "type", at, REMOTE_TYPES, required=True)
        urls.append(_url(c, remote, "url", at, base, required=True))
        auth += _auth(remote.get("authentication")) + header_auth(remote.get("headers"))
    return [u for u in urls if u], auth


def _draft_endpoints(c: Checker, card: dict, where: str, base: str | None) -> list[str]:
    urls = [_url(c, card, key, where, base) for key in ("url", "endpoint")]
    transport = card.get("transport")
    if isinstance(transport, dict):
        urls.append(_url(c, transport, "endpoint", join(where, "transport"), base))
    for i, item in enumerate(c.array(card, "transports", where) or []):
        if isinstance(item, dict):
            urls.append(_url(c, item, "endpoint", join(join(where, "transports"), i), base))
    return [u for u in urls if u]


def _url(c: Checker, obj: dict, key: str, where: str, base: str | None, required: bool = False) -> str | None:
    value = c.string(obj, key, where, required)
    if value is None:
        return None
    url = resolve(value, base)
    if url is None and "{" not in value:
        c.error(join(where, key), "url", f"{join(where, key)} is not a URL agentdex can resolve: {value[:80]!r}")
    return url


def _auth(value: Any) -> list[str]:
    if isinstance(value, str):
        return auth_words([value])
    if not isinstance(value, dict):
        return []
    words = auth_words(value.get("schemes") or [])
    return (["none"] if value.get("required") is False else []) + words


def _tools(c: Checker, card: dict, where: str) -> list[Tool]:
    tools = []
    for i, item in enumerate(c.array(card, "tools", where) or []):
        at = join(join(where, "tools"), i)
        if not isinstance(item, dict):
            c.error(at, "not_object", f"{at} must be an MCP tool object")
        elif c.string(item, "name", at, required=True) is not None:
            tools.append(tool_from_mcp(item))
    return tools

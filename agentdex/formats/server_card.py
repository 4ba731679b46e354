"""MCP server cards (SEP-2127, modelcontextprotocol/experimental-ext-server-card), media type
``application/mcp-server-card+json``.

Where a card lives (``docs/discovery.md`` of that repository, main of 2026-07-24): a client
finds it through an AI Catalog entry (its ``url`` or inline ``data``); a server MAY host it at
``<streamable-http-url>/server-card`` (:func:`card_url`). The ``/.well-known/mcp/…`` paths
of earlier drafts are *legacy* locations still found in the wild: :func:`location_finding`
says so (``legacy_location``) for the crawler to attach to a card fetched there.

Rules: the published JSON Schema, shipped byte for byte (``schemas/SOURCES.md``), chosen by
the card's ``$schema``: the ``/v2/`` schema (revision 056d9f28: every object closed, no
``packages``, no ``tools``) for a card naming ``/v2/``, else the ``/v1/`` schema of main
(revision 56ab90b1, 2026-06-18; main's later revisions up to 2026-07-24 changed one
description only; open objects), whose ``$schema`` pattern refuses a missing, date-versioned
or other URL.
Every schema error is a finding at its path (:mod:`agentdex.formats._jsonschema`). Cards
are advisory: a client must prefer the server's runtime answers (the consistency check
compares them).

Deployed cards still follow earlier drafts, so agentdex reads their facts too and names the
shape it read (they fail the schema, which requires ``$schema``, ``name``, ``version`` and
``description``):

* SEP-1649 (the draft SEP-2127 replaced): ``serverInfo {name, version}``, ``transport {type,
  endpoint}`` (the endpoint may be relative to the origin), ``authentication``; and informal
  cards with a bare ``url``/``endpoint``/``transports[]`` and ``authentication: "none"``.
  These are read with a ``draft_shape`` warning naming the SEP-2127 spelling, and a
  ``serverInfo.name`` outside the reverse-DNS form is a ``reverse_dns`` warning.
* The plural file some sites publish is ``{"servers": [card, …]}``; each card in it is
  validated, its findings located ``servers[i].…``.

A card that names no endpoint is a ``no_endpoint`` warning. Facts read: name (``title``, else
``name``, else ``serverInfo.name``; the reverse-DNS name is ``extra["registry_name"]``),
every MCP endpoint without template variables, auth, the declared tools of draft cards (MCP
tool objects, compared with the live ``tools/list`` by the consistency check), the schema
family (``extra["schema_version"]``: ``v1``, ``v2`` or ``None``) and each remote's
``supportedProtocolVersions``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentdex.formats import _jsonschema
from agentdex.formats._check import Checker, join
from agentdex.formats._discovery import auth_words, base_url, header_auth, resolve, tool_from_mcp, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.formats.schemas import load_vendored
from agentdex.models import CardFacts, Finding, Listing, ParseResult, StatedFacts, Tool

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

NAME = "server_card"
MEDIA_TYPE = "application/mcp-server-card+json"
# The single card, the same without ".json", then the plural list: locations of earlier drafts.
WELL_KNOWN_PATHS = (
    "/.well-known/mcp/server-card.json",
    "/.well-known/mcp/server-card",
    "/.well-known/mcp/server-cards.json",
)
LEGACY_PREFIXES = ("/.well-known/mcp/", "/.well-known/mcp.json")
CARD_SUFFIX = "/server-card"  # appended to a Streamable HTTP endpoint's URL (SEP-2127)
MAX_BYTES = 512 * 1024  # a draft card may carry every tool's input schema
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
SCHEMA_URLS = {
    "v1": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    "v2": "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
}
# A ``$schema`` in the server-card family: ``/schemas/vN/`` (server.json's are dated).
CARD_SCHEMA_RE = re.compile(r"static\.modelcontextprotocol\.io/schemas/v\d+/", re.IGNORECASE)
REVERSE_DNS_RE = re.compile(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+")
DRAFT_KEYS = ("serverInfo", "transport", "transports", "endpoint", "url")


@cache
def validator(version: str) -> Validator:
    """The published schema of family ``version`` (``v1`` or ``v2``), compiled once, at its
    ``ServerCard`` definition (the file defines types only)."""
    return _jsonschema.compile_schema(load_vendored(f"server_card_{version}"), "#/$defs/ServerCard")


def schema_version(card: Any) -> str | None:
    """``v2`` for a card whose ``$schema`` names the ``/v2/`` family, ``v1`` for ``/v1/``,
    else ``None`` (such a card is checked against v1, whose pattern refuses it)."""
    schema = card.get("$schema") if isinstance(card, dict) else None
    return next((v for v, url in SCHEMA_URLS.items() if schema == url), None)


def names_card_schema(schema: Any) -> bool:
    """Whether a ``$schema`` value is in the server-card URL family (``/schemas/vN/…``),
    even a wrong file name in it: the registry's server.json schemas are dated instead."""
    return isinstance(schema, str) and bool(CARD_SCHEMA_RE.search(schema))


def card_url(endpoint: str) -> str:
    """Where SEP-2127 lets a server host its card: ``<streamable-http-url>/server-card``
    (``https://host/mcp`` -> ``https://host/mcp/server-card``; query and fragment dropped)."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}{CARD_SUFFIX}"


def location_finding(url: str) -> Finding | None:
    """A ``legacy_location`` warning for a card fetched at a ``/.well-known/mcp/…`` path (an
    earlier draft's location; SEP-2127 finds cards through an AI Catalog or at
    ``<endpoint>/server-card``), else ``None``."""
    path = urlsplit(url).path
    if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in LEGACY_PREFIXES):
        return None
    return Finding(
        "warning",
        "",
        "legacy_location",
        f"this card is at {path}, a location of an earlier draft; SEP-2127 lists cards in "
        "/.well-known/ai-catalog.json or serves them at <streamable-http-url>/server-card",
    )


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of a server card or a ``{"servers": [...]}`` file."""
    return read_document(data, validate_document, name=NAME, what="server card", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as a server card (or a list of them)."""
    if not isinstance(doc, dict):
        return False
    if names_card_schema(doc.get("$schema")):
        return True
    return isinstance(doc.get("servers"), list) or "serverInfo" in doc or ("remotes" in doc and "packages" not in doc)


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded card (or plural file) against its published schema and read the
    facts it states."""
    c = Checker()
    cards = _cards(c, doc)
    if cards is None:
        return ParseResult(NAME, None, c.findings, doc)
    base = base_url(origin)
    both = [_card(c, card, where, base) for where, card in cards]
    read = [card for card, _ in both]
    listing = Listing(format=NAME, origin=origin)
    first = read[0] if read else CardFacts()
    listing.name, listing.description = first.get("name"), first.get("description")
    mcp_urls = unique([u for card in read for u in card["mcp_urls"]])
    listing.mcp_url = mcp_urls[0] if mcp_urls else None
    listing.auth_methods = unique([w for card in read for w in card["auth"]])
    listing.mcp_auth = list(listing.auth_methods)
    listing.tools = [t for _, tools in both for t in tools]
    listing.extra = {
        **StatedFacts(mcp_urls=mcp_urls),
        "registry_name": first.get("registry_name"),
        "schema_version": first.get("schema_version"),
        **StatedFacts(
            mcp_tools=[t.name for t in listing.tools] if any(card["declares_tools"] for card in read) else None
        ),
        "auth": listing.auth_methods,
        **StatedFacts(cards=read),
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


def _card(c: Checker, card: dict, where: str, base: str | None) -> tuple[CardFacts, list[Tool]]:
    """What one card states, and its tools."""
    version = _schema(c, card, where)
    info = card["serverInfo"] if isinstance(card.get("serverInfo"), dict) else {}
    name = _text(card, "name") or _draft_name(c, info, where)
    _warn_draft_keys(c, card, where)
    urls, auth, versions, templated = _remotes(card)
    urls += _draft_endpoints(c, card, where, base)
    auth += _auth(card.get("authentication"))
    if not urls:
        _warn_no_endpoint(c, where, templated)
    tools = _tools(c, card, where)
    facts = CardFacts(
        name=_text(card, "title") or name,
        registry_name=name if name and REVERSE_DNS_RE.fullmatch(name) else None,
        description=_text(card, "description"),
        version=card.get("version") or info.get("version"),
        schema_version=version,
        mcp_urls=unique(urls),
        protocol_versions=versions,
        auth=unique(auth),
        declares_tools="tools" in card,
    )
    return facts, tools


def _warn_draft_keys(c: Checker, card: dict, where: str) -> None:
    draft = [k for k in DRAFT_KEYS if k in card]
    if draft:
        c.warn(
            join(where, draft[0]),
            "draft_shape",
            f"{', '.join(draft)}: keys of an earlier server-card draft; SEP-2127 names endpoints in remotes[]",
        )


def _warn_no_endpoint(c: Checker, where: str, templated: bool) -> None:
    c.warn(
        join(where, "remotes"),
        "no_endpoint",
        "the card names only URL templates ({variables} a user fills in), no one endpoint to probe"
        if templated
        else "the card names no MCP endpoint to connect to",
    )


def _schema(c: Checker, card: dict, where: str) -> str | None:
    """Check ``card`` against the schema its ``$schema`` names; a ``$schema`` of neither family
    is one clear error (the rest of the card is still checked, against v1)."""
    version, named = schema_version(card), card.get("$schema")
    if version is None and isinstance(named, str):
        at = join(where, "$schema")
        c.error(
            at,
            "pattern",
            f"{at} is {named[:120]!r}; a server card names {SCHEMA_URLS['v1']} or its /v2/ twin "
            "(card schemas are versioned by vN, never by date; server.schema.json is the registry's)",
        )
        card = {**card, "$schema": SCHEMA_URLS["v1"]}
    _jsonschema.check(c, validator(version or "v1"), card, where)
    return version


def _text(obj: dict, key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _draft_name(c: Checker, info: dict, where: str) -> str | None:
    name = _text(info, "name")
    at = join(join(where, "serverInfo"), "name")
    if name is not None and not REVERSE_DNS_RE.fullmatch(name):
        c.warn(at, "reverse_dns", f"{at} is {name!r}; SEP-2127 names a server in reverse-DNS form (com.example/server)")
    return name


def _remotes(card: dict) -> tuple[list[str], list[str], list[str], bool]:
    """Endpoints, auth words and protocol versions of ``remotes[]`` (the schema checked
    their shape), and whether any URL is a template (it names no one endpoint: left out)."""
    urls: list[str] = []
    templated = False
    auth: list[str] = []
    versions: list[str] = []
    remotes = card.get("remotes")
    for remote in remotes if isinstance(remotes, list) else []:
        if not isinstance(remote, dict):
            continue
        url = resolve(remote.get("url"), None)
        templated = templated or "{" in str(remote.get("url"))
        urls += [url] if url else []
        auth += _auth(remote.get("authentication")) + header_auth(remote.get("headers"))
        listed = remote.get("supportedProtocolVersions")
        versions += [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []
    return urls, auth, unique(versions), templated


def _draft_endpoints(c: Checker, card: dict, where: str, base: str | None) -> list[str]:
    urls = [_url(c, card, key, where, base) for key in ("url", "endpoint")]
    transport = card.get("transport")
    if isinstance(transport, dict):
        urls.append(_url(c, transport, "endpoint", join(where, "transport"), base))
    for i, item in enumerate(c.array(card, "transports", where) or []):
        if isinstance(item, dict):
            urls.append(_url(c, item, "endpoint", join(join(where, "transports"), i), base))
    return [u for u in urls if u]


def _url(c: Checker, obj: dict, key: str, where: str, base: str | None) -> str | None:
    value = c.string(obj, key, where)
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

"""A2A agent cards (``/.well-known/agent-card.json``, before A2A 0.3 ``/.well-known/agent.json``).

Spec: the A2A protocol's ``AgentCard`` (JSON Schema of v0.3.0, ``specification/json/a2a.json``,
and the v1.0 shape generated from ``a2a.proto``). Both versions are read:

* v0.3 names the endpoint in ``url`` with ``preferredTransport`` and ``additionalInterfaces``;
  v1.0 lists ``supportedInterfaces`` (``url`` + ``protocolBinding`` or ``transport``). One of
  ``url`` and ``supportedInterfaces`` is required (``one_of_required``).
* Required as in v0.3: ``name``, ``description``, ``version``, ``capabilities`` (an object),
  ``defaultInputModes``/``defaultOutputModes`` (arrays of media types) and ``skills`` (each
  with ``id``, ``name``, ``description`` and ``tags``). A missing ``protocolVersion`` is
  ``required`` in the v0.3 shape (``url``, no ``supportedInterfaces``), as its schema says, and
  a ``recommended`` warning in the v1.0 shape: v1.0 cards state it per interface.
* Security schemes in either spelling (v0.3 ``{"type": "http", "scheme": "bearer"}``, v1.0
  ``{"httpAuthSecurityScheme": {...}}``) and the pre-0.2 ``authentication.schemes`` list
  become agentdex's auth words. A mode that is not a media type (``"text"``) and an ``http://``
  endpoint are warnings: clients may still cope.
* A document with none of the keys that make a card (``skills``, ``url``,
  ``supportedInterfaces``, ``protocolVersion``, ``preferredTransport``) is not an A2A card
  (``not_a2a``): the legacy file name is shared with other protocols (an Agent Handshake
  Protocol document was found there), and no listing is read from it.

Facts read: name, description, the A2A endpoints (``extra["a2a_urls"]``; A2A is not MCP, so
no MCP endpoint), auth, the provider as publisher, and skills as tools marked
``detail["kind"] == "a2a_skill"`` (never compared with MCP tools).
"""

from __future__ import annotations

import re
from typing import Any

from agentdex.formats._check import Checker, is_absolute_url, join
from agentdex.formats._discovery import auth_word, auth_words, base_url, read_document, resolve, unique
from agentdex.formats._spec import FormatSpec
from agentdex.models import Finding, Listing, ParseResult, Tool

NAME = "a2a_card"
WELL_KNOWN_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
MAX_BYTES = 256 * 1024  # A2A names no limit; a card with a hundred skills is ~60 KB
SPEC = FormatSpec(
    NAME,
    priority=110,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATHS[0],
    also_at=WELL_KNOWN_PATHS[1:],
    discovery=True,
    title="an A2A Agent Card",
    keys=frozenset(
        {
            "protocolVersion",
            "url",
            "skills",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "supportedInterfaces",
            "preferredTransport",
            "securitySchemes",
            "security",
            "provider",
            "documentationUrl",
            "supportsExtendedAgentCard",
            "authentication",
        }
    ),
    schema_marks=("/a2a",),
    detect_rank=90,
)  # any url or skills key passes: tried last
CARD_KEYS = ("skills", "url", "supportedInterfaces", "protocolVersion", "preferredTransport")
TOP_LEVEL = (
    "protocolVersion",
    "name",
    "description",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "supportedInterfaces",
    "iconUrl",
    "provider",
    "version",
    "documentationUrl",
    "capabilities",
    "securitySchemes",
    "security",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "supportsAuthenticatedExtendedCard",
    "supportsExtendedAgentCard",
    "signatures",
    "authentication",
)
SKILL_KEYS = ("id", "name", "description", "tags", "examples", "inputModes", "outputModes", "security")
MEDIA_TYPE_RE = re.compile(r"[\w.+-]+/[\w.+-]+(?:;.*)?")
# v1.0 wraps each scheme in one key; v0.3 gives its type.
_SCHEME_WRAPPERS = {
    "httpAuthSecurityScheme": "http",
    "apiKeySecurityScheme": "apiKey",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mutualTLS",
}


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an agent card (256 KB limit)."""
    return read_document(data, validate_document, name=NAME, what="agent card", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document has any of the keys that make an A2A card."""
    return isinstance(doc, dict) and any(k in doc for k in CARD_KEYS)


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded agent card and read the facts it states."""
    if not looks_like(doc):
        return ParseResult(NAME, None, [Finding("error", "", "not_a2a", _not_a2a(doc))], doc)
    c = Checker()
    c.unknown_keys(doc, "", TOP_LEVEL, silent=[k for k in doc if k.startswith("x-")])
    listing = Listing(format=NAME, origin=origin)
    listing.name = c.string(doc, "name", "", required=True)
    listing.description = c.string(doc, "description", "", required=True, min_len=1)
    version = c.string(doc, "version", "", required=True)
    if "protocolVersion" in doc:
        c.string(doc, "protocolVersion", "")
    elif "url" in doc and "supportedInterfaces" not in doc:  # the v0.3 shape: its schema requires it
        c.error("protocolVersion", "required", "protocolVersion is required in an A2A 0.3 card (one with url)")
    else:
        c.warn(
            "protocolVersion",
            "recommended",
            "protocolVersion is missing; clients cannot tell which A2A version the card follows",
        )
    c.obj(doc, "capabilities", "", required=True)
    for key in ("defaultInputModes", "defaultOutputModes"):
        _modes(c, doc, key, "", required=True)
    urls = _endpoints(c, doc, base_url(origin))
    _provider(c, doc, listing)
    listing.auth_methods = _auth(c, doc)
    listing.tools = _skills(c, doc)
    listing.extra = {
        "a2a_urls": urls,
        "version": version,
        "protocol_version": doc.get("protocolVersion"),
        "auth": listing.auth_methods,
    }
    return ParseResult(NAME, listing, c.findings, doc)


def _not_a2a(doc: Any) -> str:
    if isinstance(doc, dict) and "ahp" in doc:
        return (
            "this is an Agent Handshake Protocol document, not an A2A agent card (it shares the legacy agent.json path)"
        )
    return (
        "not an A2A agent card: it has none of skills, url, supportedInterfaces, protocolVersion or preferredTransport"
    )


def _modes(c: Checker, obj: dict, key: str, path: str, required: bool = False) -> None:
    items = c.array(obj, key, path, required)
    for i, mode in enumerate(items or []):
        where = join(join(path, key), i)
        if not isinstance(mode, str):
            c.error(where, "type", f"{where} must be a string")
        elif not MEDIA_TYPE_RE.fullmatch(mode):
            c.warn(where, "media_type", f"{where} is {mode!r}; A2A modes are media types such as text/plain")


def _endpoints(c: Checker, doc: dict, base: str | None) -> list[str]:
    urls: list[str | None] = []
    if "url" not in doc and "supportedInterfaces" not in doc:
        c.error("url", "one_of_required", "an agent card needs url (A2A 0.3) or supportedInterfaces (A2A 1.0)")
    if doc.get("url") is not None:
        urls.append(_endpoint(c, doc, "url", "", base))
    for key in ("supportedInterfaces", "additionalInterfaces"):
        for i, item in enumerate(c.array(doc, key, "") or []):
            where = join(key, i)
            if not isinstance(item, dict):
                c.error(where, "not_object", f"{where} must be an object with a url")
                continue
            c.string(item, "protocolBinding" if "protocolBinding" in item else "transport", where)
            urls.append(_endpoint(c, item, "url", where, base, required=True))
    return unique([u for u in urls if u])


def _endpoint(c: Checker, obj: dict, key: str, path: str, base: str | None, required: bool = False) -> str | None:
    value = c.string(obj, key, path, required)
    where = join(path, key)
    if value is None:
        return None
    if not is_absolute_url(value):
        c.error(where, "url", f"{where} must be an absolute URL, not {value[:80]!r}")
        return resolve(value, base)
    if value.startswith("http://"):
        c.warn(where, "https", f"{where} is plain http; agents should reach an A2A endpoint over https")
    return value


def _provider(c: Checker, doc: dict, listing: Listing) -> None:
    provider = c.obj(doc, "provider", "")
    if provider is None:
        return
    listing.publisher_name = c.string(provider, "organization", "provider", required=True)
    listing.publisher_url = c.url(provider, "url", "provider", required=True)


def _auth(c: Checker, doc: dict) -> list[str]:
    words: list[str] = []
    schemes = c.obj(doc, "securitySchemes", "")
    for name, scheme in (schemes or {}).items():
        where = join("securitySchemes", name)
        if not isinstance(scheme, dict):
            c.error(where, "not_object", f"{where} must be an object")
            continue
        words.append(_scheme_word(scheme))
    legacy = doc.get("authentication")
    if isinstance(legacy, dict):
        words += auth_words(legacy.get("schemes") or [])
    if not words and "securitySchemes" not in doc and "authentication" not in doc:
        return []  # the card says nothing about auth
    return unique(words) or ["none"]


def _scheme_word(scheme: dict) -> str:
    kind, inner = scheme.get("type"), scheme
    for wrapper, name in _SCHEME_WRAPPERS.items():
        if isinstance(scheme.get(wrapper), dict):
            kind, inner = name, scheme[wrapper]
    if kind == "http":
        return auth_word(str(inner.get("scheme") or "")) or "other"
    return auth_word(str(kind or "")) or "other"


def _skills(c: Checker, doc: dict) -> list[Tool]:
    tools: list[Tool] = []
    for i, skill in enumerate(c.array(doc, "skills", "", required=True) or []):
        where = join("skills", i)
        if not isinstance(skill, dict):
            c.error(where, "not_object", f"{where} must be an object")
            continue
        c.unknown_keys(skill, where, SKILL_KEYS)
        skill_id = c.string(skill, "id", where, required=True)
        name = c.string(skill, "name", where, required=True)
        description = c.string(skill, "description", where, required=True)
        c.array(skill, "tags", where, required=True)
        for key in ("inputModes", "outputModes"):
            _modes(c, skill, key, where)
        tool_name = skill_id or name
        if tool_name:
            tools.append(
                Tool(name=tool_name, description=description or "", detail={"kind": "a2a_skill", "title": name})
            )
    return tools

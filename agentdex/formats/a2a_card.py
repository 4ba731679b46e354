"""A2A agent cards (``/.well-known/agent-card.json``, before A2A 0.3 ``/.well-known/agent.json``).

Spec: the A2A protocol's ``AgentCard``, in two versions, told apart by the card's shape
(:func:`card_version`) and each validated against its own published schema
(:mod:`~agentdex.formats._a2a_schemas`):

* **1.0** (a2aproject/A2A tag v1.0.1, 2026-05-28; normative source
  ``specification/a2a.proto``): ``supportedInterfaces[]`` (``url``, ``protocolBinding``
  JSONRPC | HTTP+JSON | GRPC or another, ``protocolVersion``, ``tenant``) in place of the
  top-level ``url``; ``capabilities.extendedAgentCard`` in place of
  ``supportsAuthenticatedExtendedCard``; ``securityRequirements`` (the v1.0.1 sample card
  still wrote ``security``). Checked against the A2A v1 JSON bundle (its ``AgentCard`` that
  of v1.0.1; :mod:`~agentdex.formats._a2a_schemas`) with the proto's REQUIRED fields.
  The bundle closes every object, but the specification says
  implementations SHOULD ignore unrecognised fields: a key it does not define is an
  ``unknown_key`` warning, never an error (``x-`` vendor keys produce nothing).
* **0.3** (``url``, ``preferredTransport``, ``additionalInterfaces``, ``protocolVersion``):
  checked against the 0.3 JSON Schema (``specification/json/a2a.json``, its ``AgentCard`` that
  of tag v0.3.0), whose objects are
  open; a top-level key it does not define is an ``unknown_key`` warning.

A card with neither ``url`` nor ``supportedInterfaces`` is ``one_of_required`` (and checked
as 1.0 otherwise). Beyond the schemas: an endpoint that is no absolute URL is a ``url``
error (A2A requires absolute URLs; agentdex cannot reach a relative one), a plain ``http://``
one an ``https`` warning, a mode that is not a media type (``"text"``) a ``media_type``
warning. A document with none of the keys that make a card (``skills``, ``url``,
``supportedInterfaces``, ``protocolVersion``, ``preferredTransport``) is not an A2A card
(``not_a2a``): the legacy file name is shared with other protocols (an Agent Handshake
Protocol document was found there), and no listing is read from it.

Facts read: name, description, the A2A endpoints (``extra["a2a_urls"]``; A2A is not MCP, so
no MCP endpoint), every interface (``extra["interfaces"]``, :func:`interfaces`), the card
version, whether an extended card is offered, auth (security schemes in either spelling,
and the pre-0.2 ``authentication.schemes``), the provider as publisher, and skills as tools
marked ``detail["kind"] == "a2a_skill"`` (never compared with MCP tools).
:func:`cross_check` compares a 0.3 and a 1.0 card of one origin.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from agentdex.formats import _a2a_schemas, _jsonschema
from agentdex.formats._check import Checker, is_absolute_url, join
from agentdex.formats._discovery import auth_word, auth_words, base_url, normalise_url, resolve, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.models import Finding, Listing, ParseResult, StatedFacts, Tool

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
# The keys of either version, for the lookalike diagnosis of ``agentdex validate``.
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
    "securityRequirements",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "supportsAuthenticatedExtendedCard",
    "signatures",
)
BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")  # the core protocol bindings of A2A 1.0
DEFAULT_TRANSPORT = "JSONRPC"  # A2A 0.3: preferredTransport's default
MEDIA_TYPE_RE = re.compile(r"[\w.+-]+/[\w.+-]+(?:;.*)?")
# v1.0 wraps each scheme in one key; v0.3 gives its type.
_SCHEME_WRAPPERS = {
    "httpAuthSecurityScheme": "http",
    "apiKeySecurityScheme": "apiKey",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mutualTLS",
}


@dataclass(frozen=True)
class Interface:
    """One way to reach an agent: an absolute ``url``, its protocol ``binding`` (upper case:
    JSONRPC, HTTP+JSON, GRPC or another), the A2A ``version`` it speaks there (``None`` when
    the card does not say) and the ``tenant`` to send, if any."""

    url: str
    binding: str
    version: str | None = None
    tenant: str | None = None


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an agent card (256 KB limit)."""
    return read_document(data, validate_document, name=NAME, what="agent card", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document has any of the keys that make an A2A card."""
    return isinstance(doc, dict) and any(k in doc for k in CARD_KEYS)


def card_version(doc: Any) -> str | None:
    """``"1.0"`` for a card listing ``supportedInterfaces``, ``"0.3"`` for one naming its
    endpoint in ``url``, else ``None``."""
    if not isinstance(doc, dict):
        return None
    if "supportedInterfaces" in doc:
        return "1.0"
    return "0.3" if "url" in doc else None


def interfaces(doc: Any) -> list[Interface]:
    """Every interface a card declares with an absolute http(s) URL, in its order: a 1.0
    card's ``supportedInterfaces`` (the first is preferred); a 0.3 card's ``url`` (with its
    ``preferredTransport``, JSONRPC by default, and ``protocolVersion``) then its
    ``additionalInterfaces``. Pure; nothing is checked but the URL's form."""
    if not isinstance(doc, dict):
        return []
    if card_version(doc) == "1.0":
        items = doc["supportedInterfaces"] if isinstance(doc["supportedInterfaces"], list) else []
        found = [
            _interface(
                i.get("url"), i.get("protocolBinding") or i.get("transport"), i.get("protocolVersion"), i.get("tenant")
            )
            for i in items
            if isinstance(i, dict)
        ]
    else:
        version = doc.get("protocolVersion")
        found = [_interface(doc.get("url"), doc.get("preferredTransport") or DEFAULT_TRANSPORT, version, None)]
        extra = doc.get("additionalInterfaces")
        found += [
            _interface(i.get("url"), i.get("transport"), version, None)
            for i in (extra if isinstance(extra, list) else [])
            if isinstance(i, dict)
        ]
    return list(dict.fromkeys(i for i in found if i is not None))


def _interface(url: Any, binding: Any, version: Any, tenant: Any) -> Interface | None:
    if not isinstance(url, str) or not is_absolute_url(url.strip()):
        return None
    return Interface(
        url.strip(),
        binding.strip().upper() if isinstance(binding, str) and binding.strip() else DEFAULT_TRANSPORT,
        version if isinstance(version, str) and version else None,
        tenant if isinstance(tenant, str) and tenant else None,
    )


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded agent card against the schema of its version and read the facts
    it states."""
    if not looks_like(doc):
        return ParseResult(NAME, None, [Finding("error", "", "not_a2a", _not_a2a(doc))], doc)
    c = Checker()
    version = card_version(doc)
    _schema(c, doc, version)
    for key in ("defaultInputModes", "defaultOutputModes"):
        _modes(c, doc, key, "")
    listing = Listing(format=NAME, origin=origin)
    listing.name, listing.description = _text(doc, "name"), _text(doc, "description")
    urls = _endpoints(c, doc, base_url(origin))
    _provider(doc, listing)
    listing.auth_methods = _auth(doc)
    listing.tools = _skills(c, doc)
    listing.extra = {
        **StatedFacts(a2a_urls=urls),
        "interfaces": [asdict(i) for i in interfaces(doc)],
        "card_version": version,
        "extended_card": _extended_card(doc),
        "version": doc.get("version"),
        "protocol_version": doc.get("protocolVersion"),
        "auth": listing.auth_methods,
    }
    return ParseResult(NAME, listing, c.findings, doc)


def _schema(c: Checker, doc: dict, version: str | None) -> None:
    """Every error of the card's own schema; unknown keys as warnings (A2A: SHOULD ignore)."""
    if version is None:
        c.error("url", "one_of_required", "an agent card needs url (A2A 0.3) or supportedInterfaces (A2A 1.0)")
    validator = _a2a_schemas.v03_validator() if version == "0.3" else _a2a_schemas.v1_validator()
    for error in _jsonschema.errors(validator, doc):
        if error.validator == "additionalProperties":
            _unknown(c, error)
        elif not (version is None and error.validator == "required" and "'supportedInterfaces'" in error.message):
            _jsonschema.record(c, error)
    if version == "0.3":
        c.unknown_keys(doc, "", _a2a_schemas.v03_fields(), silent=[k for k in doc if k.startswith("x-")])


def _unknown(c: Checker, error: Any) -> None:
    where = _jsonschema.error_path(error)
    for key in _jsonschema.extra_keys(error):
        if not key.startswith("x-"):
            at = join(where, key)
            c.warn(
                at, "unknown_key", f"unknown key {key!r} {'at ' + where if where else 'at the top level'} is ignored"
            )


def _text(obj: dict, key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _extended_card(doc: dict) -> bool | None:
    capabilities = doc.get("capabilities")
    if isinstance(capabilities, dict) and isinstance(capabilities.get("extendedAgentCard"), bool):
        return bool(capabilities["extendedAgentCard"])
    legacy = doc.get("supportsAuthenticatedExtendedCard")
    return legacy if isinstance(legacy, bool) else None


def _not_a2a(doc: Any) -> str:
    if isinstance(doc, dict) and "ahp" in doc:
        return (
            "this is an Agent Handshake Protocol document, not an A2A agent card (it shares the legacy agent.json path)"
        )
    return (
        "not an A2A agent card: it has none of skills, url, supportedInterfaces, protocolVersion or preferredTransport"
    )


def _modes(c: Checker, obj: dict, key: str, path: str) -> None:
    items = obj.get(key)
    for i, mode in enumerate(items if isinstance(items, list) else []):
        where = join(join(path, key), i)
        if isinstance(mode, str) and not MEDIA_TYPE_RE.fullmatch(mode):
            c.warn(where, "media_type", f"{where} is {mode!r}; A2A modes are media types such as text/plain")


def _endpoints(c: Checker, doc: dict, base: str | None) -> list[str]:
    urls: list[str | None] = []
    if isinstance(doc.get("url"), str):
        urls.append(_endpoint(c, doc, "url", "", base))
    for key in ("supportedInterfaces", "additionalInterfaces"):
        items = doc.get(key)
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                urls.append(_endpoint(c, item, "url", join(key, i), base))
    return unique([u for u in urls if u])


def _endpoint(c: Checker, obj: dict, key: str, path: str, base: str | None) -> str | None:
    value, where = obj[key], join(path, key)
    if not is_absolute_url(value):
        c.error(where, "url", f"{where} must be an absolute URL, not {value[:80]!r}")
        return resolve(value, base)
    if value.startswith("http://"):
        c.warn(where, "https", f"{where} is plain http; agents should reach an A2A endpoint over https")
    return value


def _provider(doc: dict, listing: Listing) -> None:
    provider = doc.get("provider")
    if isinstance(provider, dict):
        listing.publisher_name = _text(provider, "organization")
        url = _text(provider, "url")
        listing.publisher_url = url if url and is_absolute_url(url) else None


def _auth(doc: dict) -> list[str]:
    words: list[str] = []
    schemes = doc.get("securitySchemes")
    for scheme in (schemes if isinstance(schemes, dict) else {}).values():
        if isinstance(scheme, dict):
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
    skills = doc.get("skills")
    for i, skill in enumerate(skills if isinstance(skills, list) else []):
        if not isinstance(skill, dict):
            continue
        for key in ("inputModes", "outputModes"):
            _modes(c, skill, key, join("skills", i))
        tool_name = _text(skill, "id") or _text(skill, "name")
        if tool_name:
            detail = {"kind": "a2a_skill", "title": _text(skill, "name")}
            tools.append(Tool(name=tool_name, description=_text(skill, "description") or "", detail=detail))
    return tools


# -- a 0.3 and a 1.0 card of one origin ------------------------------------------------------------


def cross_check(card_03: Any, card_10: Any) -> list[Finding]:
    """Where an origin's A2A 0.3 card and its 1.0 card disagree (many agents serve both), as
    warnings located in the 1.0 card: a different ``name`` (``name_differs``; case, spaces
    and punctuation ignored), agent ``version`` (``version_differs``), skill ids
    (``skills_differ``), auth (``auth_differs``: no word in common) or no endpoint in common
    (``a2a_endpoint_differs``: the 0.3 card's URLs against every 1.0 interface). Pure."""
    if not (isinstance(card_03, dict) and isinstance(card_10, dict)):
        return []
    found = [f for f in (_same(card_03, card_10, "name", _plain), _same(card_03, card_10, "version", str)) if f]
    skills_03, skills_10 = _skill_ids(card_03), _skill_ids(card_10)
    if skills_03 and skills_10 and skills_03 != skills_10:
        only = sorted(skills_03 ^ skills_10)
        found.append(_differs("skills", "skills_differ", f"the 0.3 and 1.0 cards declare different skills: {only}"))
    auth_03, auth_10 = set(_auth(card_03)) - {"other"}, set(_auth(card_10)) - {"other"}
    if auth_03 and auth_10 and not auth_03 & auth_10:
        words = f"{sorted(auth_03)} against {sorted(auth_10)}"
        found.append(_differs("securitySchemes", "auth_differs", f"the 0.3 and 1.0 cards share no auth: {words}"))
    urls_03 = {normalise_url(i.url) for i in interfaces(card_03)}
    urls_10 = {normalise_url(i.url) for i in interfaces(card_10)}
    if urls_03 and urls_10 and not urls_03 & urls_10:
        message = f"no endpoint of the 0.3 card ({', '.join(sorted(urls_03))}) is an interface of the 1.0 card"
        found.append(_differs("supportedInterfaces", "a2a_endpoint_differs", message))
    return found


def _same(a: dict, b: dict, key: str, plain: Any) -> Finding | None:
    if not (isinstance(a.get(key), str) and isinstance(b.get(key), str)) or plain(a[key]) == plain(b[key]):
        return None
    return _differs(key, f"{key}_differs", f"the 0.3 card's {key} is {a[key][:80]!r}, the 1.0 card's {b[key][:80]!r}")


def _differs(path: str, code: str, message: str) -> Finding:
    return Finding("warning", path, code, message)


def _plain(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _skill_ids(card: dict) -> set[str]:
    skills = card.get("skills")
    return (
        {s["id"] for s in skills if isinstance(s, dict) and isinstance(s.get("id"), str)}
        if isinstance(skills, list)
        else set()
    )

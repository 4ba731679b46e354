"""AI Catalogs 1.0 (``/.well-known/ai-catalog.json``, media type ``application/ai-catalog+json``):
Agent-Card/ai-catalog, ``specification/ai-catalog.md``.

Spec revision: commit e82016ff715d367e73334e356b66799c5bc81cf0 (ADR-0033, 2026-10-05), after
the 2026-07-13 rename of an entry's ``mediaType`` to ``type``. The specification publishes no
JSON Schema; its normative definition is the CDDL section, which agentdex writes out as
``schemas/ai-catalog-1.0.schema.json`` (one ``$defs`` rule per CDDL rule; provenance in
``schemas/SOURCES.md``) and validates against. A catalog is ``{"specVersion", "host"?,
"entries": […], "signature"?, "extensions"?}``; an entry has an ``identifier`` (open text: any
URI or URN, ``urn:air:{publisher}:{namespace}:{name}`` recommended), a ``type`` (the artifact's
media type: ``application/mcp-server-card+json``, ``application/a2a-agent-card+json``,
``application/ai-catalog+json`` for a nested catalog …) and exactly one of ``url`` (where the
artifact lives) and ``data`` (the artifact inline); ``displayName``, ``version``,
``description``, ``tags``, ``publisher``, ``digest``, ``trustManifests``, ``updatedAt`` and
``extensions`` are optional.

Beyond the CDDL, from the prose: ``specVersion`` is "Major.Minor" and a major other than 1
is ``unsupported_version`` (consumers SHOULD reject a major they do not support; a higher
minor is read); ``identifier`` (with ``version`` when present) is unique in a catalog
(``unique``). Unknown members are ignored, as the specification requires: each is an
``unknown_key`` warning, never an error (``mediaType`` names its 1.0 spelling). An ARD v0.9
catalog (ards-project/ard-spec, which required ``displayName``) stays valid when it is a
valid 1.0 catalog.

For the crawler: :func:`entries` lists a catalog's usable entries (identifier, media type,
absolute ``url`` or inline ``data``). The listing read here: the host's display name (as name
and publisher), every ``url`` entry by media type (``extra["documents"]``), the MCP endpoints
and tools of MCP server cards given inline (read with :mod:`~agentdex.formats.server_card`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urljoin

from agentdex.formats import _jsonschema, server_card
from agentdex.formats._check import Checker, is_absolute_url, join
from agentdex.formats._discovery import base_url, resolve, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.formats.schemas import load_derived
from agentdex.models import Listing, ParseResult, StatedFacts

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

NAME = "ai_catalog"
MEDIA_TYPE = "application/ai-catalog+json"
A2A_CARD_TYPE = "application/a2a-agent-card+json"
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
SUPPORTED_MAJOR = 1
MCP_TYPES = (server_card.MEDIA_TYPE, "application/mcp-server+json")
TOP_LEVEL = ("specVersion", "host", "entries", "signature", "additionalSignatures", "extensions")
HOST_KEYS = ("displayName", "identifier", "documentationUrl", "logoUrl")
ENTRY_KEYS = (
    "identifier",
    "displayName",
    "type",
    "url",
    "data",
    "version",
    "description",
    "tags",
    "publisher",
    "digest",
    "trustManifests",
    "updatedAt",
    "extensions",
)
RENAMED = {"mediaType": "type"}  # the 2026-07-13 rename (before 1.0)
VERSION_RE = re.compile(r"([0-9]+)\.[0-9]+")


@dataclass(frozen=True)
class Entry:
    """One usable catalog entry, as the crawler follows it: ``url`` (absolute) or inline
    ``data``, never both; ``type`` is the declared media type, lower case, without
    parameters; ``path`` is where it sits (``entries[2]``)."""

    path: str
    identifier: str
    type: str
    url: str | None = None
    data: Any = None
    display_name: str | None = None

    @property
    def inline(self) -> bool:
        """Whether the artifact is given in place (``data``) rather than linked."""
        return self.url is None


@cache
def validator() -> Validator:
    """The JSON Schema agentdex derived from the specification's CDDL, compiled once."""
    return _jsonschema.compile_schema(load_derived(NAME))


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an ai-catalog.json."""
    return read_document(data, validate_document, name=NAME, what="AI catalog", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is an AI catalog (``specVersion`` and ``entries``)."""
    return isinstance(doc, dict) and "specVersion" in doc and "entries" in doc


def media_type(value: Any) -> str | None:
    """A declared ``type`` as compared: lower case, parameters and spaces dropped."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.split(";", 1)[0].strip().lower()


def entries(doc: Any, *, base: str | None = None) -> list[Entry]:
    """The entries of a decoded catalog a crawler can follow, in order: each with a string
    ``identifier``, a media type and exactly one of ``url`` (resolved against ``base``, the
    catalog's own URL or origin; an entry whose URL resolves to no http(s) URL is left out)
    and ``data``. An entry of a catalog published before the 2026-07-13 rename gives its
    media type as ``mediaType``; it is read so. Pure: nothing is fetched."""
    items = doc.get("entries") if isinstance(doc, dict) else None
    found = []
    for i, item in enumerate(items if isinstance(items, list) else []):
        entry = _usable(item, join("entries", i), base)
        if entry is not None:
            found.append(entry)
    return found


def _usable(item: Any, path: str, base: str | None) -> Entry | None:
    if not isinstance(item, dict) or not isinstance(item.get("identifier"), str):
        return None
    kind = media_type(item.get("type", item.get("mediaType")))
    if kind is None or ("url" in item) == ("data" in item):
        return None
    name = item.get("displayName") if isinstance(item.get("displayName"), str) else None
    if "data" in item:
        return Entry(path, item["identifier"], kind, data=item["data"], display_name=name)
    url = _absolute(item.get("url"), base)
    return Entry(path, item["identifier"], kind, url=url, display_name=name) if url else None


def _absolute(url: Any, base: str | None) -> str | None:
    """``url`` made absolute against a document URL (``https://h/.well-known/ai-catalog.json``)
    or an origin (``h``); ``None`` when it names no http(s) URL."""
    if not isinstance(url, str) or not url.strip():
        return None
    if base and "://" in base:
        joined = urljoin(base, url.strip())
        return joined if is_absolute_url(joined) else None
    return resolve(url, base_url(base))


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded AI catalog against the specification's CDDL and read the
    resources it lists."""
    c = Checker()
    if not isinstance(doc, dict):
        c.error("", "not_object", "an AI catalog must be a JSON object")
        return ParseResult(NAME, None, c.findings, doc)
    if _unsupported(c, doc):
        return ParseResult(NAME, None, c.findings, doc)
    for error in _jsonschema.errors(validator(), doc):
        _record(c, error)
    _unknown_keys(c, doc)
    _unique(c, doc)
    host = doc["host"] if isinstance(doc.get("host"), dict) else {}
    name = host.get("displayName") if isinstance(host.get("displayName"), str) else None
    listing = Listing(format=NAME, origin=origin, name=name, publisher_name=name)
    read = [_read(entry, origin) for entry in entries(doc, base=origin)]
    mcp_urls = unique([u for e in read for u in e.get("mcp_urls", [])])
    listing.mcp_url = mcp_urls[0] if mcp_urls else None
    listing.extra = {
        "documents": [{"type": e["type"], "url": e["url"]} for e in read if e.get("url")],
        "entries": [{k: v for k, v in e.items() if k != "tools"} for e in read],
        **StatedFacts(mcp_urls=mcp_urls, mcp_tools=[t for e in read for t in e.get("tools", [])] or None),
    }
    return ParseResult(NAME, listing, c.findings, doc)


def _unsupported(c: Checker, doc: dict) -> bool:
    """A ``specVersion`` of another major version: nothing else is read (its fields may
    mean other things)."""
    version = doc.get("specVersion")
    found = VERSION_RE.fullmatch(version) if isinstance(version, str) else None
    if found is None or int(found.group(1)) == SUPPORTED_MAJOR:
        return False
    c.error(
        "specVersion",
        "unsupported_version",
        f"specVersion {version!r} is of major version {found.group(1)}; agentdex reads AI Catalog 1.x",
    )
    return True


def _record(c: Checker, error: ValidationError) -> None:
    where, instance = _jsonschema.error_path(error), cast(Any, error.instance)
    if error.validator in ("oneOf", "anyOf") and not isinstance(instance, dict):
        return  # not an object: its type error says so
    if error.validator == "oneOf":  # (url: text // data: any)
        has = [k for k in ("url", "data") if k in instance]
        c.error(
            join(where, "url"),
            "exclusive",
            f"{where} needs exactly one of url and data; it has {' and '.join(has) if has else 'neither'}",
        )
    elif error.validator == "anyOf":  # (digest, ?url // url)
        c.error(join(where, "digest"), "one_of_required", f"{where} needs digest or url (or both)")
    elif error.validator == "required" and "'type'" in error.message and isinstance(instance, dict):
        _missing_type(c, instance, where)
    else:
        _jsonschema.record(c, error)


def _missing_type(c: Checker, entry: dict, where: str) -> None:
    at = join(where, "type")
    hint = "; an earlier draft named it mediaType (renamed 2026-07-13)" if "mediaType" in entry else ""
    c.error(at, "required", f"{at} is required (the artifact's media type){hint}")


def _unknown_keys(c: Checker, doc: dict) -> None:
    c.unknown_keys(doc, "", TOP_LEVEL)
    if isinstance(doc.get("host"), dict):
        c.unknown_keys(doc["host"], "host", HOST_KEYS)
    items = doc.get("entries")
    for i, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        where = join("entries", i)
        c.unknown_keys(item, where, ENTRY_KEYS, silent=RENAMED)
        for old, new in RENAMED.items():
            if old in item and new in item:
                c.warn(join(where, old), "unknown_key", f"{join(where, old)} is ignored: AI Catalog 1.0 calls it {new}")


def _unique(c: Checker, doc: dict) -> None:
    """identifier alone, or identifier and version, MUST be unique within a catalog."""
    seen: set[tuple[str, Any]] = set()
    items = doc.get("entries")
    for i, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or not isinstance(item.get("identifier"), str):
            continue
        key = (item["identifier"], item.get("version"))
        if key in seen:
            at = join(join("entries", i), "identifier")
            also = f" with version {key[1]!r}" if key[1] is not None else ""
            c.error(at, "unique", f"{at} {key[0]!r}{also} is listed twice; the pair must be unique in a catalog")
        seen.add(key)


def _read(entry: Entry, origin: str | None) -> dict[str, Any]:
    read: dict[str, Any] = {"identifier": entry.identifier, "name": entry.display_name, "type": entry.type}
    read["url"] = entry.url
    if entry.type in MCP_TYPES and isinstance(entry.data, dict):
        card = server_card.validate_document(entry.data, origin=origin).listing
        read["mcp_urls"] = list(card.facts.mcp_urls) if card else []
        read["tools"] = [t.name for t in card.tools] if card else []
    return read

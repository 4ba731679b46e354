"""Anchor manifest, version 0.1 (``/.well-known/anchor.json``).

Spec: ``specs/anchor-manifest-v0.1.md``. Every field of its two tables is checked for type,
catalogue and form; unknown keys are warnings naming the key, at the top level, in tool
entries and in every nested object the spec defines.

Choices the spec leaves open, made here on purpose:

* Size: the spec wants a document "small enough to fetch on every crawl" but names no limit.
  ``MAX_BYTES`` is 256 KB: a tool entry with payments, variants and schema links is 1-2 KB,
  so the cap leaves room for a publisher with a hundred or more tools while keeping one
  manifest's fetch, parse and stored snapshot cheap.
* Recommended fields: a missing ``publisher.contact``, ``publisher.docs`` or
  ``publisher.llmsTxt`` is a ``recommended`` warning (once per document). The per-tool
  recommended fields (``status``, ``changelog``, ``telemetry``, ``readOnlyVariant``) produce
  nothing: the spec scores them, and a warning per tool would drown real findings.
* ``auth`` must list at least one method (``["none"]`` says "no auth"; ``[]`` says nothing).
* A payment needs every field but ``discovery`` (the spec calls only that one optional);
  ``networks`` may be empty except for ``x402``, which always settles on some chain.
* ``deprecations[].sunset`` is optional (the spec counts deprecations "with sunset dates" as
  graceful, so some have none); ``replacement`` is free text (a URL or a sentence).
* ``verify.dnsTxt`` must be ``_anchor.<domain>``; a domain unrelated to ``publisher.url``
  is a ``verify_domain`` warning, a ``verify.http`` not at ``/.well-known/anchor.json`` a
  ``well_known`` warning: either proof would fail, but the manifest itself stays readable.
* ``license`` is an SPDX expression: ids from ``data/spdx-ids.txt`` (case-insensitive),
  ``LicenseRef-…``, a trailing ``+``, ``AND``/``OR``/``WITH`` in either case, parentheses.
"""

from __future__ import annotations

import math
import re
from datetime import date
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from agentdex.formats._check import DATE_RE, EMAIL_RE, Checker, is_absolute_url, join, type_name
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.models import Listing, ParseResult, StatedFacts, Tool

NAME = "anchor"
MAX_BYTES = 256 * 1024
WELL_KNOWN_PATH = "/.well-known/anchor.json"
SPEC = FormatSpec(
    NAME,
    priority=20,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATH,
    folder_files=(WELL_KNOWN_PATH.lstrip("/"), "anchor.json"),
    title="the Anchor format",
)
VERSION = "0.1"

KINDS = ("mcp", "http", "openapi", "a2a", "sdk")
TRANSPORTS = ("streamable-http", "stdio", "sse")
AUTH = ("none", "oauth2", "api-key", "pat", "httpsig", "x402")
REGISTRIES = ("npm", "pypi", "oci", "nuget")
PROTOCOLS = ("x402", "mpp", "l402", "card")
UNITS = ("call", "token", "page", "minute")
SCHEMA_LINKS = ("mcpServerJson", "openapi", "a2aAgentCard", "jsonSchema")
# How Anchor's auth words map onto the Listing's MCP auth vocabulary (others have no peer).
MCP_AUTH = {"none": "none", "oauth2": "oauth", "api-key": "bearer", "pat": "bearer"}

TOP_LEVEL = ("anchor", "publisher", "tools", "verify", "updated")
PUBLISHER_KEYS = ("name", "url", "contact", "docs", "llmsTxt")
RECOMMENDED_PUBLISHER = ("contact", "docs", "llmsTxt")
VERIFY_KEYS = ("dnsTxt", "http")
TOOL_KEYS = (
    "id",
    "kind",
    "name",
    "description",
    "endpoint",
    "packages",
    "transport",
    "auth",
    "readOnlyVariant",
    "scopedVariants",
    "payments",
    "pricing",
    "freeTier",
    "schemas",
    "status",
    "changelog",
    "deprecations",
    "telemetry",
    "security",
    "source",
    "license",
)
PAYMENT_KEYS = ("protocol", "version", "networks", "asset", "priceUsd", "unit", "discovery")
DEPRECATION_KEYS = ("what", "sunset", "replacement")
PACKAGE_KEYS = ("registry", "name")
FREE_TIER_KEYS = ("cardRequired", "limit")
TELEMETRY_KEYS = ("collected", "optOut", "policy")

# The MCP registry's server name: reverse-DNS namespace, one slash, a name (its schema's
# pattern, with the namespace required to have at least two DNS labels).
ID_MAX = 200
ID_RE = re.compile(
    r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)+/[a-zA-Z0-9._-]+"
)
CAIP2_RE = re.compile(r"[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}")
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
DNS_TXT_RE = re.compile(rf"_anchor\.({_LABEL}(?:\.{_LABEL})+)\.?")
_SPDX_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_SPDX_REF = re.compile(r"(?:DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+")
_SPDX_EXCEPTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an Anchor manifest (256 KB limit)."""
    return read_document(data, validate_document, name=NAME, what="Anchor manifest", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as an Anchor manifest (it has an ``anchor`` key)."""
    return isinstance(doc, dict) and "anchor" in doc


def validate_document(doc: dict, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded Anchor manifest and normalise it into a :class:`Listing`."""
    c = Checker()
    if not _version_ok(c, doc):
        return ParseResult(NAME, None, c.findings, doc)
    listing = Listing(format=NAME, origin=origin)
    c.unknown_keys(doc, "", TOP_LEVEL)
    _publisher(c, doc, listing)
    tools = _tools(c, doc)
    _apply_tools(listing, tools)
    listing.extra = {
        **StatedFacts(anchor_tools=tools, verify=_verify(c, doc, listing.publisher_url)),
        "updated": _date(c, doc, "updated", "", required=True),
    }
    return ParseResult(NAME, listing, c.findings, doc)


# -- top level -------------------------------------------------------------------------------


def _version_ok(c: Checker, doc: dict) -> bool:
    version = doc.get("anchor")
    if version is None:
        c.error("anchor", "required", f'anchor is required and must be the string "{VERSION}"')
        return True  # keep validating: the rest is still worth reporting
    if version == VERSION:
        return True
    if isinstance(version, (int, float)) and not isinstance(version, bool) and str(version) == VERSION:
        c.error("anchor", "type", f'anchor must be the string "{VERSION}", not the number {VERSION}')
        return True
    if isinstance(version, (str, int, float)) and not isinstance(version, bool):
        c.error(
            "anchor",
            "unsupported_version",
            f'anchor {version!r} is not supported; agentdex reads Anchor version "{VERSION}"',
        )
        return False
    c.error("anchor", "type", f'anchor must be the string "{VERSION}", not {type_name(version)}')
    return True


def _publisher(c: Checker, doc: dict, listing: Listing) -> None:
    publisher = c.obj(doc, "publisher", "", True)
    if publisher is None:
        return
    listing.name = listing.publisher_name = c.string(publisher, "name", "publisher", True, min_len=1)
    listing.homepage = listing.publisher_url = c.url(publisher, "url", "publisher", True)
    listing.publisher_contact = _contact(c, publisher)
    listing.guide_url = c.url(publisher, "docs", "publisher")
    listing.llms_txt_url = c.url(publisher, "llmsTxt", "publisher")
    for key in RECOMMENDED_PUBLISHER:
        if publisher.get(key) is None:
            c.warn(
                join("publisher", key),
                "recommended",
                f"publisher.{key} is recommended so agents and people can reach the publisher",
            )
    c.unknown_keys(publisher, "publisher", PUBLISHER_KEYS)


def _contact(c: Checker, publisher: dict) -> str | None:
    contact = c.string(publisher, "contact", "publisher")
    if contact is None:
        return None
    address = contact[7:].split("?", 1)[0] if contact.startswith("mailto:") else contact
    if EMAIL_RE.match(address) or is_absolute_url(contact):
        return contact
    c.error(
        "publisher.contact",
        "contact",
        f"publisher.contact must be an email address, a mailto: address or an absolute URL, not {contact[:80]!r}",
    )
    return None


def _verify(c: Checker, doc: dict, publisher_url: str | None) -> dict[str, Any]:
    verify = c.obj(doc, "verify", "")
    if verify is None:
        return {"dnsTxt": None, "http": None}
    c.unknown_keys(verify, "verify", VERIFY_KEYS)
    return {"dnsTxt": _dns_txt(c, verify, publisher_url), "http": _verify_http(c, verify)}


def _dns_txt(c: Checker, verify: dict, publisher_url: str | None) -> str | None:
    name = c.string(verify, "dnsTxt", "verify")
    if name is None:
        return None
    match = DNS_TXT_RE.fullmatch(name)
    if match is None:
        c.error(
            "verify.dnsTxt",
            "pattern",
            f"verify.dnsTxt must be the DNS name _anchor.<publisher-domain>, not {name[:80]!r}",
        )
        return None
    host = (urlsplit(publisher_url).hostname or "") if publisher_url else ""
    if host and not _related(match.group(1).lower(), host.lower()):
        c.warn(
            "verify.dnsTxt",
            "verify_domain",
            f"verify.dnsTxt names {match.group(1)!r}, which is not the publisher's domain {host!r}",
        )
    return name


def _related(domain: str, host: str) -> bool:
    """Whether one name is the other or a subdomain of it (a registrable-domain stand-in
    that needs no public-suffix list)."""
    return domain == host or host.endswith("." + domain) or domain.endswith("." + host)


def _verify_http(c: Checker, verify: dict) -> str | None:
    url = c.url(verify, "http", "verify")
    if url is not None and urlsplit(url).path != WELL_KNOWN_PATH:
        c.warn(
            "verify.http",
            "well_known",
            f"verify.http is not at {WELL_KNOWN_PATH}; the HTTP proof needs the manifest served there",
        )
    return url


def _date(c: Checker, obj: dict, key: str, path: str, *, required: bool = False) -> str | None:
    """An ISO date ``YYYY-MM-DD`` that exists on the calendar."""
    value = c.string(obj, key, path, required)
    if value is None:
        return None
    where = join(path, key)
    if DATE_RE.fullmatch(value):
        try:
            date.fromisoformat(value)
            return value
        except ValueError:
            pass
    c.error(where, "date", f"{where} must be a calendar date YYYY-MM-DD, not {value[:40]!r}")
    return None


# -- tools -----------------------------------------------------------------------------------


def _tools(c: Checker, doc: dict) -> list[dict[str, Any]]:
    """The valid-enough tool entries (those with a usable, unique id), normalised."""
    entries = c.array(doc, "tools", "", True)
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries or []):
        where = join("tools", i)
        if not isinstance(entry, dict):
            c.error(where, "type", f"{where} must be an object, not {type_name(entry)}")
            continue
        tool = _tool(c, entry, where)
        tool_id = tool["id"]
        if tool_id is not None and tool_id in seen:
            c.error(
                join(where, "id"),
                "unique",
                f"{where}.id {tool_id!r} is already used by tools[{seen[tool_id]}]; tool ids must be unique",
            )
        elif tool_id is not None:
            seen[tool_id] = i
            out.append(tool)
    return out


def _tool(c: Checker, entry: dict, where: str) -> dict[str, Any]:
    kind = c.enum(entry, "kind", where, KINDS, True)
    tool = {
        "id": _tool_id(c, entry, where),
        "kind": kind,
        "name": c.string(entry, "name", where, True, min_len=1),
        "description": c.string(entry, "description", where, True, min_len=1),
        "endpoint": c.url(entry, "endpoint", where),
        "transport": c.enum(entry, "transport", where, TRANSPORTS, kind == "mcp"),
        "auth": c.enum_array(entry, "auth", where, AUTH, True, min_items=1),
        "packages": _packages(c, entry, where),
        "readOnlyVariant": c.url(entry, "readOnlyVariant", where),
        "scopedVariants": _scoped_variants(c, entry, where),
        "payments": _payments(c, entry, where),
        "pricing": c.url(entry, "pricing", where),
        "freeTier": _free_tier(c, entry, where),
        "schemas": _schemas(c, entry, where),
        "deprecations": _deprecations(c, entry, where),
        "telemetry": _telemetry(c, entry, where),
    }
    tool.update({key: c.url(entry, key, where) for key in ("status", "changelog", "security", "source")})
    tool["license"] = _license(c, entry, where)
    _endpoint_or_packages(c, entry, where)
    c.unknown_keys(entry, where, TOOL_KEYS)
    return tool


def _tool_id(c: Checker, entry: dict, where: str) -> str | None:
    value = c.string(entry, "id", where, True, max_len=ID_MAX)
    if value is not None and not ID_RE.fullmatch(value):
        c.error(
            join(where, "id"),
            "reverse_dns",
            f"{where}.id {value[:80]!r} must be a reverse-DNS name like com.example/search "
            "(a namespace with a dot, one slash, then a name)",
        )
        return None
    return value


def _endpoint_or_packages(c: Checker, entry: dict, where: str) -> None:
    """A hosted tool needs an endpoint; a tool with packages and no endpoint is local-only."""
    if entry.get("endpoint") is None and not entry.get("packages"):
        path = join(where, "endpoint")
        c.error(path, "required", f"{path} is required for a hosted tool; a local-only tool lists packages instead")


def _packages(c: Checker, entry: dict, where: str) -> list[dict[str, Any]]:
    items = c.array(entry, "packages", where)
    out = []
    for i, item in enumerate(items or []):
        path = join(join(where, "packages"), i)
        if not isinstance(item, dict):
            c.error(path, "type", f"{path} must be an object {{registry, name}}")
            continue
        out.append(
            {
                "registry": c.enum(item, "registry", path, REGISTRIES, True),
                "name": c.string(item, "name", path, True, min_len=1),
            }
        )
        c.unknown_keys(item, path, PACKAGE_KEYS)
    return out


def _scoped_variants(c: Checker, entry: dict, where: str) -> dict[str, str]:
    variants = c.obj(entry, "scopedVariants", where)
    out: dict[str, str] = {}
    for name, url in (variants or {}).items():
        path = join(join(where, "scopedVariants"), name)
        if not name.strip():
            c.error(path, "min_length", f"{path}: a scoped variant needs a name")
        elif not isinstance(url, str):
            c.error(path, "type", f"{path} must be a URL string, not {type_name(url)}")
        elif c.check_url(url, path) is not None:
            out[name] = url
    return out


def _payments(c: Checker, entry: dict, where: str) -> list[dict[str, Any]]:
    items = c.array(entry, "payments", where)
    out = []
    for i, item in enumerate(items or []):
        path = join(join(where, "payments"), i)
        if not isinstance(item, dict):
            c.error(path, "type", f"{path} must be an object")
            continue
        out.append(_payment(c, item, path))
        c.unknown_keys(item, path, PAYMENT_KEYS)
    return out


def _payment(c: Checker, item: dict, path: str) -> dict[str, Any]:
    protocol = c.enum(item, "protocol", path, PROTOCOLS, True)
    return {
        "protocol": protocol,
        "version": c.number(item, "version", path, True, minimum=1, integer=True),
        "networks": _networks(c, item, path, protocol),
        "asset": c.string(item, "asset", path, True, min_len=1),
        "priceUsd": _price(c, item, path),
        "unit": c.enum(item, "unit", path, UNITS, True),
        "discovery": c.url(item, "discovery", path),
    }


def _networks(c: Checker, item: dict, path: str, protocol: str | None) -> list[str]:
    networks = c.array(item, "networks", path, True, min_items=1 if protocol == "x402" else None)
    out: list[str] = []
    for i, network in enumerate(networks or []):
        where = join(join(path, "networks"), i)
        if not isinstance(network, str):
            c.error(where, "type", f"{where} must be a string, not {type_name(network)}")
        elif not CAIP2_RE.fullmatch(network):
            c.error(where, "caip2", f"{where} {network[:80]!r} is not a CAIP-2 chain id like eip155:8453")
        elif network in out:
            c.warn(where, "duplicate", f"{where} repeats {network!r}")
        else:
            out.append(network)
    return out


def _price(c: Checker, item: dict, path: str) -> float | None:
    price = c.number(item, "priceUsd", path, True, minimum=0)
    if price is not None and not math.isfinite(price):
        c.error(join(path, "priceUsd"), "type", f"{path}.priceUsd must be a finite number")
        return None
    return price


def _free_tier(c: Checker, entry: dict, where: str) -> dict[str, Any] | None:
    tier = c.obj(entry, "freeTier", where)
    if tier is None:
        return None
    path = join(where, "freeTier")
    c.unknown_keys(tier, path, FREE_TIER_KEYS)
    return {"cardRequired": c.boolean(tier, "cardRequired", path), "limit": c.string(tier, "limit", path)}


def _schemas(c: Checker, entry: dict, where: str) -> dict[str, str | None] | None:
    schemas = c.obj(entry, "schemas", where)
    if schemas is None:
        return None
    path = join(where, "schemas")
    c.unknown_keys(schemas, path, SCHEMA_LINKS)
    return {key: c.url(schemas, key, path) for key in SCHEMA_LINKS}  # null means "none"


def _deprecations(c: Checker, entry: dict, where: str) -> list[dict[str, Any]]:
    items = c.array(entry, "deprecations", where)
    out = []
    for i, item in enumerate(items or []):
        path = join(join(where, "deprecations"), i)
        if not isinstance(item, dict):
            c.error(path, "type", f"{path} must be an object {{what, sunset, replacement}}")
            continue
        out.append(
            {
                "what": c.string(item, "what", path, True, min_len=1),
                "sunset": _date(c, item, "sunset", path),
                "replacement": c.string(item, "replacement", path, min_len=1),
            }
        )
        c.unknown_keys(item, path, DEPRECATION_KEYS)
    return out


def _telemetry(c: Checker, entry: dict, where: str) -> dict[str, Any] | None:
    telemetry = c.obj(entry, "telemetry", where)
    if telemetry is None:
        return None
    path = join(where, "telemetry")
    c.unknown_keys(telemetry, path, TELEMETRY_KEYS)
    return {
        "collected": c.boolean(telemetry, "collected", path),
        "optOut": c.string(telemetry, "optOut", path),
        "policy": c.url(telemetry, "policy", path),
    }


# -- SPDX ------------------------------------------------------------------------------------


def _license(c: Checker, entry: dict, where: str) -> str | None:
    value = c.string(entry, "license", where)
    if value is None:
        return None
    problem = spdx_problem(value)
    if problem:
        c.error(join(where, "license"), "spdx", f"{where}.license {problem}")
        return None
    return value


@cache
def spdx_ids() -> frozenset[str]:
    """The SPDX license ids agentdex knows, lower-cased (package data, read once)."""
    text = resources.files("agentdex.formats").joinpath("data/spdx-ids.txt").read_text("utf-8")
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def spdx_problem(expression: str) -> str | None:
    """Why ``expression`` is not an SPDX license expression, or ``None`` when it is one."""
    tokens = _SPDX_TOKEN.findall(expression)
    if not tokens:
        return "is empty; use an SPDX license id such as MIT or Apache-2.0"
    unknown = [t for t in _spdx_operands(tokens) if not _known_license(t)]
    if unknown:
        return f"{unknown[0][:60]!r} is not an SPDX license id (such as MIT or Apache-2.0)"
    if not _spdx_grammar_ok(tokens):
        return f"{expression[:80]!r} is not a well-formed SPDX expression"
    return None


def _spdx_operands(tokens: list[str]) -> list[str]:
    """License operands: every token but operators, parentheses and WITH's exception."""
    out = []
    for i, token in enumerate(tokens):
        after_with = i > 0 and tokens[i - 1].upper() == "WITH"
        if token not in ("(", ")") and token.upper() not in ("AND", "OR", "WITH") and not after_with:
            out.append(token)
    return out


def _known_license(token: str) -> bool:
    if _SPDX_REF.fullmatch(token):
        return True
    ids = spdx_ids()
    return token.lower() in ids or (token.endswith("+") and token[:-1].lower() in ids)


def _spdx_grammar_ok(tokens: list[str]) -> bool:
    """Operands and operators alternate, parentheses balance, WITH takes an exception id."""
    want_operand, depth, prev = True, 0, ""
    for token in tokens:
        upper = token.upper()
        if token == "(":
            ok = want_operand
            depth += 1
        elif token == ")":
            ok, depth = not want_operand, depth - 1
        elif upper in ("AND", "OR", "WITH"):
            ok, want_operand = not want_operand, True
        else:
            ok = want_operand and (prev != "WITH" or bool(_SPDX_EXCEPTION.fullmatch(token)))
            want_operand = False
        if not ok or depth < 0:
            return False
        prev = upper
    return not want_operand and depth == 0


# -- normalisation ---------------------------------------------------------------------------


def _apply_tools(listing: Listing, tools: list[dict[str, Any]]) -> None:
    """Fill the Listing's tool list and its MCP/HTTP shortcuts from the tool entries."""
    listing.tools = [
        Tool(
            name=t["id"],
            description=t["description"] or "",
            source="manifest",
            detail={"kind": t["kind"], "endpoint": t["endpoint"]},
        )
        for t in tools
    ]
    # stdio is local by definition: a URL on a stdio tool cannot be the hosted MCP endpoint.
    mcp = next((t for t in tools if t["kind"] == "mcp" and t["endpoint"] and t["transport"] != "stdio"), None)
    if mcp is not None:
        listing.mcp_url, listing.mcp_transport = mcp["endpoint"], mcp["transport"]
        listing.mcp_auth = list(dict.fromkeys(MCP_AUTH[a] for a in mcp["auth"] if a in MCP_AUTH))
    http = next((t for t in tools if t["kind"] in ("http", "openapi") and t["endpoint"]), None)
    if http is not None:
        listing.http_base = http["endpoint"]
        listing.http_openapi = (http["schemas"] or {}).get("openapi")

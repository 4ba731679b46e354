"""API catalogs (``/.well-known/api-catalog``, RFC 9727) in the JSON linkset form (RFC 9264,
``application/linkset+json``).

A catalog is ``{"linkset": [context, …]}``; each link context object has an ``anchor`` (the
URI the links are about; without one, the catalog itself) and relation keys whose values are
arrays of target objects ``{"href", "type", "title", …}``. RFC 9727 names an API either as
an ``item`` link of the catalog or as the ``anchor`` of a context that carries its
``service-desc`` (machine-readable description such as OpenAPI), ``service-doc``,
``service-meta`` or ``status`` links; ``api-catalog`` links point at further catalogs.

Findings: ``linkset`` missing or not an array (``required``/``type``); a context that is not
an object, a relation that is not an array of objects, a target without ``href`` or with one
that is not a URL; a catalog naming no API at all is an ``empty_catalog`` warning (RFC 9727
requires at least one). Relative references resolve against the origin.

Facts read: every API base (``extra["api_bases"]``; ``Listing.http_base`` is the first), the
first ``service-desc`` as the OpenAPI link, nested catalogs (``extra["catalogs"]``).
"""

from __future__ import annotations

from typing import Any

from agentdex.formats._check import Checker, join
from agentdex.formats._discovery import base_url, resolve, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.models import Listing, ParseResult, StatedFacts

NAME = "api_catalog"
WELL_KNOWN_PATHS = ("/.well-known/api-catalog",)
MAX_BYTES = 512 * 1024
SPEC = FormatSpec(
    NAME,
    priority=140,
    max_bytes=MAX_BYTES,
    well_known=WELL_KNOWN_PATHS[0],
    also_at=WELL_KNOWN_PATHS[1:],
    discovery=True,
    title="an RFC 9727 API catalog (a linkset)",
    keys=frozenset({"linkset"}),
    detect_rank=30,
)
API_RELATIONS = ("service-desc", "service-doc", "service-meta", "status")


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of an API catalog in JSON linkset form."""
    return read_document(data, validate_document, name=NAME, what="API catalog", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is a JSON linkset."""
    return isinstance(doc, dict) and "linkset" in doc


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded linkset and read the APIs it catalogues."""
    c = Checker()
    if not isinstance(doc, dict):
        c.error("", "not_object", "an API catalog must be a JSON object with a linkset array")
        return ParseResult(NAME, None, c.findings, doc)
    base = base_url(origin)
    catalog = (base + WELL_KNOWN_PATHS[0]) if base else None
    apis, descriptions, catalogs = [], [], []
    for i, context in enumerate(c.array(doc, "linkset", "", required=True) or []):
        where = join("linkset", i)
        if not isinstance(context, dict):
            c.error(where, "not_object", f"{where} must be a link context object")
            continue
        anchor = resolve(context.get("anchor"), base) if "anchor" in context else catalog
        links = {rel: _targets(c, context, rel, where, base) for rel in context if rel != "anchor"}
        apis += links.get("item", [])
        catalogs += links.get("api-catalog", [])
        if anchor and anchor != catalog and any(links.get(rel) for rel in API_RELATIONS):
            apis.append(anchor)
        descriptions += links.get("service-desc", [])
    apis = unique(apis)
    if not apis and not c.has_errors:
        c.warn(
            "linkset",
            "empty_catalog",
            "the catalog names no API (no item link and no anchor "
            "with a service-desc, service-doc, service-meta or status link)",
        )
    listing = Listing(
        format=NAME,
        origin=origin,
        http_base=apis[0] if apis else None,
        http_openapi=descriptions[0] if descriptions else None,
    )
    listing.extra = {**StatedFacts(api_bases=apis), "service_descs": unique(descriptions), "catalogs": unique(catalogs)}
    return ParseResult(NAME, listing, c.findings, doc)


def _targets(c: Checker, context: dict, rel: str, where: str, base: str | None) -> list[str]:
    at = join(where, rel)
    targets = context[rel]
    if not isinstance(targets, list):
        c.error(at, "type", f"{at} must be an array of target objects")
        return []
    hrefs = []
    for i, target in enumerate(targets):
        if not isinstance(target, dict):
            c.error(join(at, i), "not_object", f"{join(at, i)} must be a target object with an href")
            continue
        href = c.string(target, "href", join(at, i), required=True)
        url = resolve(href, base) if href is not None else None
        if href is not None and url is None:
            c.error(join(join(at, i), "href"), "url", f"{join(join(at, i), 'href')} is not a URL: {href[:80]!r}")
        if url:
            hrefs.append(url)
    return hrefs

"""The MCP registry's ``server.json`` (what a publisher submits to the official registry).

Spec: the registry's published JSON Schema, shipped byte for byte as
``schemas/mcp-server.schema.2025-12-11.json`` (source and hash in ``schemas/SOURCES.md``).
Every schema error becomes a finding at the offending value's path with a stable code
(``required`` at the missing field's own path, ``max_length``, ``pattern``, ``not_allowed``
for a ``"latest"`` package version, ``schema_mismatch`` when a value matches none of the
shapes an ``anyOf`` allows …). Beyond the schema:

* The pre-2025-09 format (snake_case: ``registry_name``, ``version_detail``) is refused as
  ``unsupported_version``: its fields mean other things.
* An unfilled template (``${VERSION}``, ``{{NAME}}``) in ``name``, ``version`` or a package
  version is a ``placeholder_value`` warning: the file was published before its build
  step filled it in.

Facts read: the name (``title`` else the part after the slash; the reverse-DNS name is
``extra["registry_name"]``), description, version, website, every remote endpoint without
template variables (``remotes[].url``), auth (a secret or ``Authorization`` header of a
remote), and the packages (``extra["packages"]``).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from agentdex.formats import _jsonschema
from agentdex.formats._check import Checker
from agentdex.formats._discovery import header_auth, resolve, template_in, unique
from agentdex.formats._load import read_document
from agentdex.formats._spec import FormatSpec
from agentdex.formats.schemas import load_vendored
from agentdex.models import Listing, ParseResult, StatedFacts

if TYPE_CHECKING:  # jsonschema is imported when a server.json is first validated, not at start-up
    from jsonschema import Draft7Validator

NAME = "server_json"
FILE_NAMES = ("server.json",)
MAX_BYTES = 256 * 1024
# Never at a path of its own: read where an Anchor manifest links it (schemas.mcpServerJson).
SPEC = FormatSpec(
    NAME,
    priority=130,
    max_bytes=MAX_BYTES,
    discovery=True,
    title="an MCP registry server.json",
    keys=frozenset({"packages", "remotes", "repository", "websiteUrl", "version_detail", "icons", "status"}),
    schema_marks=("server.schema.json",),
    detect_rank=10,
)
LEGACY_KEYS = ("registry_name", "version_detail")


@cache
def validator() -> Draft7Validator:
    """The registry's schema, compiled once."""
    from jsonschema import Draft7Validator

    return Draft7Validator(load_vendored(NAME))


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Decode and validate the bytes of a ``server.json``."""
    return read_document(data, validate_document, name=NAME, what="server.json", max_bytes=MAX_BYTES, origin=origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as a server.json (it has packages or remotes and
    a version, or points at the registry's schema)."""
    if not isinstance(doc, dict):
        return False
    schema = str(doc.get("$schema", ""))
    return "server.schema.json" in schema or ("version" in doc and ("packages" in doc or "remotes" in doc))


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded server.json against the registry's schema and read its facts. The
    registry API's answer for one server (``{"server": {...}, "_meta": {...}}``, what an
    Anchor ``schemas.mcpServerJson`` link to the registry returns) is read as its server."""
    if isinstance(doc, dict) and isinstance(doc.get("server"), dict) and "name" not in doc:
        doc = doc["server"]
    c = Checker()
    if isinstance(doc, dict) and any(k in doc for k in LEGACY_KEYS):
        c.error(
            "",
            "unsupported_version",
            "this is the registry's pre-2025-09 server.json format "
            "(registry_name, version_detail); republish it in the current format",
        )
        return ParseResult(NAME, None, c.findings, doc)
    _jsonschema.check(c, validator(), doc)
    if not isinstance(doc, dict):
        return ParseResult(NAME, None, c.findings, doc)
    _templates(c, doc)
    return ParseResult(NAME, _listing(doc, origin), c.findings, doc)


def _templates(c: Checker, doc: dict) -> None:
    places = [("name", doc.get("name")), ("version", doc.get("version"))]
    packages = doc.get("packages")
    for i, package in enumerate(packages if isinstance(packages, list) else []):
        if isinstance(package, dict):
            places.append((f"packages[{i}].version", package.get("version")))
    for where, value in places:
        found = template_in(value)
        if found:
            c.warn(where, "placeholder_value", f"{where} holds the unfilled template {found!r}")


def _listing(doc: dict, origin: str | None) -> Listing:
    name = doc.get("name") if isinstance(doc.get("name"), str) else None
    title = doc.get("title") if isinstance(doc.get("title"), str) else None
    remotes = (
        [r for r in doc.get("remotes") or [] if isinstance(r, dict)] if isinstance(doc.get("remotes"), list) else []
    )
    urls = unique([u for u in (resolve(r.get("url"), None) for r in remotes) if u])
    auth = unique([w for r in remotes for w in header_auth(r.get("headers"))])
    listing = Listing(
        format=NAME,
        origin=origin,
        name=title or (name.split("/", 1)[-1] if name else None),
        description=doc.get("description") if isinstance(doc.get("description"), str) else None,
        homepage=doc.get("websiteUrl") if isinstance(doc.get("websiteUrl"), str) else None,
        mcp_url=urls[0] if urls else None,
        auth_methods=auth,
        mcp_auth=list(auth),
    )
    packages = (
        [p for p in doc.get("packages") or [] if isinstance(p, dict)] if isinstance(doc.get("packages"), list) else []
    )
    listing.extra = {
        "registry_name": name,
        "version": doc.get("version"),
        **StatedFacts(mcp_urls=urls),
        "auth": auth,
        "packages": [{k: p.get(k) for k in ("registryType", "identifier", "version")} for p in packages],
        "repository": (doc.get("repository") or {}).get("url") if isinstance(doc.get("repository"), dict) else None,
    }
    return listing

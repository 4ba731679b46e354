"""adapp/v1 packages: a ``.adapp`` ZIP with ``manifest.json`` at its root.

Spec: ``specs/adapp-v1-manifest.pt.md`` (in Portuguese). Every field of its table is checked;
the files the manifest names (the icon, ``tools/<name>.json``, ``openapi.json``) must be in the
package; the checksum (algorithm in ``docs/adapp-checksum.md``) must match the content; a
secret *value* anywhere in ``required_secrets`` rejects the package and is never repeated.

Pure: this module works on bytes and dicts and does no IO. Reading and packing the ZIP itself
(under caps on entries, expanded size and compression ratio) is :mod:`._adapp_zip`; this
module validates what it reads.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

from agentdex.formats._adapp_openapi import API_KEY_IN, OPENAPI, derive_openapi_tools
from agentdex.formats._adapp_zip import (
    MANIFEST,
    MAX_FILE_BYTES,
    MAX_PACKAGE_BYTES,
    compute_checksum,
    read_package,
    unsafe_path_reason,
)

# The package API (pack, checksum, read) lives in _adapp_zip and is offered here too (`X as X`
# marks a re-export for linters and type checkers).
from agentdex.formats._adapp_zip import MAX_ENTRIES as MAX_ENTRIES
from agentdex.formats._adapp_zip import MAX_TOTAL_BYTES as MAX_TOTAL_BYTES
from agentdex.formats._adapp_zip import canonical_manifest as canonical_manifest
from agentdex.formats._adapp_zip import pack as pack
from agentdex.formats._adapp_zip import package_error as _error
from agentdex.formats._adapp_zip import show as _show
from agentdex.formats._check import Checker, join, type_name
from agentdex.formats._load import load_json
from agentdex.formats._spec import FormatSpec
from agentdex.models import Finding, Listing, ParseResult, StatedFacts, Tool

NAME = "adapp"
FORMAT = "adapp/v1"
REDACTED = "[redacted]"

# An adapp source tree is a folder whose manifest.json declares "format": "adapp/v1".
SPEC = FormatSpec(
    NAME, priority=40, max_bytes=MAX_PACKAGE_BYTES, folder_files=(MANIFEST,), title="the adapp package manifest"
)

CHECKSUM_RE = re.compile(r"^sha256:[a-f0-9]{64}$")
SLUG_RE = re.compile(r"^[a-z0-9_-]{1,100}$")
CREDENTIAL_REF_RE = re.compile(r"^required_secrets\[(0|[1-9][0-9]*)\]\.key$")
PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")
TRANSPORTS = ("http", "sse", "openapi")
TOP_LEVEL = (
    "format",
    "checksum",
    "name",
    "label",
    "description",
    "category",
    "icon",
    "transport",
    "endpoint",
    "tools",
    "required_secrets",
)
TOOL_ITEM_KEYS = ("name", "inputSchema")
TOOL_FILE_KEYS = ("name", "description", "inputSchema", "required_secrets", "http_binding")
SECRET_KEYS = ("key", "label", "required")
BINDING_KEYS = ("version", "method", "path", "server", "params", "auth")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
LOCATIONS = ("body", "query", "header", "path")
AUTH_TYPES = ("apiKey", "bearer", "basic")
# keys that, inside an auth block, can only mean an embedded credential
CREDENTIAL_KEYS = ("value", "token", "secret", "password", "api_key", "apiKey", "credential")
STDIO_CURATED = (
    'transport "stdio_curated" is not supported in adapp/v1: it is exclusive to '
    "the official catalogue entries the platform manages internally; a package "
    "uses http, sse or openapi"
)


# -- public API ----------------------------------------------------------------------------


def parse_package(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Open a ``.adapp`` ZIP held in memory and validate it, checksum included."""
    files, findings = read_package(data)
    if files is None:
        return ParseResult(NAME, None, findings)
    if MANIFEST not in files:
        return ParseResult(NAME, None, [_no_manifest(files)])
    return _validate_manifest(files[MANIFEST], files, origin)


def parse(data: bytes, *, origin: str | None = None) -> ParseResult:
    """Validate a bare ``manifest.json`` (without its package the checksum and the files it
    names cannot be verified: a warning says so)."""
    return _validate_manifest(data, None, origin)


def looks_like(doc: Any) -> bool:
    """Whether a decoded document is meant as an adapp manifest (any ``adapp/`` version)."""
    return isinstance(doc, dict) and isinstance(doc.get("format"), str) and doc["format"].startswith("adapp/")


def validate_document(doc: Any, *, origin: str | None = None) -> ParseResult:
    """Validate a decoded manifest on its own (no package: nothing it names can be checked)."""
    if not isinstance(doc, dict):
        return ParseResult(
            NAME, None, [_error("not_object", f"the {MANIFEST} is {type_name(doc)}; it must be a JSON object")]
        )
    return _validate(doc, None, origin)


def _no_manifest(files: Mapping[str, bytes]) -> Finding:
    nested = sorted(p for p in files if p.endswith("/" + MANIFEST))
    hint = f"; {_show(nested[0])} is in a folder: zip the folder's content, not the folder" if nested else ""
    return _error("missing_file", f"the package has no {MANIFEST} at its root{hint}")


# -- validating the manifest -----------------------------------------------------------------


def _validate_manifest(data: bytes, files: Mapping[str, bytes] | None, origin: str | None) -> ParseResult:
    doc, findings = load_json(data, max_bytes=MAX_FILE_BYTES, what=MANIFEST)
    if doc is None:
        return ParseResult(NAME, None, findings)
    result = _validate(doc, files, origin)
    result.findings.extend(
        _error(
            "duplicate",
            f"{MANIFEST} repeats the key {_show(key, 40)} in one object; "
            "readers disagree on which one counts (and the checksum "
            "sees only the last), so the package is refused",
        )
        for key in duplicate_keys(data)
    )
    return result


def duplicate_keys(data: bytes) -> list[str]:
    """Keys that appear twice in one object of a JSON document (each reported once)."""
    found: list[str] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen and key not in found:
                found.append(key)
            seen.add(key)
        return dict(pairs)

    try:
        json.loads(data, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    return found


def _validate(doc: dict, files: Mapping[str, bytes] | None, origin: str | None) -> ParseResult:
    c = Checker()
    if not _format_ok(c, doc):
        return ParseResult(NAME, None, c.findings, redact(doc))
    listing = Listing(format=NAME, origin=origin)
    c.unknown_keys(doc, "", TOP_LEVEL)
    checksum = c.string(
        doc,
        "checksum",
        "",
        True,
        pattern=CHECKSUM_RE,
        pattern_text="must be sha256: followed by 64 lower-case hex digits",
    )
    slug, category, icon = _identity(c, doc, listing, files)
    transport = _transport(c, doc, listing)
    secrets = _secrets(c, doc, "")
    if transport == "openapi":
        _openapi_mode(c, doc, files, listing, secrets)
    else:
        _tools_mode(c, doc, files, listing, secrets)
    _checksum(c, checksum, files)
    listing.extra = {
        "slug": slug,
        "category": category,
        "icon": icon,
        "transport": transport,
        "required_secrets": [s for s in secrets if s is not None],
        **StatedFacts(checksum=checksum),
    }
    return ParseResult(NAME, listing, c.findings, redact(doc))


def _format_ok(c: Checker, doc: dict) -> bool:
    value = doc.get("format")
    if value is None:
        c.error("format", "required", f'format is required and must be exactly "{FORMAT}"')
    elif isinstance(value, str) and value.startswith("adapp/") and value != FORMAT:
        c.error("format", "unsupported_version", f'format {_show(value)} is not supported; agentdex reads "{FORMAT}"')
        return False
    elif isinstance(value, str) and value != FORMAT:
        c.error("format", "const", f'format is {_show(value)}; it must be exactly "{FORMAT}"')
    elif not isinstance(value, str):
        c.error("format", "type", f'format must be the string "{FORMAT}", not {type_name(value)}')
    return True


def _identity(
    c: Checker, doc: dict, listing: Listing, files: Mapping[str, bytes] | None
) -> tuple[str | None, str | None, str | None]:
    slug = c.string(doc, "name", "", True, max_len=100)
    if slug is not None and not SLUG_RE.fullmatch(slug):
        c.error("name", "pattern", "name must be a slug: 1 to 100 characters of a-z, 0-9, _ and -")
        slug = None
    listing.name = c.string(doc, "label", "", True, max_len=120)
    listing.description = c.string(doc, "description", "", max_len=500)
    category = c.string(doc, "category", "", max_len=60)
    icon = c.string(doc, "icon", "", max_len=500)
    if icon is not None and files is not None and icon not in files:
        c.error("icon", "missing_file", f"icon names {_show(icon)}, which is not in the package")
        icon = None
    return slug, category, icon


def _transport(c: Checker, doc: dict, listing: Listing) -> str | None:
    if doc.get("transport") == "stdio_curated":
        c.error("transport", "unsupported_transport", STDIO_CURATED)
        transport = None
    else:
        transport = c.enum(doc, "transport", "", TRANSPORTS, True)
    endpoint = c.url(doc, "endpoint", "", True, https_only=True)
    if transport == "openapi":
        listing.http_base = endpoint
    elif transport is not None:
        listing.mcp_url, listing.mcp_transport = endpoint, transport
    return transport


def _secrets(c: Checker, doc: dict, path: str) -> list[dict[str, Any] | None]:
    """``required_secrets``, aligned with the array's indices (``None`` for a broken entry,
    so ``required_secrets[N].key`` references still count positions correctly)."""
    items = c.array(doc, "required_secrets", path)
    out: list[dict[str, Any] | None] = []
    keys: set[str] = set()
    for i, item in enumerate(items or []):
        where = join(join(path, "required_secrets"), i)
        entry = _secret(c, item, where)
        if entry is not None and entry["key"] in keys:
            c.warn(join(where, "key"), "duplicate", f"{where}.key repeats an earlier secret's key")
        if entry is not None:
            keys.add(entry["key"])
        out.append(entry)
    return out


def _secret(c: Checker, item: Any, where: str) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        c.error(where, "type", f"{where} must be an object {{key, label, required}}, not {type_name(item)}")
        return None
    for extra in item:
        if extra == "value":
            c.error(
                join(where, "value"),
                "secret_value",
                f"{where} carries a value: secrets never travel inside a package, only their key "
                "and label; the package is rejected (the value is not shown)",
            )
        elif extra not in SECRET_KEYS:
            c.error(
                join(where, extra),
                "unknown_key",
                f"{where} may hold only key, label and required; {_show(extra, 40)} is not allowed",
            )
    entry = {
        "key": c.string(item, "key", where, True, min_len=1),
        "label": c.string(item, "label", where, True),
        "required": c.boolean(item, "required", where, True),
    }
    return entry if None not in entry.values() else None


def redact(doc: Any) -> Any:
    """A copy of a manifest with every value beside ``key``, ``label`` and ``required`` in
    ``required_secrets`` items replaced by ``"[redacted]"``."""
    out = copy.deepcopy(doc)
    items = out.get("required_secrets") if isinstance(out, dict) else None
    items = [items] if isinstance(items, dict) else items  # a lone object is still redacted
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            for key in item:
                if key not in SECRET_KEYS:
                    item[key] = REDACTED
    return out


def _checksum(c: Checker, checksum: str | None, files: Mapping[str, bytes] | None) -> None:
    if files is None:
        c.warn(
            "checksum",
            "unverified",
            f"only {MANIFEST} was given: the checksum and the files it names (icon, "
            "tools/<name>.json, openapi.json) cannot be verified; validate the .adapp package",
        )
        return
    if checksum is None:
        return
    actual = compute_checksum(files)
    if actual != checksum:
        c.error(
            "checksum",
            "checksum",
            f"checksum does not match the package content: the manifest "
            f"says {checksum[:19]}…, the content hashes to {actual[:19]}…; "
            "the package was changed after packing",
        )


# -- tools (http and sse) ------------------------------------------------------------------------


def _tools_mode(
    c: Checker, doc: dict, files: Mapping[str, bytes] | None, listing: Listing, secrets: list[dict[str, Any] | None]
) -> None:
    items = c.array(doc, "tools", "")
    seen: set[str] = set()
    for i, item in enumerate(items or []):
        where = join("tools", i)
        entry = _tool_entry(c, item, where, seen)
        if entry is not None:
            listing.tools.append(_tool(c, *entry, where, files, secrets))


def _tool_entry(c: Checker, item: Any, where: str, seen: set[str]) -> tuple[str, dict | None] | None:
    if not isinstance(item, dict):
        c.error(where, "type", f"{where} must be an object {{name, inputSchema}}, not {type_name(item)}")
        return None
    name = c.string(item, "name", where, True, min_len=1)
    schema = c.obj(item, "inputSchema", where, True)
    c.unknown_keys(item, where, TOOL_ITEM_KEYS)
    if name is None:
        return None
    if unsafe_path_reason(name) or "/" in name:
        c.error(
            join(where, "name"),
            "pattern",
            f"{where}.name names the file tools/<name>.json; it cannot hold /, \\, : or control characters",
        )
        return None
    if name in seen:
        c.error(join(where, "name"), "unique", f"{where}.name {_show(name)} is declared twice")
        return None
    seen.add(name)
    return name, schema


def _tool(
    c: Checker,
    name: str,
    schema: dict | None,
    where: str,
    files: Mapping[str, bytes] | None,
    secrets: list[dict[str, Any] | None],
) -> Tool:
    tool = Tool(name=name, input_schema=schema, source="manifest", detail={"http_binding": None})
    if files is None:
        return tool
    path = f"tools/{name}.json"
    if path not in files:
        c.error(join(where, "name"), "missing_file", f"{where} needs the file {path} in the package; it is missing")
        return tool
    tdoc, problems = load_json(files[path], max_bytes=MAX_FILE_BYTES, what=path)
    c.findings.extend(Finding(f.severity, f"{path}:{f.path}", f.code, f.message) for f in problems)
    if tdoc is not None:
        sub = Checker(prefix=f"{path}:")
        tool.description, tool.detail["http_binding"] = _tool_file(sub, tdoc, name, schema, secrets)
        c.findings.extend(sub.findings)
    return tool


def _tool_file(
    c: Checker, tdoc: dict, name: str, schema: dict | None, manifest_secrets: list[dict[str, Any] | None]
) -> tuple[str, dict | None]:
    own = c.string(tdoc, "name", "", True)
    if own is not None and own != name:
        c.error("name", "mismatch", f"name is {_show(own)}; it must be {_show(name)}, the tool this file describes")
    description = c.string(tdoc, "description", "")
    file_schema = c.obj(tdoc, "inputSchema", "", True)
    if file_schema is not None and schema is not None and file_schema != schema:
        c.warn("inputSchema", "mismatch", "inputSchema differs from the manifest's; the manifest's is used")
    secrets = _secrets(c, tdoc, "")
    c.unknown_keys(tdoc, "", TOOL_FILE_KEYS)
    # a tool's credential_ref points into its own required_secrets when it declares them
    scope = secrets if tdoc.get("required_secrets") is not None else manifest_secrets
    binding = _binding(c, tdoc, schema or file_schema, scope)
    return description or "", binding


def _binding(
    c: Checker, tdoc: dict, schema: dict | None, secrets: list[dict[str, Any] | None]
) -> dict[str, Any] | None:
    b = c.obj(tdoc, "http_binding", "")
    if b is None:
        return None
    version = b.get("version")
    if isinstance(version, str) and version != "v1":
        c.error(
            "http_binding.version",
            "unsupported_version",
            f"http_binding.version {_show(version)} is not supported; agentdex reads v1",
        )
    else:
        c.enum(b, "version", "http_binding", ("v1",), True)
    out: dict[str, Any] = {
        "version": "v1",
        "method": c.enum(b, "method", "http_binding", METHODS, True),
        "path": _binding_path(c, b),
        "server": _binding_server(c, b),
        "params": _params(c, b, schema),
    }
    _placeholders(c, out["path"], out["params"])
    auth = _auth(c, b, secrets)
    if auth is not None:
        out["auth"] = auth
    c.unknown_keys(b, "http_binding", BINDING_KEYS)
    return out


def _binding_path(c: Checker, b: dict) -> str | None:
    path = c.string(b, "path", "http_binding", True)
    if path is not None and not path.startswith("/"):
        c.error("http_binding.path", "pattern", "http_binding.path must start with /")
        return None
    return path


def _binding_server(c: Checker, b: dict) -> str | None:
    server = c.url(b, "server", "http_binding", True)
    if server is not None and not server.startswith("https://"):
        c.warn("http_binding.server", "https", "http_binding.server is not https: credentials would travel in clear")
    return server


def _params(c: Checker, b: dict, schema: dict | None) -> dict[str, str]:
    params = c.obj(b, "params", "http_binding")
    props = schema.get("properties") if isinstance(schema, dict) else None
    out: dict[str, str] = {}
    for arg, location in (params or {}).items():
        where = join("http_binding.params", arg)
        if c.check_enum(location, where, LOCATIONS) is None:
            continue
        if isinstance(props, dict) and arg not in props:
            c.warn(where, "param", f"{where} binds {_show(arg, 40)}, which the tool's inputSchema does not declare")
        out[arg] = location
    return out


def _placeholders(c: Checker, path: str | None, params: dict[str, str]) -> None:
    if path is None:
        return
    names = PLACEHOLDER_RE.findall(path)
    for name in names:
        if params.get(name) != "path":
            c.error(
                "http_binding.path",
                "placeholder",
                f"http_binding.path has {{{name[:40]}}} but params does not bind {_show(name, 40)} to path",
            )
    for arg, location in params.items():
        if location == "path" and arg not in names:
            where = join("http_binding.params", arg)
            c.warn(where, "param", f"{where} is bound to the path, but http_binding.path has no {{{arg[:40]}}}")


def _auth(c: Checker, b: dict, secrets: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    auth = c.obj(b, "auth", "http_binding")
    if auth is None:
        return None
    kind = c.enum(auth, "type", "http_binding.auth", AUTH_TYPES, True)
    out: dict[str, Any] = {"type": kind}
    known = ["type", "credential_ref"]
    if kind == "apiKey":
        out["in"] = c.enum(auth, "in", "http_binding.auth", API_KEY_IN, True)
        out["name"] = c.string(auth, "name", "http_binding.auth", True, min_len=1)
        known += ["in", "name"]
    out["credential_ref"] = _credential_ref(c, auth, secrets)
    for key in auth:
        if key in CREDENTIAL_KEYS:
            c.error(
                join("http_binding.auth", key),
                "secret_value",
                f"http_binding.auth carries {key!r}: a package holds only a credential_ref, never "
                "the credential (the value is not shown)",
            )
    c.unknown_keys(auth, "http_binding.auth", known, silent=CREDENTIAL_KEYS)
    return out


def _credential_ref(c: Checker, auth: dict, secrets: list[dict[str, Any] | None]) -> str | None:
    ref = c.string(auth, "credential_ref", "http_binding.auth", True)
    if ref is None:
        return None
    where = "http_binding.auth.credential_ref"
    match = CREDENTIAL_REF_RE.fullmatch(ref)
    if match is None:
        c.error(where, "credential_ref", f'{where} must have the form "required_secrets[N].key", not {_show(ref, 60)}')
        return None
    index = int(match.group(1))
    if index >= len(secrets) or secrets[index] is None:
        c.error(
            where,
            "credential_ref",
            f"{where} points at required_secrets[{index}], but the "
            f"required_secrets it refers to hold {len(secrets)} usable entr"
            f"{'y' if len(secrets) == 1 else 'ies'} at most",
        )
        return None
    return ref


# -- tools (openapi) -----------------------------------------------------------------------------


def _openapi_mode(
    c: Checker, doc: dict, files: Mapping[str, bytes] | None, listing: Listing, secrets: list[dict[str, Any] | None]
) -> None:
    if doc.get("tools") is not None:
        c.error(
            "tools",
            "not_allowed",
            "tools must be absent or null with transport openapi: "
            "the tools are derived from the package's openapi.json",
        )
    if files is None:
        return
    if OPENAPI not in files:
        c.error("transport", "openapi", f"transport openapi needs {OPENAPI} at the package root; the package has none")
        return
    spec, problems = load_json(files[OPENAPI], max_bytes=MAX_FILE_BYTES, what=OPENAPI)
    c.findings.extend(Finding(f.severity, f"{OPENAPI}:{f.path}", f.code, f.message) for f in problems)
    if spec is None or not _openapi_version_ok(c, spec):
        return
    tools, findings = derive_openapi_tools(spec, listing.http_base or "", secrets)
    listing.tools = tools
    c.findings.extend(findings)


def _openapi_version_ok(c: Checker, spec: dict) -> bool:
    version = spec.get("openapi")
    if isinstance(version, str) and re.fullmatch(r"3\.\d+(\.\d+)?(-[0-9A-Za-z.-]+)?", version):
        return True
    if "swagger" in spec:
        message = f"{OPENAPI} is Swagger 2.0; adapp openapi packages need OpenAPI 3.x"
    else:
        message = f'{OPENAPI} must declare openapi: "3.x" (an OpenAPI 3 document)'
    c.error(f"{OPENAPI}:openapi", "openapi", message)
    return False

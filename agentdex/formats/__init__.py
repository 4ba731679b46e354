"""Manifest formats: pure functions from bytes (or decoded documents) to
:class:`~agentdex.models.ParseResult`. No IO happens in this package.

Every format module has the same shape: ``NAME``, ``SPEC`` (a
:class:`~agentdex.formats._spec.FormatSpec`), ``parse(data, *, origin=None)``,
``looks_like(doc)`` and ``validate_document(doc, *, origin=None)``; formats that live in a
folder or a package add ``parse_repo`` (FindAgent), ``parse_package`` (adapp) or ``infer``
(inferred listings).

**The registry.** This package imports every public module beside it that declares a
``SPEC`` and orders them by ``SPEC.priority``. Everything else reads format facts from here:
discovery's fetch caps, well-known paths, bootstrap files and primary order; the
``manifest.size`` check; the folder rules of ``agentdex validate``; the TUI's document order;
the CLI's help and error messages. To add a format, add one module ``formats/<name>.py``
(``NAME`` equal to the module name) with ``SPEC``, ``parse``, ``looks_like`` and
``validate_document``; ``tests/test_format_registry.py`` checks its shape. A format with a
``well_known`` path is then fetched by every crawl and may become an origin's primary format
by its priority; one with ``origin_files`` is built from those files only when an origin
publishes no manifest, and its module also provides ``infer(files, origin=, base_url=)``.
A format with ``discovery=True`` (A2A cards, MCP server cards, server.json, API catalogs,
x402 and AI-catalog documents) is fetched at its paths after the manifests and stored,
validated and cross-checked like them, but never chosen as an origin's primary format;
with a ``detect_rank`` (and its ``title``, telling ``keys`` and ``$schema`` marks) ``agentdex
validate`` reads it alone too: ``--format`` offers it and ``auto`` detects it. The prose that
lists formats (Datasette's column descriptions, the CLI's help) is generated from here:
``python scripts/gen_formats_doc.py`` and ``python scripts/gen_cli_doc.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any

from agentdex.formats._load import load_json
from agentdex.formats._spec import FormatSpec, OriginFile
from agentdex.models import Finding, ParseResult

ANY_JSON_MAX_BYTES = 8 * 1024 * 1024


def _format_modules() -> dict[str, ModuleType]:
    """Every public module of this package that declares a ``SPEC``, by priority."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if isinstance(getattr(module, "SPEC", None), FormatSpec):
            found.append(module)
    return {m.SPEC.name: m for m in sorted(found, key=lambda m: (m.SPEC.priority, m.SPEC.name))}


_MODULES = _format_modules()
REGISTRY: dict[str, FormatSpec] = {name: m.SPEC for name, m in _MODULES.items()}
# The listing formats (one of them is an origin's primary format) and the discovery
# documents read beside them (never primary).
FORMAT_NAMES = tuple(name for name, s in REGISTRY.items() if not s.discovery)
DISCOVERY_NAMES = tuple(name for name, s in REGISTRY.items() if s.discovery)
# The discovery documents that make an origin's listing where it publishes no manifest, in
# the order one is chosen (agentdex.crawler.discovered), and every format a listing can have.
LISTING_DISCOVERY = tuple(
    n
    for n in ("server_card", "a2a_card", "ai_catalog", "server_json", "registry_server_json", "api_catalog")
    if n in DISCOVERY_NAMES
)
LISTING_FORMATS = FORMAT_NAMES + LISTING_DISCOVERY
# The discovery documents ``agentdex validate`` reads on their own (a registry API answer is
# only ever fetched by a crawl).
VALIDATE_DISCOVERY = tuple(name for name in DISCOVERY_NAMES if REGISTRY[name].detect_rank is not None)
JSON_FORMATS = tuple(name for name in FORMAT_NAMES if REGISTRY[name].json)
# {format: path} of the manifests every crawl looks for first.
MANIFEST_PATHS: dict[str, str] = {name: path for name in FORMAT_NAMES if (path := REGISTRY[name].well_known)}
# {format: paths} of the discovery documents every crawl looks for after the manifests
# (a linked one, like the MCP registry's server.json, has no path of its own).
DISCOVERY_PATHS = {name: REGISTRY[name].paths for name in DISCOVERY_NAMES if REGISTRY[name].paths}
# The files an origin without a manifest is read from, for the formats built from them.
ORIGIN_FILES: tuple[OriginFile, ...] = tuple(f for s in REGISTRY.values() for f in s.origin_files)
# The fetch cap of every document kind a format defines (a manifest, or an origin file).
FETCH_CAPS = {**{name: s.max_bytes for name, s in REGISTRY.items()}, **{f.kind: f.max_bytes for f in ORIGIN_FILES}}
# Every path ``validate`` reads in a repository folder, once each.
FOLDER_FILES = tuple(dict.fromkeys(rel for name in FORMAT_NAMES for rel in REGISTRY[name].folder_files))
# ``(path, format)`` of the folder files that hold a manifest of a crawled format.
FOLDER_MANIFESTS = tuple((rel, name) for name in MANIFEST_PATHS for rel in REGISTRY[name].folder_files)


def get(name: str) -> ModuleType:
    """The module implementing format ``name`` (``KeyError`` for an unknown name)."""
    return _MODULES[name]


def spec(name: str) -> FormatSpec:
    """The declared facts of format ``name`` (``KeyError`` for an unknown name)."""
    return REGISTRY[name]


def choices(names: tuple[str, ...] = FORMAT_NAMES) -> str:
    """``"a, b or c"``: names for a help text or an error message."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


def detect(doc: Any) -> str | None:
    """The JSON format a decoded document is meant as, or ``None``."""
    for name in JSON_FORMATS:
        if get(name).looks_like(doc):
            return name
    return None


def parse_json(data: bytes, fmt: str = "auto", *, origin: str | None = None) -> ParseResult:
    """Parse a JSON manifest of format ``fmt`` (or detect it with ``"auto"``)."""
    if fmt != "auto":
        return get(fmt).parse(data, origin=origin)
    doc, findings = load_json(data, max_bytes=ANY_JSON_MAX_BYTES, what="manifest")
    if doc is None:
        return ParseResult("unknown", None, findings)
    name = detect(doc)
    if name is None:
        msg = f"not a manifest agentdex knows: it is in none of {choices(tuple(spec(n).title for n in JSON_FORMATS))}"
        return ParseResult("unknown", None, [Finding("error", "", "unknown_format", msg)], doc)
    return get(name).parse(data, origin=origin)

"""Manifest formats: pure functions from bytes (or decoded documents) to
:class:`~agentdex.models.ParseResult`. No IO happens in this package.

Every format module has the same shape: ``NAME``, ``parse(data, *, origin=None)``,
``looks_like(doc)`` and ``validate_document(doc, *, origin=None)``; formats that live in a
folder or a package add ``parse_repo`` (FindAgent), ``parse_package`` (adapp) or ``infer``
(inferred listings).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from agentdex.formats._load import load_json
from agentdex.models import Finding, ParseResult

FORMAT_NAMES = ("agent_app", "anchor", "findagent", "adapp", "inferred")
JSON_FORMATS = ("agent_app", "anchor", "findagent", "adapp")
ANY_JSON_MAX_BYTES = 8 * 1024 * 1024


def get(name: str) -> ModuleType:
    """The module implementing format ``name`` (``KeyError`` for an unknown name)."""
    if name not in FORMAT_NAMES:
        raise KeyError(name)
    return importlib.import_module(f"agentdex.formats.{name}")


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
        msg = ("not a manifest agentdex knows: expected an agent_app, anchor, format "
               "(adapp/v1) or FindAgent (name + system_prompt/tools) document")
        return ParseResult("unknown", None, [Finding("error", "", "unknown_format", msg)], doc)
    return get(name).parse(data, origin=origin)

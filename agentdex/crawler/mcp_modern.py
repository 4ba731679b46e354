"""MCP revision 2026-07-28 (the "modern" era) as the probe speaks it: pure helpers, no IO.

Revision 2026-07-28 (final since 28 July 2026; SEP-2575, SEP-2567) is stateless: no
``initialize`` handshake and no session; every request carries ``params._meta`` with
``io.modelcontextprotocol/protocolVersion`` and ``io.modelcontextprotocol/clientCapabilities``
(and, as it SHOULD, ``io.modelcontextprotocol/clientInfo``), and every Streamable HTTP POST
the ``MCP-Protocol-Version`` and ``Mcp-Method`` headers. Servers MUST implement
``server/discover``, whose result names ``supportedVersions``, ``capabilities``, ``ttlMs`` and
``cacheScope``; ``serverInfo`` is no field of it but the result's
``_meta["io.modelcontextprotocol/serverInfo"]``. Every result carries ``resultType``
(absent: ``complete``); an unknown value is invalid. A server that does not speak the
requested revision answers ``-32022`` with ``data.supported``.

Sources: the specification pages of revision 2026-07-28 (basic/versioning, basic/index,
basic/transports/streamable-http, server/discover, server/tools) and the SDKs that speak it:
PyPI ``mcp`` 2.3.0 and npm ``@modelcontextprotocol/server`` / ``client`` 2.4.0.

Public API::

    request_meta(version) -> dict              the ``_meta`` of every modern request
    headers_for(method, version) -> dict       the headers of a modern Streamable HTTP POST
    read_discover(message, asked) -> Discovered    what an answer to ``server/discover`` shows
    result_problem(result) -> str | None       why a modern result is unusable (resultType)
    era_difference(legacy, modern) -> dict | None  how two eras' tool lists differ
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentdex import __version__
from agentdex.models import Tool

MODERN_VERSION = "2026-07-28"
MODERN_VERSIONS = (MODERN_VERSION,)  # the modern revisions agentdex speaks, preferred first
# The initialize-based revisions (the SDKs' HANDSHAKE_PROTOCOL_VERSIONS).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
UNSUPPORTED_VERSION = -32022
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_SERVER = "io.modelcontextprotocol/serverInfo"
CACHE_SCOPES = ("public", "private")
ERAS = ("legacy", "dual", "modern", "unknown")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def is_modern(version: Any) -> bool:
    """Whether ``version`` names a modern revision (a date from 2026-07-28 on; the SDKs'
    ``isModernProtocolVersion``)."""
    return isinstance(version, str) and bool(_DATE.fullmatch(version)) and version >= MODERN_VERSION


def request_meta(version: str = MODERN_VERSION) -> dict[str, Any]:
    """The ``_meta`` every modern request carries: the revision, no client capabilities
    (agentdex answers nothing a server asks), and who is asking."""
    return {
        META_VERSION: version,
        META_CAPABILITIES: {},
        META_CLIENT: {"name": "agentdex", "version": __version__},
    }


def headers_for(method: str, version: str = MODERN_VERSION) -> dict[str, str]:
    """The headers of a modern Streamable HTTP POST (``MCP-Protocol-Version`` equal to the
    ``_meta`` revision, ``Mcp-Method`` naming the method; no session header)."""
    return {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": version,
        "mcp-method": method,
    }


@dataclass
class Discovered:
    """What an answer to ``server/discover`` shows.

    ``kind``: ``modern`` (a usable DiscoverResult offering the revision asked), ``retry``
    (``-32022`` naming a mutual modern revision: ask again at ``retry_at``),
    ``incompatible`` (modern evidence, no mutual revision), ``legacy`` (no modern evidence:
    the handshake comes next; ``why`` says what the server answered)."""

    kind: str
    why: str = ""
    supported: list[str] = field(default_factory=list)
    retry_at: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    server_info: dict[str, Any] = field(default_factory=dict)
    ttl_ms: int | None = None
    cache_scope: str | None = None


def read_discover(message: dict | None, asked: str = MODERN_VERSION) -> Discovered:
    """What the JSON-RPC answer ``message`` to ``server/discover`` at revision ``asked`` shows
    (``None``: no JSON-RPC answer at all, which is no modern evidence)."""
    if message is None:
        return Discovered("legacy", "no JSON-RPC answer to server/discover")
    error = message.get("error")
    if isinstance(error, dict):
        return _discover_error(error)
    result = message.get("result")
    if not isinstance(result, dict):
        return Discovered("legacy", "server/discover answered neither a result nor an error")
    problem = result_problem(result)
    if problem:
        return Discovered("legacy", f"server/discover: {problem}")
    supported = _strings(result.get("supportedVersions"))
    if supported is None:
        return Discovered("legacy", "the answer to server/discover has no supportedVersions list")
    found = _facts(result, supported)
    if asked in supported:
        found.kind = "modern"
    elif any(is_modern(v) for v in supported):
        found.kind, found.why = "incompatible", _incompatible(supported)
    else:  # only handshake revisions (go-sdk's stateful default): a legacy server
        found.why = "server/discover offers only handshake revisions"
    return found


def _discover_error(error: dict) -> Discovered:
    code = error.get("code")
    if code != UNSUPPORTED_VERSION or isinstance(code, bool):
        return Discovered("legacy", f"server/discover answered JSON-RPC error {str(code)[:20]}")
    data = _object(error.get("data"))
    supported = _strings(data.get("supported")) or []
    mutual = [v for v in MODERN_VERSIONS if v in supported]
    if mutual:
        return Discovered("retry", supported=supported, retry_at=mutual[0])
    if supported and not any(is_modern(v) for v in supported):
        return Discovered("legacy", "-32022 naming only handshake revisions", supported=supported)
    return Discovered("incompatible", _incompatible(supported), supported=supported)


def _incompatible(supported: list[str]) -> str:
    named = ", ".join(v[:20] for v in supported[:8]) or "no revision"
    return f"the server speaks the 2026 protocol but offers {named}, none of which agentdex speaks ({MODERN_VERSION})"


def _facts(result: dict, supported: list[str]) -> Discovered:
    """The DiscoverResult's facts: revisions, capabilities, serverInfo (from ``_meta``), caching."""
    info = server_info_of(result)
    ttl = result.get("ttlMs")
    scope = result.get("cacheScope")
    return Discovered(
        "legacy",
        supported=supported,
        capabilities=result["capabilities"] if isinstance(result.get("capabilities"), dict) else {},
        server_info=info,
        ttl_ms=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0 else None,
        cache_scope=scope if scope in CACHE_SCOPES else None,
    )


def result_problem(result: dict) -> str | None:
    """Why a modern result cannot be used as a listing's answer: a ``resultType`` other than
    ``complete`` (absent means complete; an unknown value is invalid, the spec says)."""
    kind = result.get("resultType", "complete")
    if kind == "complete":
        return None
    if kind == "input_required":
        return "the answer asks for input (resultType input_required), which a listing never gives"
    return f"the answer has an unknown resultType {str(kind)[:40]!r}, so it is invalid"


def server_info_of(result: dict) -> dict[str, Any]:
    """``serverInfo`` from a modern result's ``_meta`` (self-reported; empty when absent)."""
    return _object(_object(result.get("_meta")).get(META_SERVER))


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str] | None:
    if not isinstance(value, list):
        return None
    return [v for v in value if isinstance(v, str)][:32]


def era_difference(legacy: list[Tool], modern: list[Tool]) -> dict[str, list[str]] | None:
    """How the tool list one era gave differs from the other's: ``{only_legacy, only_modern,
    changed}`` tool names (changed: the same name with another description, annotations or
    input schema); ``None`` when they list the same tools."""
    old, new = {t.name: _surface(t) for t in legacy}, {t.name: _surface(t) for t in modern}
    found = {
        "only_legacy": sorted(set(old) - set(new)),
        "only_modern": sorted(set(new) - set(old)),
        "changed": sorted(n for n in set(old) & set(new) if old[n] != new[n]),
    }
    return found if any(found.values()) else None


def _surface(tool: Tool) -> tuple[str, dict, dict | None]:
    return tool.description, tool.annotations, tool.input_schema

"""What the discovery documents (A2A cards, MCP server cards, server.json, api-catalog, x402,
ai-catalog) share: resolving the URLs they state, reading MCP tool entries and auth words.

The discovery formats describe one origin from different angles. Each module returns the same
normalised :class:`~agentdex.models.Listing` as the manifest formats, filled with the facts the
document states, and keeps in ``Listing.extra`` what has no Listing field:

- ``mcp_urls``: every MCP endpoint the document names (``Listing.mcp_url`` is the first);
- ``api_bases``: every API base (``Listing.http_base`` is the first);
- ``mcp_tools``: the MCP tool names the document declares (only formats that declare MCP
  tools set it; A2A skills are not MCP tools);
- ``prices``: ``{resource URL: price in USD}`` for the prices it declares;
- ``auth``: the document's auth words in agentdex's vocabulary (:data:`AUTH_WORDS`).

The cross-format ones are stated through :class:`~agentdex.models.StatedFacts` and read back
typed, through ``Listing.facts`` (:class:`~agentdex.models.CrossFacts`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from agentdex.formats._check import is_absolute_url
from agentdex.formats.tool_quality import DEFINITION as TDQS_DEFINITION
from agentdex.formats.tool_quality import INPUT_KEYS as _TDQS_INPUTS
from agentdex.models import Tool

# agentdex's auth vocabulary for comparing documents: what a caller must bring.
AUTH_WORDS = ("none", "oauth", "bearer", "api_key", "basic", "mtls", "signature", "x402", "other")
_AUTH_ALIASES = {
    "none": "none",
    "oauth": "oauth",
    "oauth2": "oauth",
    "openidconnect": "oauth",
    "oidc": "oauth",
    "mcp_oauth": "oauth",
    "oauth_provider": "oauth",
    "bearer": "bearer",
    "pat": "bearer",
    "jwt": "bearer",
    "apikey": "api_key",
    "api-key": "api_key",
    "api_key": "api_key",
    "basic": "basic",
    "mutualtls": "mtls",
    "mtls": "mtls",
    "httpsig": "signature",
    "x402": "x402",
}
_TEMPLATE_RE = re.compile(r"\$\{[^}]*\}|\{\{[^}]*\}\}|YOUR_[A-Z_]+|<[a-z_ -]+>")
DEFAULT_PORTS = {"https": 443, "http": 80}


def auth_word(value: Any) -> str | None:
    """One auth word of any discovery document in agentdex's vocabulary (``None`` for a
    non-string); unknown words become ``other``."""
    if not isinstance(value, str) or not value.strip():
        return None
    key = value.strip().lower().replace(" ", "")
    return _AUTH_ALIASES.get(key, _AUTH_ALIASES.get(key.removesuffix("auth"), "other"))


def auth_words(values: Any) -> list[str]:
    """Several auth words, mapped and without repeats, in the order given."""
    out: list[str] = []
    for value in values if isinstance(values, (list, tuple)) else [values]:
        word = auth_word(value)
        if word and word not in out:
            out.append(word)
    return out


def header_auth(headers: Any) -> list[str]:
    """Auth words from the HTTP headers a server.json remote asks for: ``Authorization``
    means a bearer token, any other secret header an API key."""
    words = []
    for header in headers if isinstance(headers, list) else []:
        if not isinstance(header, dict):
            continue
        if str(header.get("name", "")).lower() == "authorization":
            words.append("bearer")
        elif header.get("isSecret"):
            words.append("api_key")
    return words


def resolve(url: Any, base: str | None, *, templates: bool = False) -> str | None:
    """An absolute http(s) URL from ``url`` (relative ones against ``base``), or ``None``.
    A URL template (``https://{host}/mcp``) names no one endpoint: ``None`` too, unless
    ``templates`` (a route template such as ``/providers/{name}`` names a resource)."""
    if not isinstance(url, str) or not url.strip() or ("{" in url and not templates):
        return None
    url = url.strip()
    if not is_absolute_url(url) and base:
        url = urljoin(base if base.endswith("/") else base + "/", url)
    return url if is_absolute_url(url.replace("{", "").replace("}", "")) else None


def normalise_url(url: str) -> str:
    """A URL in a form two documents can be compared by: lower-case scheme and host, no
    default port, no fragment, no trailing slash on the path."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.port and parts.port != DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path.rstrip("/"), parts.query, ""))


def base_url(origin: str | None) -> str | None:
    """``https://host`` for an origin given as a host or URL (``None`` otherwise)."""
    if not origin:
        return None
    if "://" in origin:
        parts = urlsplit(origin)
        return f"{parts.scheme}://{parts.netloc}" if parts.netloc else None
    return f"https://{origin}"


def template_in(value: Any) -> str | None:
    """The first unfilled template placeholder in a string (``${VERSION}``,
    ``{{APP_ID}}``, ``YOUR_WALLET_ADDRESS``), or ``None``."""
    if not isinstance(value, str):
        return None
    found = _TEMPLATE_RE.search(value)
    return found.group(0) if found else None


def tool_from_mcp(item: dict, *, source: str = "manifest") -> Tool:
    """An MCP ``Tool`` object (as ``tools/list`` or a server card gives it) as a
    :class:`Tool`: read-only only when it says so and ``destructiveHint`` does not
    contradict it."""
    annotations = item.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    read_only = annotations.get("readOnlyHint") is True and annotations.get("destructiveHint") is not True
    schema = item.get("inputSchema") if isinstance(item.get("inputSchema"), dict) else None
    return Tool(
        name=str(item.get("name", "")),
        description=str(item.get("description") or ""),
        annotations=annotations,
        read_only=read_only,
        input_schema=schema,
        source=source,
        # What tools/list sent, for the TDQS lint (formats/tool_quality.py); not stored as is.
        detail={TDQS_DEFINITION: {k: item[k] for k in _TDQS_INPUTS if k in item}} if source == "mcp" else {},
    )


def unique(values: list[str]) -> list[str]:
    """``values`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(v for v in values if v))

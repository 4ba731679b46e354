"""ASGI apps a host can mount on a path (``"app": NAME`` in ``_site.json``).

Each factory takes an :class:`AppContext` and returns a :class:`MountedApp`. Apps are built
when the sample web starts (one instance per host, variant and rule), so state such as a
feedback inbox lives as long as the server.

    mcp             an MCP server from the official SDK (profiles readonly, writes, full;
                    auth none, oauth, bearer, sdk)
    oauth_metadata  RFC 9728 protected-resource metadata for an oauth MCP host
    oauth_server    an authorization server's RFC 8414 metadata, built by the mcp SDK
    json_document   one JSON document to every method, with a status and headers (an
                    authorization server's metadata, a 401 naming an API-key header, a 402)
    not_mcp         a web page where an MCP endpoint was promised
    jsonrpc         a JSON-RPC server that is not MCP (-32601 to every method)
    x402            a paid endpoint: 402 with payment requirements (v1 body, v2 header)
    mcp_registry    a minimal MCP registry API (/v0.1/servers/{name})
    feedback        a feedback inbox (POST /v1/feedback) with idempotent receipts
    hostile_mcp     an "MCP server" that breaks the protocol on purpose (hostile/README.md)
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentdex.sampleweb.responses import ASGIApp


@dataclass(slots=True)
class AppContext:
    """What an app factory knows: where it is mounted and its options."""

    host: str
    path: str
    options: dict[str, Any] = field(default_factory=dict)
    find_file: Callable[[str], Path | None] = lambda rel: None

    @property
    def mount_path(self) -> str:
        """The rule's path without a trailing ``*``."""
        return self.path.rstrip("*")


@dataclass(slots=True)
class MountedApp:
    """An ASGI app, the context manager its lifespan needs, and its inspectable state."""

    app: ASGIApp
    lifespan: Callable[[], AbstractAsyncContextManager[Any]] | None = None
    state: Any = None


def _factories() -> dict[str, Callable[[AppContext], MountedApp]]:
    from agentdex.sampleweb.apps import feedback, hostile_mcp, mcp_servers, registry, simple, x402

    return {
        "mcp": mcp_servers.build,
        "oauth_metadata": simple.oauth_metadata,
        "oauth_server": simple.oauth_server,
        "json_document": simple.json_document,
        "not_mcp": simple.not_mcp,
        "jsonrpc": simple.jsonrpc,
        "down": simple.down,
        "x402": x402.build,
        "mcp_registry": registry.build,
        "feedback": feedback.build,
        "hostile_mcp": hostile_mcp.build,
    }


def app_names() -> list[str]:
    """The names ``_site.json`` may use in ``"app"``."""
    return sorted(_factories())


def build_app(name: str, ctx: AppContext) -> MountedApp:
    """Build the app ``name`` for one mount point; unknown names raise ValueError."""
    factories = _factories()
    if name not in factories:
        raise ValueError(f"{ctx.host}{ctx.path}: unknown app {name!r}; known: {', '.join(sorted(factories))}")
    return factories[name](ctx)

"""MCP servers built with the official SDK (``mcp.server.MCPServer``), streamable HTTP.

Options (``"options"`` of the rule):

    profile   readonly (read tools only) | writes (read tools plus a destructive tool: a
              "read-only variant" that lies) | full (read and write tools) | oauth | bearer
              (shorthands for ``readonly`` behind that auth)            default readonly
    auth      none | oauth | bearer (the sample web's own gate in front of the SDK) |
              sdk (the SDK's own resource-server support: ``AuthSettings`` and a
              ``TokenVerifier``; with ``issuer`` the SDK publishes RFC 9728 metadata at the
              path-suffixed well-known URL and names it in its 401, without it the SDK is a
              plain bearer check)                                      default none
    token     the bearer token that opens an oauth/bearer/sdk endpoint default sample-token
    issuer    (auth sdk) the authorization server the SDK's metadata names
    path      the MCP path when the rule is ``/*`` (every other path of the host goes to the
              SDK's app too: its RFC 9728 metadata route; anything else is its 404)
    name      the server name in ``initialize``                        default the host
    instructions, version
    tools     a list of {name, description, kind: read | write | destructive} replacing
              the profile's tools
    json_response, stateless   streamable HTTP transport switches       default false
    status    the status every 200 of the SDK goes out under (a gateway that gets statuses
              wrong: a JSON-RPC result under a 400)                   default 200
    eras      both (the SDK's own: revision 2026-07-28 and the initialize handshake on
              one endpoint) | legacy (a 2025 server: a 2026 request is refused as the
              TypeScript SDK v1 refuses it) | modern (2026-07-28 only: the handshake is
              refused with -32022, as the TypeScript SDK v2's legacy: 'reject' does)   default both

The tools do nothing. agentdex must never call one: every request is in the sample web's
request log, so a test can prove no ``tools/call`` ever arrived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.server import CacheHint, MCPServer
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations

from agentdex.sampleweb.apps import AppContext, MountedApp
from agentdex.sampleweb.responses import Receive, Scope, Send, header, send_json

PROFILES = ("readonly", "writes", "full")
AUTH_MODES = ("none", "oauth", "bearer", "sdk")
ERAS = ("both", "legacy", "modern")
MODERN = "2026-07-28"
DEFAULT_TOKEN = "sample-token"
METADATA_PATH = "/.well-known/oauth-protected-resource"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the sample server lists."""

    name: str
    description: str
    kind: str = "read"  # read | write | destructive


READ_TOOLS = (
    ToolSpec("search", "Search the catalogue by keyword and return matching items."),
    ToolSpec("get_item", "Return one item by its id."),
)
WRITE_TOOL = ToolSpec("create_item", "Create an item from a short description.", "write")
DESTRUCTIVE_TOOL = ToolSpec("delete_item", "Delete an item by its id. This cannot be undone.", "destructive")
PROFILE_TOOLS = {
    "readonly": READ_TOOLS,
    "writes": (*READ_TOOLS, DESTRUCTIVE_TOOL),
    "full": (*READ_TOOLS, WRITE_TOOL, DESTRUCTIVE_TOOL),
}


def annotations_for(kind: str) -> ToolAnnotations:
    """The MCP tool annotations of a tool kind."""
    if kind == "read":
        return ToolAnnotations(read_only_hint=True, open_world_hint=False)
    if kind == "write":
        return ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        )
    if kind == "destructive":
        return ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
    raise ValueError(f"unknown tool kind {kind!r}; use read, write or destructive")


def _read_tool(query: str) -> str:
    """A read tool's body: answers without touching anything."""
    return f"The sample web has no data for {query!r}."


def _write_tool(item: str) -> str:
    """A write tool's body: changes nothing (and agentdex must never call it anyway)."""
    return f"The sample web changed nothing for {item!r}."


def tool_specs(options: dict[str, Any], profile: str) -> list[ToolSpec]:
    """The tools a mount lists: its ``tools`` option, else its profile's."""
    custom = options.get("tools")
    if custom is None:
        return list(PROFILE_TOOLS[profile])
    return [ToolSpec(t["name"], t.get("description", ""), t.get("kind", "read")) for t in custom]


def profile_and_auth(options: dict[str, Any]) -> tuple[str, str]:
    """Resolve the ``profile``/``auth`` options (``oauth``/``bearer`` profiles are shorthands)."""
    profile = options.get("profile", "readonly")
    auth = options.get("auth", "none")
    if profile in ("oauth", "bearer"):
        profile, auth = "readonly", profile
    if profile not in PROFILES or auth not in AUTH_MODES:
        raise ValueError(f"mcp app: profile must be one of {PROFILES + ('oauth', 'bearer')}, auth one of {AUTH_MODES}")
    return profile, auth


class SampleTokenVerifier:
    """The SDK's ``TokenVerifier`` protocol: the one sample token opens the server."""

    def __init__(self, token: str, resource: str) -> None:
        self.token, self.resource = token, resource

    async def verify_token(self, token: str) -> AccessToken | None:
        """An access token for the sample token, ``None`` for any other."""
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="sample", scopes=["read"], resource=self.resource)


def sdk_auth(ctx: AppContext, mcp_path: str) -> dict[str, Any]:
    """``MCPServer``'s auth arguments for ``auth: sdk``: the SDK's own resource server."""
    resource = f"https://{ctx.host}{mcp_path}"
    issuer = ctx.options.get("issuer")
    settings = AuthSettings(
        issuer_url=issuer or f"https://{ctx.host}",
        # Without an issuer to name, no RFC 9728 metadata: the SDK checks bearer tokens only.
        resource_server_url=resource if issuer else None,
        required_scopes=["read"],
        validate_token_resource=bool(issuer),
    )
    return {"auth": settings, "token_verifier": SampleTokenVerifier(ctx.options.get("token", DEFAULT_TOKEN), resource)}


def mcp_path_of(ctx: AppContext) -> str:
    """The MCP endpoint's path: the rule's exact path, or the ``path`` option of a ``/*`` rule."""
    if ctx.path == "/*" and isinstance(ctx.options.get("path"), str):
        return ctx.options["path"]
    if ctx.path.endswith("*"):
        raise ValueError(f"{ctx.host}{ctx.path}: an mcp app needs an exact path (or /* with a path option)")
    return ctx.path


def make_server(ctx: AppContext, profile: str, auth: str = "none") -> MCPServer:
    """An SDK server with the mount's tools (``auth`` sdk: behind the SDK's own auth)."""
    opts = ctx.options
    server = MCPServer(
        name=opts.get("name", ctx.host),
        version=opts.get("version", "1.0.0"),
        instructions=opts.get("instructions"),
        log_level="WARNING",
        # server/discover's caching hint (SEP-2549, 2026-07-28): how long a client may reuse it
        cache_hints={"server/discover": CacheHint(ttl_ms=int(opts["ttl_ms"]))} if opts.get("ttl_ms") else None,
        **(sdk_auth(ctx, mcp_path_of(ctx)) if auth == "sdk" else {}),
    )
    for spec in tool_specs(opts, profile):
        fn = _read_tool if spec.kind == "read" else _write_tool
        server.add_tool(fn, name=spec.name, description=spec.description, annotations=annotations_for(spec.kind))
    return server


def build(ctx: AppContext) -> MountedApp:
    """The ``mcp`` app: an SDK streamable-HTTP server on the rule's exact path."""
    path = mcp_path_of(ctx)
    profile, auth = profile_and_auth(ctx.options)
    server = make_server(ctx, profile, auth)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[ctx.host, f"{ctx.host}:*"],
        allowed_origins=[f"https://{ctx.host}", f"https://{ctx.host}:*"],
    )
    app = server.streamable_http_app(
        streamable_http_path=path,
        json_response=bool(ctx.options.get("json_response", False)),
        stateless_http=bool(ctx.options.get("stateless", False)),
        transport_security=security,
    )
    eras = ctx.options.get("eras", "both")
    if eras not in ERAS:
        raise ValueError(f"mcp app: eras must be one of {ERAS}")
    if eras != "both":
        app = EraGate(app, eras)
    if int(ctx.options.get("status", 200)) != 200:
        app = StatusGate(app, int(ctx.options["status"]))
    if auth in ("oauth", "bearer"):
        app = BearerGate(app, ctx.host, auth, ctx.options.get("token", DEFAULT_TOKEN))
    return MountedApp(app=app, lifespan=server.session_manager.run, state=server)


class EraGate:
    """One era of MCP in front of the SDK's dual-era app. The SDK (``mcp`` 2.3.0) routes by
    the ``MCP-Protocol-Version`` header: a 2026 revision goes to its modern entry, anything
    else to the handshake. ``legacy`` answers a 2026 request as a 2025 server does (400,
    ``-32000`` "Server not initialized": the TypeScript SDK v1); ``modern`` answers anything
    else as a 2026-only server does (400, ``-32022`` naming 2026-07-28: the TypeScript SDK v2
    with ``legacy: 'reject'``; GET 405)."""

    def __init__(self, inner: Any, eras: str) -> None:
        self.inner, self.eras = inner, eras

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = header(scope, "mcp-protocol-version") or ""
        modern = version >= MODERN and version[:1].isdigit()
        if scope["type"] != "http" or modern == (self.eras == "modern"):
            await self.inner(scope, receive, send)
        elif self.eras == "legacy":
            error = {"code": -32000, "message": "Bad Request: Server not initialized"}
            await send_json(send, 400, {"jsonrpc": "2.0", "id": None, "error": error})
        elif scope["method"] != "POST":
            await send_json(
                send, 405, {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "Method not allowed."}}
            )
        else:
            data = {"supported": [MODERN], "requested": version or "2025-11-25"}
            error = {"code": -32022, "message": f"Unsupported protocol version: {data['requested']}", "data": data}
            await send_json(send, 400, {"jsonrpc": "2.0", "id": None, "error": error})


class StatusGate:
    """Every 200 of the inner app sent under another status, its body unchanged."""

    def __init__(self, inner: Any, status: int) -> None:
        self.inner, self.status = inner, status

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def restatus(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                message = {**message, "status": self.status}
            await send(message)

        await self.inner(scope, receive, restatus)


class BearerGate:
    """401 for a request without the right bearer token; the token opens the inner app.

    ``oauth`` points at RFC 9728 metadata in WWW-Authenticate; ``bearer`` names a realm only.
    """

    def __init__(self, inner: Any, host: str, mode: str, token: str) -> None:
        self.inner, self.host, self.mode, self.token = inner, host, mode, token

    def challenge(self, presented: bool) -> str:
        """The WWW-Authenticate value."""
        if self.mode == "oauth":
            value = f'Bearer resource_metadata="https://{self.host}{METADATA_PATH}"'
        else:
            value = f'Bearer realm="{self.host}"'
        return value + (', error="invalid_token"' if presented else "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        auth = header(scope, "authorization")
        if auth == f"Bearer {self.token}":
            await self.inner(scope, receive, send)
            return
        error = "invalid_token" if auth else "unauthorized"
        await send_json(
            send,
            401,
            {"error": error, "error_description": "A bearer token is required."},
            {"WWW-Authenticate": self.challenge(bool(auth))},
        )

"""Small apps: RFC 9728 protected-resource metadata, a "not MCP" endpoint, a JSON-RPC server
that is not MCP, and a server that is down."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from agentdex.sampleweb.apps import AppContext, MountedApp
from agentdex.sampleweb.responses import Receive, Scope, Send, send_json, send_text

NOT_MCP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not here</title></head>
<body><h1>This is a web page</h1><p>There is no MCP server at this address.</p></body></html>
"""


def oauth_metadata(ctx: AppContext) -> MountedApp:
    """RFC 9728 metadata. Options: ``resource`` (default ``https://<host>/mcp``),
    ``authorization_servers``, ``scopes_supported``, ``resource_name``."""
    opts = ctx.options
    doc = {
        "resource": opts.get("resource", f"https://{ctx.host}/mcp"),
        "authorization_servers": opts.get("authorization_servers", [f"https://{ctx.host}"]),
        "bearer_methods_supported": ["header"],
        "scopes_supported": opts.get("scopes_supported", ["read"]),
    }
    if "resource_name" in opts:
        doc["resource_name"] = opts["resource_name"]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await send_json(send, 405, {"error": "method_not_allowed"}, {"Allow": "GET, HEAD"})
            return
        await send_json(send, 200, doc, {"Access-Control-Allow-Origin": "*"})

    return MountedApp(app=app, state=doc)


def oauth_server(ctx: AppContext) -> MountedApp:
    """An authorization server's RFC 8414 metadata as the ``mcp`` SDK builds it for its own
    (``mcp.server.auth.routes.build_metadata``), mounted on
    ``/.well-known/oauth-authorization-server*``. Options: ``issuer`` (default
    ``https://<host>``), ``registration`` (a ``registration_endpoint``: the SDK's dynamic client
    registration enabled), ``cimd`` (``client_id_metadata_document_supported``). Its
    authorization, token and registration endpoints are never served: a client that asked
    them is in the request log, answered 400."""
    from mcp.server.auth.routes import build_metadata
    from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions

    issuer = ctx.options.get("issuer", f"https://{ctx.host}")
    registration = ClientRegistrationOptions(enabled=bool(ctx.options.get("registration")))
    metadata = build_metadata(issuer, None, registration, RevocationOptions())
    if ctx.options.get("cimd"):
        metadata.client_id_metadata_document_supported = True
    doc = metadata.model_dump(mode="json", exclude_none=True)
    well_known = urlsplit(issuer).path.rstrip("/")

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "GET" and scope["path"] == "/.well-known/oauth-authorization-server" + well_known:
            await send_json(send, 200, doc)
            return
        await send_json(send, 400, {"error": "invalid_request"})

    return MountedApp(app=app, state=doc)


def json_document(ctx: AppContext) -> MountedApp:
    """One JSON document (option ``document``) to every method, with ``status`` (default 200)
    and ``headers``."""
    doc, status = ctx.options.get("document", {}), int(ctx.options.get("status", 200))
    headers = {str(k): str(v) for k, v in (ctx.options.get("headers") or {}).items()}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send_json(send, status, doc, headers)

    return MountedApp(app=app, state=doc)


def not_mcp(ctx: AppContext) -> MountedApp:
    """An address a manifest calls an MCP endpoint that is a web page: HTML to GET, a
    404 JSON error to POST (what a static site or an API gateway answers)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] in ("GET", "HEAD"):
            await send_text(send, 200, NOT_MCP_PAGE, "text/html; charset=utf-8")
        else:
            await send_json(send, 404, {"error": "not_found", "message": "No such route."})

    return MountedApp(app=app)


def jsonrpc(ctx: AppContext) -> MountedApp:
    """A JSON-RPC 2.0 server that is not MCP (a blockchain node, a language server behind
    HTTP): every POSTed request gets ``-32601 Method not found``, a GET gets 405."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await send_json(send, 405, {"error": "method_not_allowed"}, {"Allow": "POST"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            rid = json.loads(body).get("id")
        except (ValueError, AttributeError):
            rid = None
        error = {"code": -32601, "message": "Method not found"}
        await send_json(send, 200, {"jsonrpc": "2.0", "id": rid, "error": error})

    return MountedApp(app=app)


def down(ctx: AppContext) -> MountedApp:
    """A server that is down: every method gets ``status`` (default 503) and a line of text
    (a static rule answers only GET and HEAD; an MCP endpoint is POSTed to), with a
    ``Retry-After`` header when the option ``retry_after`` (seconds) is given."""
    status = int(ctx.options.get("status", 503))
    retry = ctx.options.get("retry_after")
    headers = {"Retry-After": str(int(retry))} if retry is not None else None

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send_text(send, status, "Service unavailable.\n", headers=headers)

    return MountedApp(app=app)

"""Probing an MCP endpoint: ``server/discover``, ``initialize`` and ``tools/list`` only, over
Streamable HTTP or the deprecated HTTP+SSE transport (:mod:`agentdex.crawler.mcp_sse`).

Both eras of the protocol are asked (revision 2026-07-28, :mod:`agentdex.crawler.mcp_modern`,
and the ``initialize``-based revisions up to 2025-11-25). A Streamable HTTP endpoint gets
``server/discover`` first, with the ``_meta`` and headers 2026-07-28 requires: a usable
DiscoverResult is the modern era (then ``tools/list``, every page, in that era); a ``-32022``
naming a mutual revision is asked again at it, and one naming none is MCP of an era agentdex
does not speak (``incompatible``, never ``not_mcp``). Anything else is no modern evidence and
the ``initialize`` handshake follows, then the deprecated SSE transport, as before. A modern
endpoint is asked the handshake too: one that answers both is ``dual`` and the two tool lists
are compared (``era_difference``). 401/403, 402, timeouts and network errors end the probe
and are no evidence of an era (``era`` ``unknown``); a 5xx to ``server/discover`` is none
either, and the handshake is still tried.

agentdex speaks just enough of the protocol itself (rather than through the SDK's client)
so that every request goes through its own fetch policy: connect-to, the CA bundle, the
address guard, byte caps and deadlines. It never sends ``tools/call`` or anything else.

The probe ends in one state:
``ok``, ``auth_required`` (401/403; RFC 9728 metadata and ``WWW-Authenticate`` tell OAuth
from a bearer token), ``payment_required`` (402), ``wrong_transport`` (an endpoint that
speaks another transport than the one declared, or refuses POST), ``incompatible`` (MCP
2026 or later, but no revision agentdex speaks), ``not_mcp``, ``unreachable``, ``timeout``.
``era`` says which eras answered: ``legacy``, ``dual``, ``modern`` (2026-07-28 only) or
``unknown``; ``cause`` is agentdex's own word for what the state alone does not say
(``initialized_rejected``: ``initialize`` answered but ``notifications/initialized`` was
refused), never text a server wrote. ``transport`` says which transport answered
(``streamable-http`` or ``sse``; ``sse`` is deprecated and ``to_dict`` says so).

A declared ``sse`` endpoint is probed over HTTP+SSE: one GET opens the event stream, its
``endpoint`` event names the POST URL (on the same origin only), and the answers to
``initialize`` and ``tools/list`` are read from the stream; the whole session has one
deadline, and the stream a byte cap and an event cap. A declared Streamable HTTP endpoint
whose POST is refused gets one GET asking for an event stream, read for a few seconds and
at most one event: an ``endpoint`` event (or an event stream) means the old transport,
``wrong_transport``, never ``not_mcp``.

``tools/list`` is read for at most ``MAX_PAGES`` pages and ``MAX_TOOLS`` tools; a server
that goes past either, or repeats a cursor, leaves the listing incomplete (``tools_listed``
false, the detail says why). Requests the server sends back on an event stream (sampling,
elicitation, roots) are never answered, and an answer that cannot be read whole (over the
cap, cut short) is no answer.

Besides the POSTs and that GET, the probe may ``GET`` the RFC 9728 protected-resource
metadata of an endpoint that wants credentials.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from agentdex import __version__
from agentdex.crawler import auth_posture, mcp_modern, mcp_sse
from agentdex.formats._discovery import tool_from_mcp
from agentdex.formats._load import loads as safe_loads
from agentdex.models import FetchRecord, Tool

PROTOCOL_VERSION = "2025-11-25"
MAX_BYTES = 2 * 1024 * 1024
MAX_PAGES = 10
MAX_TOOLS = 1000  # a server listing more is refused past this; real servers list tens
ALLOWED_METHODS = ("server/discover", "initialize", "notifications/initialized", "tools/list")
_PARAM_RE = re.compile(r'(\w+)="([^"]*)"')

METADATA_WELL_KNOWN = "/.well-known/oauth-protected-resource"
SSE = "text/event-stream"
# An answer stopped while reading its body (over the cap, cut short, undecodable) is no answer.
REFUSED_BODIES = frozenset({"too_large", "incomplete", "protocol", "decoding"})

Post = mcp_sse.Post  # post(url, body, headers, follow_redirects=True) -> FetchRecord
# get(url, method, accept) -> FetchRecord: a safe request (GET or HEAD) under the fetch policy.
Get = Callable[[str, str, "str | None"], Awaitable[FetchRecord]]
# stream(url, accept) -> async with: (record, response or None), a GET read as it arrives.
Stream = Callable[[str, str], AbstractAsyncContextManager[tuple[FetchRecord, "httpx.Response | None"]]]
# ask(body, want_id) -> (the answer with want_id or None, why not): one request of a session.
Ask = Callable[[bytes, "int | None"], Awaitable[tuple["dict | None", str]]]

STREAMABLE, LEGACY_SSE = "streamable-http", "sse"
SNIFF_SECONDS = 3.0  # how long a refused POST's endpoint gets to show an event stream
DEADLINE = 15.0


@dataclass
class Probe:
    """What the probe learned."""

    state: str
    detail: str = ""
    http_status: int | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    tools: list[Tool] = field(default_factory=list)
    auth_scheme: str | None = None  # oauth | bearer, when auth_required
    resource_metadata: str | None = None  # the RFC 9728 metadata URL that answered (or was named)
    metadata: dict[str, Any] = field(default_factory=dict)  # the metadata's useful fields
    tools_listed: bool = False  # tools/list answered (every page)
    answer: FetchRecord | None = field(default=None, repr=False)  # the answer to initialize
    transport: str | None = None  # the transport that answered MCP (streamable-http | sse)
    era: str = "unknown"  # legacy | dual | modern | unknown (mcp_modern.ERAS)
    supported_versions: list[str] = field(default_factory=list)  # server/discover's supportedVersions
    legacy_version: str | None = None  # the revision initialize agreed on
    capabilities: dict[str, Any] = field(default_factory=dict)  # the server's, modern first
    ttl_ms: int | None = None  # server/discover's caching hints
    cache_scope: str | None = None
    era_difference: dict[str, list[str]] | None = None  # a dual endpoint's tool lists, when they differ
    cause: str | None = None  # agentdex's word for what the state does not say (initialized_rejected)
    elapsed_ms: float | None = None  # the whole probe, every request of it (set by its caller)

    @property
    def versions(self) -> list[str]:
        """Every revision the endpoint was seen to speak, newest first."""
        both = [*self.supported_versions, *([self.legacy_version] if self.legacy_version else [])]
        return sorted(set(both), reverse=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (tools by name)."""
        return {
            "state": self.state,
            "detail": self.detail,
            "http_status": self.http_status,
            "server_info": self.server_info,
            "protocol_version": self.protocol_version,
            "tools": [t.name for t in self.tools],
            "auth_scheme": self.auth_scheme,
            "resource_metadata": self.resource_metadata,
            "metadata": self.metadata,
            "tools_listed": self.tools_listed,
            "transport": self.transport,
            "transport_deprecated": self.transport == LEGACY_SSE,
            "era": self.era,
            "versions": self.versions,
            "supported_versions": self.supported_versions,
            "legacy_version": self.legacy_version,
            "capabilities": self.capabilities,
            "ttl_ms": self.ttl_ms,
            "cache_scope": self.cache_scope,
            "era_difference": self.era_difference,
            "cause": self.cause,
        }


def rpc(method: str, params: dict | None = None, id: int | None = None) -> bytes:
    """A JSON-RPC message; refuses any method but the three agentdex may send."""
    if method not in ALLOWED_METHODS:
        raise ValueError(f"agentdex never sends {method!r}")
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        msg["id"] = id
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


def headers_for(session: str | None = None, version: str | None = None) -> dict[str, str]:
    """The headers of a Streamable HTTP POST."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if session:
        headers["mcp-session-id"] = session
    if version:
        headers["mcp-protocol-version"] = version
    return headers


def read_message(record: FetchRecord, want_id: int | None) -> dict | None:
    """The JSON-RPC response with ``want_id`` from a JSON or an SSE body."""
    body = (record.body or b"").decode("utf-8", "replace")
    ctype = record.headers.get("content-type", "")
    candidates: list[Any] = []
    if "text/event-stream" in ctype:
        for event in body.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data:
                candidates.append(_loads(data))
    else:
        candidates.append(_loads(body))
    for item in candidates:
        for msg in item if isinstance(item, list) else [item]:
            if isinstance(msg, dict) and msg.get("jsonrpc") == "2.0" and msg.get("id") == want_id:
                return msg
    return None


def _loads(text: str) -> Any:
    try:
        return safe_loads(text)
    except ValueError:
        return None


def www_authenticate(value: str) -> tuple[str, str | None]:
    """``(oauth|bearer, resource_metadata URL)`` from a ``WWW-Authenticate`` header."""
    params = dict(_PARAM_RE.findall(value))
    if "resource_metadata" in params:
        return "oauth", params["resource_metadata"]
    return ("bearer" if value.lower().startswith("bearer") else (value.split(" ", 1)[0].lower() or "unknown")), None


def _initialize() -> bytes:
    return rpc(
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "agentdex", "version": __version__},
        },
        id=1,
    )


async def probe(
    url: str,
    post: Post,
    get: Get | None = None,
    stream: Stream | None = None,
    *,
    transport: str | None = STREAMABLE,
    deadline: float = DEADLINE,
) -> Probe:
    """Both eras of MCP against ``url`` over the declared ``transport`` (``sse``: the legacy
    HTTP+SSE transport, through ``stream``; anything else: Streamable HTTP, where
    ``server/discover`` comes first, then the ``initialize`` handshake; see the module
    docstring). With ``get`` and ``stream``, a refused POST is told apart (old SSE
    transport or not MCP) and an endpoint that wants credentials has its RFC 9728 metadata
    read."""
    if transport == LEGACY_SSE and stream is not None:
        return await probe_sse(url, post, stream, deadline, get)
    modern = await probe_modern(url, post)
    if modern is not None and modern.state != "ok":
        if modern.state == "auth_required" and get is not None:
            await read_resource_metadata(url, modern, get)
        return modern
    if modern is None:
        return await probe_legacy(url, post, get, stream)
    return both_eras(modern, await probe_legacy(url, post))


async def probe_modern(url: str, post: Post) -> Probe | None:
    """Revision 2026-07-28: ``server/discover`` (asked once more at the mutual revision a
    ``-32022`` names), then every page of ``tools/list``. ``None`` when the answer is no
    modern evidence (the handshake comes next); a probe that ends here otherwise (``ok``,
    ``incompatible``, or an answer that is no evidence of any era: credentials, payment,
    silence, no connection)."""
    version, asked = mcp_modern.MODERN_VERSION, 0
    while True:
        asked += 1
        record = await post(url, _discover(version), mcp_modern.headers_for("server/discover", version))
        stopped = _stopped(record)
        if stopped is not None:
            return stopped
        found = mcp_modern.read_discover(_answer(record, 1), version)
        if found.kind != "retry" or asked > 1 or found.retry_at is None:
            break
        version = found.retry_at
    if found.kind == "legacy":
        return None
    if found.kind != "modern":
        why = found.why or f"-32022 again at {version}, a revision the server itself named"
        return Probe(
            "incompatible",
            why,
            record.status,
            answer=record,
            transport=STREAMABLE,
            era="modern",
            supported_versions=found.supported,
        )
    result = _modern_probe(record, found, version)
    await _list_tools(
        _streamable_ask(url, post, mcp_modern.headers_for("tools/list", version)),
        result,
        mcp_modern.request_meta(version),
    )
    return result


def _discover(version: str) -> bytes:
    return rpc("server/discover", {"_meta": mcp_modern.request_meta(version)}, id=1)


def _modern_probe(record: FetchRecord, found: mcp_modern.Discovered, version: str) -> Probe:
    return Probe(
        "ok",
        http_status=record.status,
        protocol_version=version,
        server_info=found.server_info,
        answer=record,
        transport=STREAMABLE,
        era="modern",
        supported_versions=found.supported,
        capabilities=found.capabilities,
        ttl_ms=found.ttl_ms,
        cache_scope=found.cache_scope,
    )


def _stopped(record: FetchRecord) -> Probe | None:
    """The end of the probe for an answer that is no evidence of any era (credentials,
    payment, silence, no connection); None for any other answer."""
    gated = record.status in (401, 402, 403) or token_required(record)
    if record.error_code == "timeout" or record.status is None or gated:
        failed = classify_failure(record)
        if failed is not None:
            failed.answer = record
            return failed
    return None


def _answer(record: FetchRecord, want_id: int) -> dict | None:
    """The JSON-RPC answer to request ``want_id`` at any HTTP status, or an error answer
    with a null id (how some servers answer a request they refuse before reading its id)."""
    message = read_message(record, want_id)
    if message is None:
        message = read_message(record, None)
        return message if message is not None and isinstance(message.get("error"), dict) else None
    return message


def both_eras(modern: Probe, legacy: Probe) -> Probe:
    """A modern endpoint after the handshake was tried too: ``dual`` when it answered
    (the two tool lists compared), else ``modern`` (2026-07-28 only)."""
    if legacy.state != "ok" or mcp_modern.is_modern(legacy.legacy_version):
        # An initialize "answered" at a 2026 revision is no handshake: that revision has none.
        modern.detail += "; 2026-07-28 only (the initialize handshake is refused)"
        return modern
    modern.era, modern.legacy_version = "dual", legacy.legacy_version
    modern.capabilities = modern.capabilities or legacy.capabilities
    modern.server_info = modern.server_info or legacy.server_info
    if modern.tools_listed and legacy.tools_listed:
        modern.era_difference = mcp_modern.era_difference(legacy.tools, modern.tools)
    modern.detail += f"; both eras answer (2026-07-28 and {legacy.legacy_version})"
    if modern.era_difference:
        modern.detail += "; " + era_difference_text(modern.era_difference)
    return modern


def era_difference_text(difference: dict[str, list[str]]) -> str:
    """One clause naming how a dual endpoint's two tool lists differ."""
    parts = [
        f"{label}: {', '.join(n[:60] for n in difference.get(key, [])[:10])}"
        for key, label in (
            ("only_legacy", "only over initialize"),
            ("only_modern", "only over 2026-07-28"),
            ("changed", "different in each"),
        )
        if difference.get(key)
    ]
    return "the two eras list different tools (" + "; ".join(parts) + ")"


async def probe_legacy(url: str, post: Post, get: Get | None = None, stream: Stream | None = None) -> Probe:
    """The ``initialize`` handshake over Streamable HTTP, then ``tools/list`` (all pages);
    with ``get`` and ``stream``, a refused POST is told apart and credentials looked up."""
    record = await post(url, _initialize(), headers_for())
    # The body before the status: an initialize result is an answer whatever status it came under.
    failed = None if _initialize_result(record) else classify_failure(record)
    if failed is not None and not _unsupported_version(record):
        failed.answer = record
        if get is not None:
            await _refine(url, failed, get, stream)
        return failed
    found = _initialized(_answer(record, 1), record)
    if found.state == "ok":
        await _list_after_initialize(
            _streamable_ask(url, post, headers_for(record.headers.get("mcp-session-id"), found.protocol_version)),
            found,
        )
    return found


def _initialize_result(record: FetchRecord) -> bool:
    """Whether an answer holds a JSON-RPC ``initialize`` result (at any status: some servers
    and gateways send their answers under a 400), read whole."""
    if record.error_code in REFUSED_BODIES:
        return False
    message = read_message(record, 1)
    result = message.get("result") if message else None
    return isinstance(result, dict) and "protocolVersion" in result


def _unsupported_version(record: FetchRecord) -> bool:
    """Whether an answer is the 2026 protocol's ``-32022`` (modern evidence at any status)."""
    message = _answer(record, 1)
    error = message.get("error") if message else None
    return isinstance(error, dict) and error.get("code") == mcp_modern.UNSUPPORTED_VERSION


def _streamable_ask(url: str, post: Post, headers: dict[str, str]) -> Ask:
    """One request of a Streamable HTTP exchange: a POST whose answer is its body."""

    async def ask(body: bytes, want_id: int | None) -> tuple[dict | None, str]:
        answer = await post(url, body, headers)
        # The body before the status: a JSON-RPC answer under a 400 is an answer all the same.
        readable = want_id is not None and answer.error_code not in REFUSED_BODIES
        got = read_message(answer, want_id) if readable else None
        return got, answer.error or str(answer.status)

    return ask


async def _list_after_initialize(ask: Ask, found: Probe) -> None:
    """``notifications/initialized``, then every page of ``tools/list``."""
    _, said = await ask(rpc("notifications/initialized"), None)
    await _list_tools(ask, found)
    status = _rejected_status(said)
    if status is not None:  # the census counts these apart: a client stops here
        found.cause = "initialized_rejected"
        found.detail = f"initialize accepted but notifications/initialized rejected (HTTP {status}); {found.detail}"


def _rejected_status(said: str) -> int | None:
    """The 4xx or 5xx status in what an ask said (a bare status, or the fetcher's
    "URL answered 400 Bad Request." sentence); None for a success or no answer."""
    found = re.fullmatch(r"(\d{3})", said) or re.search(r" answered (\d{3})\b", said)
    return int(found.group(1)) if found and int(found.group(1)) >= 400 else None


def _initialized(message: dict | None, record: FetchRecord, transport: str = STREAMABLE) -> Probe:
    """The probe after an answer to ``initialize``: ``ok`` with the server's facts (the
    legacy era), ``incompatible`` for the 2026 protocol's ``-32022`` (a modern server whose
    ``server/discover`` gave nothing usable), or ``not_mcp``."""
    result = message.get("result") if message else None
    if not isinstance(result, dict) or "protocolVersion" not in result:
        if message is not None and _unsupported_version(record):
            why = "initialize answered -32022 (a 2026 server) but server/discover gave no usable answer"
            return Probe("incompatible", why, record.status, answer=record, transport=transport, era="modern")
        return Probe("not_mcp", _not_mcp_detail(record, message), record.status, answer=record)
    info, capabilities = result.get("serverInfo"), result.get("capabilities")
    version = str(result.get("protocolVersion"))[:40]
    return Probe(
        "ok",
        http_status=record.status,
        protocol_version=version,
        server_info=info if isinstance(info, dict) else {},
        answer=record,
        transport=transport,
        era="legacy",
        legacy_version=version,
        capabilities=capabilities if isinstance(capabilities, dict) else {},
    )


async def probe_sse(url: str, post: Post, stream: Stream, deadline: float = DEADLINE, get: Get | None = None) -> Probe:
    """The probe over the legacy HTTP+SSE transport: one event stream, its endpoint, and
    the three messages, all within ``deadline`` seconds (with ``get``, an endpoint that
    wants credentials has its RFC 9728 metadata read)."""
    try:
        async with asyncio.timeout(deadline):
            async with stream(url, SSE) as (record, response):
                found = await _sse_session(url, post, record, response)
            if found.state == "auth_required" and get is not None:
                await read_resource_metadata(url, found, get)
            return found
    except TimeoutError:
        return Probe("timeout", f"the HTTP+SSE session did not finish within the {deadline:g}-second deadline")


async def _sse_session(url: str, post: Post, record: FetchRecord, response: httpx.Response | None) -> Probe:
    if response is None:  # no answer: the record holds the failure (the Stream's contract)
        return await _no_stream(url, post, record, record.error or "no answer")
    problem = mcp_sse.stream_problem(record)
    if problem:
        return await _no_stream(url, post, record, problem)
    session = await mcp_sse.open_session(url, response)
    if isinstance(session, str):
        return Probe("not_mcp", session, record.status, answer=record)

    async def ask(body: bytes, want_id: int | None) -> tuple[dict | None, str]:
        return await session.ask(body, want_id, post)

    message, why = await ask(_initialize(), 1)
    found = _initialized(message, record, LEGACY_SSE)
    if found.state != "ok":
        found.detail = f"initialize over HTTP+SSE: {why or found.detail}"
        return found
    await _list_after_initialize(ask, found)
    found.detail += " over the deprecated HTTP+SSE transport"
    return found


async def _no_stream(url: str, post: Post, record: FetchRecord, problem: str) -> Probe:
    """A declared SSE endpoint whose GET opened no event stream: credentials, payment and
    silence are what they are; otherwise a Streamable HTTP ``initialize`` tells a server
    that speaks the other transport (``wrong_transport``) from one that is not MCP."""
    failed = classify_failure(record) if record.status != 200 else None
    if failed is not None and failed.state not in ("wrong_transport", "not_mcp"):
        failed.answer = record
        return failed
    other = await probe(url, post)
    if other.state == "ok":  # the era is the other transport's, not the declared one's
        return Probe(
            "wrong_transport",
            f"{problem}, but a Streamable HTTP POST initializes: the endpoint "
            "speaks streamable-http, not the declared sse",
            record.status,
            answer=record,
            transport=STREAMABLE,
        )
    return Probe("not_mcp", f"{problem}: not the HTTP+SSE transport", record.status, answer=record)


async def _refine(url: str, found: Probe, get: Get, stream: Stream | None) -> None:
    """Learn more about a failed ``initialize`` with safe requests only."""
    if found.state == "auth_required":
        await read_resource_metadata(url, found, get)
    elif found.state in ("wrong_transport", "not_mcp") and found.http_status in (404, 405, 406):
        await _check_sse(url, found, stream)


async def _sniff(url: str, stream: Stream | None) -> tuple[str, mcp_sse.Event | None]:
    """The content type of a GET asking for an event stream, and its first event, read for
    at most ``SNIFF_SECONDS`` (``""`` when no answer came in time, ``None`` when no event)."""
    ctype = ""
    if stream is None:
        return ctype, None
    try:
        async with asyncio.timeout(SNIFF_SECONDS):
            async with stream(url, SSE) as (record, response):
                ctype = record.headers.get("content-type", "").lower()
                if response is not None and SSE in ctype:
                    return ctype, await mcp_sse.first_event(response)
                return ctype, None
    except TimeoutError:
        return ctype, None  # an event stream that sent no event in time is still one


async def _check_sse(url: str, found: Probe, stream: Stream | None) -> None:
    """A refused POST: an endpoint that answers ``text/event-stream`` is the old HTTP+SSE
    transport and a web page is not MCP; otherwise a 405 still means "wrong transport" and
    anything else "not MCP"."""
    ctype, event = await _sniff(url, stream)
    if SSE in ctype:
        found.state, found.transport = "wrong_transport", LEGACY_SSE
        seen = "an endpoint event" if event is not None and event.type == "endpoint" else "an event stream"
        found.detail = (
            f"HTTP {found.http_status} to a Streamable HTTP POST and {seen} to GET: the "
            "deprecated HTTP+SSE transport, not streamable-http (declare transport sse)"
        )
    elif "text/html" in ctype:
        found.state = "not_mcp"
        found.detail = f"HTTP {found.http_status} to a Streamable HTTP POST, and a web page to GET: not an MCP endpoint"
    elif found.http_status == 405:
        found.state = "wrong_transport"
        found.detail = "HTTP 405 to a Streamable HTTP POST: the endpoint refuses POST, so not streamable-http"
    else:
        found.state = "not_mcp"
        found.detail = f"HTTP {found.http_status} to a Streamable HTTP POST; not an MCP endpoint"


def metadata_urls(url: str, named: str | None) -> list[str]:
    """Where RFC 9728 metadata may be: the URL ``WWW-Authenticate`` named, else the
    well-known URL with the endpoint's path appended, then the bare well-known URL (MCP
    2025-11-25: the named URL when there is one, the well-known ones otherwise)."""
    if named:
        return [named]
    parts = urlsplit(url)
    base = f"https://{parts.netloc}{METADATA_WELL_KNOWN}"
    path = parts.path.rstrip("/")
    return [base + path, base] if path else [base]


async def read_resource_metadata(url: str, found: Probe, get: Get) -> None:
    """Read the protected-resource metadata; authorization servers in it mean OAuth, and the
    first one's metadata tells how a client would register (:mod:`auth_posture`)."""
    for candidate in metadata_urls(url, found.resource_metadata):
        record = await get(candidate, "GET", "application/json")
        if auth_posture.refused_fetch(found, candidate, record):
            continue
        doc = auth_posture.document(record)
        if doc is None:
            continue
        servers = [s for s in doc.get("authorization_servers") or [] if isinstance(s, str)]
        found.resource_metadata = candidate
        found.metadata |= {
            "resource": doc.get("resource"),
            "authorization_servers": servers,
            "scopes_supported": [s for s in doc.get("scopes_supported") or [] if isinstance(s, str)],
        }
        if servers:
            found.auth_scheme = "oauth"
            found.detail = (
                f"HTTP {found.http_status}: the endpoint wants OAuth; authorization server "
                f"{servers[0]} (RFC 9728 metadata at {candidate})"
            )
        if doc.get("resource") not in (None, url, url.rstrip("/")):
            found.detail += f"; the metadata names another resource, {str(doc.get('resource'))[:200]}"
        if servers:
            await auth_posture.read_server_metadata(servers[0], found, get)
        return


async def _list_tools(ask: Ask, found: Probe, meta: dict | None = None) -> None:
    """Every page of ``tools/list``, within ``MAX_PAGES`` pages and ``MAX_TOOLS`` tools; a
    server that goes past either (or repeats a cursor) leaves the listing incomplete. With
    ``meta`` (the modern era) every request carries it and a result whose ``resultType`` is
    not ``complete`` is no answer."""
    cursor, next_id, seen = None, 2, set()
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"cursor": cursor} if cursor else {}
        if meta is not None:
            params["_meta"] = meta
        message, why = await ask(rpc("tools/list", params, id=next_id), next_id)
        result = message.get("result") if message else None
        if not isinstance(result, dict):
            found.detail = f"{'server/discover' if meta else 'initialize'} answered but tools/list did not ({why})"
            return
        problem = mcp_modern.result_problem(result) if meta is not None else None
        if problem:
            found.detail = f"tools/list: {problem}"
            return
        found.tools.extend(
            tool_from_mcp(t, source="mcp") for t in _items(result.get("tools"), MAX_TOOLS - len(found.tools) + 1)
        )
        if len(found.tools) > MAX_TOOLS:
            del found.tools[MAX_TOOLS:]
            found.detail = f"tools/list names more than {MAX_TOOLS:,} tools; agentdex stopped reading there"
            return
        cursor, next_id = result.get("nextCursor"), next_id + 1
        if not cursor:
            found.tools_listed = True
            found.detail = f"{len(found.tools)} tool(s) listed"
            return
        if not isinstance(cursor, str) or cursor in seen:
            found.detail = (
                f"tools/list sent a cursor it had sent before (or not a string): {str(cursor)[:60]!r}; stopped"
            )
            return
        seen.add(cursor)
    found.detail = f"tools/list still had more pages after {MAX_PAGES}; agentdex stopped reading there"


def _items(value: Any, limit: int) -> list[dict]:
    """The first ``limit`` objects of a JSON array (anything else: none)."""
    if not isinstance(value, list):
        return []
    return [item for item in value[:limit] if isinstance(item, dict)]


def classify_failure(record: FetchRecord) -> Probe | None:
    """The probe's end state when ``initialize`` got no usable answer, else ``None``."""
    if record.error_code == "timeout":
        return Probe("timeout", record.error or "timed out", record.status)
    if record.status == 200 and record.error_code in REFUSED_BODIES:
        return Probe("not_mcp", f"the answer to initialize was refused: {record.error}", 200)
    if record.status is None:
        return Probe("unreachable", record.error or "no answer", None)
    if record.status in (401, 403):
        return _challenged(record)
    if record.status == 402:
        return Probe("payment_required", "HTTP 402: the endpoint asks for payment", 402)
    if token_required(record):
        return _gated(record)
    if record.status in (405, 406) or (SSE in record.headers.get("content-type", "") and record.status != 200):
        return Probe(
            "wrong_transport",
            f"HTTP {record.status} to a Streamable HTTP POST: not the streamable-http transport",
            record.status,
        )
    if record.status == 404:
        return Probe("not_mcp", "HTTP 404 to a Streamable HTTP POST: nothing answers MCP there", 404)
    if record.status != 200 and record.status != 202:
        return Probe("not_mcp" if record.status < 500 else "unreachable", f"HTTP {record.status}", record.status)
    return None


# A 400 whose body says credentials are missing ("400 Bearer token is required", "Missing
# API key", "Authorization header required"): gated, not broken (the census authors' rule).
_CREDENTIAL = r"(?:bearer|access[ _-]?token|auth(?:entication|orization)?|api[ _-]?key|oauth|token|credentials?)"
_TOKEN_REQUIRED = re.compile(
    rf"\b{_CREDENTIAL}\b[^.\n]{{0,30}}?\b(?:required|missing|needed)\b"
    rf"|\b(?:missing|requires?|no)\b[^.\n]{{0,20}}?\b{_CREDENTIAL}\b",
    re.IGNORECASE,
)
_BEARER_WORDS = re.compile(r"\b(?:bearer|access[ _-]?token|token)\b", re.IGNORECASE)
TOKEN_TEXT_BYTES = 1024  # how much of a 400's body is read for those words


def _challenged(record: FetchRecord) -> Probe:
    """A 401 or 403: credentials of the scheme its challenge names (and the header an API key
    goes in, when the challenge names one)."""
    challenge = record.headers.get("www-authenticate", "")
    scheme, metadata = www_authenticate(challenge)
    header = auth_posture.api_key_header(challenge)
    where = f" in the {header} header" if header else ""
    return Probe(
        "auth_required",
        f"HTTP {record.status}: the endpoint wants {scheme} credentials{where}",
        record.status,
        auth_scheme=scheme,
        resource_metadata=metadata,
        metadata={"api_key_header": header} if header else {},
    )


def _gated(record: FetchRecord) -> Probe:
    """A 400 saying credentials are required (:func:`token_required`): bearer when its text
    names a bearer token."""
    return Probe(
        "auth_required",
        "HTTP 400 saying credentials are required: the endpoint is gated, not broken",
        400,
        auth_scheme="bearer" if _BEARER_WORDS.search(_text_of(record)) else None,
    )


def _text_of(record: FetchRecord) -> str:
    return (record.body or b"")[:TOKEN_TEXT_BYTES].decode("utf-8", "replace")


def token_required(record: FetchRecord) -> bool:
    """Whether an answer is a 400 whose body says credentials are required (and holds no
    JSON-RPC result: the body comes before the status)."""
    if record.status != 400 or record.error_code in REFUSED_BODIES:
        return False
    message = read_message(record, 1)
    return not (message and "result" in message) and bool(_TOKEN_REQUIRED.search(_text_of(record)))


def _not_mcp_detail(record: FetchRecord, message: dict | None) -> str:
    if message and "error" in message:
        err = message["error"] if isinstance(message["error"], dict) else {}
        return f"initialize failed: {str(err.get('message', ''))[:200]}"
    ctype = record.headers.get("content-type", "unknown")
    return f"the answer to initialize is not a JSON-RPC initialize result ({ctype})"

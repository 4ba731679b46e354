"""Endpoint health: the state of every URL a listing depends on, as one crawl found it.

Each crawl that verifies a listing records one :class:`~agentdex.models.Probe` row a URL it
asked (an answer still fresh is not asked, so it adds no row; see :mod:`agentdex.crawler.verify`):
the MCP endpoint (from the MCP probe), the API base, its OpenAPI and capabilities documents,
the homepage, the policies, the feedback route, each A2A interface (role ``a2a``: a safe GET,
no message sent), the documents the listing declares (guide,
llms.txt, skill), and each paid resource of the origin's x402 discovery document that was
asked (role ``x402``: for it ``payment_required`` is the healthy answer). Their history
(uptime over the last crawls, first seen, last ok) is what the catalogue derives from these rows.

States, one word each:

- ``ok``: a usable answer (2xx or 304; for MCP, ``initialize`` answered);
- ``auth_required`` (401/403), ``payment_required`` (402): alive, behind credentials or payment;
- ``wrong_transport``, ``not_mcp``: an MCP endpoint that answers but does not speak
  MCP over the transport its manifest declares (``wrong_transport``: it speaks the other one);
- ``incompatible``: an MCP endpoint of a protocol revision from 2026 on that agentdex does not
  speak (MCP all the same, never ``not_mcp``);
- ``not_found`` (404/410), ``http_error`` (another 4xx), ``server_error`` (5xx or 429);
- ``tls_error``, ``timeout``, ``dead`` (no answer: name not found, connection refused, cut);
- ``blocked``: never asked (the address guard, robots.txt).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentdex import __version__
from agentdex.crawler import auth_posture, mcp_probe
from agentdex.models import EndpointProbe, FetchRecord, OriginCrawl

OK = "ok"
STATES = (
    "ok",
    "auth_required",
    "payment_required",
    "wrong_transport",
    "incompatible",
    "not_mcp",
    "not_found",
    "http_error",
    "server_error",
    "tls_error",
    "timeout",
    "dead",
    "blocked",
)
# The probe's own states that say more than the HTTP status does.
_PROBE_STATES = {
    "ok": OK,
    "auth_required": "auth_required",
    "payment_required": "payment_required",
    "wrong_transport": "wrong_transport",
    "incompatible": "incompatible",
    "not_mcp": "not_mcp",
    "timeout": "timeout",
}
_BLOCKED = {"blocked_address", "robots", "invalid_url", "scheme", "cross_origin"}
# Declared documents (fetched by discovery) and the verifier's own fetches, by role.
DOCUMENT_ROLES = ("guide", "llms_txt", "skill")
# Routes meant for another method, asked with a GET only: the feedback route, and an A2A
# interface (JSON-RPC or HTTP+JSON: agentdex sends it no message, so no task is ever made).
SAFE_GET_ROLES = ("feedback", "a2a")


def state_of(record: FetchRecord) -> str:
    """The state of one fetch's answer."""
    if record.ok:
        return OK
    code, status = record.error_code, record.status
    if code in _BLOCKED:
        return "blocked"
    if code == "tls":
        return "tls_error"
    if code == "timeout":
        return "timeout"
    if status is None:
        return "dead"
    return _status_state(status)


def _status_state(status: int) -> str:
    if status in (401, 403):
        return "auth_required"
    if status == 402:
        return "payment_required"
    if status in (404, 410):
        return "not_found"
    if status >= 500 or status == 429:
        return "server_error"
    return OK if status < 400 else "http_error"


def probe_state(found: mcp_probe.Probe) -> str:
    """The state of an MCP endpoint from its probe (``unreachable`` told apart by why); a 429
    is a server error as for any fetch (agentdex asked too often), never ``not_mcp``."""
    if found.http_status == 429:
        return "server_error"
    if found.state in _PROBE_STATES:
        return _PROBE_STATES[found.state]
    if found.answer is not None:
        return state_of(found.answer)
    return "dead"


def measurable(status: int | None, headers: Mapping[str, str]) -> bool:
    """Whether an answer says anything of the endpoint's health: a 429 (agentdex asked too
    often) and a 503 with ``Retry-After`` (a planned pause) count as neither up nor down."""
    return not (status == 429 or (status == 503 and "retry-after" in headers))


def record_method(role: str, record: FetchRecord) -> str:
    """How a verifier's fetch verified its endpoint: the request and transport, agentdex's version."""
    scheme = record.url.split(":", 1)[0].upper()
    safe = " (a safe GET, nothing submitted)" if role in SAFE_GET_ROLES else ""
    return f"GET over {scheme}{safe}; agentdex {__version__}"


def probe_method(found: mcp_probe.Probe) -> str:
    """How the MCP probe verified its endpoint: the requests of each era it asked, the
    transport that answered (else the one asked) and agentdex's version."""
    asked = {
        "modern": "server/discover, tools/list",
        "dual": "server/discover, initialize, tools/list",
        "legacy": "initialize, tools/list",
    }.get(found.era, "server/discover, initialize")
    transport = found.transport or mcp_probe.STREAMABLE
    return f"MCP {asked} over {transport}, era {found.era}; agentdex {__version__}"


def from_record(role: str, url: str, record: FetchRecord) -> EndpointProbe:
    """The row of one fetched URL."""
    detail = record.error or (f"HTTP {record.status}" if record.status is not None else "")
    state = state_of(record)
    if role in SAFE_GET_ROLES and state == "http_error":
        # The feedback route is asked with a safe GET, never submitted: a POST-only route
        # answers 405 (or another 4xx), which shows it is there. The feedback.descriptor
        # check passes that answer; health says the same, not "http_error".
        state, detail = OK, f"HTTP {record.status} to a safe GET: the route is there (never submitted)"
    return EndpointProbe(
        role,
        url,
        state,
        record.status,
        detail,
        cause=cause_of(record),
        ms=record.elapsed_ms or None,
        measurable=measurable(record.status, record.headers),
        verified_by=record_method(role, record),
    )


def cause_of(record: FetchRecord | None) -> str | None:
    """``dns`` for a fetch whose host name did not resolve (the fetcher's own error code)."""
    return "dns" if record is not None and record.error_code == "dns" else None


def from_probe(url: str, found: mcp_probe.Probe) -> EndpointProbe:
    """The row of the MCP endpoint: its state, era, revisions and server name; its detail
    names a deprecated transport that answered."""
    detail = found.detail
    if found.transport == mcp_probe.LEGACY_SSE and "deprecated" not in detail:
        detail += " (the deprecated HTTP+SSE transport answered)"
    name = found.server_info.get("name")
    return EndpointProbe(
        "mcp",
        url,
        probe_state(found),
        found.http_status,
        detail,
        era=found.era,
        versions=tuple(v[:40] for v in found.versions),
        server_name=name[:200] if isinstance(name, str) else None,
        cause=found.cause or cause_of(found.answer),
        ms=found.elapsed_ms,
        measurable=measurable(found.http_status, found.answer.headers if found.answer is not None else {}),
        verified_by=probe_method(found),
        auth_kind=auth_posture.kind_of(found),
    )


# The verifier's fetches that are a listing's endpoints (the kinds it asks them under).
VERIFIED_ROLES = ("http_base", "openapi", "capabilities", "homepage", "privacy", "terms", "feedback", "x402", "a2a")


def endpoints_of(
    crawl: OriginCrawl, mcp_url: str | None, probe: mcp_probe.Probe | None, asked: list[tuple[str, str, FetchRecord]]
) -> list[EndpointProbe]:
    """Every endpoint of one verified crawl, by role and URL: the MCP probe, the verifier's
    fetches (``asked``: ``(kind, url, record)``) and the declared documents discovery read."""
    rows = [from_probe(mcp_url, probe)] if probe is not None and mcp_url else []
    # The final fetch of each; an answer served from freshness was not asked, so it is no probe.
    last = {r.kind: r for r in crawl.fetches if r.kind in DOCUMENT_ROLES and not r.from_freshness}
    rows += [from_record(kind, record.url, record) for kind, record in last.items()]
    return verified_rows(asked, rows)


def verified_rows(asked: list[tuple[str, str, FetchRecord]], more: Sequence[EndpointProbe] = ()) -> list[EndpointProbe]:
    """The rows of the verifier's fetches (``asked``) that are endpoints, with ``more``, by
    role and URL (an origin without a listing has only its x402 resources)."""
    rows = list(more) + [
        from_record(kind, url, record)
        for kind, url, record in asked
        if kind in VERIFIED_ROLES and not record.from_freshness
    ]
    return sorted(set(rows), key=lambda e: (e.role, e.url))

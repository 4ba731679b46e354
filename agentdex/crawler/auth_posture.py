"""An MCP endpoint's auth posture, read without ever following a flow: one kind of
:data:`KINDS` from what the probe's unauthenticated requests were answered with.

The reading follows MCP's authorization (revision 2025-11-25): a 401/403's
``WWW-Authenticate`` (its ``resource_metadata`` parameter, RFC 9728 §5.1), the protected-resource
metadata (the URL named, then the well-known URL with the endpoint's path appended, then the
root one; RFC 9728 §3), and the first authorization server's metadata (RFC 8414
``/.well-known/oauth-authorization-server`` and OpenID Connect Discovery
``/.well-known/openid-configuration``, path-inserted then path-appended), whose
``registration_endpoint`` (RFC 7591 dynamic client registration) and
``client_id_metadata_document_supported`` (OAuth client ID metadata documents, the MCP
revision's preferred registration) tell how a client would register. Each document is one
capped GET (:data:`MAX_BYTES`) through the crawl's fetcher, so the address guard and the
redirect rules of any fetch apply: a document at a private address is refused, and the refusal
recorded (``refused``). No credential is ever sent, no authorization request ever made.

Kinds: ``none`` (MCP answered without credentials), ``oauth_cimd`` (client ID metadata
documents supported: a client would use them before registering), ``oauth_dcr`` (a
registration endpoint), ``oauth`` (authorization servers, neither of those), ``bearer`` (a token
challenge without OAuth metadata), ``api_key`` (a documented header: a challenge naming the
header the key goes in, :func:`api_key_header`; an API-key scheme that names no header tells
nothing), ``payment`` (402), ``unknown`` (no answer that tells).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from agentdex.formats._load import loads as safe_loads
from agentdex.models import FetchRecord

# mcp_probe's Get (a safe request under the fetch policy); mcp_probe imports this module.
Get = Callable[[str, str, "str | None"], Awaitable[FetchRecord]]


class Probe(Protocol):
    """What this module reads and writes of an :class:`agentdex.crawler.mcp_probe.Probe`."""

    state: str
    http_status: int | None
    auth_scheme: str | None
    metadata: dict[str, Any]


KINDS = ("none", "oauth_dcr", "oauth_cimd", "oauth", "bearer", "api_key", "payment", "unknown")
MAX_BYTES = 64 * 1024  # each metadata document (the probe's safe GET reads no more)
MAX_SERVER_DOCUMENTS = 3  # authorization-server metadata URLs tried, at most
API_KEY_SCHEMES = frozenset({"apikey", "api-key", "api_key", "x-api-key"})
# A challenge's parameter naming the header an API key goes in (``ApiKey header="X-API-Key"``).
_HEADER_PARAM = re.compile(r'\b(?:header|name|in_header)\s*=\s*"?([A-Za-z0-9!#$%&\'*+.^_`|~-]{1,64})"?', re.IGNORECASE)
_HEADER_NAME = re.compile(r"x-[a-z0-9-]*key[a-z0-9-]*", re.IGNORECASE)
AS_WELL_KNOWN = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


def kind_of(found: Probe) -> str:
    """The one auth kind of a probe (see the module docstring for the order)."""
    if found.state in ("ok", "incompatible"):
        return "none"
    if found.state == "payment_required" or found.http_status == 402:
        return "payment"
    if found.state != "auth_required":
        return "unknown"
    meta = found.metadata
    if meta.get("client_id_metadata_document_supported") is True:
        return "oauth_cimd"
    if meta.get("registration_endpoint"):
        return "oauth_dcr"
    if meta.get("authorization_servers") or found.auth_scheme == "oauth":
        return "oauth"
    if meta.get("api_key_header"):
        return "api_key"
    return "bearer" if found.auth_scheme == "bearer" else "unknown"


def api_key_header(challenge: str) -> str | None:
    """The header an API key goes in, when a ``WWW-Authenticate`` challenge documents one: an
    API-key scheme with a ``header`` (or ``name``) parameter, or a scheme that is itself such a
    header's name (``X-API-Key``). ``None`` for anything else: a bare ``ApiKey`` says no header."""
    scheme = challenge.strip().split(" ", 1)[0].rstrip(",").lower()
    if scheme not in API_KEY_SCHEMES:
        return None
    named = _HEADER_PARAM.search(challenge)
    if named:
        return named.group(1)
    whole = challenge.strip().split(" ", 1)[0].rstrip(",")
    return whole if _HEADER_NAME.fullmatch(whole) else None


def server_metadata_urls(issuer: str) -> list[str]:
    """Where an authorization server's metadata may be: RFC 8414 and OpenID Connect's
    well-known paths inserted before the issuer's path, then OpenID's appended to it."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    base = f"https://{parts.netloc}"
    urls = [base + known + path for known in AS_WELL_KNOWN]
    if path:
        urls.append(base + path + AS_WELL_KNOWN[1])
    return urls[:MAX_SERVER_DOCUMENTS]


async def read_server_metadata(issuer: str, found: Probe, get: Get) -> None:
    """Read the first authorization server's metadata into ``found.metadata``
    (``authorization_server_metadata``, ``registration_endpoint``,
    ``client_id_metadata_document_supported``); a refused fetch is recorded."""
    if urlsplit(issuer).scheme != "https":
        refuse(found, issuer, "an authorization server must be https")
        return
    for candidate in server_metadata_urls(issuer):
        record = await get(candidate, "GET", "application/json")
        if refused_fetch(found, candidate, record):
            return
        doc = document(record)
        if doc is None:
            continue
        registration = doc.get("registration_endpoint")
        found.metadata |= {
            "authorization_server_metadata": candidate,
            "registration_endpoint": registration[:500] if isinstance(registration, str) else None,
            "client_id_metadata_document_supported": doc.get("client_id_metadata_document_supported") is True,
        }
        return


def document(record: FetchRecord) -> dict[str, Any] | None:
    """A JSON object answered with 2xx, else ``None``."""
    if not record.ok:
        return None
    try:
        doc = safe_loads((record.body or b"")[:MAX_BYTES].decode("utf-8", "replace"))
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def refused_fetch(found: Probe, url: str, record: FetchRecord) -> bool:
    """Whether the fetcher refused ``url`` (the address guard, a cross-origin redirect, an
    invalid URL): then the refusal is recorded in ``found.metadata["refused"]``."""
    if record.error_code not in ("blocked_address", "cross_origin", "invalid_url", "scheme"):
        return False
    refuse(found, url, record.error or record.error_code or "refused")
    return True


def refuse(found: Probe, url: str, why: str) -> None:
    """Record a metadata URL agentdex would not fetch, and why."""
    found.metadata.setdefault("refused", []).append({"url": url[:500], "why": why[:300]})

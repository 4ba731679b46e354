"""A second opinion on the census (``agentdex census --confirm``): every MCP endpoint whose
census state is not ``open`` is probed again through a second, independent HTTP stack, and
each answer compared with the stored one.

The second stack is a plain ``httpx.AsyncClient`` a host (its own connection pool), with the
TLS setup httpx makes by default (``ssl.create_default_context``, plus the ``--ca-bundle`` CA),
none of agentdex's fetcher, network backend, connection pools or stream reading. It honours
``--connect-to`` as curl's option does: the request goes to the rule's address while the
``Host`` header and the TLS server name (httpx's ``sni_hostname`` extension) stay the URL's. A
host without a rule is resolved once (by ``--dns-server`` when given) and its first address
used the same way, refused when it is not public (the address guard's rule, :func:`netpolicy.is_blocked_ip`, unless
``allow_private``). The probe's logic (:func:`mcp_probe.probe`) reads the answers, so a
disagreement is the HTTP stack's doing: the control arm census authors ran with curl.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import ssl
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from agentdex import __version__
from agentdex.crawler import health, mcp_probe, netpolicy
from agentdex.crawler.origins import origin_of
from agentdex.models import FetchRecord

MAX_REDIRECTS = 3  # same-origin redirects followed (a POST only by 307/308)
# The census states of a probe, as the mcp_census view derives them (agentdex/db/census_sql.py).
_CENSUS = {
    "ok": "open",
    "auth_required": "auth_gated",
    "payment_required": "payment_required",
    "wrong_transport": "wrong_transport",
    "incompatible": "incompatible",
    "not_mcp": "not_mcp",
    "not_found": "not_mcp",
    "http_error": "not_mcp",
}
NOT_PROBED = ("open", "template_not_expanded", "not_probed")
CONCURRENCY = 8  # endpoints probed at once (one at a time a host)


class Refused(Exception):
    """A request the second stack will not send: ``code`` is the fetcher's word for why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def census_state(state: str, cause: str | None) -> str:
    """The census state of a probe state and cause (the ``mcp_census`` view's rule)."""
    if state == "ok" and cause == "initialized_rejected":
        return "initialized_rejected"
    if state == "dead" and cause == "dns":
        return "dns_gone"
    return _CENSUS.get(state, "unreachable")


class SecondStack:
    """The independent HTTP stack (``async with``): ``post``, ``get`` and ``stream`` as
    :func:`mcp_probe.probe` wants them."""

    def __init__(
        self,
        rules: Iterable[tuple[str, str, int]] = (),
        ca_bundle: Path | None = None,
        deadline: float = 15.0,
        allow_private: bool = False,
        dns_server: str | None = None,
    ) -> None:
        self.rules, self.deadline, self.allow_private = list(rules), deadline, allow_private
        # --dns-server as the crawl honours it; else the machine's resolver.
        self.resolve = netpolicy.dns_server_resolver(dns_server) if dns_server else netpolicy.system_resolver
        self.context = ssl.create_default_context(cafile=str(ca_bundle) if ca_bundle else None)
        if ca_bundle is not None:  # the system's roots too, as the default setup has them
            self.context.load_default_certs()
        self.clients: dict[str, httpx.AsyncClient] = {}

    async def __aenter__(self) -> SecondStack:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in self.clients.values():
            await client.aclose()

    def _client(self, host: str) -> httpx.AsyncClient:
        if host not in self.clients:
            self.clients[host] = httpx.AsyncClient(
                verify=self.context,
                timeout=self.deadline,
                follow_redirects=False,
                trust_env=False,
                headers={"user-agent": f"agentdex/{__version__} (second opinion)"},
            )
        return self.clients[host]

    async def _address(self, host: str, port: int) -> tuple[str, int]:
        """Where ``host`` is dialled: its ``--connect-to`` rule, else its first public address.

        :raises Refused: the address is not public (the reason)
        """
        for pattern, addr, target in self.rules:
            if fnmatch.fnmatchcase(host.lower().rstrip("."), pattern.lower()):
                return addr, target
        literal = netpolicy.numeric_address(host)
        try:
            addresses = [literal] if literal else await self.resolve(host, port)
        except OSError as exc:
            raise Refused("dns", f"the host name {host} could not be resolved ({exc})") from exc
        if not addresses:
            raise Refused("dns", f"the host name {host} resolved to no address")
        reason = None if self.allow_private else netpolicy.is_blocked_ip(addresses[0])
        if reason:
            raise Refused("blocked_address", f"{host} resolves to {addresses[0]}, a {reason} address: not asked")
        return addresses[0], port

    async def _request(self, method: str, url: str, headers: dict[str, str], body: bytes | None) -> httpx.Request:
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise Refused("scheme", f"{url} is not an https URL: not asked")
        addr, port = await self._address(parts.hostname, parts.port or 443)
        target = f"https://{'[' + addr + ']' if ':' in addr else addr}:{port}{parts.path or '/'}"
        target += f"?{parts.query}" if parts.query else ""
        client = self._client(parts.hostname)
        return client.build_request(
            method,
            target,
            headers={**headers, "host": parts.netloc},
            content=body,
            extensions={"sni_hostname": parts.hostname},
        )

    async def _send(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None, follow: bool, stream: bool = False
    ) -> tuple[FetchRecord, httpx.Response | None]:
        record = FetchRecord(url=url, kind="mcp")
        try:
            for hops in range(MAX_REDIRECTS + 1):
                request = await self._request(method, url, headers, body)
                response = await self._client(urlsplit(url).hostname or "").send(request, stream=True)
                moved = _same_origin_redirect(url, response, method) if follow and hops < MAX_REDIRECTS else None
                if moved is None:
                    await _fill(record, url, response, read=not stream)
                    return record, response
                await response.aclose()
                url = moved
        except httpx.TimeoutException as exc:
            record.error_code, record.error = "timeout", f"{url}: timed out ({type(exc).__name__})"
        except (httpx.HTTPError, OSError, Refused) as exc:
            record.error_code, record.error = _error_code(exc), f"{url}: {str(exc)[:300] or type(exc).__name__}"
        return record, None

    async def post(
        self, url: str, body: bytes, headers: dict[str, str], *, follow_redirects: bool = True
    ) -> FetchRecord:
        """A JSON-RPC POST of the probe."""
        record, response = await self._send("POST", url, headers, body, follow_redirects)
        if response is not None:
            await response.aclose()
        return record

    async def get(self, url: str, method: str = "GET", accept: str | None = None) -> FetchRecord:
        """A safe request of the probe (the RFC 9728 and authorization-server metadata)."""
        record, response = await self._send(method, url, {"accept": accept or "*/*"}, None, True)
        if response is not None:
            await response.aclose()
        return record

    @contextlib.asynccontextmanager
    async def stream(self, url: str, accept: str) -> AsyncIterator[tuple[FetchRecord, httpx.Response | None]]:
        """The probe's event-stream GET, read as it arrives."""
        record, response = await self._send("GET", url, {"accept": accept}, None, True, stream=True)
        try:
            yield record, response
        finally:
            if response is not None:
                await response.aclose()


def _same_origin_redirect(url: str, response: httpx.Response, method: str) -> str | None:
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        return None
    if method == "POST" and response.status_code not in (307, 308):
        return None
    target = str(httpx.URL(url).join(location))
    return target if origin_of(target) == origin_of(url) else None


async def _fill(record: FetchRecord, url: str, response: httpx.Response, read: bool) -> None:
    record.final_url, record.status = url, response.status_code
    record.headers = {k.lower(): v for k, v in response.headers.items()}
    if read:
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > mcp_probe.MAX_BYTES:
                record.error_code, record.error = "too_large", f"{url}: more than {mcp_probe.MAX_BYTES} bytes"
                return
        record.body = body
    if not 200 <= response.status_code < 300 and record.error_code is None:
        record.error_code, record.error = "http_status", f"HTTP {response.status_code}"


def _error_code(exc: BaseException) -> str:
    """The fetcher's word for a failure (the probe and the census read these)."""
    if isinstance(exc, Refused):
        return exc.code
    text = str(exc).lower()
    if isinstance(exc, ssl.SSLError) or "certificate" in text or "ssl" in text:
        return "tls"
    return "refused"


async def confirm(endpoints: list[dict[str, Any]], stack: SecondStack) -> dict[str, Any]:
    """Probe again every endpoint whose census state is not open (``endpoints``: rows of
    :func:`agentdex.db.seeds.census_endpoints` with their declared ``transport``) and compare:
    ``{checked, agreed, states: [{state, checked, agreed}], disagreements: [{url, first, second}]}``."""
    rows = [row for row in endpoints if row["census"] not in NOT_PROBED]
    limit, hosts = asyncio.Semaphore(CONCURRENCY), {urlsplit(row["url"]).hostname: asyncio.Lock() for row in rows}

    async def one(row: dict[str, Any]) -> dict[str, Any]:
        async with limit, hosts[urlsplit(row["url"]).hostname]:
            return await _second(row, stack)

    seconds = await asyncio.gather(*(one(row) for row in rows))
    per_state: dict[str, list[int]] = {}
    disagreements = []
    for row, second in zip(rows, seconds, strict=True):
        counts = per_state.setdefault(row["census"], [0, 0])
        counts[0] += 1
        if second["census"] == row["census"]:
            counts[1] += 1
        else:
            first = {"census": row["census"], "state": row["state"], "detail": row.get("detail") or ""}
            disagreements.append({"url": row["url"], "first": first, "second": second})
    return {
        "checked": len(rows),
        "agreed": sum(agreed for _, agreed in per_state.values()),
        "states": [{"state": s, "checked": c, "agreed": a} for s, (c, a) in sorted(per_state.items())],
        "disagreements": disagreements,
    }


async def _second(row: dict[str, Any], stack: SecondStack) -> dict[str, Any]:
    transport = row.get("transport") or mcp_probe.STREAMABLE
    found = await mcp_probe.probe(
        row["url"], stack.post, stack.get, stack.stream, transport=transport, deadline=stack.deadline
    )
    state = health.probe_state(found)
    return {
        "census": census_state(state, found.cause or health.cause_of(found.answer)),
        "state": state,
        "detail": found.detail,
    }

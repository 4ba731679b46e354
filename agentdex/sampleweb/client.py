"""HTTP clients that reach the sample web the way a crawler with ``--connect-to`` would:
TCP goes to 127.0.0.1:PORT, TLS still checks the real host name against the sample CA.

For tests and the demo, not for the crawler (which has its own guarded network backend):

    async with sample_client(web) as client:            # httpx
        r = await client.get("https://pantry.test/.well-known/agent-app.json")
    async with mcp_http_client(web) as client:          # httpx2, for mcp.client.streamable_http
        ...
"""

from __future__ import annotations

import fnmatch
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpcore2
import httpx
import httpx2

Rules = list[tuple[str, str, int]]


def _target(rules: Rules, host: str, port: int) -> tuple[str, int] | None:
    for pattern, addr, target_port in rules:
        if fnmatch.fnmatchcase(host.lower().rstrip("."), pattern.lower()):
            return addr, target_port
    return None


class MappedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore backend connecting mapped hosts to their target, refusing the rest."""

    def __init__(self, rules: Iterable[tuple[str, str, int]]) -> None:
        self.rules = list(rules)
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        """Connect to the rule's target (no DNS lookup at all)."""
        target = _target(self.rules, host, port)
        if target is None:
            raise httpcore.ConnectError(f"{host} is not served by the sample web")
        return await self.inner.connect_tcp(
            *target, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class MappedBackend2(httpcore2.AsyncNetworkBackend):
    """:class:`MappedBackend` for httpcore2 (the stack under httpx2 and the MCP SDK)."""

    def __init__(self, rules: Iterable[tuple[str, str, int]]) -> None:
        self.rules = list(rules)
        self.inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        """Connect to the rule's target (no DNS lookup at all)."""
        target = _target(self.rules, host, port)
        if target is None:
            raise httpcore2.ConnectError(f"{host} is not served by the sample web")
        return await self.inner.connect_tcp(
            *target, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def ssl_context(web: Any) -> ssl.SSLContext:
    """A context trusting only the sample web's CA."""
    return ssl.create_default_context(cafile=str(web.ca_pem))


def sample_client(web: Any, **kwargs: Any) -> httpx.AsyncClient:
    """An httpx client whose connections go to the sample web (TLS verified)."""
    context = ssl_context(web)
    transport = httpx.AsyncHTTPTransport(verify=context)
    # httpx has no public hook for the network backend; its pool is the documented seam.
    transport._pool = httpcore.AsyncConnectionPool(ssl_context=context, network_backend=MappedBackend(web.connect_to()))
    kwargs.setdefault("timeout", 10.0)
    return httpx.AsyncClient(transport=transport, **kwargs)


def mcp_http_client(web: Any, **kwargs: Any) -> httpx2.AsyncClient:
    """An httpx2 client for ``mcp.client.streamable_http.streamable_http_client``."""
    context = ssl_context(web)
    transport = httpx2.AsyncHTTPTransport(verify=context)
    transport._pool = httpcore2.AsyncConnectionPool(
        ssl_context=context, network_backend=MappedBackend2(web.connect_to())
    )
    kwargs.setdefault("timeout", httpx2.Timeout(10.0, read=30.0))
    return httpx2.AsyncClient(transport=transport, **kwargs)

"""A minimal httpx fetcher: the floor of what an httpx crawler costs on this benchmark.

    python benchmarks/crawl/httpx_fetch.py --urls URLS.txt --port PORT --ca CA.pem \
        --concurrency 32 --per-host 1 --result OUT.json

It GETs every URL of the file (one per line, grouped by origin in the order agentdex
fetched them) with one ``httpx.AsyncClient`` and reads each body to the end. Nothing
else: no parsing, no robots.txt logic, no storage, no byte caps, no redirects policy.

Fairness with agentdex:

- the same concurrency shape: ``--concurrency`` origins in flight, at most ``--per-host``
  requests per host and ``--concurrency`` requests in all;
- TLS that verifies each host's certificate and name against the benchmark's CA, with
  SNI set to the host name, over HTTP/1.1 (httpcore, as in agentdex);
- every connection goes to ``127.0.0.1:PORT`` through a tiny httpcore network backend,
  so the pool still keys connections by host name (no connection is shared between
  origins, as with agentdex's ``--connect-to``).

The client's one connection pool has httpx's default limits (100 connections, 20 kept
alive, 5 s keep-alive), which is also the cheapest single pool measured here: keeping
every connection alive (``--max-keepalive 64``) saves TLS handshakes but costs more CPU,
because httpcore scans all pooled connections (quadratically, for idle ones) on every
request and every response close. agentdex keeps one small pool per host instead.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
import time
import typing
from collections import Counter
from pathlib import Path

import httpcore
import httpx
from fetch_args import (  # beside this script (its folder is on sys.path)
    capped,
    fetcher_parser,
    group_by_origin,
    write_result,
)
from httpcore._backends.auto import AutoBackend  # httpcore's default backend


class LoopbackBackend(httpcore.AsyncNetworkBackend):
    """Connects every host to ``127.0.0.1:port``; TLS (SNI, certificate) keeps the host name."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._inner = AutoBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """A TCP connection to the benchmark server, whatever the host."""
        return await self._inner.connect_tcp(
            "127.0.0.1", self.port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Not used."""
        raise NotImplementedError

    async def sleep(self, seconds: float) -> None:
        """Sleep on the running loop."""
        await asyncio.sleep(seconds)


def make_client(port: int, ca: Path, max_connections: int, max_keepalive: int) -> httpx.AsyncClient:
    """An AsyncClient whose pool connects through :class:`LoopbackBackend`."""
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["http/1.1"])
    transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False)
    # httpx has no parameter for httpcore's network backend: swap in an equivalent pool.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=context,
        max_connections=max_connections,
        max_keepalive_connections=max_keepalive,
        keepalive_expiry=5.0,
        http1=True,
        http2=False,
        network_backend=LoopbackBackend(port),
    )
    return httpx.AsyncClient(transport=transport, trust_env=False, timeout=15.0)


async def fetch_all(
    urls: list[str], port: int, ca: Path, concurrency: int, per_host: int, pool: tuple[int, int], statuses: Counter
) -> Counter:
    """Fetch every URL; a count of status codes (``error`` for a failed request)."""
    everyone = asyncio.Semaphore(concurrency)
    queue = group_by_origin(urls)
    queue.reverse()
    async with make_client(port, ca, *pool) as client:

        async def get(url: str, host_slots: asyncio.Semaphore) -> None:
            async with host_slots, everyone:
                try:
                    response = await client.get(url)
                    statuses[response.status_code] += 1
                except httpx.HTTPError:
                    statuses["error"] += 1

        async def worker() -> None:
            while queue:
                group = queue.pop()
                host_slots = asyncio.Semaphore(per_host)
                await asyncio.gather(*(get(url, host_slots) for url in group))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return statuses


def main(argv: list[str] | None = None) -> int:
    """Fetch the URL list, write the result file."""
    parser = fetcher_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--max-connections", type=int, default=100, help="httpx's default")
    parser.add_argument("--max-keepalive", type=int, default=20, help="httpx's default")
    args = parser.parse_args(argv)
    pool = (args.max_connections, args.max_keepalive)
    urls = args.urls.read_text("utf-8").split()
    statuses: Counter = Counter()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    stopped = asyncio.run(
        capped(fetch_all(urls, args.port, args.ca, args.concurrency, args.per_host, pool, statuses), args.max_seconds)
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    write_result(args.result, wall=wall, cpu=cpu, statuses=statuses, planned=len(urls), stopped=stopped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A minimal aiohttp fetcher: what an HTTP client with a C parser costs on this benchmark.

    python benchmarks/crawl/aiohttp_fetch.py --urls URLS.txt --port PORT --ca CA.pem \
        --concurrency 32 --per-host 1 --result OUT.json

Why it is here: a first crawl's CPU is mostly the fetch path (docs/benchmarks.md, round 8),
and agentdex's fetch path is httpx's models over h11 in pure Python. aiohttp parses HTTP
in C (llhttp) and keeps its URLs and headers in C types (yarl, multidict): on the same
URLs, the same server and the same TLS, its CPU a request is the floor a swap of HTTP
client could reach, measured rather than guessed. It is a comparison only; agentdex does
not import aiohttp, which runs in a virtualenv of its own (``python3 -m venv
/tmp/aiohttp-venv && /tmp/aiohttp-venv/bin/pip install 'aiohttp>=3.9,<4'``, then
``bench_crawl.py --aiohttp /tmp/aiohttp-venv/bin/python``).

Like ``httpx_fetch.py``, it GETs every URL of the file (grouped by origin, in the order
agentdex fetched them) and reads each body to the end; nothing else: no parsing, no
robots.txt logic, no storage, no caps, no redirects (a redirect answer is counted as it is).
The same concurrency shape: ``--concurrency`` origins in flight, at most ``--per-host``
requests per host. TLS verifies each host's certificate and name against the
benchmark's CA, SNI set to the host name, over HTTP/1.1; a resolver answers
``127.0.0.1`` and the server's port for every host name, and aiohttp still keys its
connections by host (no connection is shared between origins, as with agentdex's
``--connect-to``). Bodies are read raw
(``auto_decompress`` off), as nginx sends them.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp.abc import AbstractResolver
from fetch_args import (  # beside this script (its folder is on sys.path)
    capped,
    fetcher_parser,
    group_by_origin,
    write_result,
)


class LoopbackResolver(AbstractResolver):
    """Every host name is ``127.0.0.1`` at the benchmark server's port."""

    def __init__(self, port: int) -> None:
        self.port = port

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[dict[str, Any]]:
        """The server's address, whatever ``host``."""
        return [
            {"hostname": host, "host": "127.0.0.1", "port": self.port, "family": socket.AF_INET, "proto": 0, "flags": 0}
        ]

    async def close(self) -> None:
        """Nothing to close."""


def make_session(port: int, ca: Path, concurrency: int, per_host: int) -> aiohttp.ClientSession:
    """A session whose connector verifies TLS against ``ca`` and connects to the server."""
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["http/1.1"])
    connector = aiohttp.TCPConnector(
        limit=concurrency, limit_per_host=per_host, ssl=context, resolver=LoopbackResolver(port), use_dns_cache=False
    )
    return aiohttp.ClientSession(
        connector=connector,
        auto_decompress=False,
        timeout=aiohttp.ClientTimeout(total=15.0),
        headers={"Accept-Encoding": "gzip, deflate"},
    )


async def fetch_all(urls: list[str], port: int, ca: Path, concurrency: int, per_host: int, statuses: Counter) -> None:
    """Fetch every URL, counting statuses (``error`` for a failed request)."""
    queue = group_by_origin(urls)
    queue.reverse()
    async with make_session(port, ca, concurrency, per_host) as session:

        async def get(url: str, host_slots: asyncio.Semaphore) -> None:
            async with host_slots:
                await _get(url)

        async def _get(url: str) -> None:
            try:
                async with session.get(url, allow_redirects=False) as response:
                    await response.read()
                    statuses[response.status] += 1
            except (aiohttp.ClientError, TimeoutError):
                statuses["error"] += 1

        async def worker() -> None:
            while queue:
                group = queue.pop()
                host_slots = asyncio.Semaphore(per_host)
                await asyncio.gather(*(get(url, host_slots) for url in group))

        await asyncio.gather(*(worker() for _ in range(concurrency)))


def main(argv: list[str] | None = None) -> int:
    """Fetch the URL list, write the result file."""
    args = fetcher_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    urls = args.urls.read_text("utf-8").split()
    statuses: Counter = Counter()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    work = fetch_all(urls, args.port, args.ca, args.concurrency, args.per_host, statuses)
    stopped = asyncio.run(capped(work, args.max_seconds))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    write_result(
        args.result,
        wall=wall,
        cpu=cpu,
        statuses=statuses,
        planned=len(urls),
        stopped=stopped,
        aiohttp=aiohttp.__version__,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""agentdex's fetch path alone on a crawl's URL list: the part of a crawl's CPU that fetching
costs, the rest being parsing, verifying and saving.

    python benchmarks/crawl/agentdex_fetch.py --urls URLS.txt --port PORT --ca CA.pem \
        --concurrency 32 --per-host 1 --result OUT.json

It GETs every URL of the file (grouped by origin, in the order agentdex fetched them)
through :class:`agentdex.crawler.fetch.Fetcher` configured as a crawl configures it: the
fetch policy, robots.txt, the address guard, agentdex's own HTTP/1.1 transport, TLS
verified against the benchmark's CA, each body read under its cap. Nothing is parsed,
verified or stored. The list's ``/robots.txt`` lines are not asked as URLs: the fetch
policy asks each origin's robots.txt before the first path it governs, as in the crawl,
so the requests sent are the crawl's; and, as the crawl does, the fetcher forgets an
origin's robots.txt once the origin is done. The same concurrency shape as the crawl and
the other fetchers: ``--concurrency`` origins in flight, at most ``--per-host`` requests
per host.
``benchmarks/bench_fetch.py --urls`` runs the same fetch on a URL list by itself.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from fetch_args import fetcher_parser, write_result  # noqa: E402  (beside this script)

from agentdex.crawler.eventloop import run as run_loop  # noqa: E402
from agentdex.crawler.fetch import Fetcher  # noqa: E402

MAX_BYTES = 4 * 1024 * 1024  # the largest cap a crawl puts on a document


def group_by_origin(urls: list[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """(origin, its URLs with their places in ``urls``) in first-seen order, robots.txt left
    to the fetch policy."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for index, url in enumerate(urls):
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        groups.setdefault(origin, [])
        if parts.path != "/robots.txt":
            groups[origin].append((index, url))
    return list(groups.items())


async def fetch_all(
    urls: list[str], port: int, ca: Path, concurrency: int, per_host: int, answered: Callable[[int, int | None], None]
) -> tuple[int, int]:
    """Fetch every URL, telling ``answered(index, status)`` of each (its place in ``urls``;
    None for a failed fetch); (requests sent, failed fetches) as the Fetcher counted them.
    ``answered`` is called inside the measured time: keep it small (a count, a slot)."""
    queue = group_by_origin(urls)
    queue.reverse()
    async with Fetcher(
        connect_to=[("*.synthetic.test", "127.0.0.1", port)], ca_bundle=ca, concurrency=concurrency, per_host=per_host
    ) as fetcher:

        async def get(index: int, url: str, host_slots: asyncio.Semaphore) -> None:
            async with host_slots:
                record = await fetcher.fetch(url, kind="bench", max_bytes=MAX_BYTES, same_origin=True, absent_ok=True)
            answered(index, record.status)

        async def worker() -> None:
            while queue:
                origin, group = queue.pop()
                host_slots = asyncio.Semaphore(per_host)
                await asyncio.gather(*(get(index, url, host_slots) for index, url in group))
                fetcher.robots.forget(origin)  # as the crawl does once an origin is done

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return fetcher.stats.requests, fetcher.stats.errors


def main(argv: list[str] | None = None) -> int:
    """Fetch the URL list, write the result file."""
    args = fetcher_parser(__doc__.split("\n\n")[0]).parse_args(argv)
    urls = args.urls.read_text("utf-8").split()
    statuses: Counter = Counter()
    cpu0, wall0 = time.process_time(), time.perf_counter()

    def answered(_index: int, status: int | None) -> None:
        statuses[status if status is not None else "error"] += 1

    requests, errors = run_loop(fetch_all(urls, args.port, args.ca, args.concurrency, args.per_host, answered))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    # requests: robots.txt included, as the fetch policy asked it
    write_result(
        args.result, wall=wall, cpu=cpu, statuses=statuses, planned=len(urls), requests=requests, errors=errors
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

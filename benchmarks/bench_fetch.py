"""Fetch benchmark: the CPU one request costs in agentdex's fetcher, nothing else.

Run from the repository root (needs nginx, like ``bench_crawl.py``, whose synthetic tree,
certificates and nginx it reuses):

    .venv/bin/python benchmarks/bench_fetch.py [--n 2000] [--concurrency 32] [--repeat 3]

One nginx serves the synthetic tree of N origins over TLS. The fetcher
(:class:`agentdex.crawler.fetch.Fetcher`, as a crawl configures it) asks every origin, one
request at a time over its kept-alive connection, each path a crawl asks an origin that
publishes an agent-app manifest and its guide: the two manifests, every discovery path
(404s at the synthetic origins) and the guide; robots.txt is fetched by the fetch policy
before the first path it governs. No parsing, no database: the figure is the HTTP client's
and the fetch policy's own cost. Printed for each repeat: requests, wall seconds, CPU ms per
request (``time.process_time``, this process only; nginx runs in its own), and how many
fetches failed (0, or the figure is not of answered requests).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_crawl import DOMAIN, Nginx, ensure_certs, ensure_tree  # noqa: E402

from agentdex import formats  # noqa: E402
from agentdex.crawler.fetch import Fetcher  # noqa: E402

GUIDE = "/agent.md"


def paths() -> list[str]:
    """What a crawl asks an origin with an agent-app manifest, in its order."""
    discovery = [path for group in formats.DISCOVERY_PATHS.values() for path in group]
    return [*formats.MANIFEST_PATHS.values(), *discovery, GUIDE]


async def fetch_all(port: int, ca: Path, hosts: list[str], concurrency: int) -> tuple[int, int, float, float]:
    """Every path of every host; (requests, failed fetches, wall s, CPU s)."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for host in hosts:
        queue.put_nowait(host)
    wanted = paths()
    async with Fetcher(connect_to=[(f"*.{DOMAIN}", "127.0.0.1", port)], ca_bundle=ca,
                       concurrency=concurrency) as fetcher:
        async def worker() -> None:
            while not queue.empty():
                host = queue.get_nowait()
                for path in wanted:
                    await fetcher.fetch(f"https://{host}{path}", kind="bench", max_bytes=512 * 1024,
                                        same_origin=True, absent_ok=True)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return fetcher.stats.requests, fetcher.stats.errors, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    tree, certs = ensure_tree(args.n), ensure_certs()
    hosts = [urlsplit(seed).hostname or "" for seed in (tree / "seeds.txt").read_text("utf-8").split()]
    print(f"{len(paths())} paths an origin: {', '.join(paths())}")
    with Nginx(tree, certs, workers=1) as nginx:
        for _ in range(args.repeat):
            requests, errors, wall, cpu = asyncio.run(fetch_all(nginx.port, certs[0], hosts, args.concurrency))
            # errors: fetches that failed (the discovery 404s are not): a figure from failed
            # fetches would measure failing, so it must read 0
            print(f"{requests:,} requests  {errors} errors  wall {wall:.1f} s  CPU {cpu * 1000 / requests:.3f} ms/request")
    return 0


if __name__ == "__main__":
    sys.exit(main())

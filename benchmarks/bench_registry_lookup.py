"""What ``crawl --registry-lookup`` costs: the same synthetic origins of the sample web crawled
into fresh catalogues without and with the MCP registry lookup (the sample registry,
``registry.test``, on the same loopback server), verification off.

Run from the repository root:

    .venv/bin/python benchmarks/bench_registry_lookup.py [--n 500] [--concurrency 32] [--repeat 3]

Prints, for each mode, the fastest wall time of ``--repeat`` rounds, the requests sent and the
requests the registry's host received. With the lookup every origin costs one more request,
to one host, which (like any host) gets at most 2 requests at once: the lookup paces a crawl
of many origins by the registry's answer time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agentdex.crawler.crawl import crawl  # noqa: E402
from agentdex.db import open_db  # noqa: E402
from agentdex.sampleweb import SampleWeb  # noqa: E402
from agentdex.sampleweb.server import REGISTRY_HOST  # noqa: E402


def one_round(web: SampleWeb, origins: list[str], concurrency: int, lookup: bool) -> tuple[float, int, int]:
    """Wall seconds, requests sent and requests the registry received, for one fresh crawl."""
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(Path(folder) / "bench.db")
        net = web.network_options(concurrency=concurrency, registry_lookup=lookup, deadline=30.0)
        before = sum(r.host == REGISTRY_HOST for r in web.requests_log)
        started = time.perf_counter()
        summary = asyncio.run(crawl(db, origins, net, verify=False))
        wall = time.perf_counter() - started
        asked = sum(r.host == REGISTRY_HOST for r in web.requests_log) - before
        db.close()
    return wall, summary.requests, asked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="synthetic origins")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the fastest is kept")
    args = parser.parse_args()
    with SampleWeb(synthetic=args.n) as web:
        origins = web.synthetic.hosts[: args.n]
        figures = {}
        for _ in range(max(1, args.repeat)):
            for lookup in (False, True):  # alternated, so a slow spell of the machine hits both
                wall, requests, asked = one_round(web, origins, args.concurrency, lookup)
                best = figures.get(lookup)
                figures[lookup] = (wall, requests, asked) if best is None or wall < best[0] else best
    print(f"{args.n} synthetic origins, concurrency {args.concurrency}, verification off")
    for lookup, (wall, requests, asked) in figures.items():
        name = "with --registry-lookup" if lookup else "without"
        print(f"  {name:24} wall {wall:6.2f} s  requests {requests:6,}  registry host asked {asked:5,}")
    print(f"  ratio: {figures[True][0] / figures[False][0]:.2f}x")


if __name__ == "__main__":
    main()

"""How long a crawl that verifies takes on the sample web's synthetic origins, first and again.

Run from the repository root:

    .venv/bin/python benchmarks/bench_verify.py [--n 500] [--repeat 3] [--concurrency 32]

Each repeat starts the sample web with ``--n`` synthetic origins (agent-app manifests with an
API, documents and policies, no x402), crawls them with verification into a fresh catalogue,
then crawls them again (every document answers 304, every check runs again). Printed: the
median wall and CPU seconds of each crawl and its origins a second. It measures what the
verification stage costs an origin that publishes no x402 discovery document (the
``x402.live_price`` check is then a skip without a request) and the recrawl of unchanged
origins; run it with another checkout's ``agentdex`` on ``PYTHONPATH`` to compare two versions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # run from a checkout without installing (PYTHONPATH wins)

from agentdex.crawler.crawl import crawl  # noqa: E402
from agentdex.db import open_db  # noqa: E402
from agentdex.sampleweb.server import SampleWeb  # noqa: E402


def one_run(n: int, concurrency: int) -> list[tuple[float, float]]:
    """``[(wall, cpu)]`` of the first crawl and the recrawl."""
    with SampleWeb(synthetic=n, dns=False) as web, tempfile.TemporaryDirectory() as folder:
        net = web.network_options()
        net.concurrency = concurrency
        origins = [f"site-{i:05d}.synthetic.test" for i in range(1, n + 1)]
        db = open_db(Path(folder) / "catalogue.db")
        figures = []
        for _ in range(2):
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(crawl(db, origins, net))
            figures.append((time.perf_counter() - wall, time.process_time() - cpu))
        db.close()
        return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args(argv)
    import agentdex

    print(f"agentdex from {Path(agentdex.__file__).parent}; {args.n} synthetic origins, {args.repeat} repeat(s)")
    runs = [one_run(args.n, args.concurrency) for _ in range(args.repeat)]
    for i, name in enumerate(("first crawl", "recrawl (all 304)")):
        wall = statistics.median(r[i][0] for r in runs)
        cpu = statistics.median(r[i][1] for r in runs)
        print(f"{name:<18} wall {wall:6.2f} s  cpu {cpu:6.2f} s  {args.n / wall:7.1f} origins/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

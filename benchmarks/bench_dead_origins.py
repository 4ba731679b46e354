"""What a host that never answers costs a crawl: live origins and black-holed ones crawled
together, an internet-shaped web without leaving the machine.

Run from the repository root:

    .venv/bin/python benchmarks/bench_dead_origins.py [--live 200] [--dead 20] [--concurrency 16]

The live origins are the sample web's synthetic ones (``site-00001.synthetic.test`` …, each
a valid agent-app manifest and its documents, served over TLS on loopback); the dead ones
(``dead-001.test`` …) are sent by ``--connect-to`` to a loopback port whose listening socket
never accepts and whose queue is full, so the kernel drops every SYN: a connection there
waits for the crawler's connect timeout, as one to a black-holed address of the internet
does. One crawl (no verification) into a fresh catalogue, with the crawl's own defaults
(the 5 s connect timeout, the 15 s deadline, two retries).

Printed: the crawl's wall time; for the dead origins, what each cost (the elapsed time of
its fetches added up: an origin's requests run one after another) as median and maximum,
with its requests and how they ended; and the status stored for every origin. The benchmark
fails when a dead origin is not stored ``unreachable`` or a live one is not ``listed``: it
would then not be measuring what it says.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "tests"))  # the suite's black hole
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # run from a checkout without installing (PYTHONPATH wins)

from agentdex.crawler.crawl import crawl  # noqa: E402
from agentdex.db import open_db  # noqa: E402
from agentdex.sampleweb.server import SampleWeb  # noqa: E402
from netfixtures import BlackHole  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--live", type=int, default=200, help="synthetic origins that answer")
    parser.add_argument("--dead", type=int, default=20, help="origins whose every packet is dropped")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    dead = [f"dead-{i:03d}.test" for i in range(1, args.dead + 1)]
    with SampleWeb(synthetic=args.live) as web, BlackHole() as hole, tempfile.TemporaryDirectory() as folder:
        live = [h for h in web.hosts if h.endswith(".synthetic.test")][: args.live]
        net = web.network_options(
            connect_to=[("dead-*.test", hole.address, hole.port), *web.connect_to()], concurrency=args.concurrency
        )
        db = open_db(Path(folder) / "catalogue.db")
        started = time.perf_counter()
        asyncio.run(crawl(db, live + dead, net, verify=False))
        wall = time.perf_counter() - started
        report(db, live, dead, wall, args)


def report(db, live: list[str], dead: list[str], wall: float, args: argparse.Namespace) -> None:
    """Print the figures; exit 1 when the web did not answer as meant."""
    statuses = dict(db.execute("SELECT origin, status FROM listings").fetchall())
    costs, ends, requests = [], Counter(), Counter()
    for origin in dead:
        rows = db.execute("SELECT kind, elapsed_ms, error_code FROM snapshots WHERE origin = ?", [origin]).fetchall()
        costs.append(sum(r[1] or 0 for r in rows) / 1000)
        requests[len(rows)] += 1
        ends.update(f"{r[0]}: {r[2]}" for r in rows)
    print(
        f"crawl of {len(live)} live and {len(dead)} black-holed origins, concurrency {args.concurrency}: "
        f"{wall:.1f} s wall"
    )
    print(
        f"  a dead origin cost: median {statistics.median(costs):.2f} s, max {max(costs):.2f} s "
        f"(its fetches' elapsed time added up)"
    )
    print(f"  a dead origin's stored requests: {dict(sorted(requests.items()))} (count: origins)")
    print(f"  how they ended: {dict(sorted(ends.items()))}")
    print(f"  stored: {dict(Counter(statuses.get(o) for o in live + dead))}")
    wrong = [o for o in dead if statuses.get(o) != "unreachable"] + [o for o in live if statuses.get(o) != "listed"]
    if wrong:
        sys.exit(f"not what this benchmark measures: {len(wrong)} origin(s) stored otherwise, e.g. {wrong[:3]}")


if __name__ == "__main__":
    main()

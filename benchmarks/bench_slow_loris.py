"""How long a slow-loris origin holds a crawl: an origin whose every path answers just inside
the request deadline (the hostile web's ``justintime.test``, its delay set to ``--delay``),
crawled with verification at ``--timeout`` and the default 120 s per-origin budget.

Run from the repository root:

    .venv/bin/python benchmarks/bench_slow_loris.py [--timeout 3] [--delay 2.9]

Prints the wall seconds of the crawl, the requests the origin received, and the origin's
stored status and detail. Fails when the origin answered no request (nothing was measured) or
when its delay is not inside the deadline (not the case this measures). Compare another
checkout with ``PYTHONPATH=../other-checkout``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from agentdex.crawler.crawl import crawl
from agentdex.db import get_listing, open_db
from agentdex.sampleweb.server import HOSTILE_ROOT, SampleWeb

ORIGIN = "justintime.test"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=3.0, help="the request deadline (crawl --timeout)")
    parser.add_argument("--delay", type=float, default=2.9, help="seconds the origin waits before each answer")
    args = parser.parse_args()
    if not 0 < args.delay < args.timeout:
        sys.exit("--delay must be inside --timeout: a slow loris answers just in time")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "web"
        shutil.copytree(HOSTILE_ROOT / ORIGIN, root / ORIGIN)
        site = {"comment": "every path answers --delay seconds late", "paths": {"/*": {"delay": args.delay}}}
        (root / ORIGIN / "_site.json").write_text(json.dumps(site), "utf-8")
        db = open_db(Path(folder) / "bench.db")
        with SampleWeb(root) as web:
            started = time.perf_counter()
            asyncio.run(crawl(db, [ORIGIN], web.network_options(deadline=args.timeout), verify=True))
            wall = time.perf_counter() - started
            asked = [r.path for r in web.requests_log if r.host == ORIGIN]
        row = get_listing(db, ORIGIN)
    if not asked:
        sys.exit("the origin received no request: nothing was measured")
    print(f"{ORIGIN} answering {args.delay:g} s late, --timeout {args.timeout:g}, default per-origin budget")
    print(f"  wall {wall:.1f} s ({wall / args.timeout:.1f} deadlines), {len(asked)} request(s): {', '.join(asked)}")
    print(f"  stored: {row['status']}: {row['status_detail'] or ''}")


if __name__ == "__main__":
    main()

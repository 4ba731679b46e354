"""One agentdex crawl, run in its own process by ``benchmarks/bench_crawl.py``.

    python benchmarks/crawl/agentdex_crawl.py --db DB --seeds SEEDS --port PORT --ca CA.pem \
        --concurrency 32 --result OUT.json [--revalidate] [--due] [--later SECONDS] [--verify]
        [--processes N] [--profile OUT.prof]

It crawls every origin of the seeds file through agentdex's Python API (the same
``crawl()`` the CLI calls), with ``--no-verify`` semantics unless ``--verify`` (then each
origin's claims are verified too, as ``agentdex crawl`` does by default), every
``*.synthetic.test`` connection sent to ``127.0.0.1:PORT`` while TLS still verifies the
real host name against the benchmark's CA. It writes a JSON result: the crawl phase's
wall and CPU time (``time.process_time``: user + system, every thread; with ``--processes``
the crawling processes' too) and agentdex's own counts. Interpreter start-up and imports
are outside the crawl phase; the parent measures the whole process too.

``--revalidate`` asks every document (``agentdex crawl --revalidate``); ``--due`` crawls
only the origins the schedule says are due (``agentdex crawl --due``: the due query is
inside the timed phase) instead of the seeds; ``--later SECONDS`` judges freshness and the
schedule that many seconds from now, as a crawl run that much later would.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from agentdex.crawler.crawl import NetworkOptions, crawl  # noqa: E402
from agentdex.crawler.eventloop import run as run_loop  # noqa: E402
from agentdex.crawler.freshness import Policy, iso  # noqa: E402
from agentdex.crawler.origins import read_seeds  # noqa: E402
from agentdex.db import due_origins, open_db  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_args import peak_rss_mb  # noqa: E402  (beside this script)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--seeds", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", type=Path, required=True)
    parser.add_argument("--domain", default="synthetic.test")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--per-host", type=int, default=1, help="requests in flight to one host at once")
    parser.add_argument("--processes", type=int, default=1, help="crawling processes (crawl --processes)")
    parser.add_argument("--result", type=Path, required=True)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the crawl phase here")
    parser.add_argument("--revalidate", action="store_true", help="ask every document, fresh or not")
    parser.add_argument("--due", action="store_true", help="crawl only the due origins, not the seeds")
    parser.add_argument("--later", type=float, default=0.0, help="judge freshness and the schedule this much later")
    parser.add_argument(
        "--verify", action="store_true", help="verify each origin's claims too (crawl without --no-verify)"
    )
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict:
    """Crawl once; the measured figures and agentdex's summary."""
    origins = [] if args.due else read_seeds(args.seeds)
    db = open_db(args.db)
    net = NetworkOptions(
        connect_to=[(f"*.{args.domain}", "127.0.0.1", args.port)],
        ca_bundle=args.ca,
        concurrency=args.concurrency,
        per_host=args.per_host,
    )
    now = time.time() + args.later if args.later else None
    profiler = _profiler(args.profile)
    cpu0, wall0, own0 = _cpu(), time.perf_counter(), time.process_time()
    if args.due:
        origins = due_origins(db, iso(now))
    summary = run_loop(  # the loop `agentdex crawl` runs on (uvloop where the fast extra is installed)
        crawl(
            db,
            origins,
            net,
            verify=args.verify,
            policy=Policy(revalidate=args.revalidate),
            now=now,
            processes=args.processes,
        )
    )
    wall, cpu, own = time.perf_counter() - wall0, _cpu() - cpu0, time.process_time() - own0
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(args.profile))
    db.conn.close()
    return {
        "wall": wall,
        "cpu": cpu,
        "cpu_own": own,  # this process alone (the one that saves, with --processes)
        "requests": summary.requests,
        "errors": summary.errors,
        "origins": summary.origins,
        "crawl_id": summary.crawl_id,
        "summary": summary.to_dict(),
        "peak_mb": peak_rss_mb(),
        "processes": args.processes,
        # The largest crawling process's ru_maxrss (with --processes; an upper bound: on Linux it
        # starts from the parent's mark at the fork before the exec).
        "children_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if args.processes > 1
        else None,
    }


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its crawling processes that ended
    (``--processes``: they are joined before the crawl returns)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _profiler(path: Path | None):
    if path is None:
        return None
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    return profiler


def main(argv: list[str] | None = None) -> int:
    """Entry point: crawl, write the result file."""
    args = parse_args(argv)
    result = run(args)
    args.result.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

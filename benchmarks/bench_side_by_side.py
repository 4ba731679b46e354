"""Two checkouts' crawler CPU for the same sweep of empty origins, measured at the same time.

This machine's speed moves by up to twice within an hour (docs/benchmarks.md), so a figure
measured before a change and one measured after it differ by more than most changes do. Here
both crawls run at once, each of its own checkout against a sample web of its own (the
synthetic web's empty origins, 404 to every path, over TLS on loopback), round after round:
the two share whatever state the machine is in, and the ratio of their CPU is what to read.

    python benchmarks/bench_side_by_side.py --a CHECKOUT --b CHECKOUT [--a-args "..."] [--b-args "..."]
        [--origins 2000] [--rounds 4] [--concurrency 64]

``CHECKOUT`` is a folder holding an ``agentdex`` package (a ``git worktree add`` of another
commit, or this one); ``--a-args`` / ``--b-args`` add crawl options to one side (say
``--no-pipelining``). Each round prints both sides' crawler CPU an origin (user and system time
of the ``agentdex crawl`` process, start-up included), the requests the web received and what
the catalogue says they answered, and B's CPU
as a share of A's; the last line, the median share. Both sides run at once, so each figure is
higher than one alone would be (the two share 2 cores with their servers); the share is the
figure. The benchmark fails when a crawl fails or the web answered otherwise than 404, or
asked a checkout without an ``agentdex`` package.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_side(checkout: Path, origins: int, concurrency: int, extra: list[str]) -> dict:
    """Crawl ``origins`` empty origins with ``checkout``'s agentdex (this process serves the web)."""
    sys.path.insert(0, str(checkout))
    from agentdex.sampleweb.server import SampleWeb

    with tempfile.TemporaryDirectory() as tmp, SampleWeb(synthetic=1, empty=origins) as web:
        seeds = Path(tmp) / "seeds.txt"
        seeds.write_text("\n".join(web.synthetic.empty_hosts) + "\n")
        command = [sys.executable, "-m", "agentdex", "crawl", "--db", str(Path(tmp) / "c.db"), *web.cli_args()]
        command += ["--seeds", str(seeds), "--no-verify", "-q", "--concurrency", str(concurrency), *extra]
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        env.pop("AGENTDEX_DB", None)
        # cwd: ``python -m`` puts the working folder first on the path, before PYTHONPATH.
        crawl = subprocess.Popen(command, env=env, cwd=checkout, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(crawl.pid, 0)
        requests = len(web.requests_log)
        compact, answered = stored_answers(Path(tmp) / "c.db")
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000 / origins,
        "requests": requests / origins,
        "compact": compact,
        "statuses": dict(answered),
    }


def stored_answers(path: Path) -> tuple[int, Counter]:
    """How many compact rows the catalogue holds, and what their paths answered (robots.txt too)."""
    answered: Counter = Counter()
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT a.answers, e.robots_status FROM empty_origins e JOIN answer_sets a ON a.id = e.answers"
        ).fetchall()
    for answers, robots in rows:
        answered.update(str(entry[2]) for entry in json.loads(answers))  # [kind, path, status(, target)]
        answered[str(robots)] += 1
    return len(rows), answered


def side_by_side(args: argparse.Namespace) -> list[tuple[dict, dict]]:
    """``args.rounds`` rounds, each side in its own process, the two at once."""
    rounds = []
    for _ in range(args.rounds):
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    str(checkout),
                    "--origins",
                    str(args.origins),
                    "--concurrency",
                    str(args.concurrency),
                    f"--extra={extra}",  # joined: a value starting with -- is no option of this script
                ],
                stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for checkout, extra in ((args.a, args.a_args), (args.b, args.b_args))
        ]
        printed = [proc.communicate()[0] for proc in procs]
        if any(proc.returncode != 0 for proc in procs):
            sys.exit("a side could not run (its error is above)")
        outs = [json.loads(text) for text in printed]
        for name, out in zip("AB", outs, strict=True):
            if out["exit"] != 0 or set(out["statuses"]) != {"404"} or out["compact"] != args.origins:
                sys.exit(f"not what this benchmark measures: side {name} exited {out['exit']}, web answered {out}")
        rounds.append((outs[0], outs[1]))
        a, b = outs
        print(
            f"A {a['cpu_ms']:.2f} ms ({a['requests']:.1f} requests, all 404)  "
            f"B {b['cpu_ms']:.2f} ms ({b['requests']:.1f} requests, all 404)  B/A {b['cpu_ms'] / a['cpu_ms']:.3f}",
            flush=True,
        )
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=Path, default=ROOT, help="checkout A (default: this one)")
    parser.add_argument("--b", type=Path, default=ROOT, help="checkout B (default: this one)")
    parser.add_argument("--a-args", default="", help="crawl options for A only")
    parser.add_argument("--b-args", default="", help="crawl options for B only")
    parser.add_argument("--origins", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--extra", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one_side(args.one, args.origins, args.concurrency, shlex.split(args.extra))))
        return
    for checkout in (args.a, args.b):
        if not (checkout / "agentdex" / "__init__.py").is_file():
            sys.exit(f"{checkout} holds no agentdex package")
    print(f"A: {args.a} {args.a_args}".rstrip())
    print(f"B: {args.b} {args.b_args}".rstrip())
    print(f"{args.origins} empty origins, concurrency {args.concurrency}, both sides at once, {args.rounds} rounds:")
    rounds = side_by_side(args)
    shares = [b["cpu_ms"] / a["cpu_ms"] for a, b in rounds]
    print(f"B/A, the median of {len(shares)} rounds: {statistics.median(shares):.3f} (each: "
          f"{', '.join(f'{s:.3f}' for s in shares)})")  # fmt: skip


if __name__ == "__main__":
    main()

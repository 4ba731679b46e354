"""``crawl --shard I/N`` on one machine, and a seeds file of a million lines streamed (issue 39).

Run from the repository root:

    .venv/bin/python benchmarks/bench_shards.py [--origins 10000] [--manifests 100] [--concurrency 64] [--shards 4]
    .venv/bin/python benchmarks/bench_shards.py --lines 100000 1000000 [--crawled 200]

The web is the sample web over TLS on loopback, in this process (it shares the cores with the
crawlers): ``--manifests`` synthetic origins serve a valid agent-app manifest and its
documents, every other origin (``site-1000001.synthetic.test`` …, names the synthetic web does
not serve) answers 404 to every path, as nearly all of a top-1M list does. Every crawl is the
CLI in a child process (``--no-verify``, a fresh catalogue); its CPU is its own (``wait4``),
its peak RSS its own high-water mark (``VmHWM``, read while it runs: ``ru_maxrss`` would carry
this process's, which holds the web).

Without ``--lines`` (throughput): the whole list crawled by ``--shards`` shard processes at
once (``--concurrency / --shards`` each), then by one process (``--concurrency``): wall time,
origins a second, CPU, and each process's peak RSS against issue 39's target of 150 MB a
process; each row printed as soon as its run has ended.

With ``--lines`` (streaming): seeds files of each ``--lines`` lines, every one a distinct
origin, crawled with ``--shard 0/N`` where N is ``lines / --crawled``: the crawl reads every
line (parses, normalises and hashes it) but crawls only its shard's few hundred, so a flat
peak RSS across the line counts shows that the file is streamed, never held (before issue 39
a crawl read the file whole and built a list of its origins).

Printed each time: what the web answered (the requests it received, the manifests asked, the
statuses the crawls stored) and the machine's load average. The benchmark fails when the web
did not answer as meant (an empty origin stored otherwise than ``no_manifest``, a manifest one
otherwise than ``listed``), or when the crawls did not take the origins meant (each exactly
once, by exactly one shard): it would then not be measuring what it says.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # run from a checkout without installing (PYTHONPATH wins)

from agentdex.crawler.options import shard_of  # noqa: E402
from agentdex.sampleweb.server import SampleWeb  # noqa: E402

EMPTY_BASE = 1_000_000  # synthetic names of 7 digits: the synthetic web (5 digits) serves none of them
RSS_TARGET = 150  # MB a process (issue 39)
MANIFEST = "/.well-known/agent-app.json"


def empty_hosts(n: int) -> list[str]:
    return [f"site-{EMPTY_BASE + i}.synthetic.test" for i in range(1, n + 1)]


@dataclass
class Run:
    """One child process: its wall time, CPU seconds and peak RSS (MiB), and what it printed."""

    wall: float = 0.0
    cpu: float = 0.0
    rss: float = 0.0
    out: str = ""


def agentdex(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    command = [sys.executable, "-m", "agentdex", *args]
    # cwd: ``python -m`` puts the working folder first on the path, before PYTHONPATH.
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)


def wait_all(*procs: subprocess.Popen) -> list[Run]:
    """Wait for ``procs``: each one's wall time, own CPU (``wait4``), own peak RSS (``VmHWM``)
    and standard output (read by threads, so that a full pipe never stalls a child)."""
    import threading

    started, runs = time.perf_counter(), [Run() for _ in procs]
    pipes = [(proc.stdout, proc.stderr) for proc in procs]
    read: list[list[bytes]] = [[b"", b""] for _ in procs]
    threads = [
        threading.Thread(target=lambda r=r, k=k, f=f: r.__setitem__(k, f.read()), daemon=True)
        for r, files in zip(read, pipes, strict=True)
        for k, f in enumerate(files)
    ]
    for thread in threads:
        thread.start()
    running = dict(enumerate(procs))
    while running:
        for i, proc in list(running.items()):
            runs[i].rss = max(runs[i].rss, high_water(proc.pid))
            done, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if done:
                del running[i]
                runs[i].wall, runs[i].cpu = time.perf_counter() - started, usage.ru_utime + usage.ru_stime
                proc.returncode = os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    for thread in threads:
        thread.join()
    for proc, run, (out, err) in zip(procs, runs, read, strict=True):
        if proc.returncode != 0:
            sys.exit(f"agentdex {' '.join(map(str, proc.args[3:6]))} ended with exit code {proc.returncode}:\n"
                     f"{err.decode()[-2000:]}")  # fmt: skip
        run.out = out.decode()
    return runs


def high_water(pid: int) -> float:
    """MiB: the peak resident memory of process ``pid`` so far (0 once it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found[1]) / 1024 if found else 0.0


# Each origin's status: its listing's, or no_manifest for the compact row an origin where
# discovery found nothing is (agentdex.db.empty).
STATUSES = "SELECT origin, status FROM listings UNION ALL SELECT origin, 'no_manifest' FROM empty_origins"


def statuses(*paths: Path) -> Counter:
    """The stored status of every origin of these catalogues, counted; an origin stored in two
    of them counts as ``twice`` (it was crawled by two shards)."""
    rows = []
    for path in paths:
        with sqlite3.connect(path) as conn:
            rows += conn.execute(STATUSES).fetchall()
    seen = Counter(origin for origin, _ in rows)
    return Counter("twice" if seen[origin] > 1 else status for origin, status in rows)


def load() -> str:
    return " ".join(f"{n:.1f}" for n in os.getloadavg())


def crawl_args(web: SampleWeb, db: Path, seeds: Path, concurrency: int, *more: str) -> list[str]:
    return ["crawl", "--db", str(db), *web.cli_args(), "--seeds", str(seeds), "--no-verify",
            "-q", "--json", "--concurrency", str(concurrency), *more]  # fmt: skip


@dataclass
class Answered:
    """What the web received during one run."""

    requests: int
    hosts: int
    manifests: int  # manifest requests (each origin's once, when all went as meant)

    def __str__(self) -> str:
        return f"{self.requests:,} requests from {self.hosts:,} hosts, {self.manifests:,} manifests asked"


def answered(web: SampleWeb) -> Answered:
    """What the web received since the last call (and then forgets it)."""
    log = web.requests_log.snapshot()
    web.requests_log.clear()
    return Answered(len(log), len({r.host for r in log}), sum(1 for r in log if r.path == MANIFEST))


# --- throughput: one process against shards at once ------------------------------------------------


def throughput(args) -> None:
    with SampleWeb(synthetic=args.manifests) as web, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        full, empty = list(web.synthetic.hosts), empty_hosts(args.origins - args.manifests)
        seeds = folder / "all.txt"
        seeds.write_text("\n".join(empty + full) + "\n")
        meant = Counter({"no_manifest": len(empty), "listed": len(full)})
        print(f"{args.origins:,} origins ({len(empty):,} empty, {len(full):,} with a manifest); load {load()}")
        print("| run | wall s | origins/s | CPU s | peak RSS a process (MiB) | load after |")
        print("| --- | ---: | ---: | ---: | --- | --- |", flush=True)
        share, dbs = max(1, args.concurrency // args.shards), [folder / f"shard-{i}.db" for i in range(args.shards)]
        shards = wait_all(*(agentdex(*crawl_args(web, db, seeds, share, "--shard", f"{i}/{args.shards}"))
                            for i, db in enumerate(dbs)))  # fmt: skip
        row(f"{args.shards} shards at once, concurrency {share} each", args.origins, shards)
        split = answered(web)
        [one] = wait_all(agentdex(*crawl_args(web, folder / "one.db", seeds, args.concurrency)))
        row(f"one process, concurrency {args.concurrency}", args.origins, [one])
        alone = answered(web)
        print(f"{args.shards} shards: the web answered {split}; stored {dict(statuses(*dbs))}")
        print(f"one process: the web answered {alone}; stored {dict(statuses(folder / 'one.db'))}")
        peak = max(run.rss for run in [one, *shards])
        verdict = "met" if peak * 1024 * 1024 <= RSS_TARGET * 1_000_000 else "NOT met"
        print(f"peak RSS <= {RSS_TARGET} MB a process: {verdict} (largest {peak:.0f} MiB); cores: {os.cpu_count()}")
        for run, what in ((alone, "one process"), (split, "the shards")):
            check(run.manifests == run.hosts == args.origins, f"{what} did not ask each origin's manifest once")
        check(statuses(folder / "one.db") == meant, "the one-process crawl stored other statuses than meant")
        check(statuses(*dbs) == meant, "the shards stored other statuses than meant (or one origin twice)")


def row(name: str, origins: int, runs: list[Run]) -> None:
    """One row of the table, printed as soon as its run has ended (a long run shows its first)."""
    wall, cpu, each = max(r.wall for r in runs), sum(r.cpu for r in runs), ", ".join(f"{r.rss:.0f}" for r in runs)
    print(f"| {name} | {wall:.1f} | {origins / wall:.0f} | {cpu:.1f} | {each} | {load()} |", flush=True)


# --- stream: a long seeds file, a few hundred of its origins crawled --------------------------------


def stream(args) -> None:
    with SampleWeb(synthetic=1) as web, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"seeds files streamed, about {args.crawled} origins of each crawled (--shard 0/N); load {load()}")
        print("| lines | file MB | --shard | crawled | wall s | lines/s | CPU s | peak RSS (MiB) |")
        print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        notes = [one_file(web, folder, lines, max(1, lines // args.crawled)) for lines in args.lines]
        print("\n".join(notes))
        print(f"load {load()}")


def one_file(web: SampleWeb, folder: Path, lines: int, count: int) -> str:
    """Crawl shard 0/``count`` of a file of ``lines`` origins; print its row, return what the web saw."""
    seeds, db = folder / f"seeds-{lines}.txt", folder / f"stream-{lines}.db"
    hosts = empty_hosts(lines)
    seeds.write_text("\n".join(hosts) + "\n")
    mine = sum(1 for host in hosts if shard_of(host, count) == 0)
    del hosts
    [run] = wait_all(agentdex(*crawl_args(web, db, seeds, 64, "--shard", f"0/{count}")))
    took = json.loads(run.out)["origins"]
    size = seeds.stat().st_size / 1e6
    print(f"| {lines:,} | {size:.1f} | 0/{count:,} | {took} | {run.wall:.1f} | {lines / run.wall:,.0f} | "
          f"{run.cpu:.1f} | {run.rss:.0f} |")  # fmt: skip
    web_saw = answered(web)
    check(took == mine, f"the crawl of {lines:,} lines took {took} origins, not its shard's {mine}")
    check(web_saw.manifests == web_saw.hosts == mine, "the web was not asked each origin's manifest once")
    check(statuses(db) == Counter({"no_manifest": mine}), "an origin was stored otherwise than no_manifest")
    return f"  {lines:,} lines: the web answered {web_saw}; stored {dict(statuses(db))}"


def check(holds: bool, why: str) -> None:
    if not holds:
        sys.exit(f"not what this benchmark measures: {why}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--origins", type=int, default=10_000, help="origins in the list, manifests included")
    parser.add_argument("--manifests", type=int, default=100, help="of them, origins serving a manifest")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--lines", type=int, nargs="+", help="the stream part instead: seeds files of these lengths")
    parser.add_argument("--crawled", type=int, default=200, help="about how many origins of each file are crawled")
    args = parser.parse_args()
    stream(args) if args.lines else throughput(args)


if __name__ == "__main__":
    main()

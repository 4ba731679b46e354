"""A sweep of a domain list, as most of a top-1M list is: what an empty origin (404 to every
path) and one with a manifest cost, and what ``crawl --shard I/N`` buys on this machine.

Run from the repository root:

    .venv/bin/python benchmarks/bench_sweep.py [--origins 2000] [--manifests 20] [--concurrency 64] [--shards 4]
        [--soft 500] [--profile N] [--profile-out FILE]

The web is the sample web over TLS on loopback, in this process: ``--manifests`` synthetic
origins each serve a valid agent-app manifest and its documents; the others
(``site-1000001.synthetic.test`` …, the synthetic web's empty origins) answer 404 to every
path; ``--soft`` more origins (``s-00001.soft404.test`` …, site rules of the sample web) answer
every path with the same small home page, 200 ``text/html`` (a "soft 404"), and are crawled
apart, as a third kind. Every crawl is the real CLI in a child process (``--no-verify``, a fresh
catalogue), so the crawler's CPU (user + system time of each child, from ``wait4``) and peak
RSS (each child's ``VmHWM``) are apart from the server's.

Printed, side by side with issue 39's targets: for an empty origin and for one with a
manifest (and for a soft 404), the requests the web received, the crawler's CPU and the
catalogue's bytes (its page count times page size after a checkpoint), each per origin; which
paths an empty origin and a soft 404 were asked and what the web answered each (from the
catalogue's answer sets), and the bytes of an empty origin's own row and index; with
``--profile N``, where the crawler's CPU went while it crawled N empty origins (cProfile
counting CPU time, by module; ``--profile-out`` keeps the profile for ``pstats``); then the whole list crawled
by one process and by ``--shards`` shard processes at once (``--concurrency`` split between
them) and merged (``agentdex merge``): wall time, origins a second, CPU, and the peak RSS of
the largest process. The benchmark fails when an empty origin or a soft 404 is stored
otherwise than as one compact row (``no_manifest``, :mod:`agentdex.db.empty`), a soft 404's
paths answer otherwise than 200, or a manifest origin is stored otherwise than ``listed``, or when the merged catalogue
does not hold what the one-process crawl holds: it would then not be measuring what it says.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
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

from bench_shards import high_water  # noqa: E402 - one reader of a process's peak RSS

from agentdex.sampleweb.server import SampleWeb  # noqa: E402

TARGETS = {"bytes": 500, "cpu_ms": 3.0}  # issue 39: an empty origin's catalogue bytes and crawler CPU
EMPTY = "empty (404 everywhere)"
SOFT = "soft 404 (a page everywhere)"
SOFT_DOMAIN = "soft404.test"
# A small home page: the manifests' 32 KiB cap is far above it (a page over a manifest's cap is
# refused as too large before anyone sees it is a page).
HOME_PAGE = "<!doctype html>\n<html><head><title>Welcome</title></head><body>" + "<p>Our shop.</p>" * 200
HOME_PAGE += "</body></html>\n"  # 3.3 KB
REQUESTS_BEFORE = 16  # what an empty origin was asked before the compact row (docs/benchmarks.md)


@dataclass
class Used:
    """What child processes used: CPU seconds together, and the largest one's peak RSS (MiB)."""

    cpu: float = 0.0
    rss: float = 0.0


def finish(*procs: subprocess.Popen) -> Used:
    """Wait for ``procs``: their CPU (``wait4``: each one's own) and the largest one's peak RSS.

    The peak is the kernel's high-water mark of each process's own memory (``VmHWM`` in
    ``/proc/PID/status``), read while it runs: ``ru_maxrss`` would not do, as a child spawned
    from this process inherits its high-water mark (this process holds the web).
    """
    used, running = Used(), {proc.pid: proc for proc in procs}
    while running:
        for pid, proc in list(running.items()):
            used.rss = max(used.rss, high_water(pid))
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                del running[pid]
                proc.returncode = os.waitstatus_to_exitcode(status)
                if proc.returncode != 0:
                    sys.exit(f"agentdex ({' '.join(map(str, proc.args[3:5]))}) ended with exit code {proc.returncode}")
                used.cpu += usage.ru_utime + usage.ru_stime
        time.sleep(0.05)
    return used


def agentdex(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    # cwd: ``python -m`` puts the working folder first on the path, before PYTHONPATH, so run
    # from elsewhere a child would crawl with that folder's agentdex, not this checkout's.
    return subprocess.Popen([sys.executable, "-m", "agentdex", *args], env=env, stdout=subprocess.DEVNULL, cwd=ROOT)


def run(*args: str) -> Used:
    return finish(agentdex(*args))


def catalogue_bytes(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return conn.execute("PRAGMA page_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]


def statuses(path: Path) -> dict[str, str]:
    """Each origin's status; an empty origin's compact row as ``compact``."""
    with sqlite3.connect(path) as conn:
        return dict(
            conn.execute("SELECT origin, status FROM listings UNION ALL SELECT origin, 'compact' FROM empty_origins")
        )


def answered(path: Path) -> Counter:
    """What the empty origins' paths answered: ``{(path, status): origins}``, robots.txt too."""
    out: Counter = Counter()
    with sqlite3.connect(path) as conn:
        sql = "SELECT a.answers, e.robots_status FROM empty_origins e JOIN answer_sets a ON a.id = e.answers"
        for answers, robots in conn.execute(sql):
            out.update((entry[1], entry[2]) for entry in json.loads(answers))  # [kind, path, status(, target)]
            out[("/robots.txt", robots)] += 1
    return out


def per_origin(web: SampleWeb, folder: Path, name: str, hosts: list[str], args) -> dict:
    """Crawl ``hosts`` alone into a fresh catalogue: requests, CPU and bytes per origin."""
    seeds, db = folder / f"{name}.txt", folder / f"{name}.db"
    seeds.write_text("\n".join(hosts) + "\n")
    web.requests_log.clear()
    used = run("crawl", "--db", str(db), *web.cli_args(), "--seeds", str(seeds), "--no-verify", "-q",
        "--concurrency", str(args.concurrency))  # fmt: skip
    n = len(hosts)
    return {
        "requests": len(web.requests_log) / n,
        "cpu_ms": used.cpu * 1000 / n,
        "bytes": catalogue_bytes(db) / n,
        "stored": Counter(statuses(db).values()),
        "answered": answered(db),
        "row_bytes": empty_row_bytes(db) / n,
    }


def startup_cpu(web: SampleWeb, folder: Path, args) -> float:
    """The CPU seconds of the same crawl command given no origin (a seeds file with none): the
    start-up a run pays once (imports, a new catalogue, the TLS context), whatever its size."""
    seeds, db = folder / "none.txt", folder / "none.db"
    seeds.write_text("")
    return run("crawl", "--db", str(db), *web.cli_args(), "--seeds", str(seeds), "--no-verify", "-q",
        "--concurrency", str(args.concurrency)).cpu  # fmt: skip


def empty_row_bytes(path: Path) -> int:
    """The pages of the empty origins' rows and their index (SQLite's dbstat), 0 without it."""
    with sqlite3.connect(path) as conn:
        try:
            tables = "'empty_origins', 'empty_origins_next_due_at'"
            return conn.execute(f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ({tables})").fetchone()[0]
        except sqlite3.OperationalError:  # an SQLite built without dbstat
            return 0


# Runs agentdex under cProfile counting CPU time (python -m cProfile counts wall time).
PROFILED = """import cProfile, runpy, sys, time
out, sys.argv = sys.argv[1], ["agentdex", *sys.argv[2:]]
profile = cProfile.Profile(time.process_time)
profile.enable()
try:
    runpy.run_module("agentdex", run_name="__main__")
except SystemExit:
    pass
profile.disable()
profile.dump_stats(out)
"""


def soft_sites(root: Path, n: int) -> list[str]:
    """``n`` hosts under ``root`` (the sample web's layout) answering every path with
    :data:`HOME_PAGE`, 200 ``text/html``."""
    hosts = [f"s-{i:05d}.{SOFT_DOMAIN}" for i in range(1, n + 1)]
    rules = json.dumps({"paths": {"/*": {"status": 200, "content_type": "text/html", "body": HOME_PAGE}}})
    for host in hosts:
        (root / host).mkdir(parents=True)
        (root / host / "_site.json").write_text(rules)
    return hosts


def profile_empty(web: SampleWeb, folder: Path, hosts: list[str], out: Path) -> list[tuple[str, float]]:
    """Crawl ``hosts`` under cProfile: the share of the crawler's CPU each area took (an
    agentdex module, an installed package, Python's own modules, C functions), largest first."""
    seeds = folder / "profiled.txt"
    seeds.write_text("\n".join(hosts) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("AGENTDEX_DB", None)
    crawl = ["crawl", "--db", str(folder / "profiled.db"), *web.cli_args(), "--seeds", str(seeds)]
    command = [sys.executable, "-c", PROFILED, str(out), *crawl, "--no-verify", "-q", "--concurrency", "64"]
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    areas: Counter = Counter()
    for (file, _line, _name), (_cc, _nc, own, _cum, _callers) in pstats.Stats(str(out)).stats.items():  # type: ignore[attr-defined]
        areas[_area(file)] += own
    total = sum(areas.values()) or 1.0
    return [(area, own / total) for area, own in areas.most_common(12)]


def _area(file: str) -> str:
    if "site-packages/" in file:
        return file.split("site-packages/")[1].split("/")[0]
    if f"{ROOT.name}/agentdex/" in file or "/agentdex/" in file:
        return "agentdex/" + file.split("/agentdex/")[-1]
    return "C functions" if file == "~" else "Python's own modules"


def sweep(web: SampleWeb, folder: Path, seeds: Path, args) -> dict:
    """The whole list by one process, then by ``args.shards`` shards at once and merged."""
    started = time.perf_counter()
    one = run("crawl", "--db", str(folder / "one.db"), *web.cli_args(), "--seeds", str(seeds), "--no-verify", "-q",
              "--concurrency", str(args.concurrency))  # fmt: skip
    one_wall = time.perf_counter() - started
    share = str(max(1, args.concurrency // args.shards))
    started = time.perf_counter()
    procs = [
        agentdex(
            "crawl",
            "--db",
            str(folder / f"shard-{i}.db"),
            *web.cli_args(),
            "--seeds",
            str(seeds),
            "--no-verify",
            "-q",
            "--concurrency",
            share,
            "--shard",
            f"{i}/{args.shards}",
        )  # fmt: skip
        for i in range(args.shards)
    ]
    shards = finish(*procs)
    crawled = time.perf_counter() - started
    merge = run("merge", str(folder / "all.db"), *(str(folder / f"shard-{i}.db") for i in range(args.shards)))
    return {
        "one": (one_wall, one),
        "shards": (crawled, shards),
        "merge": (time.perf_counter() - started - crawled, merge),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--origins", type=int, default=2000, help="origins in the list, manifests included")
    parser.add_argument("--manifests", type=int, default=20, help="of them, origins serving a manifest")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--soft", type=int, default=500, help="soft-404 origins crawled apart (a page everywhere)")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="also crawl N empty origins under cProfile (CPU time)"
    )
    parser.add_argument("--profile-out", type=Path, help="keep that profile in this file (for pstats)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        soft = soft_sites(folder / "web", args.soft)
        with SampleWeb(folder / "web", synthetic=args.manifests, empty=args.origins - args.manifests) as web:
            measure(web, folder, soft, args)


def measure(web: SampleWeb, folder: Path, soft: list[str], args) -> None:
    """Crawl each kind apart, profile, sweep, and report."""
    full, empty = list(web.synthetic.hosts), web.synthetic.empty_hosts
    kinds = {
        EMPTY: per_origin(web, folder, "empty", empty, args),
        "with a manifest": per_origin(web, folder, "full", full, args),
    }
    if soft:
        kinds[SOFT] = per_origin(web, folder, "soft", soft, args)
    kinds[EMPTY]["startup_cpu"] = startup_cpu(web, folder, args)
    out = args.profile_out or folder / "crawl.prof"
    profiled = profile_empty(web, folder, empty[: args.profile], out) if args.profile else []
    seeds = folder / "all.txt"
    seeds.write_text("\n".join(empty + full) + "\n")
    times = sweep(web, folder, seeds, args)
    report(kinds, times, folder, args, len(empty), len(full))
    if profiled:
        print(f"where the crawler's CPU went, {args.profile} empty origins under cProfile (CPU time):")
        for area, share in profiled:
            print(f"  {share:6.1%}  {area}")
        if args.profile_out:
            print(f"  the profile: {args.profile_out} (pstats)")


def report(kinds: dict, times: dict, folder: Path, args, empty: int, full: int) -> None:
    """Print the figures; exit 1 when the web did not answer as meant."""
    print(f"sweep of {empty + full} origins ({empty} empty, {full} with a manifest), concurrency {args.concurrency}:")
    print("| per origin | requests | crawler CPU | catalogue bytes |")
    print("| --- | ---: | ---: | ---: |")
    for name, k in kinds.items():
        print(f"| {name} | {k['requests']:.1f} | {k['cpu_ms']:.1f} ms | {k['bytes']:,.0f} |")
    target = kinds[EMPTY]
    met = {key: "met" if target[key] <= limit else "NOT met" for key, limit in TARGETS.items()}
    print(
        f"| issue 39's target, empty | {REQUESTS_BEFORE:.0f} or fewer | <= {TARGETS['cpu_ms']} ms ({met['cpu_ms']}) "
        f"| <= {TARGETS['bytes']} ({met['bytes']}) |"
    )
    start, n_empty = target["startup_cpu"], empty
    beyond = (target["cpu_ms"] * n_empty / 1000 - start) * 1000 / n_empty
    print(
        f"  of an empty origin's {target['cpu_ms']:.2f} ms, the run's start-up (the same command given no origin: "
        f"{start:.2f} CPU s) is {start * 1000 / n_empty:.2f} ms; each empty origin beyond it: {beyond:.2f} ms"
    )
    stored = ", ".join(f"{name}: {dict(k['stored'])}" for name, k in kinds.items())
    print(f"  stored: {stored}; an empty origin's row and its index: {target['row_bytes']:.0f} bytes")
    for name in (EMPTY, SOFT) if SOFT in kinds else (EMPTY,):
        print(f"  {name}: asked, and the web answered (origins):")
        for (path, status), n in sorted(kinds[name]["answered"].items()):
            print(f"    {path:<36} {status}  x{n}")
    n = empty + full
    (one_wall, one), (crawled, shards), (merging, merge) = times["one"], times["shards"], times["merge"]
    print(
        f"one process: {one_wall:.1f} s wall, {n / one_wall:.0f} origins/s, {one.cpu:.1f} CPU s, "
        f"peak RSS {one.rss:.0f} MiB"
    )
    print(
        f"{args.shards} shards at once: {crawled:.1f} s wall, {n / crawled:.0f} origins/s, {shards.cpu:.1f} CPU s, "
        f"peak RSS of the largest {shards.rss:.0f} MiB; then the merge: {merging:.1f} s, {merge.cpu:.1f} CPU s, "
        f"peak RSS {merge.rss:.0f} MiB; together {n / (crawled + merging):.0f} origins/s (cores: {os.cpu_count()})"
    )
    wrong = dict(target["stored"]) != {"compact": empty} or dict(kinds["with a manifest"]["stored"]) != {"listed": full}
    if SOFT in kinds:
        soft = kinds[SOFT]
        wrong = wrong or dict(soft["stored"]) != {"compact": args.soft}
        if {status for (path, status) in soft["answered"] if path != "/robots.txt"} != {200}:
            sys.exit("not what this benchmark measures: a soft 404's paths answered otherwise than 200 (see above)")
    if wrong:
        sys.exit("not what this benchmark measures: an origin was stored otherwise than meant (see stored:)")
    if statuses(folder / "one.db") != statuses(folder / "all.db"):
        sys.exit("not what this benchmark measures: the merged shards hold other listings than the one-process crawl")


if __name__ == "__main__":
    main()

"""Crawl benchmark: agentdex against a synthetic web served by nginx over TLS, beside a
minimal httpx fetcher, a Scrapy spider and (with ``--aiohttp``) a minimal aiohttp fetcher
fetching exactly the same URLs.

Run from the repository root:

    .venv/bin/python benchmarks/bench_crawl.py [--n 1000 10000] [--concurrency 32] [--per-host 1] [--processes 2]
        [--repeat R] [--skip-httpx] [--skip-scrapy | --scrapy PYTHON] [--scrapy-no-verify-tls] [--aiohttp PYTHON]
        [--fetch-path] [--nginx-workers 1]
        [--max-age 3600] [--changed-every 100] [--later 3900] [--cap-httpx S] [--cap-scrapy S]
        [--profile] [--json FILE] [--verify] [--recrawls 10] [--first-only]

Needs nginx (``apt-get install nginx-light``) and, unless ``--skip-scrapy``, Scrapy in a
virtualenv of its own (``python3 -m venv /tmp/scrapy-venv && /tmp/scrapy-venv/bin/pip install
scrapy``, then ``--scrapy /tmp/scrapy-venv/bin/python``); with ``--aiohttp PYTHON``, aiohttp
in that interpreter (``python3 -m venv /tmp/aiohttp-venv && /tmp/aiohttp-venv/bin/pip install
'aiohttp>=3.9,<4'``); all are benchmark-only tools, not agentdex dependencies. Everything it
writes goes under ``benchmarks/out/`` (gitignored): the synthetic tree of each N
(``write_synthetic_tree``, reused by later runs), a trustme CA with a ``*.synthetic.test``
certificate, the nginx prefix (configuration from
``benchmarks/crawl/nginx.conf.template``, logs, pid) and each run's database and URL list.

For each N, with one nginx (``nginx -p PREFIX -c CONF``, listening on a free port of
127.0.0.1, stopped at the end) serving the tree with ``Cache-Control: max-age=3600`` on
every answer (``--max-age``; 304s and 404s included):

1. agentdex crawls the N origins (``benchmarks/crawl/agentdex_crawl.py``: the Python API's
   ``crawl()`` with verification off unless ``--verify``, ``--connect-to
   '*.synthetic.test:127.0.0.1:PORT'`` and ``--ca-bundle`` semantics) into a fresh database:
   the first crawl; every file of the synthetic web it asked must have answered 200 (the
   benchmark stops otherwise);
   then, on a copy of that database, ``--recrawls`` recrawls of the unchanged web, each
   judged ``--max-age`` + 2 minutes after the one before (every answer stale, so every
   document is asked conditionally): the database's size after each (issue 19: at most
   1 KB an origin a recrawl, at most 1.1 times the first crawl's size after ten);
2. the URLs it fetched (its ``snapshots`` rows, plus each origin's robots.txt, which the
   fetch policy requests before the first document robots.txt governs) become the URL list;
3. 1% of the origins change (``--changed-every 100``: their one-liner, instructions and
   guide are rewritten in the tree), and agentdex recrawls everything with
   ``--revalidate`` (every document asked, fresh or not): the full revalidating recrawl;
4. agentdex recrawls at once without ``--revalidate``: every stored answer is still fresh,
   so nothing should be asked (nginx's counters say how many requests it served);
5. the same 1% change again (back to their first bytes, new ETags), and agentdex runs
   ``crawl --due`` as if 65 minutes had passed (``--later``: the schedule and freshness are
   judged then): only the origins that changed in step 3 are due (an hour after a change;
   two after an unchanged crawl), and their events must be found;
6. the minimal httpx fetcher (``benchmarks/crawl/httpx_fetch.py``) fetches the URL list;
7. the Scrapy spider (``benchmarks/crawl/scrapy_fetch.py``) fetches the URL list;
8. with ``--aiohttp PYTHON``, the minimal aiohttp fetcher (``benchmarks/crawl/aiohttp_fetch.py``:
   an HTTP client that parses in C, the floor a change of client could reach) fetches it;
9. with ``--fetch-path``, agentdex's fetch path alone (``benchmarks/crawl/agentdex_fetch.py``:
   its Fetcher as a crawl configures it, nothing parsed or saved) fetches it, and the first
   crawl's CPU is split into fetching and the rest (parsing, verifying, saving).
``--cap-httpx``/``--cap-scrapy`` stop a fetcher after that many seconds and report what it
fetched by then (Scrapy's default scheduler stalls at 100,000 domains).

Every crawler runs in its own process with the same concurrency (``--concurrency``
requests in flight, at most ``--per-host`` per host: 1, agentdex's default). Figures (see docs/benchmarks.md for more):

- wall: the crawl phase, timed inside the child (interpreter start-up and imports excluded);
- CPU ms/req: the crawl phase's CPU time (``time.process_time``: user + system, all
  threads) divided by the requests sent; "proc" is the whole child process
  (``os.wait4`` rusage: user + system, start-up included);
- peak MB: the child's own peak resident set (VmHWM from ``/proc/self/status``; not
  ``ru_maxrss``, which on Linux keeps the high-water mark of the parent it was forked from);
  with ``--processes N`` (agentdex's ``crawl --processes``: this process and N - 1 others)
  it adds N - 1 times the largest other process's ``ru_maxrss`` (an upper bound on every
  process together), and the CPU
  figures include the crawling processes' CPU; for every run, ``crawl/treemem.py`` also
  samples the summed RSS and PSS of the child and every process below it every 0.1 s, and
  the figure is the larger of that sampled RSS and the bound;
- requests: what the crawler says it sent; nginx's own request and connection counters
  (``stub_status``) are printed beside it as a check;
- each recrawl's wall time over the first crawl's; the origins each recrawl recorded
  events for against the origins that changed; how each run got its answers (fetched,
  revalidated, fresh, known_absent) and the database's size after it;
- issue 19's targets side by side, each marked met or MISS.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
HELPERS = ROOT / "benchmarks" / "crawl"
FETCH_PATH = "fetch path (agentdex)"  # not "agentdex…": the runs named so are the crawls
DOMAIN = "synthetic.test"
EXEMPT = {"/.well-known/agent-app.json", "/.well-known/anchor.json", "/robots.txt"}
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from agentdex.sampleweb.synthetic import FILES, SyntheticWeb, host_name, site_files, write_synthetic_tree  # noqa: E402

sys.path.insert(0, str(HELPERS))
from treemem import TreeMemory, tree  # noqa: E402

INSTALL_HELP = {
    "nginx": "nginx is missing: install it with `apt-get install -y nginx-light` (or nginx).",
    "scrapy": (
        "Scrapy is missing: install it in a virtualenv of its own (`python3 -m venv /tmp/scrapy-venv &&"
        " /tmp/scrapy-venv/bin/pip install scrapy`) and pass --scrapy /tmp/scrapy-venv/bin/python,"
        " or pass --skip-scrapy."
    ),
    "aiohttp": (
        "aiohttp is missing from the --aiohttp interpreter: install it in a virtualenv of its own"
        " (`python3 -m venv /tmp/aiohttp-venv && /tmp/aiohttp-venv/bin/pip install 'aiohttp>=3.9,<4'`)"
        " and pass --aiohttp /tmp/aiohttp-venv/bin/python, or leave --aiohttp out."
    ),
    "trustme": "trustme is missing: `.venv/bin/pip install -e '.[test]'`.",
}


# --- tools, tree, certificates ------------------------------------------------------------


def missing_tools(scrapy_python: str | None, aiohttp_python: str | None = None) -> list[str]:
    """Install hints for every tool the benchmark needs and cannot find (``scrapy_python``
    and ``aiohttp_python``: the interpreters that run the Scrapy spider and the aiohttp
    fetcher, None for one that does not run)."""
    missing = [] if shutil.which("nginx") or Path("/usr/sbin/nginx").exists() else ["nginx"]
    if scrapy_python is not None and not can_import(scrapy_python, "scrapy"):
        missing.append("scrapy")
    if aiohttp_python is not None and not can_import(aiohttp_python, "aiohttp"):
        missing.append("aiohttp")
    if importlib.util.find_spec("trustme") is None:
        missing.append("trustme")
    return [INSTALL_HELP[name] for name in missing]


def can_import(interpreter: str, module: str) -> bool:
    """Whether ``interpreter`` can import ``module`` (it may be another virtualenv's: Scrapy
    and aiohttp are no dependencies of agentdex, not even test ones)."""
    try:
        return subprocess.run([interpreter, "-c", f"import {module}"], capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def nginx_binary() -> str:
    """The nginx executable (Debian puts it in /usr/sbin, not always on PATH)."""
    return shutil.which("nginx") or "/usr/sbin/nginx"


def ensure_tree(n: int) -> Path:
    """The synthetic tree of ``n`` origins, written once and reused (a marker says complete)."""
    tree = OUT / f"tree-{n}"
    marker = tree / ".complete"
    if marker.exists():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    started = time.perf_counter()
    print(f"writing the synthetic tree of {n:,} origins to {tree.relative_to(ROOT)} …", flush=True)
    write_synthetic_tree(tree, n, DOMAIN)
    marker.write_text("", encoding="utf-8")
    print(f"  done in {time.perf_counter() - started:.0f} s", flush=True)
    return tree


def ensure_certs() -> tuple[Path, Path, Path]:
    """(CA PEM, certificate chain PEM, key PEM) for ``*.synthetic.test``, made once."""
    folder = OUT / "certs"
    ca_pem, cert_pem, key_pem = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    if not all(p.exists() for p in (ca_pem, cert_pem, key_pem)):
        import trustme

        folder.mkdir(parents=True, exist_ok=True)
        ca = trustme.CA(organization_name="agentdex crawl benchmark")
        cert = ca.issue_cert(f"*.{DOMAIN}", DOMAIN)
        ca.cert_pem.write_to_path(str(ca_pem))
        cert.cert_chain_pems[0].write_to_path(str(cert_pem))
        for extra in cert.cert_chain_pems[1:]:
            extra.write_to_path(str(cert_pem), append=True)
        cert.private_key_pem.write_to_path(str(key_pem))
    return ca_pem, cert_pem, key_pem


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- nginx ----------------------------------------------------------------------------------


class Nginx:
    """nginx serving one tree from its own prefix (no system configuration touched)."""

    def __init__(self, tree: Path, certs: tuple[Path, Path, Path], workers: int, max_age: int = 0) -> None:
        self.prefix = OUT / f"nginx-{tree.name}"
        self.port, self.status_port = free_port(), free_port()
        self.tree, self.certs, self.workers = tree, certs, workers
        self.cache_header = f'add_header Cache-Control "max-age={max_age}" always;' if max_age else ""
        self.process: subprocess.Popen | None = None

    def write_config(self) -> Path:
        """Fill the template into ``PREFIX/nginx.conf``."""
        for sub in ("tmp", "logs"):
            (self.prefix / sub).mkdir(parents=True, exist_ok=True)
        values = {
            "prefix": self.prefix,
            "tree": self.tree.resolve(),
            "port": self.port,
            "status_port": self.status_port,
            "cert": self.certs[1],
            "key": self.certs[2],
            "workers": self.workers,
            "domain": DOMAIN,
            "cache_header": self.cache_header,
        }
        text = (HELPERS / "nginx.conf.template").read_text("utf-8")
        for name, value in values.items():
            text = text.replace("{{" + name + "}}", str(value))
        conf = self.prefix / "nginx.conf"
        conf.write_text(text, encoding="utf-8")
        return conf

    def __enter__(self) -> Nginx:
        conf = self.write_config()
        cmd = [nginx_binary(), "-p", str(self.prefix), "-c", str(conf), "-e", str(self.prefix / "error.log")]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"nginx did not start: {self.process.stderr.read().decode(errors='replace')}")
            try:
                self.counters()
                return self
            except OSError:
                time.sleep(0.05)
        self.__exit__()
        raise SystemExit("nginx did not answer within 10 s")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: fast shutdown of master and workers
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def counters(self) -> dict[str, int]:
        """nginx's accepted connections and handled requests so far (the status request excluded)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.status_port}/status", timeout=5) as answer:
            lines = answer.read().decode().splitlines()
        accepts, _handled, requests = (int(x) for x in lines[2].split())
        return {"connections": accepts, "requests": requests - 1}

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) nginx's master and its live workers have used so far,
        from ``/proc``: the server shares the crawler's cores, so its CPU bounds the crawl's wall."""
        if self.process is None:
            return 0.0
        return sum(_proc_cpu(pid) for pid in tree(self.process.pid))


def _proc_cpu(pid: int) -> float:
    """utime + stime of ``pid`` in seconds (0 for a process that is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # fields 14 and 15 of stat


# --- running one crawler ----------------------------------------------------------------------


@dataclass
class Run:
    """What one crawler process did and cost."""

    name: str
    wall: float  # crawl phase, seconds
    cpu: float  # crawl phase, seconds (user + system)
    process_wall: float
    process_cpu: float  # whole process (os.wait4 rusage)
    peak_mb: float
    requests: int
    served: dict[str, int] = field(default_factory=dict)  # nginx's counters over the run
    result: dict = field(default_factory=dict)

    def per_request_ms(self, cpu: float) -> float:
        """CPU milliseconds per request."""
        return 1000 * cpu / max(1, self.requests)


def run_child(name: str, cmd: list[str], result: Path, nginx: Nginx, log: Path) -> Run:
    """Run ``cmd`` in its own process; its measured figures (exits on failure)."""
    result.unlink(missing_ok=True)
    before, nginx_before = nginx.counters(), nginx.cpu_seconds()
    own_before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen([*cmd, "--result", str(result)], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            with TreeMemory(process.pid) as memory:
                _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # interrupted: the child goes too
            process.terminate()
            process.wait()
            raise
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode != 0 or not result.exists():
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{name} failed (exit {process.returncode}); log {log}:\n{tail}")
    after, nginx_cpu = nginx.counters(), nginx.cpu_seconds() - nginx_before
    data = json.loads(result.read_text("utf-8"))
    data["nginx_cpu"] = nginx_cpu
    own = resource.getrusage(resource.RUSAGE_SELF)  # this benchmark's own CPU (its memory sampler)
    data["bench_cpu"] = own.ru_utime + own.ru_stime - own_before.ru_utime - own_before.ru_stime
    data["load_average"] = os.getloadavg()[0]
    data.update(memory.figures())
    # The first counters() call is itself one request on one connection: not the crawler's.
    # Peak memory as the child measured it (VmHWM): ru_maxrss would carry this process's own
    # high-water mark (forked, then exec'd), hundreds of MB once the 100,000-origin URL list is read.
    peak = data.get("peak_mb") or usage.ru_maxrss / 1024
    if data.get("children_peak_mb"):  # --processes: every process together, at most (each child
        # counted at the largest one's peak)
        peak += (data["processes"] - 1) * data["children_peak_mb"]
    peak = max(peak, data["tree_peak_rss_mb"])  # whichever is larger: the sampled sum or that bound
    return Run(
        name,
        data["wall"],
        data["cpu"],
        wall,
        usage.ru_utime + usage.ru_stime,
        peak,
        data["requests"],
        {k: after[k] - before[k] - 1 for k in after},
        data,
    )


def python() -> str:
    """The interpreter running this script (the project's virtualenv)."""
    return sys.executable


# --- the database -----------------------------------------------------------------------------


def blob_bytes(db: Path) -> int:
    """``sum(size_bytes)`` of the blobs table: the body bytes stored."""
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT coalesce(sum(size_bytes), 0) FROM blobs").fetchone()[0])


def file_bytes(db: Path) -> int:
    """The database's size on disk after a full checkpoint (the WAL folded in and emptied),
    so the figure counts pages written, not a write-ahead log waiting to be reused."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())


def crawl_urls(db: Path, crawl_id: int) -> list[str]:
    """Every URL one agentdex crawl requested, in its order, robots.txt included.

    Snapshots hold the documents; robots.txt is fetched by the fetch policy once per origin
    before the first URL it governs, so it is put there.
    """
    with sqlite3.connect(db) as conn:
        rows = [
            r[0] for r in conn.execute("SELECT url FROM snapshots WHERE crawl_id = ? ORDER BY origin, id", [crawl_id])
        ]
    urls, robots_done, fetched = [], set(), set(rows)
    for url in rows:
        parts = urlsplit(url)
        if parts.path not in EXEMPT and parts.netloc not in robots_done:
            robots_done.add(parts.netloc)
            robots = f"https://{parts.netloc}/robots.txt"
            if robots not in fetched:
                urls.append(robots)
        urls.append(url)
    return urls


def snapshot_statuses(db: Path, crawl_id: int) -> dict[str, int]:
    """Status codes of the answers one crawl got (304s under ``304``), read right after it:
    a later run that gets the same answer extends the row (``last_crawl_id``)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT CASE WHEN last_obtained = 'revalidated' THEN 304 ELSE status_code END, count(*) "
            "FROM snapshots WHERE last_crawl_id = ? GROUP BY 1",
            [crawl_id],
        ).fetchall()
    return {str(status): count for status, count in rows}


def check_web(db: Path, crawl_id: int, n: int) -> None:
    """The synthetic web answered as it should in the first crawl: every file it serves that
    agentdex asked for answered 200 (discovery paths it has no file for answered 404)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT url, status_code FROM snapshots WHERE crawl_id = ?", [crawl_id]).fetchall()
    served = [(url, status) for url, status in rows if urlsplit(url).path in FILES]
    wrong = [(url, status) for url, status in served if status != 200]
    origins = {urlsplit(url).netloc for url, status in served if status == 200}
    if wrong or len(origins) != n:
        raise SystemExit(
            f"the synthetic web did not answer 200 where it should: {len(wrong)} wrong answers "
            f"(e.g. {wrong[:3]}), {len(origins):,} of {n:,} origins answered"
        )
    print(f"  the web answered 200 for all {len(served):,} files asked, on all {n:,} origins", flush=True)


# --- changing the web ------------------------------------------------------------------------


def changed_hosts(n: int, every: int) -> list[str]:
    """The origins the benchmark changes: every ``every``-th (1% with the default 100)."""
    web = SyntheticWeb(n, DOMAIN)
    return [host_name(i, DOMAIN, web.width) for i in range(every, n + 1, every)]


def change_web(tree: Path, n: int, every: int, *, to_v2: bool) -> list[str]:
    """Rewrite the changed origins' files in the tree: their v2 one-liner, instructions and
    guide (``to_v2``), or back to the base bytes. Either way each rewritten file gets a new
    mtime, so nginx gives it a new ETag. The tree's completion marker is removed while it
    differs from what ``write_synthetic_tree`` wrote."""
    marker = tree / ".complete"
    marker.unlink(missing_ok=True)
    hosts = changed_hosts(n, every)
    for host in hosts:
        index = int(host.split(".", 1)[0].rsplit("-", 1)[1])
        base, changed = site_files(index, host, False), site_files(index, host, True)
        for url_path in (p for p in base if base[p] != changed[p]):
            (tree / host / FILES[url_path][0]).write_bytes(changed[url_path] if to_v2 else base[url_path])
    if not to_v2:
        marker.write_text("", encoding="utf-8")
    return hosts


def event_origins(db: Path, crawl_id: int) -> set[str]:
    """The origins one crawl recorded change events for."""
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT origin FROM events WHERE crawl_id = ?", [crawl_id])}


def obtained_counts(db: Path, crawl_id: int) -> dict[str, int]:
    """How one crawl got its answers (fetched, revalidated, fresh, known_absent), read right after it."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT last_obtained, count(*) FROM snapshots WHERE last_crawl_id = ? GROUP BY 1", [crawl_id]
        )
        return {str(k): v for k, v in rows}


# --- one N -------------------------------------------------------------------------------------

AGENTDEX_RUNS = {  # name: (extra arguments, label)
    "agentdex": ([], "first crawl"),
    "agentdex --revalidate": (["--revalidate"], "full revalidating recrawl (1% of origins changed)"),
    "agentdex (max-age)": ([], "recrawl while every stored answer is fresh (max-age=3600)"),
    "agentdex --due": (["--due"], "crawl --due 65 minutes later (the same 1% changed again)"),
}


def bench(n: int, args: argparse.Namespace, certs: tuple[Path, Path, Path]) -> dict:
    """Every run for ``n`` origins (``--repeat`` rounds, the fastest run of each crawler
    kept); the figures as plain data."""
    tree = ensure_tree(n)
    work = OUT / f"run-{n}"
    work.mkdir(parents=True, exist_ok=True)
    with Nginx(tree, certs, args.nginx_workers, args.max_age) as nginx:
        rounds = [one_round(n, args, tree, work, nginx, certs[0], r) for r in range(args.repeat)]
    best = {name: min((rnd["runs"][name] for rnd in rounds), key=lambda run: run.wall) for name in rounds[0]["runs"]}
    last = rounds[-1]
    return {
        "n": n,
        "urls": last["urls"],
        "repeat": args.repeat,
        "runs": [asdict(r) for r in best.values()],
        "all_runs": [[asdict(r) for r in rnd["runs"].values()] for rnd in rounds],
        "statuses": last["statuses"],
        "changes": last["changes"],
        "bytes": last["bytes"],
        "sizes": last["sizes"],
        "storage": last["storage"],
    }


def one_round(n: int, args: argparse.Namespace, tree: Path, work: Path, nginx: Nginx, ca: Path, number: int) -> dict:
    """agentdex into a fresh database and its three recrawls, then the fetchers on its URL list."""
    db = work / "agentdex.db"
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.unlink(missing_ok=True)
    label = f"[N={n:,}{f', round {number + 1}/{args.repeat}' if args.repeat > 1 else ''}]"
    common = ["--port", str(nginx.port), "--ca", str(ca), "--concurrency", str(args.concurrency)]
    common += ["--per-host", str(args.per_host)]
    base_cmd = [
        python(),
        str(HELPERS / "agentdex_crawl.py"),
        "--db",
        str(db),
        "--seeds",
        str(tree / "seeds.txt"),
        *common,
        *(["--verify"] if args.verify else []),
        *(["--processes", str(args.processes)] if args.processes > 1 else []),
    ]
    runs: dict[str, Run] = {}

    statuses: dict[str, dict] = {}
    sizes: dict[str, int] = {}

    def agentdex(name: str, *extra: str) -> Run:
        slug = name.replace(" ", "").replace("-", "").replace("(", "").replace(")", "")
        print(f"{label} {name}: {AGENTDEX_RUNS[name][1]} …", flush=True)
        runs[name] = run_child(
            name,
            [*base_cmd, *AGENTDEX_RUNS[name][0], *extra, *_profile_args(args, work, slug)],
            work / f"{slug}.json",
            nginx,
            work / f"{slug}.log",
        )
        crawl_id = runs[name].result["crawl_id"]
        statuses[name] = {**snapshot_statuses(db, crawl_id), **obtained_counts(db, crawl_id)}
        sizes[name] = file_bytes(db)
        _report_so_far(label, runs)
        return runs[name]

    first = agentdex("agentdex")
    blobs_first, size_first = blob_bytes(db), file_bytes(db)
    check_web(db, first.result["crawl_id"], n)
    storage = _storage_series(label, args, db, work, base_cmd, nginx, n) if args.recrawls else {}
    urls = crawl_urls(db, first.result["crawl_id"])
    (work / "urls.txt").write_text("".join(u + "\n" for u in urls), encoding="utf-8")
    changes = {} if args.first_only else _recrawls(tree, n, args, db, agentdex)
    _run_fetchers(label, args, work, common, nginx, runs, len(urls))
    agentdex_runs = {name: r for name, r in runs.items() if name.startswith("agentdex")}
    return {
        "urls": len(urls),
        "runs": runs,
        "sizes": sizes,
        "storage": storage,
        "statuses": {
            **statuses,
            **{name: r.result.get("statuses", {}) for name, r in runs.items() if name not in agentdex_runs},
        },
        "changes": changes,
        "bytes": {
            "blob_bytes_first": blobs_first,
            "db_bytes_first": size_first,
            "blob_bytes_after": blob_bytes(db),
            "db_bytes_after": file_bytes(db),
        },
    }


def _recrawls(tree: Path, n: int, args: argparse.Namespace, db: Path, agentdex) -> dict:
    """The three recrawls after the first crawl (1% of the origins changed), and what each
    found against what changed."""
    changed = set(change_web(tree, n, args.changed_every, to_v2=True))
    try:
        revalidated = agentdex("agentdex --revalidate")
        fresh = agentdex("agentdex (max-age)")
    finally:
        change_web(tree, n, args.changed_every, to_v2=False)
    due = agentdex("agentdex --due", "--later", str(args.later))
    return {
        "changed": len(changed),
        "fresh_requests_served": fresh.served.get("requests", 0),
        **_found("revalidate", event_origins(db, revalidated.result["crawl_id"]), changed),
        **_found("due", event_origins(db, due.result["crawl_id"]), changed),
        "due_origins": due.result["origins"],
    }


def _storage_series(
    label: str, args: argparse.Namespace, db: Path, work: Path, base_cmd: list[str], nginx: Nginx, n: int
) -> dict:
    """``--recrawls`` recrawls of the unchanged web on a copy of the first crawl's database,
    each judged ``--max-age`` + 2 minutes after the one before (every stored answer stale, so
    every document is asked conditionally): the database's size after each."""
    copy = work / "storage.db"
    for path in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        path.unlink(missing_ok=True)
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    cmd = [*base_cmd[: base_cmd.index("--db") + 1], str(copy), *base_cmd[base_cmd.index("--db") + 2 :]]
    sizes, walls, requests = [file_bytes(copy)], [], []
    step = max(args.max_age, 0) + 120
    for number in range(1, args.recrawls + 1):
        run = run_child(
            f"recrawl {number}",
            [*cmd, "--later", str(step * number)],
            work / "storage.json",
            nginx,
            work / "storage.log",
        )
        sizes.append(file_bytes(copy))
        walls.append(run.wall)
        requests.append(run.requests)
        print(
            f"{label}   unchanged recrawl {number}/{args.recrawls}: {run.wall:.1f} s, {run.requests:,} requests, "
            f"database {sizes[-1]:,} bytes (+{(sizes[-1] - sizes[-2]) / n:,.0f} bytes an origin)",
            flush=True,
        )
    return {"sizes": sizes, "walls": walls, "requests": requests, "step_seconds": step}


def _found(name: str, found: set[str], changed: set[str]) -> dict[str, int]:
    return {
        f"{name}_found": len(found & changed),
        f"{name}_missed": len(changed - found),
        f"{name}_other": len(found - changed),
    }


def _run_fetchers(
    label: str, args: argparse.Namespace, work: Path, common: list[str], nginx: Nginx, runs: dict[str, Run], count: int
) -> None:
    """The other fetchers on the first crawl's URL list, each that the options ask for: the
    minimal httpx fetcher, the Scrapy spider, agentdex's fetch path alone, the aiohttp fetcher."""
    fetch_args = ["--urls", str(work / "urls.txt"), *common]
    scrapy_tls = ["--no-verify-tls"] if args.scrapy_no_verify_tls else []
    wanted = [  # (run name, what is printed, its command after the interpreter, interpreter, file stem)
        (
            "httpx (minimal)",
            f"minimal httpx fetcher ({count:,} URLs)",
            ["httpx_fetch.py", "--max-seconds", str(args.cap_httpx)],
            None if args.skip_httpx else python(),
            "httpx",
        ),
        (
            "Scrapy",
            "Scrapy spider",
            ["scrapy_fetch.py", *scrapy_tls, "--max-seconds", str(args.cap_scrapy)],
            None if args.skip_scrapy else args.scrapy,
            "scrapy",
        ),
        (
            FETCH_PATH,
            "agentdex's fetch path alone",
            ["agentdex_fetch.py"],
            python() if args.fetch_path else None,
            "fetchpath",
        ),
        ("aiohttp (minimal)", "minimal aiohttp fetcher", ["aiohttp_fetch.py"], args.aiohttp, "aiohttp"),
    ]
    for name, shown, (script, *options), interpreter, stem in wanted:
        if interpreter is None:
            continue
        print(f"{label} {shown} …", flush=True)
        command = [interpreter, str(HELPERS / script), *fetch_args, *options]
        runs[name] = run_child(name, command, work / f"{stem}.json", nginx, work / f"{stem}.log")
        _report_so_far(label, runs)


def _report_so_far(label: str, runs: dict[str, Run]) -> None:
    """A line for the run that just finished (a long run shows its figures early)."""
    name, run = list(runs.items())[-1]
    print(
        f"{label}   {name}: wall {run.wall:.1f} s, CPU {_agentdex_ms(run)} ms/request, "
        f"peak {run.peak_mb:.0f} MB{_processes_note(run)}, {run.requests:,} requests, "
        f"nginx CPU {_nginx_ms(run)} ms/request",
        flush=True,
    )


def _agentdex_ms(run: Run) -> str:
    """The crawler's CPU milliseconds a request ("—" when it sent none: a fresh recrawl)."""
    return f"{run.per_request_ms(run.cpu):.2f}" if run.requests else "—"


def _nginx_ms(run: Run) -> str:
    """nginx's CPU milliseconds a request served during ``run`` ("—" when it served none)."""
    served = run.served.get("requests", 0)
    return f"{1000 * run.result.get('nginx_cpu', 0.0) / served:.2f}" if served else "—"


def _processes_note(run: Run) -> str:
    data = run.result
    if not data.get("children_peak_mb"):
        return ""
    return (
        f" (all {data['processes']} processes at most: this one {data['peak_mb']:.0f} MB, "
        f"each other one ≤ {data['children_peak_mb']:.0f} MB; sampled, the whole tree of "
        f"{data['tree_processes']} processes: RSS {data['tree_peak_rss_mb']:.0f} MB, "
        f"PSS {data['tree_peak_pss_mb']:.0f} MB; "
        f"this one's own CPU {data['cpu_own']:.1f} s)"
    )


def _profile_args(args: argparse.Namespace, work: Path, label: str) -> list[str]:
    return ["--profile", str(work / f"agentdex-{label}.prof")] if args.profile else []


# --- reporting ---------------------------------------------------------------------------------

COLUMNS = (
    "crawler",
    "wall s",
    "origins/s",
    "req/s",
    "CPU ms/req",
    "proc CPU ms/req",
    "nginx CPU ms/req",
    "peak MB",
    "requests",
    "nginx req",
    "conns",
)


def table_rows(report: dict) -> list[tuple[str, ...]]:
    """One row per run of one N."""
    rows = []
    for data in report["runs"]:
        run = Run(**data)
        # A fetcher stopped at its cap did not cover every origin: no origins/s for it.
        origins = run.result.get("origins", None if run.result.get("stopped") else report["n"])
        name = run.name
        if run.result.get("stopped"):
            name += f" (stopped at its cap: {run.requests:,} of {run.result['planned']:,} URLs)"
        per_request = (lambda cpu, run=run: f"{run.per_request_ms(cpu):.2f}") if run.requests else (lambda cpu: "—")
        rows.append(
            (
                name,
                f"{run.wall:.1f}",
                f"{origins / run.wall:.0f}" if origins else "—",
                f"{run.requests / run.wall:.0f}",
                per_request(run.cpu),
                per_request(run.process_cpu),
                _nginx_ms(run),
                f"{run.peak_mb:.0f}",
                f"{run.requests:,}",
                f"{run.served.get('requests', 0):,}",
                f"{run.served.get('connections', 0):,}",
            )
        )
    return rows


def ratios(report: dict) -> dict[str, float]:
    """agentdex against the others, and the recrawl."""
    runs = {r["name"]: Run(**r) for r in report["runs"]}
    agentdex, out = runs["agentdex"], {}
    if "httpx (minimal)" in runs:
        floor = runs["httpx (minimal)"]
        out["agentdex CPU/req ÷ minimal httpx CPU/req (target ≤ 1.25)"] = agentdex.per_request_ms(
            agentdex.cpu
        ) / floor.per_request_ms(floor.cpu)
    if "Scrapy" in runs:
        scrapy = runs["Scrapy"]
        out["agentdex req/s ÷ Scrapy req/s (target ≥ 1, stretch 1.5)"] = (agentdex.requests / agentdex.wall) / (
            scrapy.requests / scrapy.wall
        )
        out["agentdex CPU/req ÷ Scrapy CPU/req"] = agentdex.per_request_ms(agentdex.cpu) / scrapy.per_request_ms(
            scrapy.cpu
        )
    if "aiohttp (minimal)" in runs:
        client = runs["aiohttp (minimal)"]
        out["agentdex CPU/req ÷ minimal aiohttp CPU/req"] = agentdex.per_request_ms(
            agentdex.cpu
        ) / client.per_request_ms(client.cpu)
    for name, target in (
        ("agentdex --revalidate", ""),
        ("agentdex (max-age)", " (target ≤ 0.10)"),
        ("agentdex --due", " (target ≤ 0.10)"),
    ):
        if name in runs:
            out[f"{name} time ÷ first crawl time{target}"] = runs[name].wall / agentdex.wall
    out["agentdex peak MB, largest of its runs (target ≤ 150 at 100,000)"] = max(
        r.peak_mb for name, r in runs.items() if name.startswith("agentdex")
    )
    return out


def targets(report: dict) -> list[tuple[str, str, str, bool | None]]:
    """Issue 19's targets for one N: ``(what, target, measured, met)`` (met None: not measured)."""
    runs = {r["name"]: Run(**r) for r in report["runs"]}
    first, n, out = runs["agentdex"], report["n"], []
    fresh, revalidate = runs.get("agentdex (max-age)"), runs.get("agentdex --revalidate")
    if fresh is not None:
        served = report["changes"]["fresh_requests_served"]
        out.append(
            (
                "fresh recrawl: time ÷ first crawl; requests nginx served",
                "≤ 0.10; 0",
                f"{fresh.wall / first.wall:.3f}; {served:,}",
                fresh.wall / first.wall <= 0.10 and served == 0,
            )
        )
    if revalidate is not None:
        ratio = revalidate.wall / first.wall
        out.append(
            (
                "--revalidate recrawl: time ÷ first crawl (requests)",
                "≤ 0.60",
                f"{ratio:.2f} ({revalidate.requests:,} of {first.requests:,})",
                ratio <= 0.60,
            )
        )
    sizes = report.get("storage", {}).get("sizes") or []
    if len(sizes) > 1:
        per = max(b - a for a, b in zip(sizes, sizes[1:], strict=False)) / n
        out.append(
            ("unchanged recrawl: bytes added an origin (largest recrawl)", "≤ 1,024", f"{per:,.0f}", per <= 1024)
        )
        growth = sizes[-1] / sizes[0]
        out.append(
            (
                f"database after {len(sizes) - 1} unchanged recrawls ÷ after the first crawl",
                "≤ 1.10",
                f"{growth:.3f}",
                growth <= 1.10,
            )
        )
    if "Scrapy" in runs:
        scrapy = runs["Scrapy"]
        speed = (first.requests / first.wall) / (scrapy.requests / scrapy.wall)
        out.append(("first crawl req/s ÷ Scrapy req/s", "≥ 3", f"{speed:.2f}", speed >= 3))
    peak = max(r.peak_mb for name, r in runs.items() if name.startswith("agentdex"))
    out.append(("agentdex peak RSS, MB (largest run)", "≤ 150 (at 100,000)", f"{peak:.0f}", peak <= 150))
    if n >= 100_000:
        out.append(("first crawl of 100,000 origins, seconds", "≤ 600", f"{first.wall:.0f}", first.wall <= 600))
        floor = (first.cpu + first.result.get("nginx_cpu", 0.0)) / (os.cpu_count() or 1)
        ratio = first.wall / max(floor, 1e-9)
        out.append(("first crawl wall ÷ its CPU floor (issue 35)", "≤ 1.10", f"{ratio:.3f}", ratio <= 1.10))
    return out


def scale_targets(reports: list[dict]) -> list[tuple[str, str, str, bool]]:
    """Issue 19's target across N: the first crawl's requests/s at each larger N against the
    smallest N of the run (within 10%)."""
    rates = {r["n"]: _first_rate(r) for r in reports}
    base = min(rates)
    return [
        (
            f"first crawl req/s at {n:,} ÷ at {base:,}",
            "≥ 0.90",
            f"{rates[n] / rates[base]:.2f}",
            rates[n] / rates[base] >= 0.9,
        )
        for n in sorted(rates)
        if n != base
    ]


def _first_rate(report: dict) -> float:
    first = next(r for r in report["runs"] if r["name"] == "agentdex")
    return first["requests"] / first["wall"]


def markdown_table(reports: list[dict]) -> str:
    """The table of every N, as Markdown."""
    lines = ["| N | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for report in reports:
        for row in table_rows(report):
            lines.append(f"| {report['n']:,} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def print_report(report: dict) -> None:
    """The table, ratios and recrawl figures of one N."""
    rows = [COLUMNS, *table_rows(report)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    rounds = f", fastest of {report['repeat']} rounds" if report.get("repeat", 1) > 1 else ""
    print(f"\nN = {report['n']:,} origins, {report['urls']:,} URLs per crawl{rounds}")
    for row in rows:
        print(
            "  "
            + "  ".join(
                cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    for name, value in ratios(report).items():
        print(f"  {name}: {value:.2f}")
    ch, size = report["changes"], report["bytes"]
    if ch:
        _print_changes(ch)
    print(
        f"  body bytes stored: {size['blob_bytes_first']:,} after the first crawl, {size['blob_bytes_after']:,} after "
        f"all (the changed documents); database file {size['db_bytes_first']:,} → {size['db_bytes_after']:,} bytes"
    )
    print("  statuses: " + "; ".join(f"{k}: {v}" for k, v in report["statuses"].items()))
    print("  database after each run: " + "; ".join(f"{k}: {v:,}" for k, v in report.get("sizes", {}).items()))
    print(_floor_line(report))
    for line in _split_lines(report):
        print(line)
    print("  targets (issue 19):")
    for what, target, measured, met in targets(report):
        print(f"    {'met ' if met else 'MISS'}  {what}: {measured} (target {target})")


def _print_changes(ch: dict) -> None:
    print(
        f"  changed origins: {ch['changed']:,}; --revalidate found events on {ch['revalidate_found']:,} of them "
        f"(missed {ch['revalidate_missed']:,}, events elsewhere {ch['revalidate_other']:,}); --due took "
        f"{ch['due_origins']:,} origins and found {ch['due_found']:,} (missed {ch['due_missed']:,}, "
        f"elsewhere {ch['due_other']:,})"
    )
    print(f"  requests nginx served during the max-age recrawl: {ch['fresh_requests_served']:,} (target 0)")


def _floor_line(report: dict) -> str:
    """The least wall time the first crawl's CPU allows on this machine's cores: agentdex's
    CPU and nginx's together, spread perfectly (the server shares the crawler's cores)."""
    first = Run(**next(r for r in report["runs"] if r["name"] == "agentdex"))
    nginx = first.result.get("nginx_cpu", 0.0)
    cores = os.cpu_count() or 1
    return (
        f"  first crawl CPU: agentdex {first.cpu:,.1f} s + nginx {nginx:,.1f} s over {cores} cores = "
        f"{(first.cpu + nginx) / cores:,.1f} s at the least (its wall: {first.wall:,.1f} s, "
        f"{first.wall / max((first.cpu + nginx) / cores, 1e-9):.3f} times the floor; this benchmark's own "
        f"memory sampling took {first.result.get('bench_cpu', 0.0):,.1f} CPU s of the same cores meanwhile)"
    )


def _split_lines(report: dict) -> list[str]:
    """With ``--fetch-path``: the first crawl's CPU as fetching (the fetch path alone on the
    same URLs, scaled to the crawl's requests) and the rest; with ``--aiohttp`` too, the
    least wall time were the fetch path to cost what the minimal aiohttp fetcher does."""
    runs = {r["name"]: Run(**r) for r in report["runs"]}
    if FETCH_PATH not in runs:
        return []
    first, cores = runs["agentdex"], os.cpu_count() or 1
    path_ms = runs[FETCH_PATH].per_request_ms(runs[FETCH_PATH].cpu)
    fetching = path_ms * first.requests / 1000
    rest, nginx = first.cpu - fetching, first.result.get("nginx_cpu", 0.0)
    lines = [
        f"  first crawl CPU split: fetching {fetching:,.1f} s (the fetch path alone, {path_ms:.3f} ms a request), "
        f"the rest (parsing, verifying, saving) {rest:,.1f} s ({1000 * rest / max(1, report['n']):.2f} ms an origin)"
    ]
    if "aiohttp (minimal)" in runs:
        client = runs["aiohttp (minimal)"]
        client_ms = client.per_request_ms(client.cpu)
        cheap = client_ms * first.requests / 1000
        lines.append(
            f"  with fetching at the minimal aiohttp's {client_ms:.3f} ms a request: "
            f"({cheap:,.1f} + {rest:,.1f} + nginx {nginx:,.1f}) s over {cores} cores = "
            f"{(cheap + rest + nginx) / cores:,.1f} s at the least"
        )
    return lines


def machine() -> dict[str, str]:
    """What the figures ran on."""
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in _read("/proc/cpuinfo").splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    mem_kb = next(
        (int(line.split()[1]) for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")), 0
    )
    nginx = subprocess.run([nginx_binary(), "-v"], capture_output=True, text=True).stderr.strip()
    return {
        "cpus": str(os.cpu_count()),
        "cpu_model": model,
        "memory_gb": f"{mem_kb / 1024 / 1024:.1f}",
        "python": platform.python_version(),
        "os": platform.platform(),
        "nginx": nginx,
        "versions": _versions(),
    }


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("agentdex", "httpx", "httpcore", "anyio", "sqlite-utils", "scrapy", "twisted"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return ", ".join(found) + f", SQLite {sqlite3.sqlite_version}"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


# --- main --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10000], help="origin counts to run")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight (each crawler)")
    parser.add_argument("--per-host", type=int, default=1, help="requests in flight to one host (each crawler)")
    parser.add_argument(
        "--processes", type=int, default=1, help="agentdex's crawling processes (crawl --processes; 1: one process)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the fastest run of each crawler is kept")
    parser.add_argument("--nginx-workers", type=int, default=1, help="nginx worker processes")
    parser.add_argument("--skip-scrapy", action="store_true", help="run without the Scrapy spider")
    parser.add_argument(
        "--scrapy",
        metavar="PYTHON",
        default=sys.executable,
        help="the interpreter that runs the Scrapy spider (a virtualenv of its own with Scrapy installed)",
    )
    parser.add_argument("--skip-httpx", action="store_true", help="run without the minimal httpx fetcher")
    parser.add_argument(
        "--fetch-path", action="store_true", help="also run agentdex's fetch path alone on the URL list"
    )
    parser.add_argument(
        "--aiohttp",
        metavar="PYTHON",
        help="also run the minimal aiohttp fetcher with this interpreter (a virtualenv of its own with aiohttp)",
    )
    parser.add_argument(
        "--scrapy-no-verify-tls",
        action="store_true",
        help="Scrapy's default: no certificate verification (agentdex and httpx always verify)",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile agentdex's crawls (slows them down)")
    parser.add_argument(
        "--max-age", type=int, default=3600, help="Cache-Control max-age nginx sends on every answer (0: none)"
    )
    parser.add_argument("--changed-every", type=int, default=100, help="change every K-th origin (100: 1%%)")
    parser.add_argument(
        "--later",
        type=float,
        default=3900.0,
        help="the --due crawl judges freshness and the schedule this many seconds later",
    )
    parser.add_argument("--cap-httpx", type=float, default=0.0, help="stop the httpx fetcher after this many seconds")
    parser.add_argument("--cap-scrapy", type=float, default=0.0, help="stop the Scrapy spider after this many seconds")
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    parser.add_argument(
        "--verify", action="store_true", help="verify each origin's claims too, as `agentdex crawl` does"
    )
    parser.add_argument(
        "--first-only",
        action="store_true",
        help="only the first crawl (and the fetchers asked for): no recrawls after it",
    )
    parser.add_argument(
        "--recrawls",
        type=int,
        default=10,
        help="unchanged recrawls of a copy of the first crawl's database, for its growth (0: none)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run every N, print the tables."""
    args = parse_args(argv)
    # A SIGTERM unwinds like Ctrl-C, so nginx is stopped on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    problems = missing_tools(None if args.skip_scrapy else args.scrapy, args.aiohttp)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    certs = ensure_certs()
    reports = []
    for n in args.n:
        reports.append(bench(n, args, certs))
        print_report(reports[-1])
    print("\n" + markdown_table(reports))
    for what, target, measured, met in scale_targets(reports):
        print(f"{'met ' if met else 'MISS'}  {what}: {measured} (target {target})")
    if args.json:
        command = "python benchmarks/bench_crawl.py " + " ".join(sys.argv[1:] if argv is None else argv)
        args.json.write_text(
            json.dumps(
                {
                    "command": command,
                    "machine": machine(),
                    "reports": reports,
                    "ratios": {r["n"]: ratios(r) for r in reports},
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

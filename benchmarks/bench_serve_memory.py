"""How much memory one hostile SQL query makes ``agentdex serve`` take: its peak RSS per query.

Run from the repository root:

    .venv/bin/python benchmarks/bench_serve_memory.py [--max-gb 6] [--timeout 120]

For each query of ``tests/test_hostile_datasette.py`` (values of up to gigabytes built in a
few SQLite steps, which Datasette's 1 s time limit cannot stop), it starts a fresh
``python -m agentdex serve`` on an empty catalogue, sends the query once, and prints the
answer's status, the seconds it took and the server's peak resident memory (``VmHWM`` from
``/proc``, Linux only) before and after. Each server runs under an address-space limit of
``--max-gb`` so a run of an unprotected version cannot take the machine down: a query that
hits it shows as an error or a dead server with a peak near that limit.

To measure another version (the figures "before" a change), run the same script with
``PYTHONPATH`` set to that version's checkout: the child is ``python -m agentdex``, found
on that path first.
"""

from __future__ import annotations

import argparse
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from agentdex.db import open_db  # noqa: E402
from test_hostile_datasette import HOSTILE_QUERIES, NULL_QUERIES  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM) in MB, or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def start(db: Path, max_bytes: int) -> tuple[subprocess.Popen, str]:
    port = free_port()

    def cap() -> None:  # in the child, before exec: its address space, not ours
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))

    # cwd outside the checkout: ``python -m`` puts the working folder first on the path,
    # which would hide the version PYTHONPATH names.
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentdex", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=cap,
        cwd=db.parent,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/-/versions.json", timeout=2).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("agentdex serve did not start")


def measure(db: Path, sql: str, max_bytes: int, timeout: float) -> tuple[str, float, float | None, float | None]:
    proc, base = start(db, max_bytes)
    try:
        before = peak_rss_mb(proc.pid)
        started = time.perf_counter()
        try:
            answer = httpx.get(f"{base}/agentdex.json", params={"sql": sql}, timeout=timeout)
            outcome = (
                f"{answer.status_code} {answer.text[:60]!r}"
                if answer.status_code != 200
                else f"200 {answer.json()['rows']}"
            )
        except httpx.HTTPError as exc:
            outcome = f"no answer ({type(exc).__name__})"
        seconds = time.perf_counter() - started
        return outcome, seconds, before, peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-gb", type=float, default=6.0, help="address-space limit of each server")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one answer")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "agentdex.db"
        open_db(db).conn.close()
        print(f"{'query':<14} {'seconds':>8} {'peak MB before':>15} {'peak MB after':>14}  answer")
        for name, sql in {**HOSTILE_QUERIES, **NULL_QUERIES}.items():
            outcome, seconds, before, after = measure(db, sql, int(args.max_gb * 1024**3), args.timeout)
            shown = [f"{v:.0f}" if v is not None else "gone" for v in (before, after)]
            print(f"{name:<14} {seconds:8.2f} {shown[0]:>15} {shown[1]:>14}  {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

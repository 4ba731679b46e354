"""The command line the two comparison fetchers share (httpx_fetch.py and scrapy_fetch.py):
the same URL list, server, CA and concurrency shape as the agentdex run they are compared
with."""

from __future__ import annotations

import argparse
from pathlib import Path


def peak_rss_mb() -> float | None:
    """This process's own peak resident set (VmHWM, Linux), in MB. Not ru_maxrss: a child
    forked from a large parent carries the parent's high-water mark across exec there."""
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    line = next((ln for ln in text.splitlines() if ln.startswith("VmHWM:")), None)
    return int(line.split()[1]) / 1024 if line else None


def fetcher_parser(description: str) -> argparse.ArgumentParser:
    """A parser with the shared options; each fetcher adds its own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--urls", type=Path, required=True, help="the URL list, one per line")
    parser.add_argument("--port", type=int, required=True, help="the benchmark server's port on 127.0.0.1")
    parser.add_argument("--ca", type=Path, required=True, help="the benchmark's CA certificate (PEM)")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight")
    parser.add_argument("--per-host", type=int, default=1, help="requests in flight per host")
    parser.add_argument("--result", type=Path, required=True, help="where to write the JSON result")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=0.0,
        help="stop after this many seconds and report what was fetched (0: no limit)",
    )
    return parser

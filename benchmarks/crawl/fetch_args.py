"""What the comparison fetchers share (httpx_fetch.py, scrapy_fetch.py, aiohttp_fetch.py and
agentdex_fetch.py): the command line (the same URL list, server, CA and concurrency shape as
the agentdex run they are compared with), the URL list grouped by origin, the time cap and
the result file bench_crawl.py reads. Only the standard library: Scrapy and aiohttp run it
from virtualenvs of their own."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit


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


def group_by_origin(urls: list[str]) -> list[list[str]]:
    """The URLs grouped by host, first-seen order kept."""
    groups: dict[str, list[str]] = {}
    for url in urls:
        groups.setdefault(urlsplit(url).netloc, []).append(url)
    return list(groups.values())


async def capped(work, seconds: float) -> bool:
    """Run ``work``; with a limit, stop it after ``seconds``. True when it was stopped."""
    if seconds <= 0:
        await work
        return False
    try:
        await asyncio.wait_for(work, seconds)
    except TimeoutError:
        return True
    return False


def write_result(path: Path, *, wall: float, cpu: float, statuses: Counter, planned: int, **figures: object) -> None:
    """The JSON result bench_crawl.py reads: wall and CPU seconds of the fetch, the answers'
    statuses (``error`` for a failed request), how many URLs were planned and this process's
    peak memory; ``figures`` adds to or overrides those (``requests``, ``errors``, ``stopped``)."""
    result = {
        "wall": wall,
        "cpu": cpu,
        "requests": sum(statuses.values()),
        "statuses": {str(k): v for k, v in sorted(statuses.items(), key=str)},
        "errors": statuses.get("error", 0),
        "stopped": False,
        "planned": planned,
        "peak_mb": peak_rss_mb(),
        **figures,
    }
    path.write_text(json.dumps(result, indent=2), encoding="utf-8")

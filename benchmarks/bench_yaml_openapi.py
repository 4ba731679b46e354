"""Untrusted OpenAPI YAML: how long the bounded loader takes, and how long the event loop
stalls while the ``http.openapi`` check parses a document. Run from the repository root:

    .venv/bin/python benchmarks/bench_yaml_openapi.py [--old]

For each document (an ordinary OpenAPI 3.0 YAML of about 1 MB and 4 MB, and a 9-level
alias bomb) it prints the check's outcome, the time :func:`agentdex.crawler.verify.openapi_document`
takes, and the longest gap a 10 ms ticker on the event loop saw while the check ran the way
the verifier runs it (``offload.run``: in a thread above 4 KiB or with an anchor). ``--old``
adds the time of what the check did before (``yaml.safe_load``: the pure-Python loader, no budget, on the event loop).
"""

from __future__ import annotations

import argparse
import asyncio
import time

import yaml

from agentdex.crawler import offload
from agentdex.crawler.verify import openapi_check, openapi_document
from agentdex.models import FetchRecord

OPERATION = (
    "  /things/{n}/item:\n    get:\n      operationId: getThing{n}\n      summary: Get thing number {n}\n"
    "      parameters:\n        - name: id\n          in: query\n          schema:\n            type: string\n"
    "      responses:\n        '200':\n          description: The thing {n}.\n"
)


def openapi_yaml(paths: int) -> bytes:
    head = "openapi: 3.0.3\ninfo:\n  title: Big\n  version: '1.0'\npaths:\n"
    return (head + "".join(OPERATION.replace("{n}", str(i)) for i in range(paths))).encode()


def bomb() -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
    return ("\n".join(lines) + "\n").encode()


async def max_stall(body: bytes) -> tuple[str, float]:
    """The check's detail and the longest gap (ms) between ticks of a 10 ms ticker meanwhile."""
    record = FetchRecord(url="https://a.test/openapi.yaml", kind="openapi", status=200, body=body)
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    check = await offload.run(offload.yaml_size(record.body), openapi_check, record, record.url)
    done.set()
    await task
    return f"{check.status}: {check.detail}"[:60], max(gaps, default=0.0) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", action="store_true", help="also time the pure-Python yaml.safe_load")
    old = parser.parse_args().old
    docs = {
        "OpenAPI YAML ~1 MB": openapi_yaml(4000),
        "OpenAPI YAML ~4 MB": openapi_yaml(15000),
        "alias bomb 9^9": bomb(),
    }
    print(f"libyaml: {yaml.__with_libyaml__}")
    print(f"{'document':<20} {'bytes':>9} {'load ms':>8} {'stall ms':>9} {'old ms':>8}  check")
    for name, body in docs.items():
        started = time.perf_counter()
        openapi_document(body)
        load = (time.perf_counter() - started) * 1000
        detail, stall = asyncio.run(max_stall(body))
        before = ""
        if old:
            started = time.perf_counter()
            yaml.safe_load(body)
            before = f"{(time.perf_counter() - started) * 1000:.0f}"
        print(f"{name:<20} {len(body):>9,} {load:>8.0f} {stall:>9.0f} {before:>8}  {detail}")


if __name__ == "__main__":
    main()

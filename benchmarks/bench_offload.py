"""What a thread hop costs next to what a small crawled input takes to parse (issue 19, round 5).

    .venv/bin/python benchmarks/bench_offload.py

The crawler parses robots.txt, OpenAPI documents, SKILL.md + agent.md and scans tool texts in
a worker thread only above ``agentdex.crawler.offload.INLINE_BYTES``; this prints, per input
size, the time of each parse on its own and the round trip of ``offload.run`` for a no-op in a
thread, so the threshold can be checked against this machine. It fails when a parse does not
give the answer it was meant to time (a failed check, an empty rule set).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from agentdex.crawler.robots import _entry_from
from agentdex.crawler.verify import openapi_check
from agentdex.formats import inferred as inferred_format
from agentdex.models import FetchRecord

ORIGIN = "https://a.example"


def per_call_ms(fn, n: int = 200) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1000


def openapi_doc(size: int, as_yaml: bool) -> bytes:
    import yaml

    dump = yaml.safe_dump if as_yaml else json.dumps
    paths: dict = {}
    while True:
        paths[f"/things/{len(paths)}"] = {
            "get": {"summary": "Get a thing " * 3, "responses": {"200": {"description": "ok"}}}
        }
        body = dump({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}).encode()
        if len(body) >= size:
            return body


def robots(size: int) -> bytes:
    rules = "".join(f"Disallow: /private/{i}/\nAllow: /private/{i}/public\n" for i in range(size // 40 + 1))
    return ("User-agent: *\n" + rules).encode()[:size]


def parses(size: int) -> dict[str, float]:
    times = {}
    for name, as_yaml in (("openapi (YAML)", True), ("openapi (JSON)", False)):
        record = FetchRecord(url=f"{ORIGIN}/openapi", kind="openapi", status=200, body=openapi_doc(size, as_yaml))
        if openapi_check(record, record.url).status != "pass":
            sys.exit(f"FAIL: the {name} document of {size} bytes does not pass http.openapi")
        times[name] = per_call_ms(lambda r=record: openapi_check(r, r.url))
    record = FetchRecord(url=f"{ORIGIN}/robots.txt", kind="robots", status=200, body=robots(size))
    if _entry_from(ORIGIN, record).rules.allows(f"{ORIGIN}/private/0/x"):
        sys.exit("FAIL: the robots.txt rules were not parsed")
    times["robots.txt"] = per_call_ms(lambda: _entry_from(ORIGIN, record))
    skill = b"---\nname: demo\ndescription: a demo skill\n---\n" + b"Some text about the tool. " * (size // 52)
    agent = b"# Agent\n" + b"- [link](https://a.example/x)\n" * (size // 60)
    files = {"SKILL.md": skill, "agent.md": agent, "llms.txt": None}
    times["SKILL.md + agent.md"] = per_call_ms(lambda: inferred_format.infer(files, origin=ORIGIN, base_url=ORIGIN))
    return times


async def hop_ms(n: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await asyncio.to_thread(int)
    return (time.perf_counter() - start) / n * 1000


def main() -> None:
    # What offload.run does for a large input: asyncio.to_thread (anyio's until issue 35).
    print(f"thread hop (asyncio.to_thread of a no-op): {asyncio.run(hop_ms()):.3f} ms a round trip")
    for size in (1024, 4096, 16384):
        for name, ms in parses(size).items():
            print(f"{size:>6} bytes  {name:<22} {ms:.3f} ms")


if __name__ == "__main__":
    main()

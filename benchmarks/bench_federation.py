"""How fast the federation API (the MCP registry's shape, agentdex/federation.py) answers on a
large catalogue.

Run from the repository root:

    .venv/bin/python benchmarks/bench_federation.py [--listings 100000] [--repeat 15] [--db PATH]

It builds (or reuses) a catalogue of ``--listings`` synthetic listings with
``benchmarks/bench_datasette.py``'s builder, serves it exactly as ``agentdex serve`` does on a
real uvicorn server on 127.0.0.1, and prints the median time of ``--repeat`` requests (after
two warm-ups) for: the first page, a page deep in the catalogue (its cursor), a search, an
``updated_since`` page and one server by name; then the wall time to page through every
listing with ``limit=100``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_datasette import build, median_ms, start  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agentdex.db import open_db  # noqa: E402
from agentdex.federation import encode_cursor, server_name  # noqa: E402
from agentdex.formats import registry_api  # noqa: E402

SERVERS = registry_api.SERVERS_PATH


def _deep_origin(path: Path) -> tuple[str, str | None]:
    db = open_db(path, readonly=True)
    try:
        origin, name = db.execute(
            "SELECT origin, name FROM listings WHERE status = 'listed' "
            "ORDER BY origin LIMIT 1 OFFSET (SELECT count(*) * 9 / 10 FROM listings WHERE status = 'listed')"
        ).fetchone()
    finally:
        db.close()
    return origin, name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    path = args.db or Path(tempfile.gettempdir()) / f"agentdex-bench-{args.listings}.db"
    build(path, args.listings)
    base, server = start(path)
    origin, name = _deep_origin(path)
    cases = [
        ("first page (limit 100)", SERVERS, {"limit": "100"}),
        ("page at 90% (cursor)", SERVERS, {"limit": "100", "cursor": encode_cursor(origin)}),
        ("search 'lantern'", SERVERS, {"limit": "100", "search": "lantern"}),
        ("search with no match (every row read)", SERVERS, {"limit": "100", "search": "zzzz"}),
        ("updated_since 2025-12-01", SERVERS, {"limit": "100", "updated_since": "2025-12-01T00:00:00Z"}),
        (
            "one server, versions/latest",
            registry_api.versions_url("", server_name(origin, name)),
            {},
        ),
    ]
    print(f"{args.listings:,} listings, {os.cpu_count()} CPUs, median of {args.repeat}")
    with httpx.Client(base_url=base, timeout=60) as client:
        for label, route, params in cases:
            ms, _ = median_ms(client, route, params, args.repeat)
            print(f"  {label:<40} {ms:>8.1f} ms")
        started, cursor, seen = time.perf_counter(), None, 0
        while True:
            body = client.get(SERVERS, params={"limit": "100", **({"cursor": cursor} if cursor else {})}).json()
            seen += body["metadata"]["count"]
            cursor = body["metadata"].get("nextCursor")
            if not cursor:
                break
        print(f"  {'every listing, limit 100':<40} {time.perf_counter() - started:>8.1f} s  ({seen:,} servers)")
    server.should_exit = True


if __name__ == "__main__":
    main()

"""save_origin: milliseconds an origin for a first crawl (a listing with its guide, parsed)
and for an unchanged recrawl (every document answered 304), into a fresh catalogue file.
Run from the repository root:

    .venv/bin/python benchmarks/bench_store.py [--n 2000]

The decisions of a save (agentdex/db/decisions.py) run before its transaction; this says
what the whole save costs, so a change to either side can be compared with the one before.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from agentdex.db import save_origin, start_crawl  # noqa: E402
from db_records import new_catalogue, pantry_crawl, unchanged_crawl  # noqa: E402


def timed(db, crawls: list) -> float:
    """Milliseconds an origin to save ``crawls`` one by one, in one run."""
    crawl_id = start_crawl(db)
    started = time.perf_counter()
    for crawl in crawls:
        save_origin(db, crawl, crawl_id)
    return (time.perf_counter() - started) / len(crawls) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="origins saved")
    n = parser.parse_args().n
    origins = [f"o{i}.example.com" for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        db = new_catalogue(Path(tmp) / "catalogue.db")
        first = timed(db, [pantry_crawl(origin=o) for o in origins])
        unchanged = timed(db, [unchanged_crawl(origin=o) for o in origins])
    print(f"{n} origins: first crawl {first:.3f} ms/origin, unchanged recrawl {unchanged:.3f} ms/origin")


if __name__ == "__main__":
    main()

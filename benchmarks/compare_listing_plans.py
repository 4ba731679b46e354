"""The listing SQL of this checkout against an older revision's: same rows, same plans.

Run from the repository root of a git checkout:

    .venv/bin/python benchmarks/compare_listing_plans.py [--against cae0b77] [--listings 20000]

``list_listings`` and ``count_listings`` of ``--against`` (its agentdex/db/queries.py, read
with ``git show``; cae0b77 is the last revision that spelled the filters out there, before
agentdex/db/listing_query.py declared them) and of this checkout run every combination of
filter values below and every sort (relevance with a search only) on a synthetic catalogue
(:func:`agentdex.db.synthetic.fill_synthetic`, analysed, kept in
``benchmarks/out/plans-<listings>.db``). For each it compares the rows, the count and SQLite's
``EXPLAIN QUERY PLAN`` of both statements, prints each difference, and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from agentdex.db import open_db  # noqa: E402
from agentdex.db import queries as current  # noqa: E402
from agentdex.db.synthetic import fill_synthetic  # noqa: E402

VALUES: dict[str, list[Any]] = {
    "search": [None, "p", "tide kitchen"],
    "format": [None, "anchor"],
    "status": [None, "listed"],
    "category": [None, "productivity"],
    "pricing": [None, "free"],
    "auth": [None, "oauth"],
    "has_mcp": [None, True, False],
    "failing_checks": [None, True],
}
SORTS = ("name", "origin", "relevance")


class Recorder:
    """A catalogue that keeps every statement run through it (and its parameters)."""

    def __init__(self, db: Any) -> None:
        self.db, self.statements = db, []

    def query(self, sql: str, params: list[Any]) -> Any:
        self.statements.append((sql, params))
        return self.db.query(sql, params)

    def execute(self, sql: str, params: Any = ()) -> Any:
        self.statements.append((sql, params))
        return self.db.execute(sql, params)


def older(revision: str) -> ModuleType:
    """agentdex/db/queries.py of ``revision``, imported beside this checkout's package."""
    text = subprocess.run(
        ["git", "show", f"{revision}:agentdex/db/queries.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "older_queries.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("older_queries", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def catalogue(listings: int) -> Any:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"plans-{listings}.db"
    if not path.exists():
        db = open_db(path)
        fill_synthetic(db, listings)
        db.conn.execute("ANALYZE")
        db.conn.commit()
        db.close()
    return open_db(path, readonly=True)


def run(module: Any, db: Any, filters: dict[str, Any], sort: str) -> tuple[Any, list[list[str]]]:
    """(rows and count, the plan of each statement) of ``module``'s queries."""
    recorder = Recorder(db)
    answer = (
        module.list_listings(recorder, sort=sort, limit=50, **filters),
        module.count_listings(recorder, **filters),
    )
    plans = [[row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql, params)] for sql, params in recorder.statements]
    return answer, plans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="cae0b77", help="the older revision")
    parser.add_argument("--listings", type=int, default=20_000)
    args = parser.parse_args()
    old, db = older(args.against), catalogue(args.listings)
    compared = differences = 0
    for combination in itertools.product(*VALUES.values()):
        filters = dict(zip(VALUES, combination, strict=True))
        for sort in SORTS if filters["search"] else SORTS[:2]:
            (before, before_plans), (after, after_plans) = run(old, db, filters, sort), run(current, db, filters, sort)
            compared += 1
            for what, a, b in (("rows", before, after), ("plan", before_plans, after_plans)):
                if a != b:
                    differences += 1
                    print(f"{what} differ: {filters} sort={sort}\n  {args.against}: {a}\n  now: {b}")
    print(f"{compared} filter and sort combinations on {args.listings:,} listings: {differences} difference(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())

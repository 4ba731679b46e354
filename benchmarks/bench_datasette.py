"""How fast Datasette answers on a large catalogue: full-text search and every canned query.

Run from the repository root:

    .venv/bin/python benchmarks/bench_datasette.py [--listings 100000] [--repeat 15] [--db PATH]

It builds (or reuses, when ``--db`` already holds that many listings) a catalogue of
``--listings`` synthetic listings (:func:`agentdex.db.synthetic.fill_synthetic`), adds what
the synthetic filler leaves out so every canned query has rows to find (MCP tools, some
destructive; Anchor price and read-only-variant checks; lost proofs), then serves it exactly
as ``agentdex serve`` does, on a real uvicorn server on 127.0.0.1, and times HTTP requests
to the JSON API. Each figure is the median of ``--repeat`` requests after two warm-ups.

Search is timed three ways for each word: the search box's JSON (rows, count and the default
facets), the same without facets (``_nofacet=1``), and the first page's SQL alone.

``find_listings`` (generated from the listing filters) is timed with the filter sets of
:data:`FIND_RUNS`; its SQLite plan is printed, and the run fails when a first page differs from
what ``list_listings`` (``agentdex list``) answers for the same filters.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from datasette.utils import tilde_encode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from agentdex.datasette_plugin import prepare_connection  # noqa: E402
from agentdex.db import list_listings, open_db  # noqa: E402
from agentdex.db.listing_query import CANNED_QUERY, FILTERS  # noqa: E402
from agentdex.db.synthetic import fill_synthetic  # noqa: E402
from agentdex.serve import database_name, load_metadata, make_datasette, read_only  # noqa: E402

SEARCH_WORDS = ("lantern", "groceries", "quiet ledger", "reconciles invoices")
SEARCH_SQL = (
    "select origin, name from listings where rowid in (select rowid from listings_fts "
    "where listings_fts match escape_fts(:search)) order by last_changed_at desc limit 101"
)

# What fill_synthetic leaves out, derived from its rows so the same seed gives the same catalogue.
ENRICH = [
    """INSERT INTO tools (origin, source, name, description, annotations, read_only, destructive, seen_at)
       SELECT origin, 'mcp', t.name, 'A tool.', t.annotations, t.ro,
              (t.name = 'delete_item' AND listings.rowid % 10 = 0), last_crawled_at
       FROM listings, (SELECT 'search' AS name, '{"readOnlyHint": true}' AS annotations, 1 AS ro
                       UNION ALL SELECT 'delete_item', '{"destructiveHint": true}', 0) t
       WHERE has_mcp = 1""",
    """INSERT OR REPLACE INTO checks (origin, name, status, detail, data, checked_at, last_pass_at)
       SELECT origin, 'anchor.payments', CASE WHEN rowid % 7 = 0 THEN 'fail' ELSE 'pass' END, '',
              json_object('t/' || rowid, json_object('declared_usd', 0.01,
                          'live_usd', CASE WHEN rowid % 7 = 0 THEN 0.02 ELSE 0.01 END)),
              last_crawled_at, NULL
       FROM listings WHERE format = 'anchor'""",
    """INSERT OR REPLACE INTO checks (origin, name, status, detail, data, checked_at, last_pass_at)
       SELECT origin, 'anchor.read_only_variant', CASE WHEN rowid % 5 = 0 THEN 'fail' ELSE 'pass' END, '',
              json_object('t/' || rowid, json_object('url', 'https://' || origin || '/mcp/readonly', 'state', 'ok',
                          'write_tools', json(CASE WHEN rowid % 5 = 0 THEN '["delete_item"]' ELSE '[]' END))),
              last_crawled_at, NULL
       FROM listings WHERE format = 'anchor'""",
    # Synthetic checks pass on their first crawl; keep last_pass_at only where a proof was lost.
    """UPDATE checks SET last_pass_at = NULL WHERE status != 'pass' AND rowid % 50 != 0""",
    """INSERT INTO events (origin, kind, at, old, new, subject)
       SELECT origin, 'proof_lost', checked_at, '"pass"', '"fail"', name FROM checks
       WHERE name GLOB 'anchor.verify.*' AND status = 'fail' AND last_pass_at IS NOT NULL""",
]

# find_listings with the filters an analyst sets first, and a category no listing has: then
# every listing is read (the name index walked to its end), the query's worst case.
FIND_RUNS = (
    {},
    {"category": "productivity"},
    {"category": "no-such-category"},
    {"status": "listed", "has_mcp": "1"},
    {"search": "lantern"},
    {"format": "anchor", "failing_checks": "1"},
)
MAX_ROWS = 1000  # Datasette's max_returned_rows (agentdex.serve.SETTINGS): a canned query's first page


def build(path: Path, n: int) -> None:
    """A catalogue of ``n`` synthetic listings at ``path`` (reused when it has them)."""
    if path.exists():
        db = open_db(path)
        count = db.execute("SELECT count(*) FROM listings").fetchone()[0]
        db.close()
        if count == n:
            return
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    started = time.perf_counter()
    db = open_db(path)
    fill_synthetic(db, n)
    with db.conn:
        for sql in ENRICH:
            db.execute(sql)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"built {n:,} listings in {time.perf_counter() - started:.1f} s: {path}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(path: Path) -> tuple[str, object]:
    """Serve ``path`` as ``agentdex serve`` does, in a thread; return (base URL, server)."""
    import asyncio

    import uvicorn

    ds = make_datasette(path)
    asyncio.run(ds.invoke_startup())
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(read_only(ds.app()), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(base + "/-/versions.json", timeout=1)
            return base, server
        except httpx.TransportError:
            time.sleep(0.05)
    raise SystemExit("Datasette did not start")


def median_ms(client: httpx.Client, path: str, params: dict, repeat: int) -> tuple[float, dict]:
    """The median time of ``repeat`` requests (after two warm-ups) and the last answer."""
    for _ in range(2):
        client.get(path, params=params)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(path, params=params)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{path} {params}: HTTP {response.status_code}: {response.text[:300]}")
    return statistics.median(times), response.json()


def bench_search(client: httpx.Client, db: str, repeat: int) -> None:
    print(f"\n{'full-text search':<44} {'search box':>11} {'no facets':>10} {'SQL only':>9} {'matches':>9}")
    for word in SEARCH_WORDS:
        box, data = median_ms(client, f"/{db}/listings.json", {"_search": word}, repeat)
        bare, _ = median_ms(client, f"/{db}/listings.json", {"_search": word, "_nofacet": "1"}, repeat)
        sql, _ = median_ms(client, f"/{db}.json", {"sql": SEARCH_SQL, "search": word, "_shape": "array"}, repeat)
        print(f"  {word!r:<42} {box:>8.1f} ms {bare:>7.1f} ms {sql:>6.1f} ms {data['filtered_table_rows_count']:>9,}")


def bench_queries(client: httpx.Client, db: str, repeat: int, path: Path) -> None:
    queries = load_metadata()["databases"]["agentdex"]["queries"]
    print(f"\n{'canned query (first page, JSON)':<44} {'median':>11} {'rows':>10}")
    for name, spec in queries.items():
        runs = [{"check": "mcp.initialize"}, {"check": ""}] if ":check" in spec["sql"] else [{}]
        for params in FIND_RUNS if name == CANNED_QUERY else runs:
            ms, data = median_ms(client, f"/{db}/{name}.json", {**params, "_shape": "objects"}, repeat)
            label = name + "".join(f" ({k}={v or 'empty'})" for k, v in params.items())
            rows = f"{len(data['rows']):,}" + ("+" if data.get("truncated") else "")
            print(f"  {label:<42} {ms:>8.1f} ms {rows:>10}")
            if name == CANNED_QUERY:
                check_find(path, params, [row["origin"] for row in data["rows"]])
    print(f"\n{CANNED_QUERY}'s plan: {find_plan(path, queries[CANNED_QUERY]['sql'])}")


def check_find(path: Path, params: dict, found: list[str]) -> None:
    """Exit unless ``found`` is the first page ``list_listings`` gives for ``params``."""
    typed = {k: v == "1" if FILTERS[k].kind in ("bool", "flag") else v for k, v in params.items()}
    catalogue = open_db(path, readonly=True)
    try:
        expected = [row["origin"] for row in list_listings(catalogue, limit=MAX_ROWS, **typed)]
    finally:
        catalogue.close()
    if found != expected:
        raise SystemExit(f"{CANNED_QUERY} {params}: {len(found)} rows differ from list_listings' {len(expected)}")


def find_plan(path: Path, sql: str) -> str:
    """SQLite's EXPLAIN QUERY PLAN of the canned query (the same for every parameter value)."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        prepare_connection(conn)
        plan = conn.execute("EXPLAIN QUERY PLAN " + sql, dict.fromkeys(FILTERS, "")).fetchall()
    finally:
        conn.close()
    return " | ".join(row[-1] for row in plan)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--db", type=Path, default=None, help="catalogue to build or reuse (default: a temporary file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentdex-bench-") as tmp:
        path = args.db or Path(tmp) / "agentdex.db"
        build(path, args.listings)
        base, server = start(path)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(
            f"Datasette on {args.listings:,} listings ({path.stat().st_size / 1e6:,.0f} MB), "
            f"{os.cpu_count()} CPUs, load average {load:.2f}; medians of {args.repeat} requests"
        )
        db = tilde_encode(database_name(path))  # the database's URL path, as Datasette names it
        with httpx.Client(base_url=base, timeout=60) as client:
            bench_search(client, db, args.repeat)
            bench_queries(client, db, args.repeat, path)
        server.should_exit = True
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Census benchmark: ``agentdex census`` (the ``mcp_census`` view) on a catalogue with many
probed MCP endpoints and many registry-named ones.

Run from the repository root:

    .venv/bin/python benchmarks/bench_census.py [--endpoints 50000] [--probes 4] [--registry 20000]

It writes a fresh catalogue in a temporary folder: ``--endpoints`` listings with one MCP
endpoint each, probed ``--probes`` times (states cycling through ok, dead and
auth_required), and ``--registry`` MCP endpoints named only by a registry (``seed_sources``),
then prints how long one census takes (best of three) and the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from agentdex.db import open_db
from agentdex.db.seeds import census

STATES = ("ok", "dead", "auth_required")


def fill(path: Path, endpoints: int, probes: int, registry: int) -> None:
    """The catalogue: listings, their probes and the registry's endpoints."""
    db = open_db(path)
    with db.conn:
        db.conn.executemany(
            "INSERT INTO listings (origin, status, first_seen_at) VALUES (?, 'listed', 'x')",
            [(f"o{i}.test",) for i in range(endpoints)],
        )
        db.conn.executemany(
            "INSERT INTO endpoint_probes (origin, role, url, state, detail, at) VALUES (?, 'mcp', ?, ?, '', 'x')",
            [
                (f"o{i % endpoints}.test", f"https://o{i % endpoints}.test/mcp", STATES[i % 3])
                for i in range(endpoints * probes)
            ],
        )
        db.conn.executemany(
            "INSERT INTO seed_sources (origin, source, name, via, url, first_seen_at, last_seen_at) "
            "VALUES (?, 'registry:https://r.test', ?, 'remote', ?, 'x', 'x')",
            [(f"r{i}.test", f"n{i}", f"https://r{i}.test/mcp") for i in range(registry)],
        )
    db.conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=50_000)
    parser.add_argument("--probes", type=int, default=4)
    parser.add_argument("--registry", type=int, default=20_000)
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="agentdex-census-")) / "catalogue.db"
    fill(path, args.endpoints, args.probes, args.registry)
    db = open_db(path, readonly=True)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        result = census(db)
        times.append(time.perf_counter() - started)
    print(
        f"census of {result['total']:,} MCP endpoints ({args.endpoints * args.probes:,} probes, "
        f"{args.registry:,} registry-named): best {min(times) * 1000:.0f} ms; "
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()

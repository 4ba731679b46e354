"""``agentdex merge OUT.db SHARD.db…``: catalogues joined on natural keys.

Over real sockets (the sample web over TLS, the CLI in its own process): one web crawled
once whole and once as four shards merged gives the same facts (listings, checks, events,
snapshots, probe states, findings, tools, seed sources, compared by natural keys, not rowids
or crawl ids); merging a shard twice changes no row; a shard killed mid-crawl and run again
merges to the same facts. Every table of the schema is one the merge takes deliberately, and
a catalogue it cannot take is one sentence.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentdex.crawler.options import shard_of
from agentdex.db import open_db
from agentdex.db.merge import MERGED_TABLES, OWN_TABLES
from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env
from waiting import listed, wait_for

SITES = ["pantry.test", "beacon.test", "badmanifest.test", "meridian.test", "api.meridian.test", "gone.test"]


def agentdex(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentdex", *args], env=cli_env(), capture_output=True, text=True, timeout=300
    )


def facts(path: Path) -> dict[str, list[tuple]]:
    """What the catalogue knows, by natural keys: no rowid, crawl id or time of a run."""
    queries = {
        "listings": "SELECT origin, status, status_detail, name, format, formats_found, checks_passed, "
        "checks_failed, has_mcp, manifests_sha256 FROM listings",
        "checks": "SELECT origin, name, status, detail FROM checks",
        "events": "SELECT origin, kind, subject, old, new FROM events",
        "snapshots": "SELECT DISTINCT origin, url, kind, status_code, body_sha256 FROM snapshots",
        "documents": "SELECT origin, kind, url, sha256 FROM documents",
        "probes": "SELECT DISTINCT origin, role, url, state, http_status, era, cause FROM endpoint_probes",
        "health": "SELECT origin, role, url, state FROM endpoint_health",
        "samples": "SELECT DISTINCT origin, role, url, state, outcome FROM endpoint_samples",
        "findings": "SELECT origin, format, severity, path, code FROM findings",
        "tools": "SELECT origin, source, name, fingerprint FROM tools",
        "seed_sources": "SELECT origin, source, name, via, url, status FROM seed_sources",
        "search": "SELECT origin FROM listings_fts WHERE listings_fts MATCH 'api OR notes OR pantry'",
    }
    with sqlite3.connect(path) as conn:
        return {name: sorted(conn.execute(sql), key=repr) for name, sql in queries.items()}


def dump(path: Path) -> list[str]:
    """Every row of every table, ids included (the full-text index's own pages aside)."""
    with sqlite3.connect(path) as conn:
        return [line for line in conn.iterdump() if "listings_fts_" not in line]


@pytest.mark.slow
def test_four_shards_merged_hold_the_facts_of_one_whole_crawl(tmp_path):
    with SampleWeb(synthetic=16) as web:
        seeds = tmp_path / "s.txt"
        origins = [*web.synthetic.hosts, *SITES]
        seeds.write_text("\n".join(origins) + "\n")
        net = web.cli_args()
        whole = agentdex("crawl", "--db", str(tmp_path / "whole.db"), *net, "--seeds", str(seeds), "-q")
        assert whole.returncode == 0, whole.stderr
        for i in range(4):
            done = agentdex(
                "crawl", "--db", str(tmp_path / f"shard-{i}.db"), *net, "--seeds", str(seeds), "--shard", f"{i}/4"
            )
            assert done.returncode == 0, done.stderr
        shards = [str(tmp_path / f"shard-{i}.db") for i in range(4)]
        merged = agentdex("merge", str(tmp_path / "all.db"), *shards)
        assert merged.returncode == 0, merged.stderr
        assert merged.stdout.startswith("merged 4 catalogue(s) into")

        expected = facts(tmp_path / "whole.db")
        assert facts(tmp_path / "all.db") == expected
        assert len(expected["listings"]) == len(origins) and expected["events"] and expected["probes"]
        assert expected["samples"]
        assert expected["checks"] and expected["snapshots"] and expected["search"]

        # Merged twice: not one row changes, ids included.
        before = dump(tmp_path / "all.db")
        again = agentdex("merge", "--json", str(tmp_path / "all.db"), shards[2])
        assert again.returncode == 0, again.stderr
        assert '"changed"' in again.stdout and dump(tmp_path / "all.db") == before

        # A shard killed mid-crawl, then run again, merges to the same facts.
        victim = max(range(4), key=lambda i: sum(shard_of(o, 4) == i for o in origins))
        share = sum(shard_of(o, 4) == victim for o in origins)
        path = tmp_path / "killed.db"
        args = ["--db", str(path), *net, "--seeds", str(seeds), "--shard", f"{victim}/4", "--concurrency", "1", "-q"]
        crawl = subprocess.Popen([sys.executable, "-m", "agentdex", "crawl", *args], env=cli_env())
        try:
            wait_for(lambda: listed(path) >= 1, timeout=120)
            os.kill(crawl.pid, signal.SIGKILL)
            crawl.wait(timeout=60)
        finally:
            crawl.kill()
        assert listed(path) < share  # it was killed before the end of its share
        rerun = agentdex("crawl", *args)
        assert rerun.returncode == 0, rerun.stderr
        shards[victim] = str(path)
        remerged = agentdex("merge", str(tmp_path / "again.db"), *shards)
        assert remerged.returncode == 0, remerged.stderr
    assert facts(tmp_path / "again.db") == expected


def test_every_table_of_the_schema_is_merged_or_kept_on_purpose(tmp_path):
    db = open_db(tmp_path / "c.db")
    tables = {
        name
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith(("sqlite_", "listings_fts"))
    }
    assert tables == set(MERGED_TABLES) | set(OWN_TABLES)


@pytest.mark.slow  # runs the CLI as a subprocess
def test_a_catalogue_merge_cannot_take_is_one_sentence(tmp_path):
    good = tmp_path / "good.db"
    open_db(good).conn.close()
    newer = tmp_path / "newer.db"
    db = open_db(newer)
    db.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('agentdex', 'm999_x', '')")
    db.conn.commit()
    db.conn.close()
    (tmp_path / "notes.db").write_text("not a database")
    cases = {
        "missing.db": "no catalogue at",
        "notes.db": "as an SQLite database: file is not a database",
        "newer.db": "newer than this agentdex understands",
        "out.db": "is the catalogue being merged into",
    }
    open_db(tmp_path / "out.db").conn.close()
    for name, words in cases.items():
        done = agentdex("merge", str(tmp_path / "out.db"), str(good), str(tmp_path / name))
        assert done.returncode == 1, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr
        assert "the 1 catalogue(s) before it are merged" in done.stderr


@pytest.mark.slow  # runs the CLI as a subprocess
def test_a_catalogue_of_an_older_schema_is_migrated_and_merged(tmp_path):
    from sqlite_utils import Database

    from agentdex.db.migrations import migrations

    path, at = tmp_path / "m009.db", "2025-06-01T00:00:00.000Z"
    old = Database(path)
    migrations.apply(old, stop_before="m010_x402_live")
    old.execute(
        "INSERT INTO listings (origin, status, name, first_seen_at, last_crawled_at) "
        "VALUES ('old.example', 'listed', 'Sourdough Starter', ?, ?)",
        [at, at],
    )
    old.execute(
        "INSERT INTO checks (origin, name, status, checked_at) VALUES ('old.example', 'mcp.tools', 'fail', ?)", [at]
    )
    old.conn.commit()
    old.close()
    done = agentdex("merge", str(tmp_path / "out.db"), str(path))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "out.db") as conn:
        assert conn.execute("SELECT origin, name FROM listings").fetchall() == [("old.example", "Sourdough Starter")]
        assert conn.execute("SELECT origin FROM listings_fts WHERE listings_fts MATCH 'sourdough'").fetchall() == [
            ("old.example",)
        ]
        assert conn.execute("SELECT name, status FROM checks").fetchall() == [("mcp.tools", "fail")]

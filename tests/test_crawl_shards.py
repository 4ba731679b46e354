"""``crawl --shard I/N``: a sweep split over machines by a stable hash of each origin.

The hash is pinned (a shard must choose the same origins on every machine, Python and run),
every origin belongs to exactly one shard however it is typed or repeated, ``auto/N`` reads
the schedulers' index variables, and a bad value is one sentence. Over real sockets (the
sample web over TLS, the CLI in its own process): four shards crawl every origin exactly
once between them, and a shard run again asks nothing new of the web it did not already know.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections import Counter

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.options import Shard, parse_shard, shard_of
from agentdex.errors import InputError
from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env


def test_the_shard_of_an_origin_is_pinned_to_sha256_of_its_normalised_form():
    # Changing the hash would move origins between shards of sweeps already under way.
    assert [shard_of(o, 4) for o in ("pantry.test", "site-00001.synthetic.test", "example.com:8443")] == [3, 1, 3]
    assert shard_of("pantry.test", 1000) == 639


def test_one_origin_however_typed_belongs_to_one_shard():
    forms = ["pantry.test", "PANTRY.test", "https://Pantry.test/x?y", "pantry.test.", "https://pantry.test:443/"]
    assert len({shard_of(form, 7) for form in forms}) == 1
    assert shard_of("pantry.test:8443", 1) == 0


def test_every_origin_is_in_exactly_one_of_n_shards():
    origins = [f"site-{i:05}.synthetic.test" for i in range(400)]
    shards = [Shard(i, 4) for i in range(4)]
    assert all(sum(s.owns(o) for s in shards) == 1 for o in origins)
    sizes = Counter(shard_of(o, 4) for o in origins)
    assert sorted(sizes) == [0, 1, 2, 3] and min(sizes.values()) > 60  # spread, not all in one


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"JOB_COMPLETION_INDEX": "2"}, Shard(2, 4)),
        ({"SLURM_ARRAY_TASK_ID": "3"}, Shard(3, 4)),
        ({"JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "3"}, Shard(0, 4)),
    ],
)
def test_auto_reads_the_index_a_scheduler_gives(environ, expected):
    assert parse_shard("auto/4", environ) == expected


@pytest.mark.parametrize(
    ("text", "environ", "words"),
    [
        ("auto/4", {}, "neither is set"),
        ("auto/4", {"JOB_COMPLETION_INDEX": "4"}, "JOB_COMPLETION_INDEX is 4, not an index from 0 to 3"),
        ("auto/4", {"SLURM_ARRAY_TASK_ID": "٣"}, "SLURM_ARRAY_TASK_ID is '٣'"),
        ("4/4", {}, "the index is 4, not an index from 0 to 3"),
        ("1/0", {}, "the count must be from 1"),
        ("-1/4", {}, "takes INDEX/COUNT"),
        ("1/٤", {}, "takes INDEX/COUNT"),
        ("half", {}, "takes INDEX/COUNT"),
    ],
)
def test_a_bad_shard_is_a_sentence(text, environ, words):
    with pytest.raises(InputError, match=words):
        parse_shard(text, environ)


def test_a_bad_shard_on_the_command_line_exits_2_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    result = CliRunner().invoke(app, ["crawl", "--db", str(tmp_path / "c.db"), "--shard", "auto/4", "example.com"])
    assert result.exit_code == 2
    assert "--shard auto/4 reads its index from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID" in result.output
    assert not (tmp_path / "c.db").exists()  # refused before anything was written


def _crawl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentdex", "crawl", "--json", *args],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _origins(path) -> list[str]:
    """Every origin the catalogue holds, an empty one's compact row (agentdex.db.empty) too."""
    with sqlite3.connect(path) as conn:
        return sorted(
            row[0] for row in conn.execute("SELECT origin FROM listings UNION SELECT origin FROM empty_origins")
        )


@pytest.mark.slow
def test_four_shards_crawl_every_origin_of_a_seeds_file_exactly_once(tmp_path):
    with SampleWeb(synthetic=12) as web:
        hosts = list(web.synthetic.hosts)
        seeds = tmp_path / "s.txt"
        # repeats and other spellings of one origin go to the same shard, once
        seeds.write_text("\n".join([*hosts, *(h.upper() for h in hosts[:4]), f"https://{hosts[0]}/x"]) + "\n")
        for i in range(4):
            done = _crawl(
                "--db", str(tmp_path / f"shard-{i}.db"), *web.cli_args(), "--seeds", str(seeds), "--shard", f"{i}/4"
            )
            assert done.returncode == 0, done.stderr
        asked = Counter(r.host for r in web.requests_log if r.path == "/.well-known/agent-app.json")
        shards = [_origins(tmp_path / f"shard-{i}.db") for i in range(4)]
        web.requests_log.clear()
        again = _crawl("--db", str(tmp_path / "shard-1.db"), *web.cli_args(), "--seeds", str(seeds), "--shard", "1/4")
        asked_again = {r.host for r in web.requests_log}
    assert asked == dict.fromkeys(hosts, 1)  # every origin, by one shard, once
    assert sorted(o for share in shards for o in share) == sorted(hosts)
    assert all(o in shards[shard_of(o, 4)] for o in hosts)
    assert again.returncode == 0, again.stderr
    assert _origins(tmp_path / "shard-1.db") == shards[1]  # run again: the same origins, no other
    assert asked_again <= set(shards[1])


CATALOG = {  # an AI Catalog on catalog.test naming a card on another origin, cards.test
    "specVersion": "1.0",
    "host": {"displayName": "Catalog Kitchen"},
    "entries": [
        {
            "identifier": "urn:air:cards.test:mcp:weather",
            "displayName": "Weather",
            "type": "application/mcp-server-card+json",
            "url": "https://cards.test/cards/weather.json",
        }
    ],
}
CARD = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    "name": "test.cards/weather",
    "version": "1.0.0",
    "description": "The weather server.",
    "remotes": [{"type": "streamable-http", "url": "https://cards.test/mcp"}],
}


@pytest.mark.slow
@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_shard_follows_an_ai_catalog_only_to_its_own_origins(tmp_path, processes):
    import json

    for host, path, doc in (
        ("catalog.test", ".well-known/ai-catalog.json", CATALOG),
        ("cards.test", "cards/weather.json", CARD),
    ):
        (tmp_path / "web" / host / path).parent.mkdir(parents=True)
        (tmp_path / "web" / host / path).write_text(json.dumps(doc), "utf-8")
    count = next(n for n in range(2, 50) if shard_of("catalog.test", n) != shard_of("cards.test", n))
    index = shard_of("catalog.test", count)
    mine = f"{index}/{count}"
    # a second origin of the same shard, so that --processes 2 deals the shard to two processes
    other = next(h for h in (f"other{k}.test" for k in range(1000)) if shard_of(h, count) == index)
    (tmp_path / "web" / other).mkdir(parents=True)
    with SampleWeb(tmp_path / "web", dns=False) as web:
        args = [*web.cli_args(), "--processes", processes, "catalog.test", other]
        whole = _crawl("--db", str(tmp_path / "whole.db"), *args)
        web.requests_log.clear()
        shard = _crawl("--db", str(tmp_path / "shard.db"), *args, "--shard", mine)
        asked = {r.host for r in web.requests_log}
    assert whole.returncode == 0 and shard.returncode == 0, shard.stderr
    assert "cards.test" in _origins(tmp_path / "whole.db")  # unsharded, the catalog's origin is followed
    assert _origins(tmp_path / "shard.db") == sorted(["catalog.test", other]) and "cards.test" not in asked
    with sqlite3.connect(tmp_path / "shard.db") as conn:  # but recorded as named, for its own shard
        assert ("cards.test",) in conn.execute("SELECT origin FROM seed_sources").fetchall()

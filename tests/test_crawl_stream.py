"""``crawl --seeds`` streams its file: the crawl starts on the first lines while the rest is
still to come, reads at most a bounded queue ahead of the crawl, takes each origin once
however often the file repeats it, filters ``--shard`` as it reads, and tells a bad line by
its number without ending the crawl; the progress says how many origins are done, of how many
known so far, and at what rate.

Streaming is proven by behaviour, not by timing or memory: a FIFO the test writes the seeds
into, holding back all but the first lines until the first origin has been crawled.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agentdex.crawler.feed import BadLine, Feed, Hooks, Seed
from agentdex.crawler.options import Shard, shard_of
from agentdex.crawler.seedlines import LINE_BYTES, SeedLines
from agentdex.db import open_db
from agentdex.db.seeds import census_endpoints
from agentdex.sampleweb.server import SampleWeb
from tests.conftest import cli_env
from tests.waiting import eventually, wait_for

MANIFEST = "/.well-known/agent-app.json"


async def _all(feed: Feed) -> list[str]:
    taken = []
    while (origin := await feed.take()) is not None:
        taken.append(origin)
    return taken


async def test_a_feed_reads_a_bounded_queue_ahead_of_the_crawl():
    read = []

    def lines():
        for i in range(5_000):
            read.append(i)
            yield f"site-{i}.example"

    feed = Feed(lines(), ahead=8)
    feed.start()
    assert await eventually(lambda: feed.count == 8)  # eight read and waiting to be crawled
    assert len(read) <= 9 and feed.reading  # the reader waits for the crawl: one more in hand at most
    assert await _all(feed) == [f"site-{i}.example" for i in range(5_000)]
    assert not feed.reading and feed.count == 5_000
    feed.close()


async def test_a_feed_takes_each_origin_once_and_follows_only_new_ones():
    repeated = (f"site-{i % 300}.example" for i in range(3_000))
    feed = Feed(repeated, ahead=16)
    feed.start()
    first = await feed.take()
    assert await eventually(lambda: feed.count >= 16)  # site-5 read already: it is not followed again
    assert feed.follow(["site-5.example", "elsewhere.example", "elsewhere.example"]) == 1
    rest = await _all(feed)
    assert [first, *rest] == ["site-0.example", "elsewhere.example", *(f"site-{i}.example" for i in range(1, 300))]
    assert feed.count == 301
    assert feed.follow(["site-299.example"]) == 0  # read since: not taken again
    feed.close()


async def test_a_feed_keeps_a_shards_origins_and_hands_on_bad_lines_and_endpoints():
    shard, refused, declared, known = Shard(1, 3), [], [], []
    items = [
        BadLine("s.txt, line 1", "not an origin"),
        *(f"o{i}.example" for i in range(60)),
        Seed("o1.example", ({"url": "https://o1.example/mcp"},)),
    ]
    hooks = Hooks(declare=declared.extend, refused=refused.append, known=lambda n, more: known.append((n, more)))
    feed = Feed(iter(items), hooks, owns=shard.owns)
    feed.start()
    taken = await _all(feed)
    mine = [f"o{i}.example" for i in range(60) if shard_of(f"o{i}.example", 3) == 1]
    assert list(dict.fromkeys(taken)) == mine
    assert Counter(taken) - Counter(mine) == Counter(list(feed.late))  # o1.example again if its crawl began first
    assert refused == [items[0]]
    assert declared == ([{"url": "https://o1.example/mcp"}] if shard.owns("o1.example") else [])
    assert known[-1] == (len(taken), False)  # the total is known once the reading is over
    feed.close()


async def test_an_origin_whose_endpoint_line_comes_after_its_crawl_began_is_taken_once_more_at_the_end():
    endpoint = ({"url": "https://a.example/mcp"},)
    items = ["a.example", "b.example", *(f"o{i}.example" for i in range(40)), Seed("b.example", endpoint)]
    items += [Seed("a.example", endpoint), Seed("a.example", ({"url": "https://a.example/v2/mcp"},))]
    declared = []
    feed = Feed(iter(items), Hooks(declare=declared.extend), ahead=4)
    feed.start()
    first = await feed.take()  # a.example's crawl begins before its endpoint lines are read
    rest = await _all(feed)
    # Four read ahead at most: both were taken long before their endpoint lines were read.
    assert list(feed.late) == ["b.example", "a.example"]  # a.example once, whatever its lines
    once = ["a.example", "b.example", *(f"o{i}.example" for i in range(40))]
    assert [first, *rest][: len(once) - 4] == once[:-4]
    assert Counter([first, *rest]) == Counter([*once, "b.example", "a.example"])
    assert feed.count == 44 and len(declared) == 3  # every line's endpoint recorded
    feed.close()


async def test_a_feed_whose_recording_fails_ends_the_run_with_that_error():
    def full_disk(rows):
        raise OSError("database or disk is full")

    seeds = iter([Seed("a.example"), Seed("b.example", ({"url": "https://b.example/mcp"},)), Seed("c.example")])
    feed = Feed(seeds, Hooks(declare=full_disk))
    feed.start()
    taken = []
    with pytest.raises(OSError, match="disk is full"):
        while (origin := await feed.take()) is not None:
            taken.append(origin)
    assert taken in ([], ["a.example"])  # never an origin past the failure
    feed.close()


def test_seed_lines_tell_each_bad_line_by_number_and_go_on(tmp_path):
    seeds = tmp_path / "seeds.txt"
    long_line = b"a" * (LINE_BYTES + 10) + b".example\n"
    endpoint = "shared.example mcp=https://shared.example/{}/mcp name=io.github.acme/{}"
    lines = [
        b"\xef\xbb\xbfone.example # a BOM and a comment",
        b"",
        b"host!!",
        long_line.rstrip(b"\n"),
        b"caf\xe9.example",
    ]
    lines += [endpoint.format(x, x).encode() for x in "ab"] + [b"two.example", b"localhost"]
    seeds.write_bytes(b"\n".join(lines) + b"\n")
    items = list(SeedLines(seeds))
    assert [i.where if isinstance(i, BadLine) else i.origin for i in items] == [
        *(f"{seeds}, line {n}" for n in (3, 4, 5)),
        "one.example",
        "shared.example",
        f"{seeds}, line 9",
        "two.example",
    ]
    assert [i.reason.split(" (")[0] for i in items if isinstance(i, BadLine)] == [
        "not an origin: 'host!!' cannot be a host name",
        f"a line over {LINE_BYTES:,} bytes",
        "not UTF-8",
        "localhost is no public origin",
    ]
    shared = next(i for i in items if isinstance(i, Seed) and i.origin == "shared.example")
    assert [e["url"] for e in shared.endpoints] == ["https://shared.example/a/mcp", "https://shared.example/b/mcp"]
    assert items[5].not_public and not items[0].not_public


def _big_seeds(count: int) -> list[str]:
    """``count`` names the synthetic web does not serve (each answers 404 to every path)."""
    return [f"site-{1_000_000 + i}.synthetic.test" for i in range(count)]


@pytest.mark.slow
def test_crawl_starts_on_a_fifos_first_lines_and_streams_the_rest_of_a_big_seeds_file(tmp_path):
    fifo, db, told = tmp_path / "seeds.fifo", tmp_path / "c.db", tmp_path / "stderr.txt"
    os.mkfifo(fifo)
    with SampleWeb(synthetic=3) as web:
        first = web.synthetic.hosts[0]
        shard = Shard(shard_of(first, 2_000), 2_000)  # about 25 of the 50,000 lines: a few crawled
        lines = [first, "host!!", first, *_big_seeds(50_000), first.upper(), "host!!", *web.synthetic.hosts[1:]]
        wanted = list(dict.fromkeys(o.lower() for o in lines if o != "host!!" and shard.owns(o)))
        args = [*web.cli_args(), "--seeds", str(fifo), "--shard", str(shard), "--db", str(db), "--no-verify", "--json"]
        with told.open("wb") as stderr:
            crawl = subprocess.Popen(
                [sys.executable, "-m", "agentdex", "crawl", *args], env=cli_env(), stdout=subprocess.PIPE, stderr=stderr
            )
            with fifo.open("w") as seeds:
                seeds.write("".join(f"{line}\n" for line in lines[:4]))
                seeds.flush()
                # The first origin is crawled while 50,000 lines are still to be written.
                wait_for(lambda: "[1/" in told.read_text())
                assert [r.host for r in web.requests_log if r.path == MANIFEST] == [first]
                seeds.write("".join(f"{line}\n" for line in lines[4:]))
            out, _ = crawl.communicate(timeout=300)
        asked = Counter(r.host for r in web.requests_log if r.path == MANIFEST)
    assert crawl.returncode == 0, told.read_text()
    summary = json.loads(out)
    assert summary["origins"] == len(wanted) and summary["refused_lines"] == 2
    assert asked == dict.fromkeys(wanted, 1)  # the shard's origins, each once, whatever the repeats
    stderr_lines = told.read_text().splitlines()
    bad = [number for number, line in enumerate(lines, 1) if line == "host!!"]
    assert [line.split(": not an origin")[0] for line in stderr_lines if "host!!" in line] == [
        f"{fifo}, line {number}" for number in bad
    ]
    progress = [line for line in stderr_lines if line.startswith("[")]
    assert re.fullmatch(rf"\[1/\d+\+\] {re.escape(first)} listed \(\d+\.\d/s\)", progress[0])  # more to come
    assert [int(line[1:].split("/")[0]) for line in progress] == list(range(1, len(wanted) + 1))
    assert re.fullmatch(rf"\[{len(wanted)}/{len(wanted)}\+?\] \S+ \w+ \(\d+\.\d/s\)", progress[-1])


def mcp_site(*paths: str) -> dict:
    """A sample-web site serving an MCP server (the SDK's) at each of ``paths``, and no manifest."""
    tool = {"name": "look_up", "description": "Look a word up for the user.", "kind": "read"}
    return {"paths": {path: {"app": "mcp", "options": {"name": "Late", "tools": [tool]}} for path in paths}}


@pytest.mark.slow
def test_an_endpoint_line_far_from_its_origins_first_is_probed_in_the_same_run(tmp_path):
    fifo, db, told, root = tmp_path / "seeds.fifo", tmp_path / "c.db", tmp_path / "stderr.txt", tmp_path / "web"
    (root / "late.test").mkdir(parents=True)
    (root / "late.test" / "_site.json").write_text(json.dumps(mcp_site("/alpha/mcp", "/beta/mcp")))
    alpha, beta = "https://late.test/alpha/mcp", "https://late.test/beta/mcp"
    os.mkfifo(fifo)
    with SampleWeb(root, empty=3, dns=False) as web:
        args = [*web.cli_args(), "--seeds", str(fifo), "--db", str(db), "--json"]
        with told.open("wb") as stderr:
            crawl = subprocess.Popen(
                [sys.executable, "-m", "agentdex", "crawl", *args], env=cli_env(), stdout=subprocess.PIPE, stderr=stderr
            )
            empty = web.synthetic.empty_hosts
            with fifo.open("w") as seeds:
                # An origin's adjacent lines are read together: the next line ends late.test's.
                seeds.write(f"late.test mcp={alpha} name=test.late/alpha\n{empty[0]}\n")
                seeds.flush()
                wait_for(lambda: "[1/" in told.read_text())  # late.test crawled before the rest is written
                seeds.write("".join(f"{host}\n" for host in empty[1:]) + f"late.test mcp={beta} name=test.late/beta\n")
            out, _ = crawl.communicate(timeout=300)
        probed = Counter(r.path for r in web.requests_log if r.host == "late.test" and r.method == "POST")
    assert crawl.returncode == 0, told.read_text()
    assert json.loads(out)["origins"] == 1 + len(empty) + 1  # late.test once more, at the end
    assert probed[urlsplit(beta).path] > 0  # probed in this run, not only by the next crawl
    states = {r["url"]: r["census"] for r in census_endpoints(open_db(db, readonly=True))}
    assert states[alpha] == states[beta] == "open"


@pytest.mark.slow
def test_processes_take_a_streamed_seeds_file_each_origin_once(tmp_path):
    seeds, db = tmp_path / "seeds.txt", tmp_path / "c.db"
    with SampleWeb(synthetic=24) as web:
        hosts = web.synthetic.hosts
        seeds.write_text("\n".join([*hosts, *hosts[::3], *_big_seeds(40)]) + "\n")
        done = subprocess.run(
            [sys.executable, "-m", "agentdex", "crawl", *web.cli_args(), "--seeds", str(seeds), "--db", str(db)]
            + ["--no-verify", "--json", "--processes", "2", "--concurrency", "8", "--quiet"],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        asked = Counter(r.host for r in web.requests_log if r.path == MANIFEST)
    assert done.returncode == 0, done.stderr
    assert asked == dict.fromkeys([*hosts, *_big_seeds(40)], 1)
    summary = json.loads(done.stdout)
    assert summary["origins"] == 64 and summary["by_status"]["listed"] == 24


def test_a_seeds_file_that_cannot_be_opened_is_refused_before_the_crawl(tmp_path):
    from typer.testing import CliRunner

    from agentdex.cli import app

    result = CliRunner().invoke(app, ["crawl", "--seeds", str(tmp_path / "none.txt"), "--db", str(tmp_path / "c.db")])
    assert result.exit_code == 2 and "cannot read seeds file" in result.output
    assert not Path(tmp_path / "c.db").exists()


def test_standard_input_is_streamed_too_and_its_bad_lines_are_told_by_number(tmp_path):
    from typer.testing import CliRunner

    from agentdex.cli import app

    db = tmp_path / "c.db"
    result = CliRunner().invoke(app, ["crawl", "--seeds", "-", "--db", str(db), "--json"], input="# none\nhost!!\n")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("standard input, line 2: not an origin: 'host!!'")
    assert json.loads(result.stdout)["refused_lines"] == 1

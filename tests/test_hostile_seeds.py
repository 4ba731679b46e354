"""A hostile MCP registry and hostile seed files against ``agentdex seeds``, over real HTTPS on
loopback (the fault server of ``netfixtures``) and real files: pages of huge names with a fresh
cursor each time, a cursor that never ends, pages that take their time, a page that fails half
way, and an entry whose official ``_meta`` has the wrong types. Each read is cut at a budget,
says so and exits 1, keeps what it read and never moves ``updated_since``; a bad entry is
refused alone."""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from typer.testing import CliRunner

from agentdex import seeds
from agentdex.cli import app
from netfixtures import Reply, Request, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401
from waiting import eventually

REGISTRY = "registry:https://a.test"
PAGES = "/v0.1/servers"


def origins_of(stdout: str) -> list[str]:
    """The origins of seeds' lines, once each (a registry remote's line carries its endpoint)."""
    return list(dict.fromkeys(line.split()[0] for line in stdout.splitlines()))


def invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def entry(name: str, url: str, **official) -> dict:
    meta = {"status": "active", "updatedAt": "2026-09-01T00:00:00Z", **official}
    return {
        "server": {"name": name, "version": "1.0.0", "remotes": [{"type": "streamable-http", "url": url}]},
        "_meta": {"io.modelcontextprotocol.registry/official": meta},
    }


def net(server, tmp_path: Path) -> list[str]:
    return [
        "--connect-to",
        f"a.test:127.0.0.1:{server.port}",
        "--ca-bundle",
        str(server.ca_path),
        "--db",
        str(tmp_path / "c.db"),
    ]


def page_number(request: Request) -> int:
    return int(parse_qs(request.query).get("cursor", ["0"])[0])


def cursors(tmp_path: Path) -> dict[str, str]:
    with sqlite3.connect(tmp_path / "c.db") as db:
        return dict(db.execute("SELECT source, updated_since FROM seed_cursors"))


def named_origins(tmp_path: Path) -> set[str]:
    with sqlite3.connect(tmp_path / "c.db") as db:
        return {row[0] for row in db.execute("SELECT origin FROM seed_sources WHERE origin IS NOT NULL")}


def cut_of(stdout: str) -> dict:
    return next(d for d in json.loads(stdout) if d.get("cut"))


def test_an_endless_cursor_is_cut_at_the_page_budget_says_so_and_saves_no_cursor(tls_server, tmp_path, monkeypatch):
    monkeypatch.setattr(seeds, "MAX_PAGES", 5)

    async def endless(request: Request) -> Reply:
        n = page_number(request)
        return json_reply(
            {
                "servers": [entry(f"test.page/p{n}", f"https://p{n}.example.com/mcp")],
                "metadata": {"nextCursor": str(n + 1)},
            }
        )

    tls_server.routes[PAGES] = endless
    result = invoke("seeds", REGISTRY, "--json", *net(tls_server, tmp_path))
    assert result.exit_code == 1, result.output
    assert "cut short after 5 page(s)" in result.stderr and "page budget" in result.stderr
    cut = cut_of(result.stdout)
    assert cut["cut"] == REGISTRY and cut["pages"] == 5 and "page budget" in cut["reason"]
    assert [d["origin"] for d in json.loads(result.stdout) if d["origin"]] == [f"p{n}.example.com" for n in range(5)]
    assert cursors(tmp_path) == {}  # the next run must not skip what was never read


def test_pages_of_huge_names_are_cut_at_the_byte_budget_each_name_refused_alone(tls_server, tmp_path, monkeypatch):
    """Each page: one good server and one whose name is 1 MB (a few KB gzipped), then a fresh cursor."""
    monkeypatch.setattr(seeds, "READ_BYTES", 2_500_000, raising=False)
    monkeypatch.setattr(seeds, "MAX_PAGES", 8)

    async def huge(request: Request) -> Reply:
        n = page_number(request)
        servers = [
            entry(f"test.good/g{n}", f"https://g{n}.example.com/mcp"),
            entry("x/" + "n" * 1_000_000, "https://huge.example.com/mcp"),
        ]
        body = gzip.compress(json.dumps({"servers": servers, "metadata": {"nextCursor": str(n + 1)}}).encode())
        return Reply(200, body, {"Content-Encoding": "gzip"})

    tls_server.routes[PAGES] = huge
    result = invoke("seeds", REGISTRY, *net(tls_server, tmp_path))
    assert result.exit_code == 1, result.output
    assert "byte budget" in result.stderr
    assert set(origins_of(result.stdout)) == {"g0.example.com", "g1.example.com"}  # the third page passes the budget
    refusals = [ln for ln in result.stderr.splitlines() if ln.startswith("refused")]
    assert len(refusals) == 2 and all("server.name: String should have at most 200 characters" in ln for ln in refusals)
    assert "huge.example.com" not in named_origins(tmp_path)


def test_slow_pages_cannot_outlast_the_read_budget(tls_server, tmp_path):
    """Three pages answer and name a next one; the fourth is still inside --timeout 120 when
    the read's own budget ends (it answers only when the server stops)."""

    async def slow(request: Request) -> Reply:
        n = page_number(request)
        if n >= 3:
            await asyncio.get_running_loop().create_future()  # the server's stop cancels it
        return json_reply(
            {
                "servers": [entry(f"test.slow/s{n}", f"https://s{n}.example.com/mcp")],
                "metadata": {"nextCursor": str(n + 1)},
            }
        )

    tls_server.routes[PAGES] = slow
    result = invoke("seeds", REGISTRY, "--read-budget", "3", "--timeout", "120", "--json", *net(tls_server, tmp_path))
    assert result.exit_code == 1, result.output
    assert "time budget" in cut_of(result.stdout)["reason"] and "time budget" in result.stderr
    assert {"s0.example.com", "s1.example.com", "s2.example.com"} <= named_origins(tmp_path)
    assert cursors(tmp_path) == {}


def test_pages_are_written_as_they_arrive_and_a_failing_page_keeps_them(tls_server, tmp_path):
    """The second page answers only once the first one's origin is in the catalogue (or, after
    20 s, never): then fails with a 500."""
    db = tmp_path / "c.db"

    async def stream(request: Request) -> Reply:
        if page_number(request) == 0:
            return json_reply(
                {"servers": [entry("test.first/one", "https://first.example.com/mcp")], "metadata": {"nextCursor": "1"}}
            )

        async def first_written() -> bool:
            return db.exists() and "first.example.com" in await asyncio.to_thread(named_origins, tmp_path)

        if await eventually(first_written, timeout=20):
            return json_reply({"error": "overloaded"}, status=500)
        return json_reply({"error": "the first page was never written"}, status=500)

    tls_server.routes[PAGES] = stream
    result = invoke("seeds", REGISTRY, *net(tls_server, tmp_path))
    assert result.exit_code == 1, result.output
    assert origins_of(result.stdout) == ["first.example.com"]
    assert "cut short after 1 page(s)" in result.stderr and "500" in result.stderr
    assert cursors(tmp_path) == {}


BAD_META = {"status": ["deleted"], "updatedAt": 5}


def test_an_entry_with_bad_official_meta_is_refused_alone_in_a_registry_page(tls_server, tmp_path):
    servers = [
        entry("test.good/before", "https://before.example.com/mcp"),
        entry("test.bad/meta", "https://bad.example.com/mcp", **BAD_META),
        entry("test.good/after", "https://after.example.com/mcp", updatedAt="2026-09-03T00:00:00Z"),
    ]

    async def page(request: Request) -> Reply:
        return json_reply({"servers": servers, "metadata": {}})

    tls_server.routes[PAGES] = page
    result = invoke("seeds", REGISTRY, *net(tls_server, tmp_path))
    assert result.exit_code == 0, result.output
    assert origins_of(result.stdout) == ["before.example.com", "after.example.com"]  # the order read
    line = next(ln for ln in result.stderr.splitlines() if "test.bad/meta" in ln)
    assert "not a registry entry" in line and "official].status" in line
    assert cursors(tmp_path) == {REGISTRY: "2026-09-03T00:00:00Z"}  # a whole read moves it


@pytest.mark.parametrize("shape", ["page", "ndjson"])
def test_an_entry_with_bad_official_meta_is_refused_alone_in_a_saved_file(tmp_path, shape):
    servers = [
        entry("test.good/before", "https://before.example.com/mcp"),
        entry("test.bad/meta", "https://bad.example.com/mcp", **BAD_META),
        entry("test.good/after", "https://after.example.com/mcp"),
    ]
    path = tmp_path / f"saved.{shape}"
    text = json.dumps({"servers": servers}) if shape == "page" else "\n".join(json.dumps(s) for s in servers)
    path.write_text(text, encoding="utf-8")
    result = invoke("seeds", str(path), "--json", "--db", str(tmp_path / "c.db"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [d["origin"] for d in data if d["origin"]] == ["before.example.com", "after.example.com"]  # the order read
    refused = [d for d in data if d["origin"] is None]
    assert [r["sources"][0]["name"] for r in refused] == ["test.bad/meta"]
    assert "status: Input should be a valid string" in refused[0]["reason"]

"""A fresh ``ttlMs`` from ``server/discover`` stands in for a probe (issue 33, item 1's
caching hint, SEP-2549 of revision 2026-07-28), as HTTP freshness does for documents: a
crawl within it sends the endpoint nothing and keeps the stored MCP checks, marked as
served from freshness; ``--revalidate`` probes all the same; a ttlMs of 0 (the SDK's
default) is never fresh. Real SDK servers (``mcp`` 2.3.0) behind the sample web's TLS."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.sampleweb import SampleWeb

pytestmark = pytest.mark.slow  # starts the sample web and its MCP servers

FRESH, STALE = "t-ttlmcp.test", "t-legacycard.test"


def crawl(web: SampleWeb, db: Path, *extra: str) -> None:
    result = CliRunner().invoke(app, ["crawl", FRESH, STALE, "--db", str(db), *web.cli_args(), *extra])
    assert result.exit_code == 0, result.output


def discovers(web: SampleWeb, host: str) -> int:
    return web.requests_log.jsonrpc_methods(host).count("server/discover")


def obtained(db: Path, origin: str) -> dict[str, tuple]:
    with sqlite3.connect(db) as conn:
        sql = "SELECT name, status, json_extract(data, '$.obtained'), json_extract(data, '$.ttl_ms') FROM checks "
        rows = conn.execute(sql + "WHERE origin = ? AND name LIKE 'mcp.%'", [origin]).fetchall()
    return {name: rest for name, *rest in rows}


def test_a_fresh_ttl_stands_for_the_probe_until_revalidated(tmp_path):
    db = tmp_path / "c.db"
    with SampleWeb(dns=False) as web:
        crawl(web, db)
        first, stale = discovers(web, FRESH), discovers(web, STALE)
        assert first >= 1 and obtained(db, FRESH)["mcp.initialize"] == ["pass", None, 3600000]
        crawl(web, db)
        assert discovers(web, FRESH) == first  # within the hour: not asked
        assert obtained(db, FRESH)["mcp.initialize"] == ["pass", "fresh", 3600000]
        assert obtained(db, FRESH)["mcp.tools"][:2] == ["pass", "fresh"]
        assert discovers(web, STALE) > stale >= 1  # ttlMs 0: probed on each crawl
        crawl(web, db, "--revalidate")
        assert discovers(web, FRESH) > first
        assert obtained(db, FRESH)["mcp.initialize"][1] is None

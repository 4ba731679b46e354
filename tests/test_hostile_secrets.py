"""Secrets: a package that carries a secret value is refused and the value is stored
nowhere (no table, no blob, no finding, no event, no output); agentdex sends no credential
of its own, and one a caller gives never follows a redirect to another origin.
"""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.fetch import Fetcher
from agentdex.sampleweb.server import SampleWeb
from netfixtures import TLSServer, redirect, tls_ca, tls_server, tls_server_session  # noqa: F401
from test_format_adapp import SECRET, secret_package

CREDENTIAL_HEADERS = {
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
    "x-payment",
    "payment-signature",
}


def everything_stored(db: Path) -> bytes:
    """Every value of every table (blobs included), the WAL flushed first."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        dump = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                dump += [v if isinstance(v, bytes) else str(v).encode() for v in row]
    return b"\n".join(dump)


def test_a_package_with_a_secret_value_is_refused_and_the_value_is_stored_nowhere(tmp_path):
    leaky = tmp_path / "leaky.adapp"
    leaky.write_bytes(secret_package())
    db = tmp_path / "catalogue.db"
    runner = CliRunner()
    outputs = [runner.invoke(app, ["import", str(leaky), "--db", str(db), *extra]) for extra in ([], ["--json"])]
    assert all(r.exit_code == 1 for r in outputs), [r.output for r in outputs]
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(leaky) as archive:
        archive.extractall(folder)
    outputs.append(runner.invoke(app, ["import", str(folder), "--db", str(db)]))
    outputs += [
        runner.invoke(app, [*command, "--db", str(db)]) for command in (["list"], ["events"], ["list", "--json"])
    ]
    for result in outputs:
        assert SECRET not in result.output
    assert json.loads(outputs[1].stdout)["valid"] is False
    assert "secret_value" in outputs[1].stdout
    stored = everything_stored(db) + b"".join(p.read_bytes() for p in tmp_path.glob("catalogue.db*"))
    assert SECRET.encode() not in stored


@pytest.mark.slow
def test_a_whole_crawl_sends_no_credential_anywhere(tmp_path):
    with SampleWeb() as web:
        result = CliRunner().invoke(
            app,
            [
                "crawl",
                "--db",
                str(tmp_path / "c.db"),
                *web.cli_args(),
                "--registry",
                "https://registry.test",
                "vault.test",
                "keyring.test",
                "pantry.test",
                "tidewater.test",
                "t-paidmcp.test",
            ],
        )
        assert result.exit_code == 0, result.output
        sent = list(web.requests_log)
    assert len(sent) > 30
    assert not [
        (r.host, r.path, set(r.headers) & CREDENTIAL_HEADERS) for r in sent if set(r.headers) & CREDENTIAL_HEADERS
    ]


async def test_a_callers_credential_stays_with_its_origin_over_real_sockets(tls_server: TLSServer) -> None:  # noqa: F811
    async def away(request):
        return redirect("https://b.test/echo")

    tls_server.routes["/away"] = away
    async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, deadline=5) as fetcher:
        record = await fetcher.fetch(
            "https://a.test/away",
            kind="t",
            max_bytes=10_000,
            honour_robots=False,
            headers={"Authorization": "Bearer s3cret", "Cookie": "sid=1", "X-Api-Key": "k"},
        )
    seen = json.loads(record.body)["headers"]
    assert record.ok and record.final_url == "https://b.test/echo"
    assert not CREDENTIAL_HEADERS & set(seen) and "s3cret" not in json.dumps(seen)

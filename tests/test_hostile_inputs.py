"""What a user hands agentdex, made hostile: seed files nested 100,000 deep or holding a 1 MB
CSV cell, a 78 MB config file, nested TOML, a port written ``²`` in the config file, the
environment and the flag; and a header value a server wrote that agentdex echoes (a non-ASCII
``Mcp-Session-Id``, over real HTTPS on loopback). Each is one sentence (exit 2) or refused
alone, never a traceback."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.verify import Verifier
from netfixtures import Reply, Request, json_reply, tls_ca, tls_server, tls_server_session  # noqa: F401


def cli(*args, env: dict | None = None):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"AGENTDEX_CONFIG": "", **(env or {})})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def one_sentence(result, words: str) -> None:
    assert result.exit_code == 2, result.output
    assert words in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# -- seed files ----------------------------------------------------------------------------------
def test_a_seed_file_nested_100000_deep_is_one_sentence(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    one_sentence(cli("seeds", path, "--db", tmp_path / "c.db"), "nests deeper than agentdex reads")


def test_a_one_megabyte_csv_cell_is_refused_alone(tmp_path):
    path = tmp_path / "top.csv"
    path.write_text('1,example.com\n2,"' + "x" * 1_000_000 + '"\n3,pantry.test\n', "utf-8")
    result = cli("seeds", path, "--db", tmp_path / "c.db")
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["example.com", "pantry.test"]
    assert "line 2" in result.stderr and "a line over 4,096 bytes" in result.stderr


def test_a_bad_ndjson_line_and_a_rank_written_in_superscript_are_refused_alone(tmp_path):
    good = {"name": "ok", "url": "https://ok.example.com/"}
    path = tmp_path / "agents.ndjson"
    path.write_text(json.dumps(good) + "\n{not json\n" + json.dumps({**good, "url": "https://two.example.com/"}) + "\n")
    result = cli("seeds", path, "--db", tmp_path / "c.db")
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["ok.example.com", "two.example.com"]
    assert "line 2" in result.stderr and "not JSON" in result.stderr
    ranks = tmp_path / "ranks.csv"
    ranks.write_text("1,example.com\n²,superscript.example.com\n")
    assert cli("seeds", ranks, "--db", tmp_path / "c.db").stdout.split() == ["example.com"]


# -- config, environment, flags ------------------------------------------------------------------
def test_a_78_mb_config_file_is_refused_before_it_is_read(tmp_path):
    config = tmp_path / "config.toml"
    with config.open("wb") as fh:
        fh.write(b'timeout = 20.0\nconnect_to = ["')
        fh.truncate(78 * 1024 * 1024)  # sparse: 78 MB on paper, nothing on disk
    result = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)})
    one_sentence(result, "is over 65,536 bytes")


def test_nested_toml_is_one_sentence(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("connect_to = " + "[" * 20_000 + "]" * 20_000 + "\n", "utf-8")
    result = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)})
    one_sentence(result, "nests arrays or tables deeper than agentdex reads")


@pytest.mark.parametrize("port", ["²", "٥٣", "+443", "0", "65536"])
def test_a_port_that_is_no_ascii_number_is_one_sentence_wherever_it_is_written(tmp_path, port):
    rule = f"*.test:127.0.0.1:{port}"
    config = tmp_path / "config.toml"
    config.write_text(f'connect_to = ["{rule}"]\n', "utf-8")
    spellings = {
        "flag": cli("crawl", "pantry.test", "--connect-to", rule, "--db", tmp_path / "c.db"),
        "environment": cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONNECT_TO": rule}),
        "config file": cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)}),
    }
    for where, result in spellings.items():
        assert result.exit_code == 2, (where, result.output)
        assert "is not a port number" in result.stderr, (where, result.stderr)


def test_a_dns_server_port_in_other_digits_is_refused_in_the_config_file(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('dns_server = "127.0.0.1:٥٣٥٣"\n', "utf-8")
    result = cli("crawl", "pantry.test", "--db", tmp_path / "c.db", env={"AGENTDEX_CONFIG": str(config)})
    one_sentence(result, "key 'dns_server'")


# -- header values a server wrote ----------------------------------------------------------------
INIT = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "hand-made"}}


async def test_a_non_ascii_session_id_is_never_echoed_and_the_probe_ends_in_a_state(tls_server):
    """The server's initialize answer carries ``Mcp-Session-Id: sessé`` (a Latin-1 byte on the
    wire); the session's next requests go without it, and the server says what it thinks."""
    seen: list[str | None] = []

    async def mcp(request: Request) -> Reply:
        message = json.loads(request.body)
        seen.append(request.headers.get("mcp-session-id"))
        if message.get("method") == "initialize":
            answer = json_reply({"jsonrpc": "2.0", "id": message["id"], "result": INIT})
            answer.headers["Mcp-Session-Id"] = "sessé"
            return answer
        if "id" not in message:
            return Reply(202, b"", content_type=None)
        if message["method"] == "tools/list":
            return json_reply({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [{"name": "echo"}]}})
        return json_reply({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})

    tls_server.routes["/mcp"] = mcp
    async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, deadline=5.0) as fetcher:
        found = await Verifier(fetcher, None).probe("https://a.test/mcp", "streamable-http")
    assert "internal" not in found.detail and found.state == "ok", found.detail
    assert "sessé" not in seen and None in seen[1:]

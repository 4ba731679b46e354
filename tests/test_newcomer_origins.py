"""Issue 40, item 1 ("the newcomer, round 3"): one idea of an origin. ``crawl``, ``verify``,
``seeds``, a seeds file and the TUI's crawl dialog refuse ``localhost``, IP literals and
single-label names with the same sentence; a name the user routed with ``--connect-to`` is
their choice; ``verify`` adds nothing unless asked; a run that reached no origin says so and
exits 1; "not in the catalogue" is exit 1 in every command."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.sampleweb.server import SampleWeb
from agentdex.tui.app import AgentdexApp
from agentdex.tui.screens.crawl import CrawlScreen

REFUSED = {
    "localhost": "localhost is no public origin",
    "https://127.0.0.1:8443/": "an IP address is no origin: agentdex lists named hosts",
    "[::1]": "an IP address is no origin: agentdex lists named hosts",
    "intranet": "'intranet' is no public host name (it has a single label)",
}


def cli(*args, input: str | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def origins_in(path: Path) -> list[str]:
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT origin FROM listings ORDER BY origin")]


@pytest.fixture(scope="module")
def web():
    with SampleWeb() as served:
        yield served


@pytest.mark.parametrize(("typed", "sentence"), REFUSED.items())
def test_every_command_refuses_a_non_public_origin_with_the_same_sentence(tmp_path, typed, sentence):
    db = tmp_path / "a.db"
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"pantry.test\n{typed}\n")
    for args in (["crawl", typed], ["verify", typed], ["verify", "--add", typed]):
        result = cli(*args, "--db", db)
        assert result.exit_code == 2, (args, result.output)
        assert sentence in result.stderr and "--connect-to HOST:ADDR:PORT" in result.stderr, result.stderr
        assert "Traceback" not in result.output
    # A seeds file's line is told with the same sentence and skipped: a crawl of a million lines goes on.
    alone = tmp_path / "alone.txt"
    alone.write_text(f"{typed}\n")
    result = cli("crawl", "--seeds", alone, "--db", db)
    assert result.exit_code == 0 and f"alone.txt, line 1: {sentence}" in result.stderr, result.output
    assert "--connect-to HOST:ADDR:PORT" in result.stderr and result.stderr.rstrip().endswith("; skipped")
    seeds_run = cli("seeds", seeds, "--db", db)
    assert seeds_run.exit_code == 0 and seeds_run.stdout.split() == ["pantry.test"]
    assert sentence in seeds_run.stderr
    assert origins_in(db) == []  # no command stored a row for it


async def test_the_tui_crawl_dialog_refuses_it_with_the_same_sentence(tmp_path):
    app_ = AgentdexApp(tmp_path / "empty.db")
    async with app_.run_test(size=(100, 30)) as pilot:
        await app_.push_screen(CrawlScreen())
        await pilot.pause()
        app_.screen.query_one("#origins").value = "pantry.test localhost"
        await pilot.press("enter")
        await pilot.pause()
        shown = str(app_.screen.query_one("#crawl-error").render())
        assert "localhost: localhost is no public origin" in shown
        assert not app_.jobs  # no crawl started


def test_a_name_the_user_routed_with_connect_to_is_their_choice(tmp_path, web):
    """``--connect-to localhost:…`` names localhost on purpose: it is crawled (and here not
    reached, as no server answers there), and the run that reached nothing exits 1."""
    db = tmp_path / "a.db"
    result = cli("crawl", "localhost", "--connect-to", f"localhost:127.0.0.1:{free_port()}", "--db", db, "-q")
    assert result.exit_code == 1, result.output
    assert "no origin could be reached (1 unreachable)" in result.stderr
    assert "agentdex list --status unreachable --fields origin,status_detail" in result.stderr
    assert origins_in(db) == ["localhost"]


def test_a_run_that_reaches_one_origin_exits_0(tmp_path, web):
    db = tmp_path / "a.db"
    closed = f"closed.test:127.0.0.1:{free_port()}"
    result = cli("crawl", "pantry.test", "closed.test", *web.cli_args(), "--connect-to", closed, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert "could be reached" not in result.output


def test_verify_checks_the_catalogue_and_adds_only_when_asked(tmp_path, web):
    db = tmp_path / "a.db"
    assert cli("crawl", "pantry.test", *web.cli_args(), "--db", db, "-q").exit_code == 0
    refused = cli("verify", "pantry.test", "tidewater.test", *web.cli_args(), "--db", db)
    assert refused.exit_code == 1, refused.output
    assert "not in the catalogue: tidewater.test; crawl it first (agentdex crawl tidewater.test)" in refused.stderr
    assert origins_in(db) == ["pantry.test"]  # a check command added nothing
    known = cli("verify", "pantry.test", *web.cli_args(), "--db", db)
    assert known.exit_code == 0 and "manifest.location" in known.stdout
    added = cli("verify", "--add", "tidewater.test", *web.cli_args(), "--db", db, "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["checks"]["tidewater.test"]
    assert origins_in(db) == ["pantry.test", "tidewater.test"]


def test_not_in_the_catalogue_is_exit_1_in_every_command(tmp_path, web):
    db = tmp_path / "a.db"
    assert cli("crawl", "pantry.test", *web.cli_args(), "--db", db, "-q").exit_code == 0
    for args in (
        ["show", "nosuch.test"],
        ["plan", "nosuch.test"],
        ["events", "--origin", "nosuch.test"],
        ["forget", "nosuch.test", "--yes"],
        ["verify", "nosuch.test"],
    ):
        result = cli(*args, "--db", db)
        assert result.exit_code == 1, (args, result.output)
        assert "nosuch.test" in result.stderr and "not in the catalogue" in result.stderr, result.stderr


def test_an_unreachable_origin_keeps_saying_why_after_a_recrawl(tmp_path, web):
    """broken.test answers 500 on every crawl: the second crawl found the same answers and
    emptied the reason (its overview and `list --fields origin,status_detail` said nothing)."""
    db = tmp_path / "a.db"
    for _ in range(2):
        assert cli("crawl", "broken.test", *web.cli_args(), "--db", db, "-q").exit_code == 1  # nothing reached
    listed = cli("list", "--status", "unreachable", "--fields", "origin,status_detail", "--db", db)
    assert listed.stdout.startswith(
        "broken.test\tagent_app: https://broken.test/.well-known/agent-app.json answered 500"
    )
    shown = json.loads(cli("show", "broken.test", "--json", "--db", db).stdout)
    assert "answered 500 Internal Server Error" in shown["status_detail"]


def test_a_recrawl_counts_each_origin_under_its_status_and_says_where_failures_are(tmp_path, web):
    """ "1 listed, 32 unchanged" meant one changed listing; "43 error(s)" said nowhere where to look."""
    db = tmp_path / "a.db"
    args = ["pantry.test", "deadlinks.test", *web.cli_args(), "--db", db, "-q"]
    assert cli("crawl", *args).exit_code == 0
    again = cli("crawl", *args)
    head, counts = again.stdout.splitlines()[:2]
    assert re.search(r"— 2 listed \([12] of them unchanged since their last crawl\)$", head), head
    assert re.fullmatch(
        r"\d+ request\(s\), [1-9]\d* failed \(what failed for an origin: agentdex show ORIGIN\); "
        r"0 change event\(s\)",
        counts,
    ), counts


def test_a_text_file_is_unusable_input_to_validate_exit_2_as_its_help_says(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello world\n")
    result = cli("validate", notes)
    assert result.exit_code == 2 and "notes.txt is no manifest or discovery document" in result.stderr
    assert "2 unusable input" in cli("validate", "--help").stdout


def test_a_validation_error_reads_as_a_sentence_without_pydantic_s_prefix(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('dns_server = "nonsense"\n')
    monkeypatch.setenv("AGENTDEX_CONFIG", str(config))
    result = cli("crawl", "pantry.test", "--db", tmp_path / "a.db")
    assert result.exit_code == 2 and "key 'dns_server': expected ADDR:PORT" in result.stderr
    assert "Value error" not in result.stderr


def test_events_on_a_pipe_are_tab_separated_as_list_is_and_none_is_said_on_stderr(tmp_path, web):
    db = tmp_path / "a.db"
    assert cli("crawl", "pantry.test", *web.cli_args(), "--db", db, "-q").exit_code == 0
    events = cli("events", "--db", db)  # CliRunner's stdout is no terminal
    assert events.exit_code == 0
    at, origin, kind, change = events.stdout.splitlines()[0].split("\t")
    assert (origin, kind, change) == ("pantry.test", "listed", '∅ → "listed"') and at.startswith("20")
    empty = cli("events", "--since", "2999-01-01", "--db", db)
    assert empty.exit_code == 0 and empty.stdout == "" and empty.stderr == "no events\n"


def test_the_command_reference_states_the_exit_codes_the_commands_use():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text("utf-8")
    assert "## Exit codes and output" in doc
    assert (
        "an origin not in the catalogue (`show`, `plan`, `events --origin`, `forget`, `verify` without `--add`)" in doc
    )


def test_metadata_takes_the_catalogue_as_every_command_does(tmp_path, web):
    """Issue 40: metadata took the database positionally where every other command takes --db."""
    db = tmp_path / "my catalogue.db"
    assert cli("crawl", "pantry.test", *web.cli_args(), "--db", db, "-q").exit_code == 0
    by_option = cli("metadata", "--db", db)
    assert by_option.exit_code == 0 and '"my catalogue"' in by_option.stdout
    assert cli("metadata", db).stdout == by_option.stdout  # the earlier form still works
    both = cli("metadata", db, "--db", tmp_path / "other.db")
    assert both.exit_code == 2 and "two catalogues named" in both.stderr

"""Crawled text reaches the terminal inert: Rich/Textual markup, CSI, OSC 0/8/52, DCS and C1
controls in every field of a listing, its checks, tools and events are shown as plain
visible text (or dropped, for escape sequences) by every CLI command, piped (CliRunner and a
subprocess) or on a TTY (a pseudo-terminal), and by the TUI; bidi overrides, zero-width
and tag characters are shown as visible placeholders, and ``--json`` keeps the exact
value while writing nothing a terminal would act on.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.db import open_db, save_origin, start_crawl
from agentdex.models import Check, Listing, Tool
from agentdex.text import plain
from agentdex.tui.app import make_app
from db_records import listing_crawl
from test_tui_support import (
    SIZE,
    net,
    no_cursor_blink,
    open_listing,
    screen_text,
    settle,  # noqa: F401
    terminal_output,
    web,
)
from tests.conftest import cli_env

ORIGIN = "hostile.test"
SEQUENCES = {
    "CSI": "\x1b[2J\x1b[31m",
    "OSC 0 (title)": "\x1b]0;pwned\x07",
    "OSC 8 (link)": "\x1b]8;;https://evil.test\x1b\\",
    "OSC 52 (clipboard)": "\x1b]52;c;ZXZpbA==\x07",
    "DCS": "\x1bP+q544e\x1b\\",
    "C1 CSI": "\x9b31m",
    "C1 OSC": "\x9d0;pwned\x9c",
    "BEL": "\x07",
}
INVISIBLE = {
    "\u202e": "⟨U+202E⟩",
    "\u2066": "⟨U+2066⟩",
    "\u200b": "⟨U+200B⟩",
    "\u200d": "⟨U+200D⟩",
    "\U000e0041": "⟨U+E0041⟩",
}
MARKUP = "[@click=app.quit]x[/] [link=https://evil.test]y[/link] [bold"
HOSTILE = MARKUP + "".join(SEQUENCES.values()) + "".join(INVISIBLE) + " end"
LIVE = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\x90", *INVISIBLE)  # bytes a terminal would act on or hide


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("terminal") / "catalogue.db"
    listing = Listing(
        format="agent_app",
        origin=ORIGIN,
        name=HOSTILE,
        one_liner=HOSTILE,
        description=HOSTILE,
        homepage="https://hostile.test/",
        mcp_url="https://hostile.test/mcp",
        mcp_auth=["none"],
        instructions=HOSTILE,
        categories=["utilities"],
        tags=[HOSTILE],
        publisher_name=HOSTILE,
    )
    tools = [Tool(HOSTILE, description=HOSTILE, annotations={"title": HOSTILE}, source="mcp")]
    db = open_db(path)
    first = Listing.from_dict({**listing.to_dict(), "name": "Before", "one_liner": "Before"})
    save_origin(db, listing_crawl(first, origin=ORIGIN), start_crawl(db))
    # The second crawl changes the name and one-liner: change events carry the hostile text too.
    save_origin(
        db,
        listing_crawl(listing, origin=ORIGIN, checks=[Check("guide.reachable", "fail", HOSTILE)], mcp_tools=tools),
        start_crawl(db),
    )
    db.conn.close()
    return path


OWN_COLOUR = re.compile(r"\x1b\[(?:32|1;31|33|2)m(pass|fail|warn|skip)\x1b\[0m")
COMMANDS = [["list"], ["show", ORIGIN], ["events"], ["plan", ORIGIN], ["plan", ORIGIN, "--host", "claude_code"]]


def assert_inert(text: str) -> None:
    for live in LIVE:
        assert live not in text, f"{live!r} reached the terminal"
    assert "[@click=app.quit]x[/]" in text or "[@click=app.quit]x" in text  # markup shown as text


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_prints_crawled_text_inert(hostile_db, args):
    result = CliRunner().invoke(app, [*args, "--db", str(hostile_db)])
    assert result.exit_code == 0, result.output
    if args[0] != "plan":  # a plan names the app only where a host's config needs it
        assert_inert(result.stdout)
    for live in LIVE:
        assert live not in result.stdout


def test_invisible_characters_show_as_placeholders(hostile_db):
    shown = CliRunner().invoke(app, ["show", ORIGIN, "--db", str(hostile_db)]).stdout
    for placeholder in INVISIBLE.values():
        assert placeholder in shown
    assert "tool_invisible_text" in shown  # and the tool that carries them is flagged


@pytest.mark.parametrize("args", [["list"], ["show", ORIGIN], ["events"], ["plan", ORIGIN]], ids=" ".join)
def test_json_output_keeps_the_exact_value_and_writes_nothing_live(hostile_db, args):
    result = CliRunner().invoke(app, [*args, "--db", str(hostile_db), "--json"])
    assert result.exit_code == 0
    for live in LIVE:
        assert live not in result.stdout
    data = json.loads(result.stdout)
    if args[0] == "show":
        assert data["name"] == HOSTILE and data["tools"][0]["description"] == HOSTILE  # stored verbatim


def _env() -> dict[str, str]:
    return {**cli_env(), "TERM": "xterm-256color", "COLUMNS": "200"}


@pytest.mark.slow
@pytest.mark.parametrize("args", [["show", ORIGIN], ["list"]], ids=" ".join)
def test_a_real_process_on_a_pipe_and_on_a_tty_prints_the_same_inert_text(hostile_db, args):
    command = [sys.executable, "-m", "agentdex", *args, "--db", str(hostile_db)]
    piped = subprocess.run(command, capture_output=True, env=_env(), timeout=60, check=True)
    on_tty = _run_on_a_tty(command)
    # agentdex's own colour around a check's status word (issue 40: on a terminal only) is
    # no crawled text; with it taken out, nothing live may remain.
    ours = OWN_COLOUR.findall(on_tty)
    assert bool(ours) == (args[0] == "show"), ours
    for output in (piped.stdout.decode(), OWN_COLOUR.sub(r"\1", on_tty)):
        assert_inert(output)
    assert plain(HOSTILE, single_line=True) in piped.stdout.decode() or args[0] == "show"  # whole in a TSV cell


def _run_on_a_tty(command: list[str]) -> str:
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=_env())
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process ended and closed its side
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=30)
    os.close(leader)
    assert process.returncode == 0
    return b"".join(chunks).decode("utf-8", "replace")


async def test_the_tui_shows_placeholders_and_no_escape(hostile_db, net):  # noqa: F811
    tui = make_app(hostile_db, net)
    async with tui.run_test(size=SIZE) as pilot:
        await open_listing(tui, pilot, ORIGIN)
        text = screen_text(tui)
        assert "⟨U+202E⟩" in text and "[@click=app.quit]x[/]" in text
        output = terminal_output(tui)
        for live in ("\x1b]", "\x07", "\x9b", "\x9d", "\x1bP", *INVISIBLE):
            assert live not in output and live not in text
        await pilot.press("4")  # the tools tab
        await settle(pilot)
        assert "⟨U+200B⟩" in screen_text(tui) and tui.is_running

"""Issue 40, the TUI uses the width it has, in a real terminal (tmux) at 80x24 and 200x50,
compared by screen text: the keys a person needs (q Quit, e Events, ^n Crawl) are in the
footer of every screen at 80 columns; the table's long columns grow at 200 columns (a
category list was cut beside 60 empty columns) and shrink at 80; an open filter shows each
choice whole (``unreachable`` wrapped mid-word)."""

from __future__ import annotations

import re

import pytest

from agentdex.db import open_db
from agentdex.db.synthetic import fill_synthetic
from agentdex.tui.widgets.catalogue_table import columns_for
from tmux import TMUX, Terminal

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (.ci/run installs it with apt-get); these tests need a real terminal"
)
LISTINGS = 60
ESSENTIAL = ("q Quit", "e Events", "^n Crawl", "? Help")


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    path = tmp_path_factory.mktemp("widths") / "catalogue.db"
    db = open_db(path)
    fill_synthetic(db, LISTINGS)
    db.conn.close()
    return path


def shown(text: str) -> bool:
    return f"{LISTINGS} in the catalogue" in text


@pytest.fixture(params=[(80, 24), (200, 50)], ids=["80x24", "200x50"])
def terminal(catalogue, request):
    width, height = request.param
    term = Terminal(f"widths-{width}", width, height).start()
    term.run_tui(catalogue)
    term.wait_for(lambda text: shown(text) and "s Sort" in footer(text))  # the table has the focus
    yield term
    term.close()


def footer(text: str) -> str:
    return text.splitlines()[-1]


def test_the_essential_keys_are_in_the_footer_of_every_screen(terminal):
    assert all(key in footer(terminal.text()) for key in ESSENTIAL), footer(terminal.text())
    terminal.send("Enter")  # a listing
    text = terminal.wait_for(lambda t: "Overview" in t and "esc Back" in footer(t))
    assert all(key in footer(text) for key in ESSENTIAL), footer(text)
    terminal.send("e")  # the events
    text = terminal.wait_for(lambda t: "event(s)" in t and "esc Back" in footer(t))
    assert all(key in footer(text) for key in ESSENTIAL), footer(text)
    assert all(len(line) <= terminal.width for line in text.splitlines())


def test_the_table_fills_the_width_it_has(terminal):
    lines = terminal.text().splitlines()
    header = next(line for line in lines if "Name" in line and "Origin" in line)
    last = "Last changed" if terminal.width >= 122 else "Checks"
    assert header.rstrip().endswith(last), header
    # The last column ends at the scrollbar, not halfway across the terminal.
    assert terminal.width - 12 <= len(header.rstrip()) <= terminal.width, (len(header.rstrip()), header)
    if terminal.width == 200:
        rows = [line for line in lines if re.search(r"\d+✓", line)]
        assert rows and not any("," in line and "…" in line.split("  ")[-5:][0] for line in rows)


def test_an_open_filter_shows_each_choice_whole(terminal):
    terminal.send("Tab", "Tab", "Tab", "Enter")  # search box, format, status: open it
    text = terminal.wait_for(lambda t: "no_manifest" in t)
    lines = text.splitlines()
    at = next(line for line in lines if "status" in line and "Format" in line).index("status")  # the list's column
    for status in ("listed", "invalid", "unreachable", "no_manifest", "delisted"):
        assert any(line[at:].startswith(status) for line in lines), (status, text)


def test_the_flexible_columns_share_the_width_within_their_bounds():
    wide = {key: width for key, _, width, _ in columns_for(200)}
    narrow = {key: width for key, _, width, _ in columns_for(80)}
    assert wide["categories"] > 18 and wide["name"] > 24 and wide["origin"] > 26
    assert sum(w + 2 for w in wide.values()) == 200 - 2
    assert sum(w + 2 for w in narrow.values()) == 80 - 2 and "categories" not in narrow

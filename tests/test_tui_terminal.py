"""The TUI in a real terminal (tmux), typed at as fast as a terminal can deliver keys: each
``send-keys`` call below reaches the app in one write, as a paste without bracketing or a
very fast typist does, and tmux joins an Escape with the key after it (ESC q) as it does
for a person inside tmux. See tests/test_tui_keys.py for the same cases through Pilot."""

from __future__ import annotations

import re

import pytest

from agentdex.db import list_listings, open_db
from agentdex.db.synthetic import fill_synthetic
from tmux import TMUX, Terminal, search_box

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (.ci/run installs it with apt-get); these tests need a real terminal"
)
LISTINGS = 300


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    path = tmp_path_factory.mktemp("terminal") / "catalogue.db"
    db = open_db(path)
    fill_synthetic(db, LISTINGS)
    db.conn.close()
    return path


def first(path, **filters) -> dict:
    return list_listings(open_db(path, readonly=True), limit=1, **filters)[0]


def shown(text: str) -> int | None:
    """The "N shown" count of the status line (None while counting)."""
    match = re.search(r"([\d,]+) shown", text)
    return int(match.group(1).replace(",", "")) if match else None


@pytest.fixture
def terminal(catalogue, request):
    term = Terminal(request.node.name[:40]).start()
    term.run_tui(catalogue)
    term.wait_for(lambda text: shown(text) == LISTINGS)
    yield term
    term.close()


def test_slash_and_a_word_in_one_write_all_land_in_the_search_box(terminal, catalogue):
    terminal.send("/pan", literal=True)
    want = len(list_listings(open_db(catalogue, readonly=True), search="pan", limit=LISTINGS))
    text = terminal.wait_for(lambda t: "search: pan" in t and shown(t) == want)
    assert search_box(text) == "pan"
    assert "Crawl origins" not in text, "the n must not open the crawl dialog"
    assert first(catalogue, search="pan")["origin"] in text


def test_escape_then_q_in_one_write_quits_from_the_search_box(terminal):
    terminal.send("/pan", literal=True)
    terminal.wait_for(lambda t: "search: pan" in t)
    terminal.send("Escape", "q")  # tmux writes ESC q: what Alt+q also sends
    terminal.wait_for(lambda t: terminal.exited())


def test_escape_then_enter_in_one_write_closes_the_dialog_and_opens_the_row(terminal, catalogue):
    terminal.send("C-n")
    terminal.wait_for(lambda t: "Crawl origins" in t and "Hosts or https URLs" in t)
    terminal.send("Escape", "Enter")
    origin = first(catalogue)["origin"]
    # Waits for the repaint to end too: a capture taken mid-repaint held the detail's tabs
    # and the closed dialog's last characters at once (a clean-clone run, 1 of 3,833).
    text = terminal.wait_for(lambda t: "Overview" in t and "Findings" in t and "Crawl origins" not in t)
    assert origin in text and "Crawl origins" not in text


def test_a_paste_onto_the_table_becomes_a_search(terminal):
    terminal.paste("quiet sea-x")  # q quits, e opens events, s sorts, x clears: none of them may run
    text = terminal.wait_for(lambda t: "search: quiet sea-x" in t)
    assert search_box(text) == "quiet sea-x"
    assert not terminal.exited() and "Newest changes" not in text


def test_a_search_typed_with_enter_in_one_write_opens_its_first_match(terminal, catalogue):
    terminal.send(*"/kitchen", "Enter")
    text = terminal.wait_for(lambda t: "Overview" in t and "Findings" in t)
    assert first(catalogue, search="kitchen")["origin"] in text


def test_at_80x24_every_filter_the_status_column_and_the_footer_keys_are_on_screen(catalogue, request):
    term = Terminal(request.node.name[:40], 80, 24).start()
    try:
        term.run_tui(catalogue)
        text = term.wait_for(lambda t: shown(t) == LISTINGS and "? Help" in t.splitlines()[-1])
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        filters = next(line for line in lines if "format" in line and "failing checks" in line)
        for prompt in ("status", "categor", "pricing", "auth", "MCP"):
            assert prompt in filters, filters
        header = next(line for line in lines if "Name" in line and "Origin" in line)
        assert "Status" in header and "Checks" in header
        assert first(catalogue)["origin"] in text
        assert "? Help" in lines[-1] and "^p palette" in lines[-1]
    finally:
        term.close()

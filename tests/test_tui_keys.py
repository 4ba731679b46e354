"""Keys typed faster than the app answers them: each lands where the user meant it.

A terminal hands the app every key it has read at once, so the keys after ``/`` or Escape
are routed before the app has acted on ``/`` or Escape. Pilot's ``press`` waits for the app
between keys and hides that; :func:`type_at_once` posts them together, as the terminal
driver does. (tests/test_tui_terminal.py does the same in a real terminal.)
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual import events
from textual.command import CommandPalette
from textual.widgets import Input, Select

from agentdex.db import count_listings, list_listings, open_db
from agentdex.tui.keys import EscapeThenKeyParser
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.screens.crawl import CrawlScreen
from agentdex.tui.screens.events import EventsScreen
from agentdex.tui.screens.listing import ListingScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from test_tui_support import SIZE, app, db_path, net, no_cursor_blink, screen_text, settle, wait_for, web  # noqa: F401
from waiting import eventually

CHARACTERS = {
    "slash": "/",
    "question_mark": "?",
    "enter": "\r",
    "escape": "\x1b",
    "space": " ",
    "ctrl+n": "\x0e",
    "ctrl+p": "\x10",
    "ctrl+u": "\x15",
    "down": None,
    "left": None,
}


def key(name: str) -> events.Key:
    return events.Key(name, CHARACTERS.get(name, name))


async def type_at_once(pilot, *names: str) -> None:
    """Post every key to the app before it handles any (as a fast typist or the terminal
    driver does), then let it finish."""
    for name in names:
        pilot.app.post_message(key(name))
    await settle(pilot)


BUSY = 1.5  # seconds a loaded 2-core machine took to build the crawl dialog on ctrl+n (1.4 to 2.6)


def busy_building(monkeypatch, screen_class) -> None:
    """Building a ``screen_class`` keeps the app busy for BUSY seconds, as a loaded CPU does
    (time.sleep, not asyncio.sleep: nothing else runs meanwhile, and the keys typed during
    it are all waiting when it ends)."""
    build = screen_class.__init__

    def slow_build(self, *args, **kwargs) -> None:
        time.sleep(BUSY)
        build(self, *args, **kwargs)

    monkeypatch.setattr(screen_class, "__init__", slow_build)


def origins(db_path, **filters) -> list[str]:
    return [r["origin"] for r in list_listings(open_db(db_path, readonly=True), limit=5, **filters)]


def search_box(app) -> str:
    return app.screen.query_one("#search", Input).value


async def test_keys_typed_right_after_slash_belong_to_the_search_box(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # n used to open the crawl dialog; e, s, x and q are bindings of the table and the app.
        await type_at_once(pilot, "slash", *"easy next quest")
        assert isinstance(app.screen, CatalogueScreen) and app.is_running
        assert search_box(app) == "easy next quest"
        await type_at_once(pilot, "ctrl+u", *"kitchen")  # empty the box, type again
        assert search_box(app) == "kitchen"
        shown = [k.value for k in app.screen.query_one(CatalogueTable).rows]
        assert shown and shown == origins(db_path, search="kitchen")


async def test_escape_then_q_at_once_quits_from_the_search_box(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_at_once(pilot, "slash", *"pan")
        app.post_message(key("escape"))
        app.post_message(key("q"))
        await eventually(lambda: not app.is_running)  # the app quits (however busy the machine)
        assert search_box(app) == "pan", "the q did not reach the search box"
        assert not app.is_running


async def test_a_paste_onto_the_table_searches_and_triggers_no_binding(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.focused, CatalogueTable)
        app.post_message(events.Paste("quince nest\nsecond line"))
        await settle(pilot)
        assert isinstance(app.screen, CatalogueScreen) and app.is_running
        assert search_box(app) == "quince nest"
        assert isinstance(app.focused, Input)


async def _focus_format_filter(pilot) -> None:
    pilot.app.screen.set_focus(pilot.app.screen.query_one("#filter-format", Select))
    await settle(pilot)


async def _open_format_list(pilot) -> None:
    await _focus_format_filter(pilot)
    await pilot.press("enter")
    await settle(pilot)


# (state, how to get there, the keys then typed at once, which row's listing opens)
STATES = [
    ("the table", [], ["enter"], {}),
    ("the help dialog", ["question_mark"], ["escape", "enter"], {}),
    ("the crawl dialog", ["ctrl+n"], ["escape", "enter"], {}),
    ("opening and closing the crawl dialog", [], ["ctrl+n", "escape", "enter"], {}),
    ("the events screen", ["e"], ["escape", "enter"], {}),
    ("a listing", ["enter"], ["escape", "down", "enter"], {"row": 1}),
    ("the search box", ["slash", *"kitchen"], ["escape", "enter"], {"search": "kitchen"}),
    ("Enter in the search box", ["slash", *"kitchen"], ["enter"], {"search": "kitchen"}),
    ("typing a search and Enter before its rows arrive", [], ["slash", *"kitchen", "enter"], {"search": "kitchen"}),
    ("a search that matches nothing, cleared", ["slash", *"zzzz"], ["escape", "x", "enter"], {}),
    ("a filter", [_focus_format_filter], ["escape", "enter"], {}),
    ("a filter's open list", [_open_format_list], ["escape", "escape", "enter"], {}),
    ("the command palette", ["ctrl+p"], ["escape", "enter"], {}),
]


@pytest.mark.parametrize(("before", "keys", "which"), [s[1:] for s in STATES], ids=[s[0] for s in STATES])
async def test_enter_opens_the_listing_from_every_state_of_the_catalogue(app, db_path, before, keys, which):
    want = origins(db_path, **{k: v for k, v in which.items() if k != "row"})[which.get("row", 0)]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for step in before:
            await (step(pilot) if callable(step) else pilot.press(step))
            await settle(pilot)
        await type_at_once(pilot, *keys)
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen), type(app.screen).__name__
        assert app.screen.origin == want
        assert [type(s) for s in app.screen_stack[1:]] == [CatalogueScreen, ListingScreen]


async def test_network_work_is_never_a_bare_letter(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"abcdfghijklmnoprtuvwyz")  # every letter but e (events), q (quit), s and x
        await settle(pilot)
        assert isinstance(app.screen, CatalogueScreen) and not app.jobs
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen)
        await pilot.press(*"abcdghijklmnoprstuvwxz")  # not e, q; f (feedback) asks first; y copies
        await settle(pilot)
        assert not app.jobs and not isinstance(app.screen, CrawlScreen)
        assert not list(Path.cwd().glob("*-plan.txt")), "a letter wrote a plan file"
        bindings = {b.key: b.action for _, b, *_ in app.screen.active_bindings.values()}
        assert bindings["ctrl+t"] == "verify" and bindings["ctrl+r"] == "recrawl" and bindings["ctrl+n"] == "crawl"


async def test_the_command_palette_lists_keys_once(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles.count("Keys") == 1
        await pilot.press("ctrl+p", *"keys")
        assert isinstance(app.screen, CommandPalette)
        await wait_for(pilot, lambda: "What every key does" in screen_text(app))
        assert screen_text(app).count("Keys") == 1
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


@pytest.mark.parametrize(
    ("sent", "keys"),
    [
        ("\x1bq", ["escape", "q"]),  # tmux joins Escape and the next key into this
        ("\x1b\r", ["escape", "enter"]),
        ("\x1b/", ["escape", "slash"]),
        ("\x1b\x1b", ["escape", "escape"]),
        ("\x1b[A", ["up"]),  # a real escape sequence stays one key
        ("\x1bOP", ["f1"]),
        ("\x1b\x7f", ["ctrl+w"]),
        ("pan", ["p", "a", "n"]),
    ],
)
def test_the_terminal_parser_reads_escape_then_a_key_as_two_keys(sent, keys):
    parser = EscapeThenKeyParser()
    read = [*parser.feed(sent), *parser.feed("")]
    assert [e.key for e in read if isinstance(e, events.Key)] == keys


async def test_the_events_screen_is_left_before_the_next_key(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_at_once(pilot, "e", "escape", "slash", *"pan")
        assert isinstance(app.screen, CatalogueScreen)
        assert search_box(app) == "pan"
        assert not any(isinstance(s, EventsScreen) for s in app.screen_stack)


# Also on a busy machine: a key waits for the one before it however long that takes (a key
# typed while ctrl+n built the dialog was routed anyway after 1 s, beside the keys before it).
@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
async def test_keys_typed_right_after_the_crawl_dialog_opens_go_to_its_box(app, monkeypatch, busy):
    if busy:
        busy_building(monkeypatch, CrawlScreen)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_at_once(pilot, "ctrl+n", *"pantry.test", "left", "left", "x")
        assert isinstance(app.screen, CrawlScreen) and not app.jobs
        assert app.screen.query_one("#origins", Input).value == "pantry.texst"  # in typing order


# --- focus traps: what the screen tells the user to press works where the focus is ----------------


async def test_the_no_match_note_names_keys_that_clear_the_search_from_the_search_box(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzzz")
        await settle(pilot)
        assert isinstance(app.focused, Input)
        note = screen_text(app)
        assert "No listing matches. Press escape, then x," in note
        await type_at_once(pilot, "escape", "x")  # what the note says, from where the focus is
        await settle(pilot)
        assert search_box(app) == "" and "No listing matches" not in screen_text(app)
        assert app.screen.matching == count_listings(open_db(db_path, readonly=True))


async def test_back_from_a_listing_opened_from_the_search_the_keys_sort_the_table(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"kitchen", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen)
        await pilot.press("escape")
        await settle(pilot)
        await type_at_once(pilot, "s", "s", "S")
        await settle(pilot)
        assert search_box(app) == "kitchen", "s s S went to the table, not into the search box"
        screen = app.screen
        assert (screen.query_state.sort, screen.query_state.descending) == ("format", True)
        assert isinstance(app.focused, CatalogueTable)


async def test_digits_switch_tabs_while_the_host_list_has_the_focus(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_listing("pantry.test")
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        screen = app.screen
        screen.set_focus(screen.query_one("#host", Select))
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert screen.query_one("TabbedContent").active == "checks"
        await pilot.press("9")
        await settle(pilot)
        assert screen.query_one("TabbedContent").active == "health"

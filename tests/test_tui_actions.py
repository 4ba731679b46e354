"""Actions on the sample web, through the real crawler: re-verify and re-crawl a listing
(the app answers keys while they run), crawl origins the user types, the events screen, the
command palette, the help screen and the keys in the footer."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from textual.command import CommandInput, CommandList, CommandPalette
from textual.coordinate import Coordinate
from textual.widgets import Input, Log, TabbedContent

from agentdex.db import count_listings, list_crawls, list_events, open_db
from agentdex.eventtext import event_text
from agentdex.tui.app import make_app
from agentdex.tui.messages import JobFinished, JobProgress
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.screens.crawl import CrawlScreen
from agentdex.tui.screens.events import EventsScreen
from agentdex.tui.screens.help import HelpScreen
from agentdex.tui.screens.listing import ListingScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from agentdex.tui.widgets.job_line import JobLine
from agentdex.tui.widgets.safe_table import SafeTable
from test_tui_support import (  # noqa: F401
    SIZE,
    app,
    db_path,
    net,
    no_cursor_blink,
    open_listing,
    rendered,
    screen_text,
    settle,
    wait_for,
    web,
)


async def test_reverify_runs_in_the_background_and_the_listing_reloads_when_it_ends(db_path, net):
    messages: list = []
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        shown_before = screen.view
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: not app.jobs)
        await settle(pilot)
        progress = [m for m in messages if isinstance(m, JobProgress)]
        assert [(m.kind, m.done, m.total, m.last_origin) for m in progress] == [("verify", 1, 1, "pantry.test")]
        finished = next(i for i, m in enumerate(messages) if isinstance(m, JobFinished))
        assert messages[finished].error is None and messages[finished].kind == "verify"
        assert screen.view is not shown_before, "the listing reloads"
        assert not screen.query_one(JobLine).has_class("-busy")
    assert list_crawls(open_db(db_path, readonly=True), limit=1)[0]["kind"] == "verify"


async def test_the_app_answers_keys_while_a_slow_crawl_runs(db_path, net):
    # sleepy.test answers after 30 s: with a 60 s deadline the crawl cannot end while the keys
    # below land, however loaded the machine (at 3 s it once ended before "3" was read); leaving
    # the app cancels it, as quitting does for a user
    app = make_app(db_path, replace(net, deadline=60.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "sleepy.test")  # its manifest answers after 30 s
        await pilot.press("ctrl+r")
        await pilot.press("3")
        assert app.jobs, "the crawl is still running"
        assert screen.query_one(TabbedContent).active == "checks"
        assert "crawling 0/1" in screen_text(app)


@pytest.fixture
def pantry_v2(web):
    web.set_variant("pantry.test", "v2")
    yield
    web.set_variant("pantry.test", "")


async def test_recrawl_shows_what_changed_in_the_history(app, db_path, pantry_v2):
    before = {e["id"] for e in list_events(open_db(db_path, readonly=True), origin="pantry.test")}
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: not app.jobs)
        await settle(pilot)
        new = [e for e in list_events(open_db(db_path, readonly=True), origin="pantry.test") if e["id"] not in before]
        assert new, "v2 changes the one-liner, instructions, tags and guide"
        await pilot.press("6")
        rows = [
            [c.plain for c in row]
            for row in map(screen.query_one("#history-table", SafeTable).table.get_row_at, range(len(new)))
        ]
        assert sorted(r[1] for r in rows) == sorted(e["kind"] for e in new)
        # Each change in words, as `agentdex events` says it: no stored JSON, no text hash.
        changes = {r[1]: r[2] for r in rows}
        assert changes["guide_changed"] == "the guide's text changed"
        assert sorted(changes.values()) == sorted(event_text(e) for e in new)
        assert not any(re.search(r"[0-9a-f]{32}|\{\"", c) for c in changes.values()), changes


async def test_the_user_crawls_origins_into_an_empty_catalogue(tmp_path, net):
    path = tmp_path / "empty.db"
    open_db(path).conn.close()
    app = make_app(path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "is empty" in screen_text(app) and "Press ctrl+n to crawl" in screen_text(app)
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, CrawlScreen)
        app.screen.query_one("#origins", Input).value = "pantry.test, https://quillnotes.test/"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.jobs)
        await settle(pilot)
        log = "\n".join(app.screen.query_one(Log).lines)
        assert "pantry.test: listed" in log and "quillnotes.test: listed" in log and "done in" in log
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, CatalogueScreen)
        table = app.screen.query_one(CatalogueTable)
        assert sorted(key.value for key in table.rows) == ["pantry.test", "quillnotes.test"]
    assert count_listings(open_db(path, readonly=True)) == 2


async def test_an_origin_that_is_not_one_is_refused_before_anything_is_crawled(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        app.screen.query_one("#origins", Input).value = "pantry.test http://plain.example"
        await pilot.press("enter")
        assert "not an https origin" in rendered(app.screen.query_one("#crawl-error"))
        assert not app.jobs


async def test_the_events_screen_lists_the_newest_changes_and_opens_their_origin(app, db_path):
    events = list_events(open_db(db_path, readonly=True), limit=500)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EventsScreen)
        table = app.screen.query_one(SafeTable).table
        assert [table.get_row_at(i)[1].plain for i in range(table.row_count)] == [e["origin"] for e in events]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen) and app.screen.origin == events[1]["origin"]


@pytest.mark.parametrize(
    ("typed", "origin"), [("tidewater", "tidewater.test"), ("hopp", "hopper.test")]
)  # unnamed: only its host finds it
async def test_the_command_palette_jumps_to_an_origin(app, db_path, typed, origin):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *typed)
        await wait_for(pilot, lambda: palette_found(app, typed))  # it searches in the background
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen) and app.screen.origin == origin


def palette_found(app, typed: str) -> bool:
    """Whether the command palette has searched for all of ``typed`` and lists what it found
    (its search runs in workers of its own, one per key typed)."""
    palette = app.screen
    if not isinstance(palette, CommandPalette) or palette.query_one(CommandInput).value != typed:
        return False
    searching = [w for w in app.workers if w.node is palette and not w.is_finished]
    return not searching and palette.query_one(CommandList).option_count > 0


async def test_the_footer_shows_the_keys_of_each_screen_and_help_explains_them(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "command palette: jump to an origin" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, CatalogueScreen)
        footer = screen_text(app).splitlines()[-1]
        for key in ("/ Search", "s Sort", "x Clear filters", "^n Crawl", "e Events", "? Help", "q Quit"):
            assert key in footer
        await open_listing(app, pilot, "pantry.test")
        footer = screen_text(app).splitlines()[-1]
        for key in ("esc Back", "^t Re-verify", "^r Re-crawl", "y Copy", "^s Save", "f Feedback"):
            assert key in footer
        await open_listing(app, pilot, "quillnotes.test")  # no feedback route: no feedback key
        assert "f Feedback" not in screen_text(app).splitlines()[-1]


async def test_the_help_names_every_tab_of_a_listing_and_how_to_reach_the_filters(app):
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        titles = [str(tab.label) for tab in screen.query("ContentTab")]
        await pilot.press("question_mark")
        await settle(pilot)
        text = app.screen.query_one("Markdown").source  # what the help shows, scrolled or not
        assert f"1`…`{len(titles)}" in text and ", ".join(titles) in text, titles
        assert "`tab` / `shift+tab`" in text and "the filters (format, status" in text


def test_hopper_has_no_name_to_find_it_by(db_path):
    assert stored_name(db_path, "hopper.test") is None  # no manifest: the palette case above needs its host


async def test_the_search_box_finds_listings_by_their_domain(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"brokenlinks")
        await settle(pilot)
        table = app.screen.query_one(CatalogueTable)
        assert [table.coordinate_to_cell_key(Coordinate(i, 0)).row_key.value for i in range(table.row_count)] == [
            "t-brokenlinks.test"
        ]


def stored_name(db_path, origin: str) -> str | None:
    from agentdex.db import get_listing

    return get_listing(open_db(db_path, readonly=True), origin)["name"]

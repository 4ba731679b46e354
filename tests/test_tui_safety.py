"""Crawled text is data: a listing whose every field is hostile (Rich/Textual markup, an
action link, ANSI colours, an OSC 52 clipboard write, a 20,000-character description) is
shown literally, cut with a visible marker, never acted upon and never lets an escape
sequence reach the terminal; search text reaches SQLite only as a parameter."""

from __future__ import annotations

import pytest
from textual import events

from agentdex.db import count_listings, open_db, save_origin, start_crawl
from agentdex.models import Check, Listing, Tool
from agentdex.tui.app import make_app
from agentdex.tui.screens.listing import ListingScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from db_records import listing_crawl
from test_tui_support import (
    SIZE,
    db_path,
    net,
    no_cursor_blink,
    open_listing,
    rendered,  # noqa: F401
    screen_text,
    settle,
    terminal_output,
    web,
)

HOSTILE = "[@click=app.quit]x[/] \x1b]52;c;ZXZpbA==\x07 \x1b[31mred"
LITERAL = "[@click=app.quit]x[/]  red"  # what is left once the escape sequences are gone
ONE_LINE = "[@click=app.quit]x[/] red"  # the same in a table cell (whitespace folded)
ORIGIN = "hostile.test"


@pytest.fixture
def hostile_db(db_path):
    """The crawled catalogue plus one listing that tries everything."""
    listing = Listing(
        format="agent_app",
        origin=ORIGIN,
        name=HOSTILE,
        one_liner="[bold]loud[/bold] \x1b[5mblink",
        description="[link=https://evil.test]click me[/link] " + "A" * 20_000,
        homepage="https://hostile.test/\x1b]8;;https://evil.test\x07home\x1b]8;;\x07",
        mcp_url="https://hostile.test/mcp",
        mcp_auth=["none"],
        instructions=f"Always {HOSTILE}",
        categories=["utilities"],
        tags=["[red]tag[/red]"],
        publisher_name=HOSTILE,
    )
    checks = [Check("guide.reachable", "fail", f"answered {HOSTILE}")]
    tools = [
        Tool(
            HOSTILE,
            description=HOSTILE,
            annotations={"title": HOSTILE, "readOnlyHint": True},
            read_only=True,
            source="mcp",
        )
    ]
    db = open_db(db_path)
    save_origin(db, listing_crawl(listing, origin=ORIGIN, checks=checks, mcp_tools=tools), start_crawl(db))
    db.conn.close()
    return db_path


def assert_no_escape_reaches_the_terminal(app, *, bytes_too: bool = True) -> None:
    """Neither the screen's text nor (``bytes_too``) what a repaint writes holds a crawled
    escape sequence (the repaint's own styles are SGR sequences; nothing else may be there)."""
    text = screen_text(app)
    assert "\x1b" not in text and "\x07" not in text
    if bytes_too:
        output = terminal_output(app)
        for sequence in ("\x1b]", "\x07", "\x1b[31m", "\x1b[5m"):
            assert sequence not in output


async def test_a_hostile_name_is_shown_literally_in_the_catalogue(hostile_db, net):
    app = make_app(hostile_db, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")  # by origin: hostile.test is on screen
        await settle(pilot)
        assert "[@click=app.quit]x[/]" in screen_text(app)
        assert_no_escape_reaches_the_terminal(app)
        table = app.screen.query_one(CatalogueTable)
        row = [key.value for key in table.rows].index(ORIGIN)
        assert table.get_row_at(row)[0].plain == ONE_LINE
        await pilot.click(CatalogueTable, offset=(3, row + 1))  # on the name: no action link to follow
        await pilot.click(CatalogueTable, offset=(3, row + 1))
        await settle(pilot)
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, ListingScreen) and app.screen.origin == ORIGIN


async def test_every_tab_shows_hostile_text_literally_and_cuts_long_values(hostile_db, net):
    app = make_app(hostile_db, net)
    async with app.run_test(size=SIZE) as pilot:
        await open_listing(app, pilot, ORIGIN)
        overview = rendered(app.screen.query_one("#overview-body"), width=400)
        assert LITERAL in overview and "[bold]loud[/bold] blink" in overview
        assert "[link=https://evil.test]click me[/link]" in overview
        folded = "".join(overview.split())
        assert "A" * 3_900 + "…" in folded and "A" * 4_000 not in folded  # cut, with a visible marker
        assert_no_escape_reaches_the_terminal(app)
        for tab in "3567":
            await pilot.press(tab)
            await settle(pilot, rounds=2)
            assert_no_escape_reaches_the_terminal(app, bytes_too=False)
        await pilot.press("3")
        await settle(pilot)
        assert f"answered {LITERAL}" in screen_text(app)  # the highlighted check, in full
        await pilot.press("4")
        await settle(pilot)
        assert ONE_LINE in screen_text(app)
        assert_no_escape_reaches_the_terminal(app)  # the tool's name, description and annotations
        await pilot.press("y")
        assert "\x1b" not in app.clipboard and "\x07" not in app.clipboard
        assert f"Always {LITERAL}" in app.clipboard
        assert app.is_running


TYPED = ['"', "*", "NEAR(a b", "'); DROP TABLE listings; --", "a OR b", "pan*try", "kitchen OR 1=1"]


async def test_search_text_is_data_not_sql(db_path, net):
    before = count_listings(open_db(db_path, readonly=True))
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for typed in TYPED:
            app.screen.query_one("#search").value = typed
            await settle(pilot)
            assert app.is_running
            assert "shown ·" in screen_text(app), typed
            assert_no_escape_reaches_the_terminal(app)
    assert count_listings(open_db(db_path, readonly=True)) == before


async def test_a_pasted_escape_sequence_never_reaches_the_search_box(db_path, net):
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.screen.query_one("#search").post_message(events.Paste("kitchen\x1b[2J"))
        await pilot.press("k")
        await settle(pilot)
        assert app.screen.query_one("#search").value == "k"
        assert_no_escape_reaches_the_terminal(app)

"""The catalogue screen on a catalogue the real crawler filled from the sample web: rows,
counts, search as you type, every filter, sorting, paging through a large catalogue and
opening a listing."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.widgets import DataTable, Select

from agentdex.db import count_listings, list_listings, open_db
from agentdex.db.synthetic import fill_synthetic
from agentdex.tui.app import make_app
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.screens.listing import ListingScreen
from agentdex.tui.widgets.catalogue_table import WINDOW, CatalogueTable
from test_tui_support import SIZE, app, db_path, net, no_cursor_blink, screen_text, settle, web  # noqa: F401


def shown(app) -> list[str]:
    """The origins in the table's rows, top to bottom."""
    table = app.screen.query_one(CatalogueTable)
    return [key.value for key in table.rows]


def expected(db_path, **filters) -> list[str]:
    return [r["origin"] for r in list_listings(open_db(db_path, readonly=True), limit=10_000, **filters)]


async def test_the_table_shows_every_listing_with_its_counts(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        total = count_listings(open_db(db_path, readonly=True))
        assert total > 20
        assert shown(app) == expected(db_path)
        text = screen_text(app)
        assert f"{total} shown · {total} in the catalogue" in text
        assert "pantry.test" in text and "Pantry" in text


async def test_search_as_you_type_narrows_the_table_and_the_counts(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"kitchen")
        await settle(pilot)
        want = expected(db_path, search="kitchen")
        assert "pantry.test" in want and len(want) < len(expected(db_path))
        assert shown(app) == want
        assert f"{len(want)} shown" in screen_text(app)
        await pilot.press(*"zzz")  # "kitchenzzz" finds nothing
        await settle(pilot)
        assert shown(app) == []
        assert "No listing matches" in screen_text(app)
        await pilot.press("escape", "x")  # back to the table, clear everything
        await settle(pilot)
        assert shown(app) == expected(db_path)


FILTERS = [
    ("#filter-format", "anchor", {"format": "anchor"}),
    ("#filter-status", "invalid", {"status": "invalid"}),
    ("#filter-category", "home", {"category": "home"}),
    ("#filter-pricing", "freemium", {"pricing": "freemium"}),
    ("#filter-auth", "email_code", {"auth": "email_code"}),
    ("#filter-has_mcp", True, {"has_mcp": True}),
    ("#filter-has_mcp", False, {"has_mcp": False}),
    ("#filter-failing", True, {"failing_checks": True}),
]


async def test_each_filter_shows_exactly_the_matching_listings(app, db_path):
    everything = expected(db_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for widget, value, filters in FILTERS:
            want = expected(db_path, **filters)
            assert 0 < len(want) < len(everything), f"the sample web must give {filters} something to do"
            app.screen.query_one(widget).value = value
            await settle(pilot)
            assert shown(app) == want, filters
            assert f"{len(want)} shown" in screen_text(app)
            await pilot.press("x")  # clear it again
            await settle(pilot)
            assert shown(app) == everything


async def test_filters_combine_with_search(app, db_path):
    # "tidewater", not "tide": the sample web has a second Anchor listing about tides.
    want = expected(db_path, search="tidewater", format="anchor")
    assert want == ["tidewater.test"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#filter-format", Select).value = "anchor"
        await pilot.press("slash", *"tidewater")
        await settle(pilot)
        assert shown(app) == want


async def test_s_cycles_the_sort_column_and_shift_s_reverses_it(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")  # name -> origin
        await settle(pilot)
        assert app.screen.query_state.sort == "origin"
        assert shown(app) == expected(db_path, sort="origin")
        await pilot.press("S")
        await settle(pilot)
        assert shown(app) == expected(db_path, sort="origin", descending=True)
        assert "Origin ▼" in screen_text(app)


async def test_clicking_a_header_sorts_by_that_column(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(CatalogueTable)
        table.post_message(
            CatalogueTable.HeaderSelected(
                table, table.columns["last_changed_at"].key, 8, table.columns["last_changed_at"].label
            )
        )
        await settle(pilot)
        assert app.screen.query_state.sort == "last_changed_at"
        assert shown(app) == expected(db_path, sort="last_changed_at")


async def test_enter_opens_the_listing_under_the_cursor(app, db_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"kitchen", "escape", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ListingScreen)
        assert app.screen.origin == expected(db_path, search="kitchen")[0]
        await pilot.press("escape")
        assert isinstance(app.screen, CatalogueScreen)


# --- a catalogue larger than the window ----------------------------------------------------------


@pytest.fixture
def big_db(tmp_path):
    path = tmp_path / "big.db"
    fill_synthetic(open_db(path), 2_000)
    return path


def origin_at(path, index: int, **filters) -> str:
    return list_listings(open_db(path, readonly=True), limit=1, offset=index, **filters)[0]["origin"]


async def test_a_large_catalogue_is_held_one_window_at_a_time(big_db, net):
    app = make_app(big_db, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(CatalogueTable)
        assert table.row_count == WINDOW < 2_000
        assert "2,000 shown · 2,000 in the catalogue" in screen_text(app)
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert table.cursor_index == 1_999
        assert table.cursor_origin == origin_at(big_db, 1_999)
        assert table.row_count <= WINDOW
        await pilot.press("ctrl+home")
        await settle(pilot)
        assert (table.cursor_index, table.start) == (0, 0)


async def test_moving_past_the_window_loads_the_next_rows_under_the_cursor(big_db, net):
    app = make_app(big_db, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(CatalogueTable)
        for _ in range(5):  # five pages of ~30 rows: past the first window twice
            await pilot.press("pagedown")
            await settle(pilot, rounds=2)
        assert table.start > 0 and table.cursor_index > WINDOW
        assert table.cursor_origin == origin_at(big_db, table.cursor_index)
        for _ in range(3):
            await pilot.press("down")
        await settle(pilot)
        assert table.cursor_origin == origin_at(big_db, table.cursor_index)
        for _ in range(12):  # back to the top: a page up stops at a window's edge while the next loads
            await pilot.press("pageup")
            await settle(pilot, rounds=2)
            if table.cursor_index == 0:
                break
        assert table.cursor_index == 0 and table.cursor_origin == origin_at(big_db, 0)


async def test_the_fast_cell_renderer_draws_exactly_what_datatable_would(app):
    # CatalogueTable renders its one-line cells and sizes itself without DataTable's
    # general (slow) path; the result must stay identical, cursor and hover included.
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(CatalogueTable)
        base = table.rich_style
        for row in range(3):
            for column, spec in enumerate(table.ordered_columns):
                width = spec.get_render_width(table)
                for cursor, hover in ((False, False), (True, False), (False, True)):
                    table._cell_render_cache.clear()
                    ours = table._render_cell(row, column, base, width, cursor, hover)
                    table._cell_render_cache.clear()
                    theirs = DataTable._render_cell(table, row, column, base, width, cursor, hover)
                    assert list(Segment.simplify(ours[0])) == list(Segment.simplify(theirs[0]))
        size = table.virtual_size
        DataTable._update_dimensions(table, list(table.rows))
        assert table.virtual_size == size

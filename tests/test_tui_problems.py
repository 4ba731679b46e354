"""A catalogue that cannot be shown gives a clear message and a way forward, never a
traceback: a missing file (crawl into it), an older schema (upgrade it in place), a file
that is not SQLite (open another), an empty catalogue (crawl, or run the demo)."""

from __future__ import annotations

from sqlite_utils import Database
from textual.widgets import Input

from agentdex.db import count_listings, open_db, schema_version
from agentdex.db.migrations import known_names, migrations
from agentdex.tui.app import make_app
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.screens.problem import ProblemScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from test_tui_support import SIZE, net, no_cursor_blink, rendered, screen_text, settle, wait_for, web  # noqa: F401


def problem_text(app) -> str:
    """The problem and the way forward, unwrapped."""
    return " ".join(
        rendered(app.screen.query_one(f"#{name}"), width=1000).strip() for name in ("problem-text", "way-forward")
    )


def older_catalogue(path) -> None:
    """A catalogue of the first schema version, with one listing in it."""
    db = Database(path)
    migrations.apply(db, stop_before=known_names()[1])
    db.execute(
        "INSERT INTO listings (origin, status, name, first_seen_at) "
        "VALUES ('old.example', 'listed', 'Old Timer', '2025-01-01T00:00:00.000Z')"
    )
    db.conn.commit()
    db.close()


async def test_a_missing_file_offers_to_crawl_into_it(tmp_path, net):
    path = tmp_path / "nothing-here.db"
    app = make_app(path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProblemScreen)
        footer = screen_text(app).splitlines()[-1]
        text = problem_text(app)
        assert f"no catalogue at {path}" in text
        assert "Press ctrl+n to crawl origins into a new catalogue" in text and "agentdex demo" in text
        assert "^n Crawl" in footer
        await pilot.press("ctrl+n")
        app.screen.query_one("#origins", Input).value = "pantry.test"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CatalogueScreen))
        await settle(pilot)
        assert [key.value for key in app.screen.query_one(CatalogueTable).rows] == ["pantry.test"]
    assert count_listings(open_db(path, readonly=True)) == 1


async def test_an_older_schema_is_upgraded_in_place_on_request(tmp_path, net):
    path = tmp_path / "old.db"
    older_catalogue(path)
    app = make_app(path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProblemScreen)
        text = problem_text(app)
        assert "older than this agentdex" in text and "Press u to upgrade it now (its data is kept)" in text
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, CatalogueScreen))
        await settle(pilot)
        assert [key.value for key in app.screen.query_one(CatalogueTable).rows] == ["old.example"]
    assert schema_version(open_db(path, readonly=True)) == len(known_names())


async def test_a_file_that_is_not_sqlite_says_so_and_offers_no_crawl(tmp_path, net):
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    app = make_app(path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProblemScreen)
        footer = screen_text(app).splitlines()[-1]
        text = problem_text(app)
        assert "cannot read" in text and "Quit (q) and open another file with `agentdex tui --db PATH`" in text
        await pilot.press("ctrl+n", "u")  # neither applies here
        await settle(pilot)
        assert isinstance(app.screen, ProblemScreen)
        assert "Crawl" not in footer and "Upgrade" not in footer
    assert path.read_text().startswith("these are my notes")


async def test_an_empty_catalogue_says_how_to_fill_it(tmp_path, net):
    path = tmp_path / "empty.db"
    open_db(path).conn.close()
    app = make_app(path, net)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, CatalogueScreen)
        text = " ".join(screen_text(app).split())
        assert "is empty." in text and "Press ctrl+n to crawl origins into it" in text and "agentdex demo" in text
        assert "0 shown · 0 in the catalogue" in text

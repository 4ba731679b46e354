"""The TUI in an 80x24 terminal: every filter, the columns that tell listings apart and
every footer key stay on screen; focusing a filter moves nothing; a long install command
wraps under its own start; the host list says how many hosts there are."""

from __future__ import annotations

from textual.widgets import Checkbox, OptionList, Select

from agentdex.tui.app import make_app
from agentdex.tui.widgets.catalogue_table import NARROW, CatalogueTable
from agentdex.tui.widgets.filter_bar import FilterBar, selects
from test_tui_support import db_path, net, no_cursor_blink, open_listing, rendered, screen_text, settle, web  # noqa: F401

SMALL = (80, 24)


def on_screen(widget, width: int = SMALL[0]) -> bool:
    region = widget.region
    return region.width > 0 and region.x >= 0 and region.right <= width


async def test_every_filter_and_the_narrow_columns_fit_80_columns(db_path, net):
    app = make_app(db_path, net)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        for name, _, _ in selects():
            select = screen.query_one(f"#filter-{name}", Select)
            assert on_screen(select), name
        assert on_screen(screen.query_one("#filter-failing", Checkbox))
        table = screen.query_one(CatalogueTable)
        assert [str(c.label).rstrip(" ▲▼") for c in table.columns.values()] == [
            "Name",
            "Origin",
            "Format",
            "Status",
            "MCP",
            "Checks",
        ]
        assert sum(w + 2 for w in NARROW.values()) <= table.size.width
        header = screen_text(app).splitlines()[3]
        assert "Checks" in header and header.index("Checks") + len("Checks") < 80
        footer = screen_text(app).splitlines()[-1]
        for key in ("/ Search", "s Sort", "q Quit", "e Events", "^n Crawl", "? Help", "^p palette"):
            assert key in footer, footer


async def test_focusing_the_failing_checks_box_keeps_its_label_and_the_bar_its_height(db_path, net):
    app = make_app(db_path, net)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(FilterBar)
        height, table_y = bar.region.height, app.screen.query_one(CatalogueTable).region.y
        box = app.screen.query_one("#filter-failing", Checkbox)
        app.screen.set_focus(box)
        await settle(pilot)
        assert app.focused is box
        assert (bar.region.height, app.screen.query_one(CatalogueTable).region.y) == (height, table_y)
        assert "failing checks" in screen_text(app).splitlines()[box.region.y]


async def test_a_long_install_command_wraps_under_its_start_and_the_host_list_counts_hosts(db_path, net):
    app = make_app(db_path, net)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_listing(app, pilot, "pantry.test", "5")
        plan = screen.plan_text()
        lines = rendered(screen.query_one("#plan-body"), width=76).splitlines()
        assert len(lines) > len(plan.splitlines()), "at 76 columns some plan lines wrap"
        indents = {len(line) - len(line.lstrip(" ")) for line in plan.splitlines()}
        for line in lines:  # a wrapped part starts at its line's indent, never at the edge
            assert len(line) - len(line.lstrip(" ")) in indents, line
        assert "".join(lines).replace(" ", "") == plan.replace("\n", "").replace(" ", "")
        host = screen.query_one("#host", Select)
        count = len(screen.view["plans"])
        overlay = host.query_one(OptionList)  # the list the select opens
        labels = [str(overlay.get_option_at_index(i).prompt) for i in range(1, overlay.option_count)]
        assert labels[0].startswith(f"1/{count} ") and labels[-1].startswith(f"{count}/{count} ")

"""The catalogue: search, filter and sort every listing; Enter opens one.

Rows come from SQL a window at a time (see :mod:`agentdex.tui.widgets.catalogue_table`);
the counts come from ``count_listings`` right after the first window, so a slow count never
holds back the rows. Each question carries a sequence number: an answer to an outdated one
is dropped, and the query behind it is interrupted.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, OptionList, Select, Static

from agentdex.db.listing_query import ListingQuery
from agentdex.errors import AgentdexError
from agentdex.tui import reader as reads
from agentdex.tui.messages import CountsLoaded, DbProblem, JobFinished, TableShown, WindowLoaded
from agentdex.tui.reader import Reader
from agentdex.tui.widgets.catalogue_table import COLUMNS, SORTABLE, WINDOW, CatalogueTable
from agentdex.tui.widgets.filter_bar import FilterBar
from agentdex.tui.widgets.footer import Footer
from agentdex.tui.widgets.job_line import JobLine

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp

SORT_CYCLE = [sort for key, _, _, sort in COLUMNS if key in SORTABLE]


class CatalogueScreen(Screen):
    """Every listing, a window at a time."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    # "/" and escape move the focus as the key arrives (priority, and a synchronous focus),
    # so the keys typed right after them already go where the user meant them to.
    BINDINGS = [
        Binding("slash", "focus_search", "Search", priority=True),
        Binding("escape", "escape", "Table", show=False, priority=True),
        Binding("s", "next_sort", "Sort"),
        Binding("S", "reverse_sort", "Reverse"),
        Binding("x", "clear_filters", "Clear filters"),
        Binding("f5", "reload", "Reload", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.query_state = ListingQuery()
        self.matching: int | None = None
        self.catalogue_size: int | None = None
        self._seq = 0
        self._shown_seq = 0  # the question whose rows the table shows
        self._open_when_shown = False  # Enter came before the rows it was meant for

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterBar()
        yield CatalogueTable(id="table")
        yield Static(id="empty", classes="empty-note")
        yield Static(id="counts", classes="status-line")
        yield JobLine()
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(CatalogueTable)
        table.set_sort_marker(self.query_state.sort, self.query_state.descending)
        table.focus()
        # The status line's "row N of" follows the cursor in the same frame (a RowHighlighted
        # message would arrive after the row was painted, one frame later).
        self.watch(table, "cursor_coordinate", self._show_counts, init=False)
        # A changed search or filter starts its query at once, not after its Changed message
        # has made its way here behind the repaint (and, for a filter, the footer's rebuild).
        for widget in self.query_one(FilterBar).query("#search, Select, Checkbox"):
            self.watch(widget, "value", self._apply_filter_bar, init=False)
        self.reload()

    # --- loading -----------------------------------------------------------------------

    def reload(self, cursor: int | None = 0) -> None:
        """Load the window around absolute row ``cursor`` and the counts for the current query."""
        self._seq += 1
        reader = self.app.reader
        reader.interrupt("window")
        reader.interrupt("counts")
        self.query_one(CatalogueTable).total = None  # no window moves until the new count is in
        self._load_query(reader, self._seq, self.query_state, cursor or 0)

    @work(thread=True, exclusive=True, group="catalogue-query", exit_on_error=False)
    def _load_query(self, reader: Reader, seq: int, query: ListingQuery, cursor: int) -> None:
        # Rows first and counts after, in one thread: the rows are what the user waits for,
        # and a count running beside them would only slow them down.
        if not self._fetch_window(reader, seq, query, max(0, cursor - WINDOW // 3), cursor):
            return
        try:
            with reader.connect("counts") as db:
                matching, size = reads.counts(db, query)
        except (sqlite3.Error, AgentdexError) as exc:
            self._failed(exc, seq)
            return
        self.post_message(CountsLoaded(seq, query, matching, size))

    @work(thread=True, exclusive=True, group="catalogue-window", exit_on_error=False)
    def _load_window(self, reader: Reader, seq: int, query: ListingQuery, start: int) -> None:
        self._fetch_window(reader, seq, query, start, None)

    def _fetch_window(self, reader: Reader, seq: int, query: ListingQuery, start: int, cursor: int | None) -> bool:
        """Load and post one window (in a worker thread); False when it failed."""
        try:
            with reader.connect("window") as db:
                rows = reads.window(db, query, start, WINDOW)
        except (sqlite3.Error, AgentdexError) as exc:
            self._failed(exc, seq)
            return False
        self.post_message(WindowLoaded(seq, query, start, rows, cursor))
        return True

    def _failed(self, exc: Exception, seq: int) -> None:
        # A query superseded by a newer one was interrupted: nothing to say, whatever SQLite
        # called it (an interrupt inside the full-text table's constructor reads "vtable
        # constructor failed", not "interrupted"). Anything else (the file went away, was
        # replaced, became unreadable) is the app's to explain.
        superseded = seq != self._seq
        if not (superseded or (isinstance(exc, sqlite3.OperationalError) and "interrupt" in str(exc))):
            self.post_message(DbProblem(str(exc)))

    def on_window_loaded(self, message: WindowLoaded) -> None:
        if message.seq != self._seq:
            return
        table = self.query_one(CatalogueTable)
        table.show_window(message.start, message.rows, message.cursor)
        self._shown_seq = message.seq
        if self._open_when_shown:
            self._open_when_shown = False
            self._open()
        self._show_empty_note()
        self._show_counts()
        self.post_message(TableShown(message.query, len(message.rows)))

    def on_counts_loaded(self, message: CountsLoaded) -> None:
        if message.seq != self._seq:
            return
        self.matching, self.catalogue_size = message.matching, message.catalogue
        self.query_one(CatalogueTable).total = message.matching
        self._show_empty_note()
        self._show_counts()

    def on_catalogue_table_window_wanted(self, message: CatalogueTable.WindowWanted) -> None:
        self.app.reader.interrupt("window")
        self._load_window(self.app.reader, self._seq, self.query_state, message.start)

    # --- what the user sees -----------------------------------------------------------

    def _show_counts(self) -> None:
        table = self.query_one(CatalogueTable)
        text = Text(end="")
        if self.matching is None:
            text.append("counting…", style="dim")
        else:
            at = f"row {table.cursor_index + 1:,} of " if table.row_count else ""
            text.append(f"{at}{self.matching:,} shown", style="bold")
            text.append(f" · {self.catalogue_size:,} in the catalogue")
        q = self.query_state
        text.append(f" · sorted by {q.sort} {'▼' if q.descending else '▲'}", style="dim")
        if search := (q.search or "").strip():
            text.append(" · search: ", style="dim")
            text.append(search[:60])
        if q.describe():
            text.append(f" · {q.describe()}", style="dim")
        self.query_one("#counts", Static).update(text, layout=False)  # one line: no reflow

    def _show_empty_note(self) -> None:
        note = self.query_one("#empty", Static)
        empty_catalogue = self.catalogue_size == 0
        nothing_matches = self.query_one(CatalogueTable).row_count == 0 and self.matching == 0
        note.set_class(empty_catalogue or nothing_matches, "-shown")
        if empty_catalogue:
            note.update(
                Text(
                    f"The catalogue at {self.app.db_path} is empty.\n\n"
                    "Press ctrl+n to crawl origins into it (e.g. example.com), or quit (q) and run "
                    "`agentdex demo` to crawl the bundled sample web.",
                    justify="center",
                )
            )
        elif nothing_matches:
            # Escape first: with the focus in the search box, an x would only be typed there.
            note.update(
                Text("No listing matches. Press escape, then x, to clear the search and filters.", justify="center")
            )

    @on(DataTable.RowSelected, "#table")
    @on(CatalogueTable.Chosen)
    @on(Input.Submitted, "#search")
    def _open(self) -> None:
        # Enter typed before the rows of the latest search arrived is for those rows (and a
        # change the filter bar has not reported yet is part of that search).
        self._apply_filter_bar()
        if self._shown_seq != self._seq:
            self._open_when_shown = True
            return
        table = self.query_one(CatalogueTable)
        if table.cursor_origin:
            # Back from the listing, the keys (s, S, x, arrows) are for the table, not for
            # the search box that opened it: it keeps the focus it had when the listing left.
            self.set_focus(table)
            self.app.open_listing(table.cursor_origin)

    @on(DataTable.HeaderSelected, "#table")
    def _sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        sort = SORTABLE.get(str(event.column_key.value))
        if sort is None:
            self.notify("This column cannot be sorted.", severity="warning")
            return
        descending = not self.query_state.descending if sort == self.query_state.sort else False
        self._set_sort(sort, descending)

    def on_filter_bar_changed(self, message: FilterBar.Changed) -> None:
        self._apply_filter_bar()

    def _apply_filter_bar(self) -> None:
        """Show what the search box and filters say now (nothing to do if that is shown)."""
        query = self.query_one(FilterBar).apply(self.query_state)
        if query != self.query_state:
            self.query_state = query
            self.matching = None
            self.reload()

    def _set_sort(self, sort: str, descending: bool) -> None:
        self.query_state = self.query_state.with_(sort=sort, descending=descending)
        self.query_one(CatalogueTable).set_sort_marker(sort, descending)
        self.reload()

    # --- actions ---------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "escape":  # from the search box and the filters (the table has no use for it)
            return self.focused is not None and self.query_one(FilterBar) in self.focused.ancestors
        return True

    def action_focus_search(self) -> None:
        self.set_focus(self.query_one("#search", Input))

    def action_escape(self) -> None:
        """Close a filter's open list (back to that filter), else go back to the table."""
        if isinstance(self.focused, OptionList):
            select = self.focused.query_ancestor(Select)
            select.expanded = False
            self.set_focus(select)
        else:
            self.set_focus(self.query_one(CatalogueTable))

    def on_paste(self, event: events.Paste) -> None:
        # A paste onto the table is meant as a search (and never as keys for its bindings).
        search = self.query_one("#search", Input)
        if self.focused is not search:
            event.stop()
            self.set_focus(search)
            search.post_message(events.Paste(event.text))

    def action_next_sort(self) -> None:
        index = SORT_CYCLE.index(self.query_state.sort) if self.query_state.sort in SORT_CYCLE else -1
        self._set_sort(SORT_CYCLE[(index + 1) % len(SORT_CYCLE)], False)

    def action_reverse_sort(self) -> None:
        self._set_sort(self.query_state.sort, not self.query_state.descending)

    def action_clear_filters(self) -> None:
        self.query_one(FilterBar).clear()

    def action_reload(self) -> None:
        self.reload(cursor=self.query_one(CatalogueTable).cursor_index)

    def job_finished(self, message: JobFinished) -> None:
        """A crawl or verification finished: show the new state, cursor where it was."""
        self.matching = None
        self.action_reload()

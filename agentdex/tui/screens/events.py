"""The newest changes across the catalogue; Enter opens the origin a change is about."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from agentdex.errors import AgentdexError
from agentdex.tui import reader as reads
from agentdex.tui.messages import EventsLoaded, JobFinished
from agentdex.tui.reader import Reader
from agentdex.tui.widgets.footer import Footer
from agentdex.tui.widgets.job_line import JobLine
from agentdex.tui.widgets.listing_parts import event_rows
from agentdex.tui.widgets.safe_table import SafeTable

if TYPE_CHECKING:
    from agentdex.tui.app import AgentdexApp

COLUMNS = (("at", "When", 16), ("origin", "Origin", 24), ("kind", "Kind", 16), ("change", "Change", None))


class EventsScreen(Screen):
    """Change events, newest first."""

    app: AgentdexApp  # textual's app property, as the app these screens run in (for the type checker)

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", priority=True), Binding("f5", "reload", "Reload")]

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Newest changes across the catalogue", style="bold"), classes="screen-title")
        yield JobLine()
        yield SafeTable(COLUMNS, empty="No change events yet: crawl some origins (ctrl+n).", id="events-table")
        yield Static(id="events-count", classes="status-line")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "events"
        self.query_one("#events-table", SafeTable).table.focus()
        self.action_reload()

    def action_reload(self) -> None:
        self._load(self.app.reader)

    @work(thread=True, exclusive=True, group="events", exit_on_error=False)
    def _load(self, reader: Reader) -> None:
        try:
            with reader.connect() as db:
                events = reads.newest_events(db)
        except (sqlite3.Error, AgentdexError):
            events = []
        self.post_message(EventsLoaded(events))

    def on_events_loaded(self, message: EventsLoaded) -> None:
        self.events = message.events
        keys = [f"{i}:{e['origin']}" for i, e in enumerate(self.events)]
        self.query_one(SafeTable).fill(event_rows(self.events, with_origin=True), keys)
        shown = len(self.events)
        more = f" (the newest {reads.EVENTS_LIMIT:,})" if shown >= reads.EVENTS_LIMIT else ""
        self.query_one("#events-count", Static).update(Text(f"{shown:,} event(s){more} · Enter opens the origin"))

    @on(DataTable.RowSelected)
    def _open(self) -> None:
        key = self.query_one(SafeTable).cursor_key
        if key:
            self.app.open_listing(key.split(":", 1)[1])

    def job_finished(self, message: JobFinished) -> None:
        """New crawls mean new events."""
        self.action_reload()

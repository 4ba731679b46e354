"""Search-as-you-type and the catalogue's filters, as one widget that reports a
:class:`ListingQuery` whenever any of them changes. The filters are the declared listing
filters that name a widget (agentdex.db.listing_query.FILTERS): a select or a checkbox each."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, Select

from agentdex.db.listing_query import FILTERS, ListingFilter, ListingQuery

NO_CONTROLS = r"[^\x00-\x1f\x7f-\x9f]*"  # a pasted escape sequence must not reach the screen


def selects() -> tuple[tuple[str, str, list[tuple[str, Any]]], ...]:
    """(filter name, prompt, options) of each declared filter shown as a select."""
    return tuple((f.name, f.prompt or f.name, f.options()) for f in FILTERS.values() if f.widget == "select")


def checkboxes() -> tuple[ListingFilter, ...]:
    """The declared filters shown as a checkbox (a flag: on, or no filter)."""
    return tuple(f for f in FILTERS.values() if f.widget == "checkbox")


def _id(spec: ListingFilter) -> str:
    return f"filter-{spec.widget_id or spec.name}"


class FilterBar(Vertical):
    """The search box above a row of filters."""

    # Fixed heights: typing, or focusing a filter, never re-lays out the screen. (On a small
    # terminal app.tcss makes the search box one line and lets the filters share the width.)
    DEFAULT_CSS = """
    FilterBar { height: auto; }
    FilterBar #search { height: 3; width: 1fr; }
    FilterBar #filters { height: 1; }
    FilterBar Select { width: 1fr; min-width: 12; margin-right: 1; }
    FilterBar Checkbox, FilterBar Checkbox:focus { width: auto; height: 1; border: none; padding: 0 1; }
    /* An open filter is as wide as its longest choice (a narrow one cut "unreachable" mid-word). */
    FilterBar Select > SelectOverlay { width: auto; min-width: 14; }
    """

    class Changed(Message):
        """Search text or a filter changed: ``query`` holds all of them (sort untouched)."""

        def __init__(self, query: ListingQuery) -> None:
            super().__init__()
            self.query = query

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="Search names, descriptions, tags and hosts…  (/ to focus)", id="search", restrict=NO_CONTROLS
        )
        with Horizontal(id="filters"):
            for name, prompt, options in selects():
                yield Select(options, prompt=prompt, id=f"filter-{name}", compact=True)
            for spec in checkboxes():
                yield Checkbox(spec.labels[0], id=_id(spec))

    def apply(self, query: ListingQuery) -> ListingQuery:
        """``query`` with this bar's search text and filters."""
        changes: dict[str, Any] = {"search": self.query_one("#search", Input).value}
        for name, _, _ in selects():
            value = self.query_one(f"#filter-{name}", Select).value
            changes[name] = None if value is Select.NULL else value
        for spec in checkboxes():
            changes[spec.name] = True if self.query_one(f"#{_id(spec)}", Checkbox).value else None
        return query.with_(**changes)

    def clear(self) -> None:
        """Empty the search box and reset every filter."""
        self.query_one("#search", Input).value = ""
        for name, _, _ in selects():
            self.query_one(f"#filter-{name}", Select).clear()
        for spec in checkboxes():
            self.query_one(f"#{_id(spec)}", Checkbox).value = False

    def _changed(self) -> None:
        self.post_message(self.Changed(self.apply(ListingQuery())))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._changed()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._changed()

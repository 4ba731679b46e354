"""Search-as-you-type and the catalogue's filters, as one widget that reports a
:class:`CatalogueQuery` whenever any of them changes."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, Select

from agentdex.formats import LISTING_FORMATS as FORMATS
from agentdex.formats.agent_app import AUTH_METHODS, CATEGORIES, PRICING
from agentdex.models import STATUSES
from agentdex.tui.reader import CatalogueQuery

NO_CONTROLS = r"[^\x00-\x1f\x7f-\x9f]*"  # a pasted escape sequence must not reach the screen
# (filter name, prompt, options)
SELECTS: tuple[tuple[str, str, list[tuple[str, Any]]], ...] = (
    ("format", "format", [(f, f) for f in FORMATS]),
    ("status", "status", [(s, s) for s in STATUSES]),
    ("category", "category", [(c, c) for c in CATEGORIES]),
    ("pricing", "pricing", [(p, p) for p in PRICING]),
    ("auth", "auth", [(a, a) for a in AUTH_METHODS]),
    ("has_mcp", "MCP", [("has MCP", True), ("no MCP", False)]),
)


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

        def __init__(self, query: CatalogueQuery) -> None:
            super().__init__()
            self.query = query

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="Search names, descriptions, tags and hosts…  (/ to focus)", id="search", restrict=NO_CONTROLS
        )
        with Horizontal(id="filters"):
            for name, prompt, options in SELECTS:
                yield Select(options, prompt=prompt, id=f"filter-{name}", compact=True)
            yield Checkbox("failing checks", id="filter-failing")

    def apply(self, query: CatalogueQuery) -> CatalogueQuery:
        """``query`` with this bar's search text and filters."""
        changes: dict[str, Any] = {"search": self.query_one("#search", Input).value}
        for name, _, _ in SELECTS:
            value = self.query_one(f"#filter-{name}", Select).value
            changes[name] = None if value is Select.NULL else value
        changes["failing_checks"] = True if self.query_one("#filter-failing", Checkbox).value else None
        return query.with_(**changes)

    def clear(self) -> None:
        """Empty the search box and reset every filter."""
        self.query_one("#search", Input).value = ""
        for name, _, _ in SELECTS:
            self.query_one(f"#filter-{name}", Select).clear()
        self.query_one("#filter-failing", Checkbox).value = False

    def _changed(self) -> None:
        self.post_message(self.Changed(self.apply(CatalogueQuery())))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._changed()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._changed()

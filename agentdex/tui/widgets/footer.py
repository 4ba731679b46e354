"""Textual's footer, fitted to the terminal's width.

At 80 columns the full footer ran past the edge and cut the keys at its end, and a fixed
list of keys left out of a narrow footer dropped ``q Quit``, ``e Events`` and ``^n Crawl``
on the catalogue screen. Below :data:`NARROW` columns the footer is compact (no padding
around each key) and holds what fits: the keys of :data:`ESSENTIAL` first (back, quit,
events, crawl, help), then the screen's own in their order; a key left out is still in
the command palette (ctrl+p) and the help (?).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer as TextualFooter

NARROW = 110  # columns: below this the footer is compact and holds what fits
ESSENTIAL = ("escape", "q", "e", "ctrl+n", "question_mark")  # always in the footer, in this order of need
PALETTE = 14  # columns the "^p palette" key takes at the right, with its separator


class Footer(TextualFooter):
    """The footer; compact below :data:`NARROW` columns, with the keys that fit."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._width: int | None = None

    def compose(self) -> ComposeResult:
        width = self.app.size.width
        narrow = width < NARROW
        self._width, self.compact = width, narrow
        widgets = list(super().compose())
        kept = fitting(widgets, width - PALETTE) if narrow else widgets
        # Textual lays the keys out as a grid of one column a key: one fewer for each left out.
        columns = self.styles.grid_size_columns
        if columns:
            self.styles.grid_size_columns = max(1, columns - (len(widgets) - len(kept)))
        yield from kept

    def on_resize(self, event: events.Resize) -> None:
        if self._width is not None and self.app.size.width != self._width:
            self.call_later(self.recompose)


def fitting(widgets: list[Widget], room: int) -> list[Widget]:
    """``widgets`` without the keys that do not fit in ``room`` columns (compact keys):
    the :data:`ESSENTIAL` ones are placed first, then the others in their order."""
    # A key is Textual's FooterKey (key, key_display, description); the palette's stays right.
    keys: list[Any] = [w for w in widgets if hasattr(w, "key_display") and not w.has_class("-command-palette")]
    order = sorted(keys, key=lambda k: ESSENTIAL.index(k.key) if k.key in ESSENTIAL else len(ESSENTIAL))
    left, dropped = room, set()
    for key in order:
        need = len(key.key_display) + len(key.description) + 2  # "k Desc" and the gap after it
        if need <= left:
            left -= need
        else:
            dropped.add(id(key))
    return [w for w in widgets if id(w) not in dropped]

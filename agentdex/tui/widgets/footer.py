"""Textual's footer, fitted to a narrow terminal.

At 80 columns the full footer ran past the edge and cut the keys at its end. Below
:data:`NARROW` columns it is compact (no padding around each key) and leaves out the keys
that the command palette (ctrl+p) and the help (?) also offer.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter

NARROW = 110  # columns: below this the footer is compact
# Keys left out of a narrow footer; the palette lists their commands and the help every key.
HIDDEN_WHEN_NARROW = ("e", "ctrl+n", "q")


class Footer(TextualFooter):
    """The footer; compact and shorter below :data:`NARROW` columns."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._narrow: bool | None = None

    def compose(self) -> ComposeResult:
        narrow = self.app.size.width < NARROW
        self._narrow, self.compact = narrow, narrow
        widgets = list(super().compose())
        kept = [w for w in widgets if not (narrow and getattr(w, "key", None) in HIDDEN_WHEN_NARROW)]
        # Textual lays the keys out as a grid of one column a key: one fewer for each left out.
        columns = self.styles.grid_size_columns
        if columns:
            self.styles.grid_size_columns = max(1, columns - (len(widgets) - len(kept)))
        yield from kept

    def on_resize(self, event: events.Resize) -> None:
        if self._narrow is not None and (self.app.size.width < NARROW) != self._narrow:
            self.call_later(self.recompose)

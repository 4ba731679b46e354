"""A table for detail lists (findings, checks, tools, events): rows of Text cells (a plain
``str`` cell would be parsed as markup), a note instead of the table when there are no
rows, and the highlighted row in full below it (cells are cut to fit; the detail is not)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static


class SafeTable(Vertical):
    """Columns declared once as ``(key, label, width or None)``; rows of Text cells."""

    DEFAULT_CSS = """
    SafeTable { height: 1fr; }
    SafeTable > DataTable { height: 1fr; }
    SafeTable > .empty { display: none; padding: 1 2; color: $text-muted; }
    SafeTable.-empty > .empty { display: block; }
    SafeTable.-empty > DataTable, SafeTable.-empty > .detail { display: none; }
    SafeTable > .detail { height: auto; max-height: 12; padding: 0 1; border-top: solid $panel-lighten-2; }
    """

    def __init__(
        self, columns: Sequence[tuple[str, str, int | None]], *, empty: str = "Nothing here.", **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self._columns = columns
        self.empty = empty
        self._keys: list[str | None] = []
        self._details: list[Text] = []

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield Static(Text(self.empty), classes="empty")
        yield Static(classes="detail")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label, width in self._columns:
            table.add_column(Text(label), width=width, key=key)

    @property
    def table(self) -> DataTable:
        """The DataTable inside."""
        return self.query_one(DataTable)

    def fill(
        self, rows: Sequence[Sequence[Text]], keys: Sequence[str] | None = None, details: Sequence[Text] | None = None
    ) -> None:
        """Replace the rows (one Text per column); ``details`` is shown in full below the
        table for the highlighted row (default: its cells, one per line)."""
        table = self.table
        table.clear()
        self._keys = list(keys) if keys is not None else [None] * len(rows)
        self._details = list(details) if details is not None else [_cells_detail(self._columns, r) for r in rows]
        for cells in rows:
            table.add_row(*cells)
        self.set_class(not rows, "-empty")
        self._show_detail(0)

    @property
    def cursor_key(self) -> str | None:
        """The key given for the highlighted row."""
        row = self.table.cursor_row
        return self._keys[row] if 0 <= row < len(self._keys) else None

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self._details[row] if 0 <= row < len(self._details) else Text("")
        self.query_one(".detail", Static).update(detail)


def _cells_detail(columns: Sequence[tuple[str, str, int | None]], cells: Sequence[Text]) -> Text:
    text = Text(end="")
    for (_, label, _), value in zip(columns, cells, strict=False):
        if value.plain:
            text.append(f"{label}: ", style="bold")
            value = value.copy()
            value.no_wrap, value.overflow = False, "fold"
            text.append_text(value)
            text.append("\n")
    text.rstrip()
    return text

"""The catalogue table: a DataTable that holds only a window of rows.

A catalogue may hold 100,000 listings; building a row for each would take seconds and a
lot of memory. The table holds :data:`WINDOW` rows starting at ``start`` (an absolute row
number). When the cursor comes within :data:`MARGIN` rows of either edge, it asks for the
window around the cursor (:class:`WindowWanted`); the screen loads it in a worker and calls
:meth:`show_window`, which keeps the cursor on the same listing and the same screen line.

Two DataTable internals are overridden for speed, because every column has a fixed width and
every row is one line: ``_update_dimensions`` (nothing to measure) and ``_render_cell`` (cut
and pad the Text directly). A test checks they draw exactly what DataTable itself would, so
a Textual release that changes those internals fails loudly rather than drawing wrong.
"""

from __future__ import annotations

from typing import Any, cast

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from agentdex.db.listing_query import SORTS
from agentdex.tui.display import cell, checks_text, joined, status_text, when

WINDOW = 60
MARGIN = 8
LEAD = WINDOW // 3  # rows kept above the cursor when the window moves down

# (key, label, width, sort key of agentdex.db.listing_query.SORTS)
COLUMNS = (
    ("name", "Name", 24, "name"),
    ("origin", "Origin", 26, "origin"),
    ("format", "Format", 9, "format"),
    ("status", "Status", 11, "status"),
    ("categories", "Categories", 18, "categories"),
    ("pricing", "Pricing", 8, "pricing"),
    ("has_mcp", "MCP", 3, "has_mcp"),
    ("checks", "Checks", 8, "checks_failed"),
    ("last_changed_at", "Last changed", 16, "last_changed_at"),
)
SORTABLE = {key: sort for key, _, _, sort in COLUMNS if sort in SORTS}
# Below the width every column needs, the table keeps what tells listings apart and narrows
# it (an 80-column terminal showed four columns and cut the fifth): key -> width.
NARROW = {"name": 15, "origin": 19, "format": 9, "status": 11, "has_mcp": 3, "checks": 8}  # 77 cells with padding


NARROW_BELOW = 122  # table width: below it, all columns at their least would not fit
# The columns that take the width there is (their text is long) and give it back: key ->
# (least, most) cells. At 200 columns "developer, produc…" was cut beside 60 empty ones.
FLEX = {"name": (15, 44), "origin": (19, 40), "categories": (12, 60)}
PADDING = 2  # cells a column takes beside its width (DataTable's cell padding)
SCROLLBAR = 2  # cells the vertical scrollbar takes


def columns_for(width: int) -> list[tuple[str, str, int, str]]:
    """The columns shown in a table ``width`` cells wide: all, or the narrow set, with
    the :data:`FLEX` columns grown or shrunk so the row fills the width."""
    if width >= NARROW_BELOW:
        chosen = list(COLUMNS)
    else:
        chosen = [(key, label, NARROW[key], sort) for key, label, _, sort in COLUMNS if key in NARROW]
    widths = {key: w for key, _, w, _ in chosen}
    _fit(widths, width - SCROLLBAR - sum(w + PADDING for w in widths.values()))
    return [(key, label, widths[key], sort) for key, label, _, sort in chosen]


def _fit(widths: dict[str, int], spare: int) -> None:
    """Share ``spare`` cells (taken back when negative) among the flexible columns of
    ``widths``, a cell at a time each in turn, within their least and most."""
    flexible = [key for key in FLEX if key in widths]
    step = 1 if spare > 0 else -1
    while spare and flexible:
        for key in list(flexible):
            least, most = FLEX[key]
            if not least <= widths[key] + step <= most:
                flexible.remove(key)
                continue
            widths[key] += step
            spare -= step
            if not spare:
                return


def row_cells(row: dict[str, Any], keys: list[str] | None = None) -> list[Text]:
    """The cells of one listing row (every crawled value plain): every column's, or those
    of ``keys``."""
    cells = dict(zip((key for key, _, _, _ in COLUMNS), _all_cells(row), strict=True))
    return [cells[key] for key in (keys or cells)]


def _all_cells(row: dict[str, Any]) -> list[Text]:
    return [
        cell(row.get("name") or "—", 80, "" if row.get("name") else "dim"),
        cell(row.get("origin"), 80),
        cell(row.get("format") or "—", 20),
        status_text(row.get("status")),
        cell(joined(row.get("categories")), 60),
        cell(row.get("pricing") or "", 20),
        cell("✓" if row.get("has_mcp") else "", 3, "green"),
        checks_text(int(row.get("checks_passed") or 0), int(row.get("checks_failed") or 0)),
        cell(when(row.get("last_changed_at")), 20),
    ]


class CatalogueTable(DataTable):
    """A DataTable over a window of the catalogue (see the module docstring)."""

    DEFAULT_CSS = """
    CatalogueTable { height: 1fr; }
    """

    class WindowWanted(Message):
        """The cursor is near an edge: load the window starting at ``start``."""

        def __init__(self, start: int) -> None:
            super().__init__()
            self.start = start

    class Chosen(Message):
        """Enter on a table without rows: the rows of a newer search may be on their way."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.start = 0
        self.total: int | None = None
        self._wanted: int | None = None  # the window start asked for and not yet shown
        self._cursor_target: int | None = None  # absolute row for the cursor once it arrives
        self._filling = False
        self._window_rows: list[dict[str, Any]] | None = None  # what show_window last drew
        self.shown_keys: list[str] = []  # the columns shown (all, or the narrow set)
        self._columns: list[tuple[str, str, int, str]] = []  # and their widths
        self._sort_marker = ("name", False)

    def on_mount(self) -> None:
        self._set_columns(columns_for(self.app.size.width))

    def _set_columns(self, columns: list[tuple[str, str, int, str]]) -> None:
        self._columns = columns
        self.shown_keys = [key for key, _, _, _ in columns]
        for key, label, width, _ in columns:
            self.add_column(Text(label), width=width, key=key)

    def on_resize(self) -> None:
        # The outer width: the inner one loses two cells when the scrollbar appears, and
        # a rebuild then would move the rows under a person paging through them.
        columns = columns_for(self.outer_size.width)
        if columns == self._columns:
            return
        rows, self._window_rows = self._window_rows, None
        cursor = self.cursor_index
        self.clear(columns=True)
        self._set_columns(columns)
        self.set_sort_marker(*self._sort_marker)
        if rows is not None:
            self.show_window(self.start, rows, cursor)

    # --- the window ------------------------------------------------------------------

    @property
    def cursor_index(self) -> int:
        """The cursor's absolute row number."""
        return self.start + self.cursor_row

    @property
    def cursor_origin(self) -> str | None:
        """The origin of the listing under the cursor."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0))
        return row_key.value

    def show_window(self, start: int, rows: list[dict[str, Any]], cursor: int | None = None) -> None:
        """Show ``rows`` as the window starting at ``start``, the cursor on absolute row
        ``cursor`` (default: the listing it is on now, at the same screen line)."""
        target = cursor if cursor is not None else self._cursor_target
        target = self.cursor_index if target is None else target
        if start == self.start and rows == self._window_rows:
            # The same rows (one more letter often narrows a search to the same listings):
            # redrawing every cell would only repaint what is on the screen already.
            self._wanted, self._cursor_target = None, None
            if rows and target - start != self.cursor_row:
                self.move_cursor(row=min(max(target - start, 0), len(rows) - 1))
            return
        self._window_rows = rows
        line = self.cursor_row - round(self.scroll_y)
        self._filling = True  # the cursor passes row 0 on the way: that is no edge
        try:
            self.clear()
            self.start, self._wanted, self._cursor_target = start, None, None
            for row in rows:
                self.add_row(*row_cells(row, self.shown_keys), key=row["origin"])
            relative = min(max(target - start, 0), max(len(rows) - 1, 0))
            self.move_cursor(row=relative, scroll=False)
        finally:
            self._filling = False
        top = max(0, relative - (line if cursor is None else 0))
        self.call_after_refresh(self._scroll_top_to, top, relative)

    def _update_dimensions(self, new_rows: Any) -> None:
        # Every column has a fixed width and every row is one line: there is nothing to
        # measure. DataTable would measure every cell of every new row here (on idle), the
        # largest cost between a keystroke and the repainted table.
        header = self.header_height if self.show_header else 0
        width = sum(column.get_render_width(self) for column in self.columns.values())
        self.virtual_size = Size(width + self._row_label_column_width, self._total_row_height + header)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        # A body cell here is always one line of Text in a fixed-width column, so it is cut
        # and padded directly instead of going through Rich's Padding and line wrapping:
        # DataTable's general path made repainting 38 new rows take ~60 ms.
        if row_index < 0 or column_index < 0:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        # A cell being drawn is in the table: its row and column have keys.
        row_key = cast(RowKey, self._row_locations.get_key(row_index))
        column_key = cast(ColumnKey, self._column_locations.get_key(column_index))
        key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        lines = self._cell_render_cache.get(key)
        if lines is None:
            lines = [
                self._cell_line(
                    self._data[row_key][column_key], row_index, column_index, base_style, width, cursor, hover
                )
            ]
            self._cell_render_cache[key] = lines
        return lines

    def _cell_line(
        self, value: Any, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool, hover: bool
    ) -> list[Segment]:
        component_style, post_style = self._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        text = value.copy() if isinstance(value, Text) else Text(str(value or ""))
        pad, console = self.cell_padding, self.app.console
        inner = max(0, width - 2 * pad)
        text.truncate(inner, overflow="ellipsis")
        # Text.render leaves the text's own style to its caller; the padding stays unstyled.
        body = Segment.apply_style(text.render(console), console.get_style(text.style) if text.style else None)
        segments = [Segment(" " * pad), *body, Segment(" " * (pad + max(0, inner - text.cell_len)))]
        # Styles without meta combine through Rich's cache; the click meta is added once.
        styled = Segment.apply_style(segments, base_style + component_style, post_style)
        meta = Style.from_meta({"row": row_index, "column": column_index})
        return [Segment(segment.text, (segment.style or Style.null()) + meta) for segment in styled]

    def _scroll_top_to(self, top: int, relative: int) -> None:
        self.scroll_to(y=top, animate=False, force=True, immediate=True)
        self.move_cursor(row=relative)

    def set_sort_marker(self, sort: str, descending: bool) -> None:
        """Mark the sorted column's header with ▲ or ▼."""
        self._sort_marker = (sort, descending)
        for key, label, _, sort_key in COLUMNS:
            if key not in self.columns:
                continue
            marked = sort_key == sort and key in SORTABLE
            self.columns[ColumnKey(key)].label = Text(f"{label} {'▼' if descending else '▲'}" if marked else label)
        self._clear_caches()
        self.refresh()

    def action_select_cursor(self) -> None:
        if self.row_count:
            super().action_select_cursor()
        else:
            self.post_message(self.Chosen())

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        self._check_edges()

    def _check_edges(self) -> None:
        if self._filling or self.total is None or not self.row_count:
            return
        row, count = self.cursor_row, self.row_count
        if row >= count - MARGIN and self.start + count < self.total:
            self._ask(max(0, self.cursor_index - LEAD))
        elif row < MARGIN and self.start > 0:
            self._ask(max(0, self.cursor_index - (WINDOW - LEAD)))

    def _ask(self, start: int, cursor: int | None = None) -> None:
        if cursor is not None:
            self._cursor_target = cursor
        if start != self._wanted and (start != self.start or cursor is not None):
            self._wanted = start
            self.post_message(self.WindowWanted(start))

    # --- jumps past the window --------------------------------------------------------

    def action_scroll_bottom(self) -> None:
        if self.total is not None and self.start + self.row_count < self.total:
            self._ask(max(0, self.total - WINDOW), cursor=self.total - 1)
        else:
            super().action_scroll_bottom()

    def action_scroll_top(self) -> None:
        if self.start > 0:
            self._ask(0, cursor=0)
        else:
            super().action_scroll_top()

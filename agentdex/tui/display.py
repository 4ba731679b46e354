"""Crawled strings on screen: always plain text, never markup, never escape sequences.

Every value a website wrote reaches a widget through one of these helpers. They return
:class:`rich.text.Text` objects, which Textual and Rich never parse as markup (a plain
``str`` given to a DataTable cell, a Static or a Rich table *is* parsed), and they pass the
value through :func:`agentdex.text.plain` first, which removes escape sequences and control
characters and cuts long values with a visible ``…``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rich.table import Table
from rich.text import Text

from agentdex.text import plain

CELL_LIMIT = 120  # a table cell: one line, cut long before the terminal edge
LINE_LIMIT = 1_000  # one value in the overview
BLOCK_LIMIT = 4_000  # a description, an instruction line, a check's detail
RAW_LIMIT = 200_000  # a stored document in the Raw tab

STATUS_STYLE = {
    "listed": "green",
    "invalid": "red",
    "unreachable": "yellow",
    "no_manifest": "dim",
    "delisted": "magenta",
}
CHECK_STYLE = {"pass": "green", "fail": "bold red", "warn": "yellow", "skip": "dim"}
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow"}


def cell(value: Any, limit: int = CELL_LIMIT, style: str = "") -> Text:
    """One table cell: a single line of plain text."""
    text = "" if value is None else plain(value, limit, single_line=True)
    return Text(text, style=style, no_wrap=True, overflow="ellipsis", end="")


def block(value: Any, limit: int = BLOCK_LIMIT, style: str = "") -> Text:
    """Plain text that may span lines (tabs and newlines kept)."""
    return Text("" if value is None else plain(value, limit), style=style, end="", overflow="fold")


def joined(values: Iterable[Any] | None, limit: int = CELL_LIMIT) -> str:
    """A list of crawled words as one plain, comma-separated line."""
    return plain(", ".join(str(v) for v in values or []), limit, single_line=True)


def compact_json(value: Any, limit: int = CELL_LIMIT) -> str:
    """A JSON value on one plain line (strings as they are)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return plain(text, limit, single_line=True)


def when(stamp: Any) -> str:
    """``2026-05-01T12:00:00.000Z`` as ``2026-05-01 12:00`` (empty for none)."""
    if not stamp:
        return ""
    text = plain(stamp, 40, single_line=True)
    return text[:16].replace("T", " ")


def status_text(status: Any) -> Text:
    """A listing status, coloured."""
    return cell(status or "", 20, STATUS_STYLE.get(str(status), ""))


def checks_text(passed: int, failed: int) -> Text:
    """``12✓ 3✗``: the failures in red."""
    text = Text(f"{passed}✓", style="green" if passed else "dim", end="")
    text.append(" ")
    text.append(f"{failed}✗", style="bold red" if failed else "dim")
    return text


def kv_table(rows: Iterable[tuple[str, Text | str]]) -> Table:
    """A two-column grid of our labels and plain values (every value a Text)."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True, min_width=14)
    grid.add_column(ratio=1)
    for label, value in rows:
        grid.add_row(Text(label, end=""), value if isinstance(value, Text) else block(value))
    return grid


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """A JSON document as ``(path, leaf)`` pairs, paths as findings spell them
    (``mcp.url``, ``tags[3]``)."""
    if isinstance(value, dict):
        pairs: list[tuple[str, Any]] = []
        for key, item in value.items():
            pairs += flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return pairs or [(prefix, {})]
    if isinstance(value, list):
        pairs = []
        for index, item in enumerate(value):
            pairs += flatten(item, f"{prefix}[{index}]")
        return pairs or [(prefix, [])]
    return [(prefix, value)]

"""Datasette's CSV exports of a catalogue, with every cell a spreadsheet would evaluate
neutralised (:func:`agentdex.text.spreadsheet_cell`): a crawled name ``=HYPERLINK(…)`` is
text in the spreadsheet an analyst opens, never a formula.

Datasette 0.65 writes CSV outside its plugin hooks (``render_cell`` and the output renderers
see HTML and JSON only; simonw/datasette#1096 and #2936 plan to move CSV onto the renderer
hook), so this is an ASGI wrapper (the ``asgi_wrapper`` hook): on a CSV answer of a database
that holds a ``listings`` table it reads each body message as CSV records, as Datasette's
``csv.writer`` wrote them, and writes them again with every cell neutralised. JSON and HTML
pass untouched: JSON keeps the exact value.
"""

from __future__ import annotations

import csv
import io
from typing import Any
from urllib.parse import parse_qs

from agentdex.text import spreadsheet_cell

LISTINGS = "listings"


def wrap(app, datasette):
    """The ASGI app ``app`` with its CSV answers of a catalogue neutralised."""

    async def wrapped(scope, receive, send) -> None:
        if scope.get("type") != "http" or not _asks_csv(scope) or not await _is_catalogue(datasette, scope):
            await app(scope, receive, send)
            return
        await app(scope, receive, _Rewriter(send))

    return wrapped


def _asks_csv(scope: dict[str, Any]) -> bool:
    """``/db/table.csv``, ``/db.csv?sql=…`` or ``?_format=csv``: Datasette's CSV addresses."""
    if scope.get("path", "").endswith(".csv"):
        return True
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return "csv" in query.get("_format", [])


async def _is_catalogue(datasette, scope: dict[str, Any]) -> bool:
    from datasette.utils import tilde_decode

    first = scope.get("path", "").lstrip("/").split("/", 1)[0]
    name = tilde_decode(first.removesuffix(".csv"))
    database = datasette.databases.get(name)
    return database is not None and not database.is_memory and await database.table_exists(LISTINGS)


class _Rewriter:
    """An ASGI ``send`` that rewrites a CSV body, whole records at a time."""

    def __init__(self, send) -> None:
        self.send = send
        self.csv = False
        self.pending = ""

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            kind = dict(message.get("headers") or []).get(b"content-type", b"")
            self.csv = kind.startswith((b"text/csv", b"text/plain"))
            if self.csv:  # the length changes with the rewrite
                headers = [(k, v) for k, v in message.get("headers") or [] if k.lower() != b"content-length"]
                message = {**message, "headers": headers}
        elif message["type"] == "http.response.body" and self.csv:
            message = {**message, "body": self._records(message)}
        await self.send(message)

    def _records(self, message: dict[str, Any]) -> bytes:
        """The complete records received so far, neutralised (a record cut between two
        messages waits for its end: an odd count of quotes means a quoted cell is open)."""
        self.pending += message.get("body", b"").decode("utf-8", "replace")
        complete = self.pending.count('"') % 2 == 0 and self.pending.endswith("\n")
        if not complete and message.get("more_body"):
            return b""
        text, self.pending = self.pending, ""
        return neutralised(text).encode("utf-8")


def neutralised(text: str) -> str:
    """CSV text with every cell passed through :func:`spreadsheet_cell`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # Datasette's csv.writer, the excel dialect
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([spreadsheet_cell(value) for value in row])
    return out.getvalue()

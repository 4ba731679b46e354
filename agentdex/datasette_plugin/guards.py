"""Datasette (0.65) answering bad input with a 4xx and telling nobody where its files are.

- A request Datasette refuses for what it asks (``_sort=`` or ``_sort_desc=`` on a column the
  table lacks, a ``_through=`` that is no ``{table, column, value}`` object) raised a
  ``DatasetteError`` with its default status 500, or a ``KeyError``: the answer is a 400
  saying so. A 404 of a file missing under ``/-/static-plugins/`` crashed Datasette's own
  error handler (it asks Rich to print a traceback outside an ``except`` block): the answer
  is the 404 it meant. :func:`client_status` decides; :func:`error_response` answers as
  Datasette's own handler does (JSON for a ``.json`` path, else its ``error.html`` page).
- ``/-/databases(.json)`` named each database's absolute path, and ``/-/threads(.json)`` the
  source files of running coroutines: :func:`databases` and :func:`threads` answer the same
  shapes with a file's name only, and no coroutine.
"""

from __future__ import annotations

import threading
from pathlib import PurePath
from typing import Any

from datasette.utils.asgi import Base400, Response
from datasette.views.base import DatasetteError

# Arguments Datasette reads JSON or keys from without checking them first.
_THROUGH = "_through"


def client_status(exception: BaseException, request) -> int | None:
    """The 4xx status of an exception that is the request's fault; ``None`` for the rest
    (Datasette's own handler answers those)."""
    if isinstance(exception, Base400):
        return exception.status
    if isinstance(exception, DatasetteError) and exception.status == 500:
        # Datasette 0.65 raises DatasetteError without a status only for arguments it cannot
        # use (views/table.py: _sort, _sort_desc; filters.py: _through); its SQL errors carry 400.
        return 400
    if request is not None and _THROUGH in request.args and isinstance(exception, KeyError | TypeError | ValueError):
        return 400
    return None


def message_of(exception: BaseException, status: int) -> str:
    """What the error page says."""
    if isinstance(exception, DatasetteError):
        return str(exception.message)
    if isinstance(exception, Base400):
        return str(exception.args[0]) if exception.args else "Not found"
    return f"Invalid {_THROUGH}: expected a JSON object with table, column and value"


async def error_response(datasette, request, exception: BaseException, status: int) -> Response:
    """The error answer Datasette's default handler would give, with ``status``."""
    info = {"ok": False, "error": message_of(exception, status), "status": status, "title": None}
    if request.path.split("?")[0].endswith(".json"):
        return Response.json(info, status=status)
    template = datasette.jinja_env.select_template([f"{status}.html", "error.html"])
    context = dict(info, urls=datasette.urls, app_css_hash=datasette.app_css_hash(), menu_links=lambda: [])
    return Response.html(await template.render_async(context), status=status)


def databases(datasette) -> Response:
    """``/-/databases.json`` with each database's file name, not its path."""
    found = [
        {
            "name": d.name,
            "route": d.route,
            "path": PurePath(d.path).name if d.path else None,
            "size": d.size,
            "is_mutable": d.is_mutable,
            "is_memory": d.is_memory,
            "hash": d.hash,
        }
        for name, d in datasette.databases.items()
        if name != "_internal"
    ]
    return _json(found)


def threads() -> Response:
    """``/-/threads.json`` with the threads, and no coroutine (each named its source file)."""
    running = threading.enumerate()
    return _json({"num_threads": len(running), "threads": [{"name": t.name, "daemon": t.daemon} for t in running]})


def _json(data: Any) -> Response:
    return Response.json(data)

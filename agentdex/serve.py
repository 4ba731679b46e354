"""Publishing the catalogue read-only with Datasette 0.65.

``agentdex serve --db PATH`` runs the same Datasette a user gets from::

    datasette PATH --metadata datasette_metadata.json

(see :func:`datasette_command` for the exact equivalent). Everything analysts see comes
from the metadata file: title, description, licence and source, a description of every
table, view and column, units, default sorts and facets, the search box on listings and
the canned queries. Three things differ, each because Datasette 0.65 cannot put it in a
metadata file:

- :data:`SETTINGS` are passed as settings (``--setting`` on the command line). The SQL time
  limit and the row cap are Datasette's defaults, stated so they cannot drift; ``serve``
  adds no CSV stream past the row cap, no suggested facets (each costs a query over every
  row of a large catalogue) and no database download (0.65 never offers one for a file
  that may change; the setting says so again).
- The metadata is keyed by database name, which Datasette takes from the file name:
  ``agentdex`` for ``agentdex.db``. ``serve`` keys it by the name of the file it serves, so
  a catalogue under any file name gets its metadata; for Datasette's own command,
  ``agentdex metadata DB -o FILE`` writes the metadata keyed for ``DB`` (:func:`metadata_for`).
- ``serve`` answers every HTTP method but GET, HEAD and OPTIONS with 405 before Datasette
  sees it. Datasette's own command refuses those requests too (403 or 500), less clearly.

No query can take more memory than SQLite's own limits allow (:func:`limit_connection`):
every connection Datasette opens gets :data:`SQLITE_LIMITS` (no string or blob above 32 MiB,
no SQL text above 50,000 characters …) and ``serve`` caps SQLite's heap for the process
(:data:`HEAP_LIMIT`). Datasette's time limit cannot stop one function call that builds a
huge value (``zeroblob(2000000000)``, ``replace(hex(…))``, ``printf('%.*c', …)``): SQLite
refuses to build it, and the page shows the error. Datasette's own command has neither.

Crawled text is shown inert on its HTML pages too: a cell holding invisible characters,
controls or escape sequences is shown as :func:`~agentdex.text.plain` shows it
(:func:`shown_cell`); the JSON API keeps the exact value.

Read-only by construction: Datasette opens a mutable file through ``file:…?mode=ro``
connections (not ``immutable=1``, since a crawl may write while it serves, and WAL lets
every query see only committed transactions), 0.65 has no write API, and the metadata
defines no writable canned query. Crawled text is never markup: Datasette escapes every
cell, the metadata uses no ``description_html``, and no plugin that renders markdown or HTML
is used.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from agentdex.db.connection import open_db
from agentdex.errors import AgentdexError
from agentdex.text import plain

METADATA_FILE = "datasette_metadata.json"
DATABASE_KEY = "agentdex"  # the database name the metadata is written for (agentdex.db)
READ_METHODS = ("GET", "HEAD", "OPTIONS")
SETTINGS: dict[str, Any] = {
    "sql_time_limit_ms": 1000,
    "max_returned_rows": 1000,
    "allow_download": False,
    "allow_csv_stream": False,
    "suggest_facets": False,
}
START_TIMEOUT = 30.0  # seconds a child Datasette may take to listen


class ServeError(AgentdexError):
    """Datasette could not be started; ``code`` is the exit code to end with (2: a port in use)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def metadata_text() -> str:
    """The shipped ``datasette_metadata.json`` as text."""
    return resources.files("agentdex").joinpath(METADATA_FILE).read_text(encoding="utf-8")


def load_metadata(database: str = DATABASE_KEY) -> dict[str, Any]:
    """The shipped metadata, with its database entry keyed by ``database`` (the name
    Datasette gives the served file)."""
    metadata = json.loads(metadata_text())
    databases = metadata.get("databases", {})
    if database != DATABASE_KEY and DATABASE_KEY in databases:
        databases[database] = databases.pop(DATABASE_KEY)
    return metadata


def metadata_for(db_path: Path) -> str:
    """The shipped metadata as JSON text, keyed for the catalogue at ``db_path`` (Datasette
    names a database after its file), for ``datasette DB --metadata FILE`` on a catalogue of
    any file name.

    :raises DatabaseError: ``db_path`` is missing, not a catalogue, or of another schema version
    """
    open_db(Path(db_path), readonly=True).close()
    return json.dumps(load_metadata(database_name(Path(db_path))), indent=2, ensure_ascii=False) + "\n"


def database_name(db_path: Path) -> str:
    """The name Datasette gives the database in ``db_path`` (its URL path): the file stem."""
    return Path(db_path).stem


def _setting_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def datasette_command(
    db_path: Path, metadata: Path | str = METADATA_FILE, *, host: str = "127.0.0.1", port: int = 8001
) -> list[str]:
    """The ``datasette`` command line equivalent to :func:`serve` (for a file named
    ``agentdex.db``; see the module docstring)."""
    args = ["datasette", "serve", str(db_path), "--metadata", str(metadata), "--host", host, "--port", str(port)]
    for name, value in SETTINGS.items():
        args += ["--setting", name, _setting_value(value)]
    return args


def make_datasette(db_path: Path):
    """A Datasette instance publishing the catalogue at ``db_path`` read-only, with the
    shipped metadata and :data:`SETTINGS` (startup hooks not yet run).

    :raises DatabaseError: ``db_path`` is missing, not a catalogue, or of another schema
        version than this agentdex (its views and queries would not match)
    """
    from datasette.app import Datasette

    register_plugins()
    register_limits()
    register_text_plugin()
    db_path = Path(db_path)
    open_db(db_path, readonly=True).close()
    return Datasette([str(db_path)], metadata=load_metadata(database_name(db_path)), settings=dict(SETTINGS))


def register_plugins() -> None:
    """Register the Datasette plugins shipped in the package (once per process): the
    federation API in the MCP registry's shape (:mod:`agentdex.federation`) and the
    catalogue's pages and SQL functions (:func:`register_catalogue_plugin`)."""
    from datasette.plugins import pm

    from agentdex import federation

    if not pm.is_registered(federation):
        pm.register(federation, name="agentdex-federation")
    register_catalogue_plugin()


def register_catalogue_plugin() -> None:
    """Register :mod:`agentdex.datasette_plugin` (SQL functions, templates) unless its
    ``datasette`` entry point already did (an installed agentdex)."""
    from datasette.plugins import pm

    from agentdex import datasette_plugin

    if not pm.is_registered(datasette_plugin):
        pm.register(datasette_plugin, name="agentdex")


def read_only(app):
    """``app`` (ASGI) behind a filter that answers 405 to any HTTP method that could write."""

    async def filtered(scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in READ_METHODS:
            headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"allow", ", ".join(READ_METHODS).encode())]
            await send({"type": "http.response.start", "status": 405, "headers": headers})
            await send({"type": "http.response.body", "body": b"The agentdex catalogue is published read-only.\n"})
            return
        await app(scope, receive, send)

    return filtered


def serve(db_path: Path, *, host: str = "127.0.0.1", port: int = 8001) -> None:
    """Serve the catalogue at ``db_path`` with Datasette on ``host:port`` until interrupted.

    :raises DatabaseError: see :func:`make_datasette`
    """
    import uvicorn

    limit_heap()
    ds = make_datasette(db_path)
    asyncio.run(ds.invoke_startup())
    uvicorn.run(read_only(ds.app()), host=host, port=port, log_level="info", lifespan="on", workers=1)


# -- SQLite's own limits on every serving connection ------------------------------------------

MIB = 1024 * 1024
# The largest value agentdex stores is a document or package file of 8 MiB; 32 MiB leaves room
# and refuses the gigabyte values one SQL function call can otherwise build.
SQLITE_LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: 32 * MIB,  # any string or blob, built or read
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 50_000,  # the text of one statement
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 10_000,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 500,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 100,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 100,
}
HEAP_LIMIT = 512 * MIB  # all of SQLite's memory in the serving process (PRAGMA hard_heap_limit)


def limit_connection(conn: sqlite3.Connection) -> None:
    """Apply :data:`SQLITE_LIMITS` to ``conn``: SQLite itself then refuses, with an error,
    any statement or value past them, however few steps it takes."""
    for category, value in SQLITE_LIMITS.items():
        conn.setlimit(category, value)


def limit_heap(limit: int = HEAP_LIMIT) -> None:
    """Cap the memory SQLite may hold in this process (``PRAGMA hard_heap_limit``, which is
    process-wide: only ``serve``, whose process does nothing else, sets it). A query past it
    fails with "out of memory" instead of growing the server."""
    with sqlite3.connect(":memory:") as conn:
        conn.execute(f"PRAGMA hard_heap_limit = {int(limit)}")


LIMITS_PLUGIN = "agentdex_sqlite_limits"
TEXT_PLUGIN = "agentdex_inert_text"


def shown_cell(value: Any) -> str | None:
    """How an HTML page shows a cell that holds invisible characters, controls or escape
    sequences: :func:`~agentdex.text.plain` text (``⟨U+202E⟩`` placeholders), which Datasette's
    templates escape as any text; ``None`` (Datasette's own rendering) for every other value.
    The JSON API and CSV keep the exact value."""
    if isinstance(value, str):
        shown = plain(value)
        if shown != value:
            return shown
    return None


def register_text_plugin() -> None:
    """Register the Datasette plugin whose ``render_cell`` is :func:`shown_cell` (once)."""
    from datasette import hookimpl
    from datasette.plugins import pm

    if pm.get_plugin(TEXT_PLUGIN) is None:
        plugin = types.ModuleType(TEXT_PLUGIN)
        vars(plugin)["render_cell"] = hookimpl(specname="render_cell")(shown_cell)
        pm.register(plugin, name=TEXT_PLUGIN)


def register_limits() -> None:
    """Register the Datasette plugin whose ``prepare_connection`` applies
    :func:`limit_connection` to every connection Datasette opens (once per process)."""
    from datasette import hookimpl
    from datasette.plugins import pm

    if pm.get_plugin(LIMITS_PLUGIN) is None:
        # Datasette lists plugins by module name: a module of its own, holding just the hook.
        plugin = types.ModuleType(LIMITS_PLUGIN)
        vars(plugin)["prepare_connection"] = hookimpl(specname="prepare_connection")(limit_connection)
        pm.register(plugin, name=LIMITS_PLUGIN)


# -- Datasette in a child process (the demo's --serve) ----------------------------------------


def free_port(port: int) -> int:
    """``port`` when nothing listens on it on 127.0.0.1 (0: any free port).

    :raises ServeError: the port is in use (code 2)
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As servers bind: a port left in TIME_WAIT by the last demo is free, a listener is not.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            raise ServeError(f"port {port} on 127.0.0.1 is in use; choose another with --port", 2) from None
        return sock.getsockname()[1]


def port_free_on(host: str, port: int) -> None:
    """Nothing listens on ``host:port`` (checked by binding it, as the server will), so
    ``serve`` can say so in one sentence instead of uvicorn's log.

    :raises ServeError: the port is in use (code 2) or the address cannot be listened on
    """
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {host}: {exc.strerror}; give an address with --host", 2) from None
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except PermissionError:
            raise ServeError(f"port {port} on {host} needs privileges; choose another with --port", 2) from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServeError(f"port {port} on {host} is in use; choose another with --port", 2) from None
            raise ServeError(f"cannot listen on {host} port {port}: {exc.strerror}", 2) from None


@contextmanager
def in_child(db_path: Path, port: int) -> Iterator[subprocess.Popen]:
    """``agentdex serve`` on 127.0.0.1:``port`` in a child process, listening once this
    yields, stopped (terminated, then killed) when it exits.

    :raises ServeError: the child ended, or did not listen within :data:`START_TIMEOUT`
    """
    log = tempfile.TemporaryFile()
    command = [
        sys.executable,
        "-m",
        "agentdex",
        "serve",
        "--db",
        str(db_path),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(proc, port, log)
        yield proc
    finally:
        _stop(proc)
        log.close()


def _wait_listening(proc: subprocess.Popen, port: int, log) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            tail = [line for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()][-1:]
            raise ServeError(
                f"Datasette did not start: {plain(tail[0] if tail else 'exit code ' + str(proc.returncode), 300)}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise ServeError(f"Datasette did not listen on 127.0.0.1:{port} within {START_TIMEOUT:.0f} s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

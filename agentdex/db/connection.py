"""Opening the catalogue file: one writer that migrates, any number of read-only readers.

The writer (the crawler, ``import``, ``verify``) opens the file in WAL mode with foreign
keys on and upgrades an older schema in place. Readers (TUI, ``show``, ``list``) open it
through a ``file:…?mode=ro`` URI, so the connection itself refuses writes, and never
migrate: a reader must not change a file another process may be writing. Every write
goes through :func:`transaction`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from agentdex.db.migrations import MIGRATION_SET, applied_names, known_names, migrate
from agentdex.db.views import sync_views
from agentdex.errors import DatabaseError

BUSY_TIMEOUT_SECONDS = 30.0
CREATE_HINT = "run `agentdex crawl ORIGIN` or `agentdex demo` to create one"


def open_db(path: str | Path, *, readonly: bool = False) -> Database:
    """Open the catalogue at ``path``.

    :param readonly: open for reading only (no migration, no write possible)
    :raises DatabaseError: the file is missing (read-only), not SQLite, not an agentdex
        catalogue, or of a schema newer (or, read-only, older) than this code
    """
    path = Path(path)
    conn = _connect_reader(path) if readonly else _connect_writer(path)
    try:
        db = Database(conn)
        _check_schema(db, path, readonly=readonly)
        if not readonly:
            migrate(db)
            sync_views(db)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise DatabaseError(f"{path} is not an SQLite database agentdex can use: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return db


def _connect_reader(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise DatabaseError(f"no catalogue at {path}: {CREATE_HINT}")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
        conn.execute("PRAGMA query_only = ON")
        _probe(conn)
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"cannot read {path} as an SQLite database: {exc}") from exc
    return conn


def _connect_writer(path: Path) -> sqlite3.Connection:
    if path.is_dir():
        raise DatabaseError(f"{path} is a directory, not a catalogue file")
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
        _probe(conn)
        # journal_mode and foreign_keys cannot change inside a transaction: set them first.
        conn.isolation_level = None
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # WAL + NORMAL survives a killed process; only a power cut may lose the last commit.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.isolation_level = "DEFERRED"  # sqlite3's default: BEGIN before the first write
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"cannot open {path} as an SQLite database: {exc}") from exc
    return conn


def catalogue_path(db: Database) -> Path | None:
    """The file the open catalogue ``db`` is (None for one in memory)."""
    rows = db.conn.execute("PRAGMA database_list").fetchall()
    name = next((row[2] for row in rows if row[1] == "main"), "")
    return Path(name) if name else None


def _probe(conn: sqlite3.Connection) -> None:
    # sqlite3.connect() is lazy: the first read is what finds a file that is not SQLite.
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def _check_schema(db: Database, path: Path, *, readonly: bool) -> None:
    applied = applied_names(db)
    known = known_names()
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise DatabaseError(
            f"{path} has schema version {len(applied)} (up to {unknown[-1]}), newer than this "
            f"agentdex understands (version {len(known)}); upgrade agentdex to open it"
        )
    if not applied and _has_foreign_tables(db):
        raise DatabaseError(f"{path} is an SQLite database but not an agentdex catalogue")
    if readonly and not applied:
        raise DatabaseError(f"{path} holds no catalogue yet: {CREATE_HINT}")
    if readonly and len(applied) < len(known):
        raise DatabaseError(
            f"{path} has schema version {len(applied)}, older than this agentdex "
            f"(version {len(known)}); open it once for writing (any `agentdex crawl`) to upgrade it"
        )


def _has_foreign_tables(db: Database) -> bool:
    return any(not name.startswith(("sqlite_", "_sqlite_migrations")) for name in db.table_names())


def schema_version(db: Database) -> int:
    """How many of the catalogue's migrations ``db`` has applied."""
    return len(applied_names(db))


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """One write transaction, taken at once (``BEGIN IMMEDIATE``) so a second writer waits
    for the busy timeout instead of failing half-way; rolled back on any exception (a
    failed COMMIT included). A full disk raises :class:`DatabaseError` with a sentence.
    Inside a caller's transaction it is a savepoint of that transaction."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.conn.execute("COMMIT")
    except BaseException as exc:
        if db.conn.in_transaction:  # a COMMIT that failed (a full disk) leaves it open
            db.rollback()
        if isinstance(exc, sqlite3.OperationalError) and _disk_full(exc):
            raise DatabaseError(
                f"the disk holding the catalogue is full ({exc}): nothing of the origin being saved was "
                "kept, every origin saved before it is; free some space and run the same command again"
            ) from exc
        raise


def _disk_full(exc: sqlite3.OperationalError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "full" in str(exc)


__all__ = ["BUSY_TIMEOUT_SECONDS", "MIGRATION_SET", "catalogue_path", "open_db", "schema_version", "transaction"]

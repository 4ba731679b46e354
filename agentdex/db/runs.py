"""A run's life: the ``crawls`` row a crawl, verification or import keeps open while it
works, its counters, and the runs a killed process left ``running``.

    start_crawl      open a run (closing this machine's dead ones first)
    count_crawl      add one origin's fetches to the run's counters (inside its save)
    finish_crawl     close it as finished or interrupted
"""

from __future__ import annotations

import hashlib
import os
import socket

from sqlite_utils import Database

from agentdex.db.common import utc_now
from agentdex.db.connection import transaction
from agentdex.models import FetchRecord


def start_crawl(db: Database, kind: str = "crawl", origins_total: int = 0, *, at: str | None = None) -> int:
    """Record the start of a crawl (``kind``: crawl | verify | import); return its id.

    Runs of this machine still marked ``running`` whose process is gone (killed, or the
    machine restarted) are marked ``interrupted`` first.
    """
    with transaction(db):
        _close_dead_runs(db, at)
        cursor = db.execute(
            "INSERT INTO crawls (kind, started_at, status, origins_total, pid, machine) "
            "VALUES (?, ?, 'running', ?, ?, ?)",
            [kind, at or utc_now(), origins_total, os.getpid(), _machine()],
        )
    return int(cursor.lastrowid or 0)  # an INSERT always sets it (None only before any)


def _close_dead_runs(db: Database, at: str | None) -> None:
    rows = db.execute("SELECT id, pid FROM crawls WHERE status = 'running' AND machine = ?", [_machine()]).fetchall()
    dead = [crawl_id for crawl_id, pid in rows if pid is not None and not _alive(pid)]
    for crawl_id in dead:
        # finished_at stays empty: when the process died is not known.
        db.execute("UPDATE crawls SET status = 'interrupted' WHERE id = ?", [crawl_id])


def _machine() -> str:
    # A published catalogue should not name the machine it was crawled from.
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:16]


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def finish_crawl(
    db: Database, crawl_id: int, *, status: str = "finished", at: str | None = None, **counts: int
) -> None:
    """Close a crawl with ``status`` (finished | interrupted).

    ``origins_done``, ``requests``, ``errors`` and ``bytes_fetched`` are counted by
    :func:`save_origin` as it goes; pass any of them to override the count.
    """
    allowed = {"origins_total", "origins_done", "requests", "errors", "bytes_fetched"}
    unknown = set(counts) - allowed
    if unknown:
        raise TypeError(f"finish_crawl() got unknown counts: {sorted(unknown)}")
    sets = "".join(f", {name} = :{name}" for name in sorted(counts))
    with transaction(db):
        db.execute(
            f"UPDATE crawls SET status = :status, finished_at = :at{sets} WHERE id = :id",
            {"status": status, "at": at or utc_now(), "id": crawl_id, **counts},
        )


def count_crawl(db: Database, crawl_id: int | None, fetches: list[FetchRecord], *, origin_done: bool = True) -> None:
    """Add one origin's ``fetches`` (requests, errors, bytes) to run ``crawl_id``'s counters,
    inside the transaction that saves them; no run (``None``): nothing to count."""
    if crawl_id is None:
        return
    errors = sum(1 for f in fetches if f.error_code is not None)
    # A 304 or a fresh answer may carry the stored body (for the checks): nothing was fetched.
    size = sum(len(f.body) for f in fetches if f.body is not None and not (f.not_modified or f.from_freshness))
    db.execute(
        "UPDATE crawls SET origins_done = origins_done + ?, requests = requests + ?, "
        "errors = errors + ?, bytes_fetched = bytes_fetched + ? WHERE id = ?",
        [int(origin_done), len(fetches), errors, size, crawl_id],
    )

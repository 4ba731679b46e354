"""Reading the catalogue for the TUI: read-only connections for worker threads, and the
reads each screen needs. What the catalogue screen shows is a listing query
(:class:`agentdex.db.listing_query.ListingQuery`: search text, filters, sort order), as the
CLI's ``list`` builds one.

Every read goes through :mod:`agentdex.db` (the named queries); nothing here writes SQL.
A connection is used by one thread at a time: a worker takes one from the pool (or opens
one, read-only) and gives it back. A search that a newer keystroke supersedes is
interrupted, so an outdated query never keeps a core busy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from agentdex import db as catalogue
from agentdex import formats
from agentdex.crawler.origins import normalise_origin
from agentdex.db.listing_query import ListingQuery
from agentdex.errors import InputError
from agentdex.plans import plans_for

EVENTS_LIMIT = 500
RAW_KINDS_FIRST = (*formats.FORMAT_NAMES, "guide", "llms_txt", "skill")


class Reader:
    """Read-only connections to one catalogue file, lent to one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._idle: list[Database] = []
        self._busy: dict[str, Database] = {}
        self._lock = threading.Lock()

    @contextmanager
    def connect(self, tag: str | None = None) -> Iterator[Database]:
        """A read-only connection for the calling thread (``tag``: what :meth:`interrupt`
        names). :raises DatabaseError: the file cannot be opened read-only."""
        with self._lock:
            db = self._idle.pop() if self._idle else None
        if db is None:
            db = catalogue.open_db(self.path, readonly=True)
        if tag:
            with self._lock:
                self._busy[tag] = db
        try:
            yield db
        finally:
            with self._lock:
                if tag and self._busy.get(tag) is db:
                    del self._busy[tag]
                self._idle.append(db)

    def interrupt(self, tag: str) -> None:
        """Stop the query running under ``tag`` (its worker sees ``sqlite3.OperationalError``)."""
        with self._lock:
            db = self._busy.get(tag)
            if db is not None:
                db.conn.interrupt()

    def close(self) -> None:
        """Close the idle connections (busy ones close when given back and the pool drops)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for db in idle:
            db.conn.close()


# --- reads -----------------------------------------------------------------------------------


def window(db: Database, query: ListingQuery, start: int, size: int) -> list[dict[str, Any]]:
    """``size`` listing rows from ``start`` (absolute) for ``query``."""
    return catalogue.list_listings(db, query, limit=size, offset=max(0, start))


def counts(db: Database, query: ListingQuery) -> tuple[int, int]:
    """(listings matching ``query``, listings in the catalogue)."""
    return catalogue.count_listings(db, query), catalogue.count_listings(db)


def listing_view(db: Database, origin: str) -> dict[str, Any] | None:
    """What the listing screen shows: :func:`agentdex.db.get_listing` plus the normalised
    listing, its install plans and the text of every stored document."""
    view = catalogue.get_listing(db, origin)
    if view is None:
        return None
    listing = catalogue.load_listing(db, origin)
    guide = catalogue.get_document_text(db, origin, "guide")
    view["listing_obj"] = listing
    view["plans"] = plans_for(listing, guide) if listing is not None else {}
    kinds = sorted(
        (d["kind"] for d in view["documents"]),
        key=lambda k: (RAW_KINDS_FIRST.index(k) if k in RAW_KINDS_FIRST else 99, k),
    )
    view["raw"] = {kind: catalogue.get_document_text(db, origin, kind) for kind in kinds}
    return view


def newest_events(db: Database, limit: int = EVENTS_LIMIT) -> list[dict[str, Any]]:
    """The newest change events across the catalogue."""
    return catalogue.list_events(db, limit=limit)


def find_origins(db: Database, text: str, limit: int = 12) -> list[dict[str, Any]]:
    """Listings to jump to for what the user typed: the origin itself when it is in the
    catalogue, then full-text matches on names and descriptions."""
    found: list[dict[str, Any]] = []
    try:
        exact = catalogue.get_listing(db, normalise_origin(text))
    except InputError:
        exact = None
    if exact is not None:
        found.append({"origin": exact["origin"], "name": exact["name"]})
    if text.strip():
        for row in catalogue.list_listings(db, search=text, sort="relevance", limit=limit):
            if all(row["origin"] != f["origin"] for f in found):
                found.append({"origin": row["origin"], "name": row["name"]})
    return found[:limit]

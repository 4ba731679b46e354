"""Whole origins: which of some are in the catalogue, the categories they use, the last
fetch error of one, and forgetting origins with every row that depends on them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from agentdex.db import empty
from agentdex.db.connection import transaction


def missing_origins(db: Database, origins: Iterable[str]) -> list[str]:
    """The origins of ``origins`` the catalogue has no listing for (nor an empty origin's row,
    :mod:`agentdex.db.empty`), in their order."""
    wanted = list(dict.fromkeys(origins))
    if not wanted:
        return []
    marks = ", ".join("?" for _ in wanted)
    present = {
        row[0]
        for row in db.execute(
            f"SELECT origin FROM listings WHERE origin IN ({marks}) "
            f"UNION ALL SELECT origin FROM empty_origins WHERE origin IN ({marks})",
            [*wanted, *wanted],
        )
    }
    return [o for o in wanted if o not in present]


def known_categories(db: Database) -> list[str]:
    """Every category some listing of the catalogue names, sorted."""
    return [
        row[0]
        for row in db.execute(
            "SELECT DISTINCT value FROM listings, json_each(listings.categories) "
            "WHERE json_valid(listings.categories) ORDER BY value"
        )
    ]


def last_fetch_error(db: Database, origin: str) -> dict[str, Any] | None:
    """The latest failed fetch of ``origin``'s own documents: ``{url, kind, error_code,
    error, status_code, fetched_at}``, or ``None`` when none failed."""
    row = db.execute(
        "SELECT url, kind, error_code, error, status_code, fetched_at FROM snapshots "
        "WHERE origin = ? AND error_code IS NOT NULL AND coalesce(status_code, 0) NOT IN (404, 410) "
        "ORDER BY id DESC LIMIT 1",
        [origin],
    ).fetchone()
    keys = ("url", "kind", "error_code", "error", "status_code", "fetched_at")
    return empty.last_error(db, origin) if row is None else dict(zip(keys, row, strict=True))


def _origin_tables(db: Database) -> list[str]:
    """Every table with an ``origin`` column but ``listings`` and its full-text index
    (tables later migrations add are found too, so forgetting never leaves rows behind)."""
    names = [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'listings' "
            "AND name NOT LIKE 'listings\\_fts%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
    ]
    return [n for n in names if any(col[1] == "origin" for col in db.execute(f"PRAGMA table_info([{n}])"))]


def forget_origins(db: Database, origins: Iterable[str]) -> dict[str, int]:
    """Remove each origin, its events, snapshots, documents, findings, checks, tools and
    every other row that names it, then the stored bodies nothing refers to any more. One
    transaction: all are forgotten or none.

    :returns: rows removed per table (``blobs`` included)
    """
    wanted = list(dict.fromkeys(origins))
    removed: dict[str, int] = {}
    marks = ", ".join("?" for _ in wanted)
    with transaction(db):
        shas = _bodies_of(db, wanted, marks)
        for table in [*_origin_tables(db), "listings"]:
            removed[table] = db.execute(f"DELETE FROM [{table}] WHERE origin IN ({marks})", wanted).rowcount
        removed["blobs"] = _drop_orphan_blobs(db, shas)
    return {table: n for table, n in removed.items() if n}


def _bodies_of(db: Database, origins: list[str], marks: str) -> list[str]:
    rows = db.execute(
        f"SELECT sha256 FROM documents WHERE origin IN ({marks}) UNION "
        f"SELECT body_sha256 FROM snapshots WHERE origin IN ({marks}) AND body_sha256 IS NOT NULL",
        [*origins, *origins],
    )
    return [row[0] for row in rows]


def _drop_orphan_blobs(db: Database, shas: list[str]) -> int:
    # A body is shared by every origin that served the same bytes: only those no
    # remaining document or snapshot refers to go.
    dropped = 0
    for sha in shas:
        dropped += db.execute(
            "DELETE FROM blobs WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM documents WHERE sha256 = ?) "
            "AND NOT EXISTS (SELECT 1 FROM snapshots WHERE body_sha256 = ?)",
            [sha, sha, sha],
        ).rowcount
    return dropped

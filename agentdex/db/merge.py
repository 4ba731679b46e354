"""Merging catalogues (``agentdex merge OUT.db SHARD.db…``): the shards of a sweep
(``crawl --shard I/N``), or any catalogues, joined into one on natural keys, never rowids.

Each shard is attached alone (SQLite attaches at most 10 databases by default; a sweep
may have hundreds of shards) and merged in its own transaction, so a merge that is
killed keeps every shard merged before it and can simply be run again. Merging a shard
twice changes nothing.

How each table arrives (every table of the schema is named here; a test fails when a
migration adds one that is not):

- ``crawls`` have no unique key: a run is the same run when its kind, start, machine and
  process are; shard crawl ids are mapped to the merged catalogue's through that key (a
  temporary table) wherever a row names a crawl.
- ``blobs`` by ``sha256``; ``seed_sources`` by (source, name, via, url), the newer
  ``last_seen_at`` wins; ``seed_cursors`` by source, the newer ``at`` wins.
- An origin's current state (``listings``, and its ``documents``, ``checks``,
  ``tool_lints``, ``tool_set_lints``, ``robots_txt``, ``findings`` and ``tools``) comes
  whole from the catalogue that crawled the origin last (the later ``last_crawled_at``;
  a tie keeps what is there). The keyed tables are upserted
  (``INSERT … ON CONFLICT … DO UPDATE``) and their rows the newer crawl no longer has are
  removed; ``findings`` and ``tools`` have no natural key (a crawl replaces an origin's
  set as a whole), so the set is replaced as a whole too.
- History (``snapshots`` by origin, URL and fetch time; ``events`` by origin, kind,
  time, subject, old and new; ``endpoint_probes`` and ``endpoint_samples`` by origin, role,
  URL and time;
  ``feedback_receipts`` by origin, idempotency key and sending time) has no unique index,
  so a row is added when no row has its natural key, in the shard's order of time; a row
  both hold takes the later of its repeat counters (``seen``, ``runs``).
- Empty origins (:mod:`agentdex.db.empty`): ``answer_sets`` by their ``answers`` text (ids
  mapped); ``empty_origins`` by origin, the later ``crawled_at`` wins. An origin with a
  listing row in either catalogue is a listing in the merged one (its history is there), so
  an empty row for it is not taken, and is removed once a listing arrives.
- ``_sqlite_migrations`` is the merged catalogue's own: a shard of an older schema is
  migrated before it is read, one of a newer schema is refused with a sentence.

The full-text index is rebuilt once at the end (its triggers keep it whole meanwhile, so
a merge cut short still searches).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from agentdex.db.connection import open_db, transaction
from agentdex.db.migrations import applied_names, known_names
from agentdex.errors import DatabaseError

# (table, its natural key) for an origin's current state, merged by upsert.
STATE_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("listings", ("origin",)),
    ("documents", ("origin", "kind")),
    ("checks", ("origin", "name")),
    ("tool_lints", ("origin", "source", "name")),
    ("tool_set_lints", ("origin", "source")),
    ("robots_txt", ("origin",)),
)
REPLACED_TABLES = ("findings", "tools")  # an origin's set, no natural key: replaced whole
# (table, natural key, the repeat counters a later copy of the row raises)
HISTORY_TABLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("snapshots", ("origin", "url", "fetched_at"), ("seen", "last_seen_at", "last_obtained", "last_crawl_id")),
    ("events", ("origin", "kind", "at", "subject", "old", "new"), ()),
    ("endpoint_probes", ("origin", "role", "url", "at"), ("runs", "last_at")),
    ("endpoint_samples", ("origin", "role", "url", "at"), ()),
    ("feedback_receipts", ("origin", "idempotency_key", "sent_at"), ()),
)
CRAWL_KEY = ("kind", "started_at", "machine", "pid")
CRAWL_ID_COLUMNS = ("crawl_id", "last_crawl_id")  # columns that name a crawl by its id
OWN_TABLES = ("_sqlite_migrations",)  # the merged catalogue's own, never taken from a shard
MERGED_TABLES = (
    "crawls",
    "blobs",
    *(t for t, _ in STATE_TABLES),
    *REPLACED_TABLES,
    *(t for t, _, _ in HISTORY_TABLES),
    "seed_sources",
    "seed_cursors",
    "answer_sets",
    "empty_origins",
)


@dataclass
class MergeSummary:
    """What a merge changed: rows written (added or updated) a table, over all shards."""

    out: str
    shards: int = 0
    changed: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"out": self.out, "shards": self.shards, "changed": dict(self.changed)}


def merge_catalogues(
    out: str | Path, shards: Iterable[str | Path], progress: Callable[[Path], None] | None = None
) -> MergeSummary:
    """Merge each catalogue of ``shards`` into the catalogue ``out`` (created when missing),
    one at a time; ``progress`` is told each shard once it is merged.

    :raises DatabaseError: a shard is missing, is ``out`` itself, is no catalogue, or has a
        schema newer than this agentdex (an older one is migrated first); the shards before
        it stay merged
    """
    target = open_db(out)
    summary = MergeSummary(str(out))
    try:
        for shard in shards:
            path = Path(shard)
            try:
                _ready(path, Path(out))
            except DatabaseError as exc:
                done = f"; the {summary.shards} catalogue(s) before it are merged" if summary.shards else ""
                raise DatabaseError(f"{exc}{done}") from exc
            _merge_one(target, path, summary.changed)
            summary.shards += 1
            if progress:
                progress(path)
        with transaction(target):
            target.execute("INSERT INTO listings_fts (listings_fts) VALUES ('rebuild')")
    finally:
        target.conn.close()
    return summary


def _ready(path: Path, out: Path) -> None:
    """Refuse a shard that is missing or is ``out``; migrate one of an older schema."""
    if not path.is_file():
        raise DatabaseError(f"no catalogue at {path}: name the catalogue each shard's crawl --db wrote")
    if out.exists() and os.path.samefile(path, out):
        raise DatabaseError(f"{path} is the catalogue being merged into; name it once, as OUT")
    try:
        reader = open_db(path, readonly=True)  # refuses a newer schema, a file that is no catalogue
    except DatabaseError:
        if not _older(path):
            raise
        open_db(path).conn.close()  # migrated first, as any writer of it would
    else:
        reader.conn.close()


def _older(path: Path) -> bool:
    """Whether ``path`` is a catalogue of an older agentdex: some migrations, all known."""
    try:
        with closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)) as conn:
            applied = applied_names(Database(conn))
    except sqlite3.DatabaseError:
        return False
    known = set(known_names())
    return 0 < len(applied) < len(known) and known.issuperset(applied)


def _merge_one(db: Database, path: Path, changed: dict[str, int]) -> None:
    # A plain path: the connection was not opened with URIs, so "file:…?mode=ro" would name a new file.
    db.conn.execute("ATTACH DATABASE ? AS shard", [str(path)])
    try:
        with transaction(db):
            for table, count in _merge_tables(db):
                changed[table] = changed.get(table, 0) + count
    finally:
        db.conn.execute("DETACH DATABASE shard")


def _merge_tables(db: Database) -> Iterable[tuple[str, int]]:
    """Each table in turn, in the order its foreign keys need: (table, rows written)."""
    yield "crawls", _changes(db, _merge_crawls)
    yield "blobs", _changes(db, _upsert, "blobs", ("sha256",), "excluded.first_seen_at < blobs.first_seen_at")
    _take_newer_origins(db)
    for table, key in STATE_TABLES:
        yield table, _changes(db, _merge_state, table, key)
    for table in REPLACED_TABLES:
        yield table, _changes(db, _replace_sets, table)
    for table, key, counters in HISTORY_TABLES:
        yield table, _changes(db, _merge_history, table, key, counters)
    seen = "coalesce(excluded.last_seen_at, '') > coalesce(seed_sources.last_seen_at, '')"
    yield "seed_sources", _changes(db, _upsert, "seed_sources", ("source", "name", "via", "url"), seen)
    yield "seed_cursors", _changes(db, _upsert, "seed_cursors", ("source",), "excluded.at > seed_cursors.at")
    yield "answer_sets", _changes(db, _merge_answer_sets)
    yield "empty_origins", _changes(db, _merge_empty_origins)


def _changes(db: Database, step: Callable[..., None], *args: Any) -> int:
    """Rows ``step(db, *args)`` wrote."""
    before = db.conn.total_changes
    step(db, *args)
    return db.conn.total_changes - before


def _columns(db: Database, table: str) -> list[str]:
    """The columns of ``table`` but a rowid alias ``id`` (the merged catalogue numbers its own)."""
    rows = db.execute(f"PRAGMA main.table_info({table})").fetchall()
    return [name for _cid, name, _type, _nn, _default, pk in rows if not (name == "id" and pk)]


def _select(columns: list[str], alias: str = "s") -> str:
    """The shard's columns (as ``alias``), a crawl id mapped to the merged catalogue's."""
    return ", ".join(
        f"(SELECT new FROM temp.crawl_map WHERE old = {alias}.{c})" if c in CRAWL_ID_COLUMNS else f"{alias}.{c}"
        for c in columns
    )


def _same(key: Iterable[str], left: str = "m", right: str = "s") -> str:
    return " AND ".join(f"{left}.{c} IS {right}.{c}" for c in key)


def _merge_crawls(db: Database) -> None:
    """Add the shard's runs the merged catalogue lacks, bring a run's end and counters up
    to date, and map each shard crawl id to the merged one (``temp.crawl_map``)."""
    columns = _columns(db, "crawls")
    names = ", ".join(columns)
    db.execute(
        f"INSERT INTO main.crawls ({names}) SELECT {', '.join('s.' + c for c in columns)} FROM shard.crawls s "
        f"WHERE NOT EXISTS (SELECT 1 FROM main.crawls m WHERE {_same(CRAWL_KEY)}) ORDER BY s.id"
    )
    ended = [c for c in columns if c not in CRAWL_KEY]
    db.execute(
        f"UPDATE main.crawls AS m SET {', '.join(f'{c} = s.{c}' for c in ended)} FROM shard.crawls s "
        f"WHERE {_same(CRAWL_KEY)} AND m.status = 'running' AND s.status != 'running'"
    )
    db.execute("DROP TABLE IF EXISTS temp.crawl_map")
    db.execute(
        "CREATE TEMP TABLE crawl_map AS SELECT s.id AS old, "
        f"(SELECT min(m.id) FROM main.crawls m WHERE {_same(CRAWL_KEY)}) AS new FROM shard.crawls s"
    )
    db.execute("CREATE UNIQUE INDEX temp.crawl_map_old ON crawl_map(old)")


def _upsert(db: Database, table: str, key: tuple[str, ...], newer: str, where: str = "true") -> None:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` of every column, only where ``newer`` holds
    (a first sighting keeps the earlier time)."""
    columns = _columns(db, table)
    updates = ", ".join(
        f"{c} = min({table}.{c}, excluded.{c})" if c == "first_seen_at" else f"{c} = excluded.{c}"
        for c in columns
        if c not in key
    )
    db.execute(
        f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {_select(columns)} FROM shard.{table} s "
        f"WHERE {where} ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates} WHERE {newer}"
    )


def _take_newer_origins(db: Database) -> None:
    """``temp.taken``: the shard's origins it crawled later than the merged catalogue did
    (or that the merged catalogue lacks): their current state comes from the shard."""
    db.execute("DROP TABLE IF EXISTS temp.taken")
    db.execute(
        "CREATE TEMP TABLE taken AS SELECT s.origin FROM shard.listings s LEFT JOIN main.listings m "
        "ON m.origin = s.origin WHERE m.origin IS NULL "
        "OR coalesce(s.last_crawled_at, '') > coalesce(m.last_crawled_at, '')"
    )
    db.execute("CREATE UNIQUE INDEX temp.taken_origin ON taken(origin)")


def _merge_state(db: Database, table: str, key: tuple[str, ...]) -> None:
    """The taken origins' rows of ``table``: upserted, and those the shard lacks removed."""
    taken = "s.origin IN (SELECT origin FROM temp.taken)"
    _upsert(db, table, key, "true", where=taken)
    if table != "listings":
        db.execute(
            f"DELETE FROM main.{table} AS m WHERE m.origin IN (SELECT origin FROM temp.taken) "
            f"AND NOT EXISTS (SELECT 1 FROM shard.{table} s WHERE {_same(key)})"
        )


def _replace_sets(db: Database, table: str) -> None:
    columns = _columns(db, table)
    db.execute(f"DELETE FROM main.{table} WHERE origin IN (SELECT origin FROM temp.taken)")
    db.execute(
        f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {_select(columns)} FROM shard.{table} s "
        "WHERE s.origin IN (SELECT origin FROM temp.taken) ORDER BY s.id"
    )


def _merge_history(db: Database, table: str, key: tuple[str, ...], counters: tuple[str, ...]) -> None:
    columns = _columns(db, table)
    when = "s.fetched_at, s.id" if table == "snapshots" else "s.id"
    db.execute(
        f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {_select(columns)} FROM shard.{table} s "
        f"WHERE NOT EXISTS (SELECT 1 FROM main.{table} m WHERE {_same(key)}) ORDER BY {when}"
    )
    if counters:
        first = counters[0]
        sets = ", ".join(f"{c} = {_select([c], 'x')}" for c in counters)
        db.execute(
            f"UPDATE main.{table} AS m SET {sets} FROM shard.{table} x "
            f"WHERE {_same(key, 'm', 'x')} AND x.{first} > m.{first}"
        )


def _merge_answer_sets(db: Database) -> None:
    """The shard's answer sets the merged catalogue lacks (by their text), and
    ``temp.answer_map``: each shard answer-set id to the merged one."""
    db.execute(
        "INSERT INTO main.answer_sets (answers) SELECT answers FROM shard.answer_sets WHERE true ORDER BY id "
        "ON CONFLICT (answers) DO NOTHING"
    )
    db.execute("DROP TABLE IF EXISTS temp.answer_map")
    db.execute(
        "CREATE TEMP TABLE answer_map AS SELECT s.id AS old, m.id AS new FROM shard.answer_sets s "
        "JOIN main.answer_sets m ON m.answers = s.answers"
    )
    db.execute("CREATE UNIQUE INDEX temp.answer_map_old ON answer_map(old)")


def _merge_empty_origins(db: Database) -> None:
    """The shard's empty origins, the later crawl winning, but for an origin either catalogue
    holds a listing for; an empty row whose origin now has a listing goes."""
    columns = _columns(db, "empty_origins")
    values = ", ".join(
        "(SELECT new FROM temp.answer_map WHERE old = s.answers)" if c == "answers" else _select([c]) for c in columns
    )
    # ``since`` NULL is "since first seen" (agentdex.db.empty_sql): spelt out, as first_seen_at may move.
    updates = ", ".join(
        "since = coalesce(excluded.since, excluded.first_seen_at)" if c == "since" else f"{c} = excluded.{c}"
        for c in columns
        if c not in ("origin", "first_seen_at")
    )
    db.execute(
        f"INSERT INTO main.empty_origins ({', '.join(columns)}) SELECT {values} FROM shard.empty_origins s "
        "WHERE NOT EXISTS (SELECT 1 FROM main.listings l WHERE l.origin = s.origin) "
        "AND NOT EXISTS (SELECT 1 FROM shard.listings l WHERE l.origin = s.origin) "
        f"ON CONFLICT (origin) DO UPDATE SET {updates}, "
        "first_seen_at = min(empty_origins.first_seen_at, excluded.first_seen_at) "
        "WHERE excluded.crawled_at > empty_origins.crawled_at"
    )
    db.execute("DELETE FROM main.empty_origins WHERE origin IN (SELECT origin FROM main.listings)")

"""Retention: drop old history the catalogue no longer needs (``agentdex prune --keep DAYS``).

What goes, when last seen more than ``DAYS`` ago:

- a snapshot that is no longer its URL's latest answer, unless an event refers to it: the
  answer standing when the event's run began or the one that run added (for an event of
  run E, every row of its origin whose run range ``[crawl_id, next row's crawl_id]`` holds E);
- an endpoint probe row beyond its endpoint's latest :data:`RECENT_PROBES` rows (each row is
  one probe or more in a row, so those hold at least the probes uptime is counted over);
- an endpoint sample (``endpoint_samples``) beyond its endpoint's latest :data:`RECENT_PROBES`
  (the uptime windows of the days kept, the health rule's last probes stay);
- then every blob no snapshot and no document refers to.

Listings, documents, checks, tools, findings, events and crawls are never pruned: they are
the catalogue's current state and its history of changes. Pages freed are reused by later
crawls; ``vacuum`` also gives them back to the file system (a full rewrite of the file).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from sqlite_utils import Database

from agentdex.db.common import iso
from agentdex.db.connection import transaction
from agentdex.db.migrations import RECENT_PROBES
from agentdex.errors import InputError

DAY = 24 * 3600.0

_OLD_SNAPSHOTS = """
WITH ranked AS (
  SELECT id, origin, crawl_id, coalesce(last_seen_at, fetched_at) AS seen_at,
    lead(id) OVER w AS next_id, lead(crawl_id) OVER w AS next_crawl
  FROM snapshots WINDOW w AS (PARTITION BY origin, url ORDER BY id)
)
SELECT r.id FROM ranked r
WHERE r.next_id IS NOT NULL AND r.seen_at < :cutoff
  AND NOT EXISTS (SELECT 1 FROM events e WHERE e.origin = r.origin AND e.crawl_id IS NOT NULL
                  AND coalesce(r.crawl_id, 0) <= e.crawl_id AND (r.next_crawl IS NULL OR r.next_crawl >= e.crawl_id))
"""
_OLD_PROBES = f"""
SELECT id FROM (SELECT id, at, row_number() OVER (PARTITION BY origin, role, url ORDER BY id DESC) AS newer
                FROM endpoint_probes)
WHERE newer > {RECENT_PROBES} AND at < :cutoff
"""
_OLD_SAMPLES = f"""
SELECT id FROM (SELECT id, at, row_number() OVER (PARTITION BY origin, role, url ORDER BY at DESC, id DESC) AS newer
                FROM endpoint_samples)
WHERE newer > {RECENT_PROBES} AND at < :cutoff
"""
_UNUSED_BLOBS = """
DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.body_sha256 = blobs.sha256)
  AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.sha256 = blobs.sha256)
"""


@dataclass(frozen=True)
class Pruned:
    """What one prune removed (rows of each table) and the cutoff it used (ISO 8601)."""

    cutoff: str
    snapshots: int
    endpoint_probes: int
    blobs: int
    vacuumed: bool = False
    endpoint_samples: int = 0

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        return asdict(self)


def prune(db: Database, keep_days: float, *, now: float | None = None, vacuum: bool = False) -> Pruned:
    """Drop the history last seen more than ``keep_days`` days before ``now`` (see the
    module docstring), in one transaction; with ``vacuum``, then compact the file.

    :raises InputError: ``keep_days`` is negative
    """
    if keep_days < 0:
        raise InputError(f"--keep must be a number of days, 0 or more, not {keep_days:g}")
    cutoff = iso((time.time() if now is None else now) - keep_days * DAY) or ""
    with transaction(db):
        snapshots = _delete(db, "snapshots", _OLD_SNAPSHOTS, cutoff)
        probes = _delete(db, "endpoint_probes", _OLD_PROBES, cutoff)
        samples = _delete(db, "endpoint_samples", _OLD_SAMPLES, cutoff)
        blobs = db.execute(_UNUSED_BLOBS).rowcount
    if vacuum:
        db.execute("VACUUM")  # outside the transaction: VACUUM cannot run in one
    return Pruned(cutoff, snapshots, probes, blobs, vacuum, samples)


def _delete(db: Database, table: str, select_ids: str, cutoff: str) -> int:
    ids = [row[0] for row in db.execute(select_ids, {"cutoff": cutoff})]
    # In chunks: SQLite caps the number of bound parameters of one statement.
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        db.execute(f"DELETE FROM {table} WHERE id IN ({', '.join('?' for _ in chunk)})", chunk)
    return len(ids)

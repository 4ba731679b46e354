"""Snapshots and blobs: what each URL answered, stored once per distinct answer.

A snapshot row is one answer of one URL, seen by one run or by several in a row. A run whose
answer is the same as the URL's latest row extends that row (``last_crawl_id``,
``last_seen_at``, ``last_obtained``, ``seen``; the answer's freshness and headers are
renewed) instead of adding one, so a recrawl of an unchanged web adds no rows. "The same"
(:func:`same_answer`) means:

- a 304 or an answer served from freshness, when the latest row can stand for a body (a
  stored body, an earlier 304 or fresh answer) or, fresh, the same definite absence;
- a fetched answer with the same status, body hash, validators, final URL and error.

Anything else is a new row, so the rows of a URL are its history of distinct answers, and an
event's run has the row standing before it and the row it added. Bodies are
content-addressed (sha256): a body already stored adds nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from sqlite_utils import Database

from agentdex.db.common import dumps, safe_text
from agentdex.models import FetchRecord

_INSERT = (
    "INSERT INTO snapshots (crawl_id, origin, url, kind, status_code, final_url, content_type, etag, "
    "last_modified, headers, body_sha256, body_bytes, elapsed_ms, error_code, error, not_modified, "
    "fetched_at, redirects, obtained, response_at, fresh_until, last_crawl_id, last_seen_at, last_obtained) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_BLOB = "INSERT OR IGNORE INTO blobs (sha256, size_bytes, content, first_seen_at) VALUES (?, ?, ?, ?)"
_EXTEND = (
    "UPDATE snapshots SET last_crawl_id = ?, last_seen_at = ?, last_obtained = ?, seen = seen + 1, "
    "response_at = ?, fresh_until = ?, headers = ?, etag = coalesce(?, etag), "
    "last_modified = coalesce(?, last_modified) WHERE id = ?"
)
_LATEST_ROWS = (
    "SELECT url, id, kind, status_code, body_sha256, error_code, etag, last_modified, final_url, not_modified, "
    "obtained, headers, fresh_until FROM snapshots "
    "WHERE id IN (SELECT max(id) FROM snapshots WHERE origin = ? GROUP BY url)"
)
_LATEST_NAMES = (
    "id",
    "kind",
    "status",
    "sha256",
    "error_code",
    "etag",
    "last_modified",
    "final_url",
    "not_modified",
    "obtained",
    "headers",
    "fresh_until",
)
# The verifier's answers whose status is the whole fact (a homepage, a policy, an API base,
# a feedback route): their bodies are not kept (a homepage can be a megabyte), so for them a
# 2xx without a stored body is a usable answer, and "the same answer" ignores the body.
BODYLESS_KINDS = ("homepage", "privacy", "terms", "http_base", "feedback")
# The verifier's documents a check reads again from a fresh or revalidated answer: a changed
# one keeps its body even on an unchanged origin, or an older body would stand for it.
CHECKED_BODY_KINDS = ("openapi", "capabilities")


def sha256(body: bytes) -> str:
    """The hex sha256 a body is stored under."""
    return hashlib.sha256(body).hexdigest()


def latest_rows(db: Database, origin: str) -> dict[str, dict[str, Any]]:
    """``{url: row}``: the latest snapshot of each URL of ``origin`` (one indexed query)."""
    return {row[0]: dict(zip(_LATEST_NAMES, row[1:], strict=True)) for row in db.execute(_LATEST_ROWS, [origin])}


def obtained(fetch: FetchRecord) -> str:
    """How a snapshot was obtained: ``fresh`` (not asked), ``known_absent`` (not asked: a
    known absence before its schedule), ``revalidated`` (304) or ``fetched``."""
    if fetch.known_absence:
        return "known_absent"
    if fetch.from_freshness:
        return "fresh"
    return "revalidated" if fetch.not_modified else "fetched"


def save_snapshots(
    db: Database,
    origin: str,
    fetches: Iterable[FetchRecord],
    crawl_id: int | None,
    at: str,
    *,
    keep_bodies: bool = True,
) -> None:
    """Record this run's answers of ``origin``: each one the same as its URL's latest row
    extends that row; any other is a new row with its body stored, but for
    :data:`BODYLESS_KINDS` and, when ``keep_bodies`` is false (an unchanged origin: nothing of
    it was parsed), for all but the verifier's documents (:data:`CHECKED_BODY_KINDS`)."""
    fetches = list(fetches)
    if not fetches:
        return
    latest = latest_rows(db, origin)
    extend, insert, blobs = [], [], []
    for fetch in fetches:
        row = latest.get(safe_text(fetch.url) or "")
        keep = keep_bodies or fetch.kind in CHECKED_BODY_KINDS
        body = fetch.body if keep and fetch.kind not in BODYLESS_KINDS else None
        if row is not None and same_answer(row, fetch):
            extend.append(_extension(row, fetch, crawl_id, at))
            continue
        sha = None
        if body is not None:
            sha = sha256(body)
            blobs.append((sha, len(body), body, at))
        insert.append(_snapshot_row(origin, fetch, body, sha, crawl_id, at))
    # executemany: a recrawl touches each of an origin's ~15 URLs, and the per-statement
    # overhead was most of what such a crawl cost. The blobs go first (snapshots refer to them).
    db.conn.executemany(_INSERT_BLOB, blobs)
    db.conn.executemany(_EXTEND, extend)
    db.conn.executemany(_INSERT, insert)


def same_answer(row: dict[str, Any], fetch: FetchRecord) -> bool:
    """Whether ``fetch`` repeats the answer of the latest snapshot ``row`` of its URL."""
    if fetch.from_freshness:
        return row["status"] == fetch.status or (bool(row["not_modified"]) and _success(fetch.status))
    if fetch.not_modified:
        return (
            bool(row["not_modified"])
            or row["obtained"] == "fresh"
            or (_success(row["status"]) and (row["sha256"] is not None or row["kind"] in BODYLESS_KINDS))
        )
    if row["not_modified"]:
        return False
    body_sha = sha256(fetch.body) if fetch.body is not None and fetch.kind not in BODYLESS_KINDS else None
    return (
        row["status"] == fetch.status
        and row["sha256"] == body_sha
        and row["error_code"] == fetch.error_code
        and row["etag"] == safe_text(fetch.etag)
        and row["last_modified"] == safe_text(fetch.last_modified)
        and row["final_url"] == safe_text(fetch.final_url)
    )


def _success(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


def _headers(fetch: FetchRecord) -> dict[str, str | None]:
    return {k.lower(): safe_text(v) for k, v in (fetch.headers or {}).items()}


def _extension(row: dict[str, Any], fetch: FetchRecord, crawl_id: int | None, at: str) -> list[Any]:
    # The answer's freshness is renewed (a 304's headers update the stored ones, RFC 9111
    # 4.3.4); a fresh answer's are the stored ones, written back as they were.
    headers = dumps(_headers(fetch)) if not fetch.from_freshness else row["headers"]
    until = row["fresh_until"] if fetch.known_absence else fetch.fresh_until
    return [
        crawl_id,
        fetch.fetched_at or at,
        obtained(fetch),
        fetch.response_at or fetch.fetched_at or at,
        until,
        headers,
        safe_text(fetch.etag),
        safe_text(fetch.last_modified),
        row["id"],
    ]


def _snapshot_row(
    origin: str, fetch: FetchRecord, body: bytes | None, sha: str | None, crawl_id: int | None, at: str
) -> list[Any]:
    """A new snapshot row; ``body``: what is kept of its body (stored under ``sha``), if anything."""
    headers = _headers(fetch)
    seen_at = fetch.fetched_at or at
    return [
        crawl_id,
        origin,
        safe_text(fetch.url),
        fetch.kind,
        fetch.status,
        safe_text(fetch.final_url),
        headers.get("content-type"),
        safe_text(fetch.etag),
        safe_text(fetch.last_modified),
        dumps(headers),
        sha,
        None if body is None else len(body),
        fetch.elapsed_ms,
        fetch.error_code,
        safe_text(fetch.error),
        int(fetch.not_modified),
        seen_at,
        dumps(fetch.redirects) if fetch.redirects else "[]",
        obtained(fetch),
        fetch.response_at or seen_at,
        fetch.fresh_until,
        crawl_id,
        seen_at,
        obtained(fetch),
    ]

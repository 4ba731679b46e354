"""Empty origins: an origin where discovery found nothing, stored as one compact row.

Most of a sweep of a domain list answers 404 to every path agentdex asks. Such an origin is
one ``empty_origins`` row (migration m020): when it was first seen and last crawled, which
paths were asked and what each answered (an ``answer_sets`` row, ``[[kind, path, status],
…]`` in the order asked, stored once for every origin that answered the same), when its
discovery paths were last asked and since when they answer so (the known-absence
schedule), its crawl schedule, and a robots.txt that answered 4xx. No listing row, no
snapshot, no robots.txt row.

An origin is stored so (:func:`take`) when the crawl found nothing: status ``no_manifest``
(or, for an origin stored so, every answer repeating the stored ones), no document, no
finding, no check, nothing it names, and every answer a plain non-2xx status of the origin
itself (no redirect followed, no network failure). Anything else is stored as before, with
a listing row and its snapshots: an empty origin that gains a manifest (or fails, or answers
a page) is first turned back into the rows it stands for (:func:`expand`), so its listing,
events and history tell the same story as if it had always been stored so. A never-listed
``no_manifest`` origin stored before m020, with no other history, becomes compact the next
time a crawl finds it empty.

The readers see an empty origin as the ``no_manifest`` listing it stands for: ``show``
(:func:`view`, its facts from :func:`facts`), ``stats``, the recrawl and ``--due`` lists,
the ``known_absences`` view, and a crawl's previous answers (:func:`previous`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from sqlite_utils import Database

from agentdex import schedule
from agentdex.db.common import epoch, iso
from agentdex.db.decisions import schedule_columns
from agentdex.formats import DISCOVERY_PATHS, MANIFEST_PATHS
from agentdex.models import FetchRecord, OriginCrawl

NO_MANIFEST = "no_manifest"
ROBOTS_PATH = "/robots.txt"
# The tables a never-listed no_manifest origin has nothing in, when it can become compact.
HISTORY_TABLES = (
    "events",
    "documents",
    "checks",
    "findings",
    "tools",
    "tool_lints",
    "tool_set_lints",
    "endpoint_probes",
    "endpoint_samples",
    "feedback_receipts",
)
_COLUMNS = (
    "origin",
    "answers",
    "first_seen_at",
    "since",
    "asked_at",
    "crawled_at",
    "last_crawl_id",
    "unchanged_crawls",
    "next_due_at",
    "fresh_until",
    "robots_status",
    "robots_at",
)


@dataclass(frozen=True)
class Empty:
    """One ``empty_origins`` row, its answer set read (``answered``: ``[[kind, path, status], …]``)."""

    origin: str
    answers: int | None
    first_seen_at: str
    since: str
    asked_at: str
    crawled_at: str
    last_crawl_id: int | None
    unchanged_crawls: int
    next_due_at: str | None
    fresh_until: str | None
    robots_status: int | None
    robots_at: str | None
    answered: tuple[tuple[str, str, int], ...] = ()

    def url(self, path: str) -> str:
        return f"https://{self.origin}{path}"

    def response_at(self, kind: str) -> str:
        """When the answer of a path of ``kind`` arrived: a discovery path's when it was last
        asked (a revalidating crawl skips a known absence), any other's the last crawl."""
        return self.asked_at if kind in DISCOVERY_PATHS else self.crawled_at


def load(db: Database, origin: str) -> Empty | None:
    """The empty-origin row of ``origin`` (None: it is not stored as one)."""
    names = ", ".join(f"e.{c}" for c in _COLUMNS)
    row = db.execute(
        f"SELECT {names}, a.answers FROM empty_origins e JOIN answer_sets a ON a.id = e.answers WHERE e.origin = ?",
        [origin],
    ).fetchone()
    if row is None:
        return None
    answered = tuple(tuple(entry) for entry in json.loads(row[-1]))
    found = dict(zip(_COLUMNS, row[:-1], strict=True))
    # A time stored as NULL is the same as another column's (empty_sql: a few bytes a row).
    found["since"] = found["since"] or found["first_seen_at"]
    found["asked_at"] = found["asked_at"] or found["crawled_at"]
    if found["robots_status"] is not None:
        found["robots_at"] = found["robots_at"] or found["crawled_at"]
    return Empty(**found, answered=answered)


# --- what is empty, and saving it -----------------------------------------------------------


def fits(crawl: OriginCrawl, stored: bool) -> bool:
    """Whether ``crawl`` found nothing (see the module docstring); ``stored``: the origin is
    stored as empty, so a crawl whose every answer repeats the stored ones is empty too."""
    if crawl.results or crawl.documents or crawl.catalog_links or crawl.checks or crawl.endpoints:
        return False
    if crawl.mcp_tools or crawl.primary is not None or not crawl.fetches:
        return False
    if crawl.status != NO_MANIFEST and not (crawl.unchanged and stored):
        return False
    base = f"https://{crawl.origin}/"
    return all(_plain(f, base) for f in crawl.fetches)


def _plain(fetch: FetchRecord, base: str) -> bool:
    """An answer the compact row holds whole: a non-2xx status of the origin's own path."""
    return (
        fetch.url.startswith(base)
        and fetch.status is not None
        and fetch.status >= 300
        and fetch.error_code in (None, "http_status")
        and not fetch.redirects
        and not fetch.not_modified
        and fetch.final_url in (None, fetch.url)
    )


def take(db: Database, crawl: OriginCrawl, crawl_id: int | None, light: dict[str, Any] | None, at: str) -> bool:
    """Store ``crawl`` as an empty origin when it found nothing and the origin has no other
    history (inside the caller's transaction); whether it did. ``light``: the stored listing's
    columns (:func:`agentdex.db.reads.light_state`), None when there is no listing row."""
    if light is None:
        stored = load(db, crawl.origin)
        if not fits(crawl, stored is not None):
            return False
    else:
        if light["status"] != NO_MANIFEST or light["first_listed_at"] is not None or not fits(crawl, True):
            return False
        stored = _retire_listing(db, crawl.origin, light)
        if stored is None:
            return False
    _write(db, crawl, crawl_id, stored, at)
    crawl.status = NO_MANIFEST  # an unchanged crawl's status is the stored one: the run counts it so
    return True


def _retire_listing(db: Database, origin: str, light: dict[str, Any]) -> Empty | None:
    """A never-listed ``no_manifest`` listing (stored before m020) with no history but its
    snapshots: removed, what its schedule was returned as an empty row to carry on from."""
    if any(db.execute(f"SELECT 1 FROM {t} WHERE origin = ? LIMIT 1", [origin]).fetchone() for t in HISTORY_TABLES):
        return None
    first = db.execute("SELECT first_seen_at FROM listings WHERE origin = ?", [origin]).fetchone()[0]
    db.execute("DELETE FROM snapshots WHERE origin = ?", [origin])
    db.execute("DELETE FROM listings WHERE origin = ?", [origin])
    return Empty(
        origin, None, first, first, first, first, None, light["unchanged_crawls"] or 0, light["next_due_at"], None,
        None, None,
    )  # fmt: skip


def _write(db: Database, crawl: OriginCrawl, crawl_id: int | None, stored: Empty | None, at: str) -> None:
    answered = [[f.kind, f.url[len(f"https://{crawl.origin}") :], f.status] for f in crawl.fetches]
    answers = _answer_set(db, answered)
    same = stored is not None and stored.answers == answers
    asked = any(f.kind in DISCOVERY_PATHS and not f.from_freshness for f in crawl.fetches)
    light = {"unchanged_crawls": stored.unchanged_crawls, "next_due_at": stored.next_due_at} if stored else {}
    planned = schedule_columns(crawl, light, changed=False, failures=0, at=at)
    robots_status, robots_at = _robots(crawl.robots, stored, at)
    if robots_status is not None:  # a 4xx now: rules stored before no longer stand
        db.execute("DELETE FROM robots_txt WHERE origin = ?", [crawl.origin])
    first_seen = stored.first_seen_at if stored else at
    since = stored.since if same and stored else at
    asked_at = at if asked or stored is None else stored.asked_at
    row = {
        "origin": crawl.origin,
        "answers": answers,
        "first_seen_at": first_seen,
        "since": None if since == first_seen else since,  # NULL: the same time (empty_sql)
        "asked_at": None if asked_at == at else asked_at,
        "crawled_at": at,
        "last_crawl_id": crawl_id,
        "unchanged_crawls": planned.get("unchanged_crawls", 0),
        "next_due_at": planned.get("next_due_at"),
        "fresh_until": _fresh_until(crawl.fetches, stored),
        "robots_status": robots_status,
        "robots_at": None if robots_at == at else robots_at,
    }
    updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("origin", "first_seen_at"))
    db.execute(
        f"INSERT INTO empty_origins ({', '.join(_COLUMNS)}) VALUES ({', '.join(':' + c for c in _COLUMNS)}) "
        f"ON CONFLICT (origin) DO UPDATE SET {updates}",
        row,
    )


def _answer_set(db: Database, answered: list[list[Any]]) -> int:
    """The id of the answer set ``answered`` (added when no origin answered so before)."""
    text = json.dumps(answered, separators=(",", ":"))
    db.execute("INSERT INTO answer_sets (answers) VALUES (?) ON CONFLICT (answers) DO NOTHING", [text])
    return int(db.execute("SELECT id FROM answer_sets WHERE answers = ?", [text]).fetchone()[0])


def _robots(record: FetchRecord | None, stored: Empty | None, at: str) -> tuple[int | None, str | None]:
    """(status, time) of robots.txt's 4xx, which the row holds; its rules (a 2xx) are a
    robots.txt row as for any origin; not fetched this crawl (reused, or it failed): as stored."""
    if record is None:
        return (stored.robots_status, stored.robots_at) if stored else (None, None)
    if record.ok and record.body is not None:
        return None, None
    return record.status, at  # fetched this crawl: its time is the crawl's


def _fresh_until(fetches: list[FetchRecord], stored: Empty | None) -> str | None:
    """Until when every answer stays fresh: the earliest (None when one is never fresh)."""
    ends = [(stored.fresh_until if stored else None) if f.known_absence else f.fresh_until for f in fetches]
    return None if not ends or None in ends else min(e for e in ends if e is not None)


# --- turning it back into rows --------------------------------------------------------------


def expand(db: Database, origin: str) -> bool:
    """Turn the empty row of ``origin`` back into the listing, snapshots and robots.txt row it
    stands for (a crawl found something there); whether there was one."""
    row = load(db, origin)
    if row is None:
        return False
    db.execute(
        "INSERT INTO listings (origin, status, status_detail, first_seen_at, last_crawled_at, last_crawl_id, "
        "next_due_at, recrawl_interval, unchanged_crawls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            origin, NO_MANIFEST, detail(row), row.first_seen_at, row.crawled_at, row.last_crawl_id,
            row.next_due_at, int(schedule.interval(row.unchanged_crawls, 0)), row.unchanged_crawls,
        ],
    )  # fmt: skip
    db.conn.executemany(
        "INSERT INTO snapshots (crawl_id, origin, url, kind, status_code, final_url, error_code, error, fetched_at, "
        "obtained, response_at, fresh_until, last_crawl_id, last_seen_at, last_obtained, seen) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'fetched', ?, ?, ?, ?, 'fetched', ?)",
        [
            (
                row.last_crawl_id, origin, row.url(path), kind, status, row.url(path), _error_code(status),
                answer_sentence(row.url(path), status), row.since, row.response_at(kind), row.fresh_until,
                row.last_crawl_id, row.crawled_at, max(1, row.unchanged_crawls),
            )
            for kind, path, status in row.answered
        ],
    )  # fmt: skip
    if row.robots_status is not None:
        db.execute(
            "INSERT INTO robots_txt (origin, url, status_code, fetched_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (origin) DO NOTHING",
            [origin, row.url(ROBOTS_PATH), row.robots_status, row.robots_at or row.crawled_at],
        )
    db.execute("DELETE FROM empty_origins WHERE origin = ?", [origin])
    return True


def _error_code(status: int) -> str | None:
    return "http_status" if status >= 400 else None


def answer_sentence(url: str, status: int) -> str:
    """What the fetcher says of a non-2xx answer (:mod:`agentdex.crawler.fetch`)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "error"
    return f"{url} answered {status} {reason}."


def detail(row: Empty) -> str:
    """The status sentence a ``no_manifest`` origin has: what each manifest path answered."""
    manifests = sorted(
        ((kind, path, status) for kind, path, status in row.answered if kind in MANIFEST_PATHS),
        key=lambda entry: (list(MANIFEST_PATHS).index(entry[0]), entry[1]),
    )
    text = "; ".join(f"{kind}: {answer_sentence(row.url(path), status)}" for kind, path, status in manifests)
    return text or "no manifest found"


# --- what the readers see -------------------------------------------------------------------


def previous(db: Database, origin: str) -> dict[str, dict[str, Any]]:
    """What each path of an empty origin answered, as :func:`agentdex.db.previous_fetches`
    gives a stored origin's (no validators, no body: none was kept); empty when it is not one."""
    row = load(db, origin)
    if row is None:
        return {}
    return {
        row.url(path): {
            "etag": None,
            "last_modified": None,
            "sha256": None,
            "status": status,
            "headers": {},
            "response_at": row.response_at(kind),
            "fresh_until": row.fresh_until,
            "first_seen": row.since,
        }
        for kind, path, status in row.answered
    }


def robots(db: Database, origin: str) -> FetchRecord | None:
    """The robots.txt 4xx an empty origin's row holds, as a fetch record (None: none)."""
    row = db.execute(
        "SELECT robots_status, coalesce(robots_at, crawled_at) FROM empty_origins WHERE origin = ?", [origin]
    ).fetchone()
    if row is None or row[0] is None:
        return None
    url = f"https://{origin}{ROBOTS_PATH}"
    return FetchRecord(url=url, kind="robots", status=row[0], fetched_at=row[1], error_code="http_status")


def facts(row: Empty, now: float) -> list[dict[str, Any]]:
    """How old each answer of an empty origin is, as :func:`agentdex.db.queries.list_facts`
    gives them (ordered by kind and URL)."""
    out = []
    for kind, path, status in sorted(row.answered, key=lambda entry: (entry[0], row.url(entry[1]))):
        response = row.response_at(kind)
        arrived, until = epoch(response), epoch(row.fresh_until)
        absence = status in (404, 410) and kind in DISCOVERY_PATHS and arrived is not None
        skipped = kind in DISCOVERY_PATHS and row.asked_at != row.crawled_at
        out.append(
            {
                "kind": kind,
                "url": row.url(path),
                "status_code": status,
                "error_code": _error_code(status),
                "obtained": "known_absent" if skipped else "fetched",
                "checked_at": row.crawled_at,
                "response_at": response,
                "fresh_until": row.fresh_until,
                "age_seconds": None if arrived is None else max(0, round(now - arrived)),
                "fresh": until is not None and until > now,
                "absence_recheck_at": iso(schedule.absence_recheck_at(epoch(row.since) or arrived, arrived))
                if absence and arrived is not None
                else None,
            }
        )
    return out


def view(db: Database, origin: str, now: float) -> dict[str, Any] | None:
    """The listing an empty origin stands for, with the keys of
    :func:`agentdex.db.queries.get_listing` (None: it is not one)."""
    row = load(db, origin)
    if row is None:
        return None
    out: dict[str, Any] = {name: _default(value) for _cid, name, _type, _nn, value, _pk in _listing_columns(db)}
    out.pop("listing_json", None)
    out["event_channels"] = out.pop("events", None)
    out.update(
        origin=origin,
        status=NO_MANIFEST,
        status_detail=detail(row),
        formats_found=[],
        first_seen_at=row.first_seen_at,
        last_crawled_at=row.crawled_at,
        last_crawl_id=row.last_crawl_id,
        next_due_at=row.next_due_at,
        recrawl_interval=int(schedule.interval(row.unchanged_crawls, 0)),
        unchanged_crawls=row.unchanged_crawls,
        has_mcp=False,
        listing=None,
        manifest=None,
        findings=[],
        checks=[],
        events=[],
        tools=[],
        endpoints=[],
        documents=[],
        facts=facts(row, now),
    )
    return out


def _listing_columns(db: Database) -> list[tuple]:
    return db.execute("PRAGMA table_info(listings)").fetchall()


def _default(value: str | None) -> Any:
    """A column default as SQLite states it (``'[]'``, ``0``), as the value."""
    if value is None:
        return None
    if value.startswith("'"):
        text = value[1:-1]
        return json.loads(text) if text in ("[]", "{}") else text
    return int(value) if value.lstrip("-").isdigit() else value


def last_error(db: Database, origin: str) -> dict[str, Any] | None:
    """The last failed answer of an empty origin's own, as
    :func:`agentdex.db.origins.last_fetch_error` gives it (a 404 or 410 is no failure)."""
    row = load(db, origin)
    if row is None:
        return None
    failed = [(kind, path, status) for kind, path, status in row.answered if status not in (404, 410)]
    if not failed:
        return None
    kind, path, status = failed[-1]
    url = row.url(path)
    return {
        "url": url,
        "kind": kind,
        "error_code": _error_code(status),
        "error": answer_sentence(url, status),
        "status_code": status,
        "fetched_at": row.crawled_at,
    }


def count(db: Database) -> int:
    """How many origins are stored as empty."""
    return int(db.execute("SELECT count(*) FROM empty_origins").fetchone()[0])

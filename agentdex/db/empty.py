"""Empty origins: an origin where discovery found nothing, stored as one compact row.

Most of a sweep of a domain list answers 404 to every path agentdex asks. Such an origin is
one ``empty_origins`` row (migration m020): when it was first seen and last crawled, which
paths were asked and what each answered (an ``answer_sets`` row, ``[[kind, path, status],
…]`` in the order asked, stored once for every origin that answered the same), when its
discovery paths were last asked and since when they answer so (the known-absence
schedule), its crawl schedule, and a robots.txt that answered 4xx or with a web page that
holds no rule (:func:`robots_page`). No listing row, no snapshot, no robots.txt row.

An origin is stored so (:func:`take`) when the crawl found nothing: status ``no_manifest``
(or, for an origin stored so, every answer repeating the stored ones), no document, no
finding, no check, nothing it names, and every answer one the row holds whole
(:class:`Answer`): a non-2xx status of the origin's own path; a web page there (a site
answering every path with its HTML shell: the "soft 404"); either of those reached through
one redirect on the origin (every path sent to the home page); or, at every path, one
redirect to another origin, refused (a bare name sent to its ``www.`` name; a manifest path
alone sent elsewhere keeps its listing row, which says why). A page's body and validators are
not kept: it is no document, and the next crawl asks for it whole, as it asks a 404. A
network failure, a 304 or a longer redirect chain is no such answer. Anything else is
stored as before, with a listing row and its snapshots: an empty origin that gains a manifest (or fails, or answers
a page) is first turned back into the rows it stands for (:func:`expand`), so its listing,
events and history tell the same story as if it had always been stored so. A never-listed
``no_manifest`` origin stored before m020, with no other history, becomes compact the next
time a crawl finds it empty.

The readers see an empty origin as the ``no_manifest`` listing it stands for: ``show``
(:func:`view`, its facts from :func:`facts`), ``stats``, the recrawl and ``--due`` lists,
the ``known_absences`` view, and a crawl's previous answers (:func:`previous`).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, NamedTuple

from sqlite_utils import Database

from agentdex import schedule
from agentdex.db.common import epoch, iso
from agentdex.db.decisions import schedule_columns
from agentdex.formats import DISCOVERY_PATHS, MANIFEST_PATHS
from agentdex.headers import HTML_MEDIA_TYPES, media_type
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


# Where a redirect went to another origin, its target names the origin so, to be the same for
# every origin sent to its own www. name (no URL holds a brace: httpx escapes them).
ORIGIN_MARK = "{origin}"


class Answer(NamedTuple):
    """What one path of an empty origin answered, as its answer set holds it (``[kind, path,
    status]``, with ``target`` when it redirected): ``status`` is the last answer's; a 2xx is
    a web page; ``target`` is the path a redirect on the origin led to (``/…``), or the URL of
    another origin a refused redirect named (the origin's own name in it as
    :data:`ORIGIN_MARK`). The fetch record's fields follow from these, as the fetcher and
    discovery spell them (:mod:`agentdex.crawler.fetch`, :mod:`agentdex.crawler.discovery`)."""

    kind: str
    path: str
    status: int
    target: str | None = None

    def url(self, origin: str) -> str:
        return f"https://{origin}{self.path}"

    def final_url(self, origin: str) -> str:
        """The URL the answer came from (a followed redirect's target)."""
        return f"https://{origin}{self.target}" if self.followed else self.url(origin)

    @property
    def followed(self) -> bool:
        return self.target is not None and self.target.startswith("/")

    @property
    def refused(self) -> bool:
        """A redirect to another origin, refused (a manifest or discovery path must stay on it)."""
        return self.target is not None and not self.followed

    def redirects(self, origin: str) -> list[str]:
        """The redirects the fetcher recorded (one, or none)."""
        if self.target is None:
            return []
        return [self.final_url(origin)] if self.followed else [self.target.replace(ORIGIN_MARK, origin)]

    @property
    def error_code(self) -> str | None:
        if self.refused:
            return "cross_origin"
        if 200 <= self.status < 300:  # a web page: no manifest, and no document of any format
            return "content_type" if self.kind in MANIFEST_PATHS else None
        return "http_status" if self.status >= 400 else None

    def error(self, origin: str) -> str | None:
        """The fetch record's sentence (``None``: a web page at a path that is no manifest's)."""
        url = self.url(origin)
        if self.refused:
            return f"{url} redirects to another origin, {self.redirects(origin)[0]}; refused."
        if 200 <= self.status < 300:
            return f"{url} answers with a web page, not a manifest." if self.kind in MANIFEST_PATHS else None
        return answer_sentence(self.final_url(origin), self.status)

    @property
    def absence(self) -> bool:
        """A definite absence (404, 410) of a discovery document: asked on its schedule."""
        return self.status in (404, 410) and self.kind in DISCOVERY_PATHS


def answer_of(fetch: FetchRecord, origin: str) -> Answer | None:
    """The :class:`Answer` a fetch record is, when the row can hold it whole (None: it cannot)."""
    base, status, url = "https://" + origin, fetch.status, fetch.url
    if status is None or fetch.not_modified or not url.startswith(base) or url[len(base) : len(base) + 1] != "/":
        return None
    path, target = url[len(base) :], None
    if fetch.from_freshness:  # not asked: the stored answer stands (its own sentence says so)
        return Answer(fetch.kind, path, status)
    if not fetch.redirects and status >= 400 and fetch.final_url in (None, url):  # nearly every one
        plain = fetch.error_code == "http_status" and fetch.error == url + _answered(status)
        return Answer(fetch.kind, path, status) if plain else None
    if fetch.redirects:
        if len(fetch.redirects) != 1:
            return None
        hop = fetch.redirects[0]
        if fetch.error_code == "cross_origin":
            target = hop.replace(origin, ORIGIN_MARK) if ORIGIN_MARK not in hop else None
        elif hop == fetch.final_url and hop.startswith(base + "/"):
            target = hop[len(base) :]
        if target is None:
            return None
    answer = Answer(fetch.kind, path, status, target)
    if answer.error_code != fetch.error_code or answer.error(origin) != fetch.error:
        return None  # not what the row would say of it (a network failure, a page that is a document ...)
    if 200 <= status < 300 and not _page(fetch):  # only a web page: anything else may be a document
        return None
    if answer.final_url(origin) != (fetch.final_url or fetch.url):
        return None
    return answer


def _page(fetch: FetchRecord) -> bool:
    """The body is a web page (what discovery drops: no JSON document starts with ``<``), or
    a manifest path's answer refused unread for its size that said it was HTML (discovery
    says so: :func:`agentdex.crawler.discovery.html_typed`)."""
    if fetch.body is None:
        return fetch.error_code == "content_type" and media_type(fetch.headers) in HTML_MEDIA_TYPES
    return fetch.body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"<"


@dataclass(frozen=True)
class Empty:
    """One ``empty_origins`` row, its answer set read (``answered``: each :class:`Answer`)."""

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
    answered: tuple[Answer, ...] = ()

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
    answered = tuple(Answer(*entry) for entry in json.loads(row[-1]))
    found = dict(zip(_COLUMNS, row[:-1], strict=True))
    # A time stored as NULL is the same as another column's (empty_sql: a few bytes a row).
    found["since"] = found["since"] or found["first_seen_at"]
    found["asked_at"] = found["asked_at"] or found["crawled_at"]
    if found["robots_status"] is not None:
        found["robots_at"] = found["robots_at"] or found["crawled_at"]
    return Empty(**found, answered=answered)


# --- what is empty, and saving it -----------------------------------------------------------


def answers(crawl: OriginCrawl, stored: bool) -> list[Answer] | None:
    """What the row of ``crawl`` holds, each answer in the order asked, when it found nothing
    (see the module docstring); None when it found something, or an answer the row cannot
    hold. ``stored``: the origin is stored as empty, so a crawl whose every answer repeats the
    stored ones is empty too."""
    if crawl.results or crawl.documents or crawl.catalog_links or crawl.checks or crawl.endpoints:
        return None
    if crawl.mcp_tools or crawl.primary is not None or not crawl.fetches:
        return None
    if crawl.status != NO_MANIFEST and not (crawl.unchanged and stored):
        return None
    # A revalidating crawl skips known absences: the row keeps one time for its discovery
    # paths, so they were either all asked or none.
    if len({f.from_freshness for f in crawl.fetches if f.kind in DISCOVERY_PATHS}) > 1:
        return None
    held = []
    for fetch in crawl.fetches:
        answer = answer_of(fetch, crawl.origin)
        if answer is None:
            return None
        held.append(answer)
    # A redirect to another origin is held when every path answered so (the origin moved);
    # one path sent elsewhere among 404s is a manifest kept on another origin, refused: a
    # listing row says why, and `list` shows it.
    refused = sum(a.refused for a in held)
    return held if refused in (0, len(held)) else None


def fits(crawl: OriginCrawl, stored: bool) -> bool:
    """Whether ``crawl`` found nothing, every answer one the row holds (:func:`answers`)."""
    return answers(crawl, stored) is not None


def take(db: Database, crawl: OriginCrawl, crawl_id: int | None, light: dict[str, Any] | None, at: str) -> bool:
    """Store ``crawl`` as an empty origin when it found nothing and the origin has no other
    history (inside the caller's transaction); whether it did. ``light``: the stored listing's
    columns (:func:`agentdex.db.reads.light_state`), None when there is no listing row."""
    if light is None:
        stored = load(db, crawl.origin)
        held = answers(crawl, stored is not None)
        if held is None:
            return False
    else:
        if light["status"] != NO_MANIFEST or light["first_listed_at"] is not None:
            return False
        held = answers(crawl, True)
        stored = _retire_listing(db, crawl.origin, light) if held is not None else None
        if held is None or stored is None:
            return False
    _write(db, crawl, held, crawl_id, stored, at)
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


def _write(
    db: Database, crawl: OriginCrawl, held: list[Answer], crawl_id: int | None, stored: Empty | None, at: str
) -> None:
    before = {(a.kind, a.path): a for a in stored.answered} if stored else {}
    # An answer not asked again (fresh, or a known absence) is the stored one, redirect and all.
    answered = [
        _entry(before.get(a[:2], a) if f.from_freshness else a) for f, a in zip(crawl.fetches, held, strict=True)
    ]
    answer_set = _answer_set(db, answered)
    same = stored is not None and stored.answers == answer_set
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
        "answers": answer_set,
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


def _entry(answer: Answer) -> list[Any]:
    """An answer as its answer set holds it (``target`` only when there is one)."""
    return list(answer) if answer.target is not None else list(answer[:3])


def _answer_set(db: Database, answered: list[list[Any]]) -> int:
    """The id of the answer set ``answered`` (added when no origin answered so before)."""
    text = json.dumps(answered, separators=(",", ":"))
    db.execute("INSERT INTO answer_sets (answers) VALUES (?) ON CONFLICT (answers) DO NOTHING", [text])
    return int(db.execute("SELECT id FROM answer_sets WHERE answers = ?", [text]).fetchone()[0])


def _robots(record: FetchRecord | None, stored: Empty | None, at: str) -> tuple[int | None, str | None]:
    """(status, time) of robots.txt's 4xx or of a web page there (:func:`robots_page`), which
    the row holds; its rules (a 2xx) are a robots.txt row as for any origin; not fetched this
    crawl (reused, or it failed): as stored."""
    if record is None:
        return (stored.robots_status, stored.robots_at) if stored else (None, None)
    if record.ok and record.body is not None and not robots_page(record):
        return None, None
    return record.status, at  # fetched this crawl: its time is the crawl's


# A line a robots.txt rule may be on: a key and a colon at its start (RFC 9309's user-agent,
# allow and disallow, and whatever spellings a parser forgives).
_RULE_LINE = re.compile(rb"^[ \t]*[A-Za-z][A-Za-z \t_-]*:", re.M)


def robots_page(record: FetchRecord | None) -> bool:
    """This crawl's robots.txt is a web page with no line a rule could be on (a soft 404's
    home page): no rules, as an empty file. An empty origin's row holds it as its status (a
    2xx), its body not kept; any other 2xx is a robots.txt row as for any origin."""
    if record is None or not record.ok or record.body is None:
        return False
    return _page(record) and _RULE_LINE.search(record.body) is None


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
        "redirects, obtained, response_at, fresh_until, last_crawl_id, last_seen_at, last_obtained, seen) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'fetched', ?, ?, ?, ?, 'fetched', ?)",
        [
            (
                row.last_crawl_id, origin, a.url(origin), a.kind, a.status, a.final_url(origin), a.error_code,
                a.error(origin), row.since, json.dumps(a.redirects(origin)), row.response_at(a.kind),
                row.fresh_until, row.last_crawl_id, row.crawled_at, max(1, row.unchanged_crawls),
            )
            for a in row.answered
        ],
    )  # fmt: skip
    if row.robots_status is not None:  # a web page there: no rules, the empty file that says so
        db.execute(
            "INSERT INTO robots_txt (origin, url, status_code, body, fetched_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (origin) DO NOTHING",
            [
                origin, row.url(ROBOTS_PATH), row.robots_status, "" if row.robots_status < 300 else None,
                row.robots_at or row.crawled_at,
            ],
        )  # fmt: skip
    db.execute("DELETE FROM empty_origins WHERE origin = ?", [origin])
    return True


def answer_sentence(url: str, status: int) -> str:
    """What the fetcher says of a non-2xx answer (:mod:`agentdex.crawler.fetch`)."""
    return url + _answered(status)


@functools.cache
def _answered(status: int) -> str:
    """`` answered 404 Not Found.``: what follows the URL in :func:`answer_sentence`."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "error"
    return f" answered {status} {reason}."


def detail(row: Empty) -> str:
    """The status sentence a ``no_manifest`` origin has: what each manifest path answered."""
    manifests = sorted(
        (a for a in row.answered if a.kind in MANIFEST_PATHS and a.error(row.origin)),
        key=lambda a: (list(MANIFEST_PATHS).index(a.kind), a.path),
    )
    text = "; ".join(f"{a.kind}: {a.error(row.origin)}" for a in manifests)
    return text or "no manifest found"


# --- what the readers see -------------------------------------------------------------------


def previous(db: Database, origin: str) -> dict[str, dict[str, Any]]:
    """What each path of an empty origin answered, as :func:`agentdex.db.previous_fetches`
    gives a stored origin's (no validators, no body: none was kept); empty when it is not one."""
    row = load(db, origin)
    if row is None:
        return {}
    return {
        row.url(a.path): {
            "etag": None,
            "last_modified": None,
            "sha256": None,
            "status": a.status,
            "headers": {},
            "response_at": row.response_at(a.kind),
            "fresh_until": row.fresh_until,
            "first_seen": row.since,
        }
        for a in row.answered
    }


def robots(db: Database, origin: str) -> FetchRecord | None:
    """The robots.txt an empty origin's row holds (a 4xx, or a web page: no rules), as a fetch
    record (None: none)."""
    row = db.execute(
        "SELECT robots_status, coalesce(robots_at, crawled_at) FROM empty_origins WHERE origin = ?", [origin]
    ).fetchone()
    if row is None or row[0] is None:
        return None
    url, status = f"https://{origin}{ROBOTS_PATH}", row[0]
    if 200 <= status < 300:  # a page without a rule: an empty file says the same
        return FetchRecord(url=url, kind="robots", status=status, fetched_at=row[1], body=b"")
    return FetchRecord(url=url, kind="robots", status=status, fetched_at=row[1], error_code="http_status")


def facts(row: Empty, now: float) -> list[dict[str, Any]]:
    """How old each answer of an empty origin is, as :func:`agentdex.db.queries.list_facts`
    gives them (ordered by kind and URL)."""
    out = []
    for a in sorted(row.answered, key=lambda a: (a.kind, row.url(a.path))):
        response = row.response_at(a.kind)
        arrived, until = epoch(response), epoch(row.fresh_until)
        absence = a.absence and arrived is not None
        skipped = a.kind in DISCOVERY_PATHS and row.asked_at != row.crawled_at
        out.append(
            {
                "kind": a.kind,
                "url": row.url(a.path),
                "status_code": a.status,
                "error_code": a.error_code,
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
    failed = [a for a in row.answered if a.error_code is not None and a.status not in (404, 410)]
    if not failed:
        return None
    last = failed[-1]
    return {
        "url": row.url(last.path),
        "kind": last.kind,
        "error_code": last.error_code,
        "error": last.error(origin),
        "status_code": last.status,
        "fetched_at": row.crawled_at,
    }


def count(db: Database) -> int:
    """How many origins are stored as empty."""
    return int(db.execute("SELECT count(*) FROM empty_origins").fetchone()[0])

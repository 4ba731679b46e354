"""What one origin's answers say: the stored answer a URL had (:class:`Previous`), the
records of answers served from storage (fresh, or a known absence not yet due), when an
answer arrived and until when it is fresh, which answers are definite absences or
transient failures, and the status, sentence and primary format discovery gives an origin
(:mod:`agentdex.crawler.discovery` asks; these read what it got). Pure but for the clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentdex import formats, schedule
from agentdex.crawler import freshness
from agentdex.models import FetchRecord, ParseResult

MANIFEST_PATHS = formats.MANIFEST_PATHS
PRIMARY_ORDER = formats.FORMAT_NAMES
NETWORK_ERRORS = {"dns", "refused", "tls", "timeout", "blocked_address", "connect"}
# Failures that say nothing about whether a manifest exists: the answer never came whole,
# or the server failed. An origin whose manifest fetch ends like this is "unreachable"
# (a listed origin survives a few of those), never "no_manifest" (which delists at once).
# A body agentdex cannot decode (an encoding it did not ask for: br, zstd, gzip twice; or a
# corrupt one) and a bug of agentdex's own say nothing about the manifest either.
TRANSIENT_ERRORS = NETWORK_ERRORS | {"incomplete", "protocol", "decoding", "internal"}


@dataclass(frozen=True, slots=True)
class Previous:
    """What the last crawl saw at a URL: the validators for a conditional request, the
    stored answer's status and body hash, and its freshness (epoch seconds)."""

    etag: str | None = None
    last_modified: str | None = None
    sha256: str | None = None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    response_text: str | None = None  # as stored (ISO 8601), and as epoch seconds below
    fresh_until_text: str | None = None
    response_at: float | None = None
    fresh_until: float | None = None
    first_seen: float | None = None  # when this same answer was first had (a known absence's age)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Previous:
        """From :func:`agentdex.db.previous_fetches`' dict (times as ISO 8601 text)."""
        received, until = row.get("response_at"), row.get("fresh_until")
        return cls(
            row["etag"],
            row["last_modified"],
            row["sha256"],
            row["status"],
            row.get("headers") or {},
            received,
            until,
            freshness.epoch(received),
            freshness.epoch(until),
            freshness.epoch(row.get("first_seen")),
        )

    def absence_recheck_at(self) -> float | None:
        """When a revalidating crawl asks this known absence (a 404 or 410) again (None: it
        is no known absence); see :func:`agentdex.schedule.absence_recheck_at`."""
        if self.status not in ABSENT_STATUSES or self.response_at is None:
            return None
        return schedule.absence_recheck_at(self.first_seen or self.response_at, self.response_at)


NOTHING = Previous()


def served_fresh(url: str, kind: str, prev: Previous, at: str) -> FetchRecord:
    """The record of a URL not asked at ``at`` because its stored answer is still fresh: the
    stored answer's status, validators, headers and freshness, and no body (the stored one
    stands)."""
    record = FetchRecord(
        url=url,
        kind=kind,
        status=prev.status,
        final_url=url,
        headers=dict(prev.headers),
        etag=prev.etag,
        last_modified=prev.last_modified,
        fetched_at=at,
        response_at=prev.response_text,
        fresh_until=prev.fresh_until_text,
        from_freshness=True,
    )
    if prev.status is not None and prev.status >= 400:
        record.error_code = "http_status"
        record.error = (
            f"{url} answered {prev.status} when last asked; that answer is still fresh, so it was not asked again."
        )
    return record


def served_absence(url: str, kind: str, prev: Previous, at: str, recheck: float) -> FetchRecord:
    """The record of a known absence not asked at ``at`` because its schedule has not come
    (``crawl --revalidate``): the stored 404 (or 410) stands, and says when it is asked next."""
    record = served_fresh(url, kind, prev, at)
    record.known_absence = True
    record.error = (
        f"{url} answered {prev.status} when last asked, on {prev.response_text}; a known absence "
        f"is asked again on its schedule, next from {freshness.iso(recheck)}."
    )
    return record


def note_freshness(
    record: FetchRecord, prev: Previous, sent: float, arrived: float
) -> tuple[float | None, float | None]:
    """Stamp an answer with when it arrived and until when it is fresh (RFC 9111); return
    both (epoch seconds). A 304 stands for the stored answer, updated by the 304's headers
    (4.3.4). An answer reached through a redirect is never fresh: the redirect's own
    lifetime is not kept."""
    if record.status is None:
        return None, None
    record.response_at = freshness.iso(arrived)
    if record.redirects:
        return None, arrived
    status = record.status
    if record.not_modified:
        for name in ("cache-control", "expires"):
            if name not in record.headers and name in prev.headers:
                record.headers[name] = prev.headers[name]
        status = prev.status or 200
    until = freshness.fresh_until(record.headers, status, sent, arrived)
    record.fresh_until = freshness.iso(until)
    return until, arrived


ABSENT_STATUSES = frozenset({404, 410})


def absent(record: FetchRecord) -> bool:
    """A definite answer that the document is not at this path (a 4xx but 429)."""
    return record.status is not None and 400 <= record.status < 500 and record.status != 429


def is_html_page(body: bytes | None) -> bool:
    """The body is an HTML document (a markdown file may hold HTML, but never starts with
    a doctype or an ``<html>`` tag)."""
    if body is None:
        return False
    head = body[:64].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html"))


def transient(record: FetchRecord) -> bool:
    """The fetch failed in a way that says nothing about the document: network, timeout,
    a cut answer, a server error or a rate limit."""
    if record.error_code in TRANSIENT_ERRORS:
        return True
    status = record.status
    return record.error_code == "http_status" and status is not None and (status >= 500 or status == 429)


def choose_primary(results: dict[str, ParseResult]) -> ParseResult | None:
    """The listing's primary format: valid beats invalid, then agent_app > anchor > inferred
    (a discovery document is never primary)."""
    usable = [r for r in results.values() if r.format in PRIMARY_ORDER and (r.listing is not None or r.findings)]
    if not usable:
        return None
    return min(usable, key=lambda r: (not (r.valid and r.listing is not None), PRIMARY_ORDER.index(r.format)))


def status_of(primary: ParseResult | None, records: list[FetchRecord]) -> str:
    """listed | invalid | unreachable | no_manifest (delisted is decided against history)."""
    if primary is not None:
        return "listed" if primary.valid and primary.listing is not None else "invalid"
    if any(transient(r) for r in records if r.kind in MANIFEST_PATHS):
        return "unreachable"
    return "no_manifest"


def detail_of(primary: ParseResult | None, records: list[FetchRecord]) -> str:
    """One readable sentence on why the origin has its status."""
    if primary is not None:
        errors = sum(f.severity == "error" for f in primary.findings)
        what = "manifest" if primary.format in PRIMARY_ORDER else "document (no manifest)"
        return f"{primary.format} {what}" + (f" with {errors} error(s)" if errors else "")
    # The failure that decided the status first, then in a fixed order (answers arrive in
    # any order; the sentence must not depend on it).
    failed = sorted(
        (r for r in records if r.kind in MANIFEST_PATHS and r.error),
        key=lambda r: (not transient(r), list(MANIFEST_PATHS).index(r.kind), r.url),
    )
    return "; ".join(f"{r.kind}: {r.error}" for r in failed) or "no manifest found"

"""robots.txt: fetched once per origin, parsed with :mod:`urllib.robotparser`.

Public API::

    RobotsCache(fetch, agent_token="agentdex")
        ``fetch`` is an async callable ``(robots_url) -> FetchRecord`` that fetches under
        the crawler's fetch policy (the Fetcher passes its own, with a small byte cap).
    await cache.check(url) -> RobotsVerdict(allowed: bool, origin: str, note: str | None)
    cache.entry(origin) -> RobotsEntry | None   (the robots fetch record and its note)
    cache.seed(record)   reuse a robots.txt fetched by an earlier crawl (entry.reused is True)
    cache.forget(origin)   drop an origin's entry (the crawl is done with it)
    robots_exempt(url) -> bool   paths robots.txt does not govern for agentdex
    reusable(record, now=None) -> bool   whether a stored robots.txt may still be used

Choices (documented here because they are policy):

- A robots.txt that is missing or answers 4xx (429 aside) allows everything (RFC 9309, 2.3.1.3).
- A robots.txt that answers 5xx or 429, times out or cannot be reached means "hold off"
  (RFC 9309, 2.3.1.4: assume complete disallow): nothing but the exempt manifests is
  fetched from that origin in this crawl, and the entry's ``note`` says why. The failure is
  asked again by the next crawl (only definite answers are reused, below).
- A robots.txt over the 64 KB cap allows everything, with a note: it exists and answered,
  agentdex just does not read that much (RFC 9309 lets a crawler stop reading).
- ``Crawl-delay`` (for agentdex, else for ``*``) is honoured between the requests to an
  origin that robots.txt governs (the manifests are not paced); a delay above
  ``CRAWL_DELAY_MAX`` seconds is more than a crawl can wait, so the origin's other
  documents are not fetched at all (the verdict says so).
- The well-known manifests (``/.well-known/agent-app.json``, ``/.well-known/anchor.json``)
  and ``/robots.txt`` itself are exempt: a site publishes a manifest to be read by agents.
- Rules are matched for the product token ``agentdex`` (the User-Agent's first word).
  :mod:`urllib.robotparser` applies the first matching rule of a group in file order rather
  than RFC 9309's longest match; sites that list ``Allow`` lines before the broader
  ``Disallow`` (the common style) read the same either way.
- Redirects of robots.txt are followed (up to the fetch policy's limit), to any origin.
- A robots.txt fetched by an earlier crawl is reused for up to 24 hours (RFC 9309, 2.4:
  a crawler SHOULD NOT use a cached copy for longer), or less when its answer said so
  (``Cache-Control: max-age``; ``no-store`` or ``no-cache`` mean "fetch it again"). Only
  definite answers are kept for reuse: rules (2xx) and "no robots.txt" (4xx); a failure
  is asked again on the next crawl.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import anyio

from agentdex.models import FetchRecord

ROBOTS_MAX_BYTES = 64 * 1024
CRAWL_DELAY_MAX = 10.0  # seconds; an origin asking for more is not crawled past its manifests
# robots.txt unreachable: assume complete disallow. (A name that does not resolve or an
# address the guard refuses is not among them: the document's own fetch fails the same way,
# with that code, which says more than "robots".)
HOLD_OFF_ERRORS = frozenset({"timeout", "refused", "tls", "protocol", "incomplete", "decoding"})
EXEMPT_PATHS = frozenset({"/.well-known/agent-app.json", "/.well-known/anchor.json", "/robots.txt"})
REUSE_MAX_SECONDS = 24 * 3600
_MAX_AGE_RE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d+)", re.I)
_NO_REUSE_RE = re.compile(r"(?:^|,)\s*(?:no-store|no-cache)\b", re.I)

RobotsFetch = Callable[[str], Awaitable[FetchRecord]]


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """Whether robots.txt lets agentdex fetch a URL; ``note`` tells why all was allowed."""

    allowed: bool
    origin: str
    note: str | None = None


@dataclass(slots=True)
class RobotsEntry:
    """What one origin's robots.txt said: a parser (None: allow all), the fetch, a note."""

    origin: str
    parser: RobotFileParser | None
    record: FetchRecord
    note: str | None = None
    reused: bool = False  # seeded from an earlier crawl rather than fetched by this one
    hold_off: bool = False  # robots.txt could not be had: nothing it governs may be fetched
    next_at: float = 0.0  # the event-loop time before which Crawl-delay says wait

    def crawl_delay(self, agent: str) -> float:
        """The Crawl-delay in seconds robots.txt asks of ``agent`` (0 when none)."""
        if self.parser is None:
            return 0.0
        try:
            return max(0.0, float(self.parser.crawl_delay(agent) or 0))
        except (TypeError, ValueError):
            return 0.0


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def robots_exempt(url: str) -> bool:
    """True for the paths robots.txt does not govern for agentdex (the manifests)."""
    return urlsplit(url).path in EXEMPT_PATHS


class RobotsCache:
    """One robots.txt per origin, fetched at first need and kept for the cache's life."""

    def __init__(self, fetch: RobotsFetch, agent_token: str = "agentdex") -> None:
        self._fetch = fetch
        self.agent_token = agent_token
        self._entries: dict[str, RobotsEntry] = {}
        self._locks: dict[str, anyio.Lock] = {}

    def entry(self, origin: str) -> RobotsEntry | None:
        """The cached entry for an origin (``https://host``), if robots.txt was fetched."""
        return self._entries.get(origin.lower())

    def seed(self, record: FetchRecord) -> None:
        """Use ``record`` (a robots.txt an earlier crawl fetched, see :func:`reusable`) for
        its origin instead of fetching robots.txt again."""
        origin = origin_of(record.url)
        entry = _entry_from(origin, record)
        entry.reused = True
        self._entries[origin] = entry

    def forget(self, origin: str) -> None:
        """Drop an origin's entry once the crawl is done with it, so a crawl of 100,000
        origins does not keep 100,000 parsed robots.txt files (asked again if needed)."""
        key = origin.lower()
        self._entries.pop(key, None)
        lock = self._locks.get(key)
        if lock is not None and not lock.locked():
            del self._locks[key]

    async def check(self, url: str) -> RobotsVerdict:
        """Whether ``url`` may be fetched; fetches the origin's robots.txt once, and waits
        out the origin's Crawl-delay before saying yes."""
        origin = origin_of(url)
        if robots_exempt(url):
            return RobotsVerdict(True, origin)
        entry = await self._entry_for(origin)
        if entry.hold_off:
            return RobotsVerdict(False, origin, entry.note)
        if entry.parser is None:
            return RobotsVerdict(True, origin, entry.note)
        if not entry.parser.can_fetch(self.agent_token, url):
            return RobotsVerdict(False, origin, entry.note)
        delay = entry.crawl_delay(self.agent_token)
        if delay > CRAWL_DELAY_MAX:
            return RobotsVerdict(False, origin, f"robots.txt of {origin} asks for {delay:g} s between requests; "
                                                f"agentdex waits at most {CRAWL_DELAY_MAX:g} s, so it fetches nothing more")
        await _pace(entry, delay)
        return RobotsVerdict(True, origin, entry.note)

    async def _entry_for(self, origin: str) -> RobotsEntry:
        entry = self._entries.get(origin)
        if entry is not None:  # the usual case: no lock to take
            return entry
        # One lock per origin: concurrent fetches to one origin wait for a single robots fetch.
        if origin not in self._locks:
            self._locks[origin] = anyio.Lock()
        lock = self._locks[origin]
        async with lock:
            if origin not in self._entries:
                record = await self._fetch(f"{origin}/robots.txt")
                self._entries[origin] = _entry_from(origin, record)
            return self._entries[origin]


async def _pace(entry: RobotsEntry, delay: float) -> None:
    """Wait until ``delay`` seconds have passed since the previous request this entry let through."""
    if delay <= 0:
        return
    now = anyio.current_time()
    start = max(now, entry.next_at)
    entry.next_at = start + delay  # claimed before sleeping, so concurrent requests queue up
    if start > now:
        await anyio.sleep(start - now)


def reusable(record: FetchRecord, now: datetime | None = None) -> bool:
    """Whether a robots.txt fetched at ``record.fetched_at`` may still be used instead
    of fetching it again (see the module docstring for the rule)."""
    if not definite(record):
        return False
    try:
        fetched = datetime.fromisoformat(record.fetched_at)
    except ValueError:
        return False
    if fetched.tzinfo is None:
        fetched = fetched.replace(tzinfo=UTC)
    age = ((now or datetime.now(UTC)) - fetched).total_seconds()
    return 0 <= age < _lifetime(record.headers.get("cache-control", ""))


def definite(record: FetchRecord) -> bool:
    """A robots.txt answer worth keeping: its rules (2xx) or a definite "none" (4xx)."""
    if record.ok and record.body is not None:
        return True
    # 429 is "not now", not "none": asked again next time.
    return record.status is not None and 400 <= record.status < 500 and record.status != 429 \
        and record.error_code in (None, "http_status")


def _lifetime(cache_control: str) -> float:
    if _NO_REUSE_RE.search(cache_control):
        return 0
    match = _MAX_AGE_RE.search(cache_control)
    return min(REUSE_MAX_SECONDS, int(match.group(1))) if match else REUSE_MAX_SECONDS


def _entry_from(origin: str, record: FetchRecord) -> RobotsEntry:
    if record.ok and record.body is not None:
        return RobotsEntry(origin, _parse(record.body), record)
    if record.status is not None and 400 <= record.status < 500 and record.status != 429:
        return RobotsEntry(origin, None, record)  # missing: everything allowed, nothing to note
    why = record.error or "no usable answer"
    if _unreachable(record):
        note = (f"robots.txt of {origin} could not be had ({why}); as RFC 9309 asks, agentdex holds off: "
                "only the well-known manifests were fetched.")
        return RobotsEntry(origin, None, record, note, hold_off=True)
    # Over the cap, or redirects that lead nowhere (RFC 9309 2.3.1.2: "unavailable").
    return RobotsEntry(origin, None, record, f"robots.txt of {origin} could not be read ({why}); "
                                             "everything was treated as allowed.")


def _unreachable(record: FetchRecord) -> bool:
    """A server or network error (5xx, 429, no connection): RFC 9309's "unreachable"."""
    if record.status is not None and (record.status >= 500 or record.status == 429):
        return True
    return record.error_code in HOLD_OFF_ERRORS


def _parse(body: bytes) -> RobotFileParser:
    parser = RobotFileParser()
    # parse() also marks the parser as read, which can_fetch() requires.
    parser.parse(body.decode("utf-8", errors="replace").splitlines())
    return parser

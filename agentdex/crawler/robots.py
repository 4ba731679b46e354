"""robots.txt (RFC 9309): fetched once per origin, parsed with Protego.

Public API::

    RobotsCache(fetch, agent_token=PRODUCT_TOKEN)
        ``fetch`` is an async callable ``(robots_url) -> FetchRecord`` that fetches under
        the crawler's fetch policy (the Fetcher passes its own, with a byte cap just above
        :data:`ROBOTS_MAX_BYTES` that keeps the prefix of a longer file).
    await cache.check(url) -> RobotsVerdict(allowed: bool, origin: str, note: str | None)
    await cache.check_governed(url, origin) -> RobotsVerdict   the same, for a caller that
        found the URL not exempt and has its origin already (the fetch policy)
    cache.entry(origin) -> RobotsEntry | None   (the robots fetch record and its note)
    cache.offer(origin, stored)   ``stored() -> FetchRecord | None``: a robots.txt an earlier
        crawl kept, used (entry.reused is True) instead of fetching when the origin's
        robots.txt is first needed, by discovery or verification alike
    cache.forget(origin)   drop an origin's entry (the crawl is done with it)
    await cache.unpaced(url, origin) -> bool   allowed, and no Crawl-delay to wait out
    cache.will_fetch(origin) -> bool   not had yet, and no stored one offered
    RobotsRules.parse(body, agent).allows(url) -> bool   the decision itself, no IO
    robots_exempt(url) -> bool   paths robots.txt does not govern for agentdex
    reusable(record, now=None) -> bool   whether a stored robots.txt may still be used
    product_token(user_agent) -> str   the token robots.txt groups are matched against

Choices (documented here because they are policy; docs/robots.md lists where agentdex
and Google's parser answer differently):

- Rules are read by Protego (longest match, ``*`` and ``$``, groups of the same agent
  merged). Before Protego reads them, two RFC 9309 (2.1, 2.2.1) points it reads otherwise
  are settled: a ``User-agent`` value is matched by its product token (its leading
  letters, ``_`` and ``-``), equal to agentdex's token case-insensitively (``agent`` is not
  ``agentdex``); and a line that is no robots.txt record (``Foo: bar``) is ignored rather
  than ending the group it stands in.
- A robots.txt that is missing or answers 4xx (429 aside) allows everything (RFC 9309, 2.3.1.3).
- A robots.txt that answers 5xx or 429, times out or cannot be reached means "hold off"
  (RFC 9309, 2.3.1.4: assume complete disallow): nothing but the exempt manifests is
  fetched from that origin in this crawl, and the entry's ``note`` says why. The failure is
  asked again by the next crawl (only definite answers are reused, below).
- The first :data:`ROBOTS_MAX_BYTES` (500 KiB, RFC 9309 2.5) are parsed; a longer file's
  prefix is parsed up to its last whole line, with a note. Size never allows everything.
- ``Crawl-delay`` (for agentdex, else for ``*``) is honoured between the requests to an
  origin that robots.txt governs (the manifests are not paced); a delay above
  ``CRAWL_DELAY_MAX`` seconds is more than a crawl can wait, so the origin's other
  documents are not fetched at all (the verdict says so).
- The well-known manifests (the format registry's
  :data:`agentdex.formats.MANIFEST_PATHS`) and ``/robots.txt`` itself are exempt: a site
  publishes a manifest to be read by agents.
- Redirects of robots.txt are followed (up to the fetch policy's limit), to any origin.
- A robots.txt fetched by an earlier crawl is reused for up to 24 hours (RFC 9309, 2.4:
  a crawler SHOULD NOT use a cached copy for longer), or less when its answer said so
  (its freshness lifetime, read by :func:`agentdex.crawler.freshness.lifetime`;
  ``no-store`` or ``no-cache`` mean "fetch it again"). Only definite answers are kept for
  reuse: rules (2xx) and "no robots.txt" (4xx); a failure is asked again on the next crawl.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from protego import Protego

from agentdex.crawler import freshness, offload
from agentdex.crawler.origins import origin_of
from agentdex.formats import MANIFEST_PATHS
from agentdex.headers import decimal_seconds
from agentdex.models import FetchRecord

PRODUCT_TOKEN = "agentdex"  # the User-Agent's first word, and the token robots.txt names agentdex by
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 2.5: parse at least the first 500 KiB
# Above this many bytes of rules, a decision takes milliseconds (Protego tries the rules
# in turn): it is made off the event loop. Below, a thread hop would cost more than it saves.
ROBOTS_HEAVY_BYTES = 64 * 1024
CRAWL_DELAY_MAX = 10.0  # seconds; an origin asking for more is not crawled past its manifests
# robots.txt unreachable: assume complete disallow. (A name that does not resolve or an
# address the guard refuses is not among them: the document's own fetch fails the same way,
# with that code, which says more than "robots".)
HOLD_OFF_ERRORS = frozenset({"timeout", "refused", "tls", "protocol", "incomplete", "decoding"})
EXEMPT_PATHS = frozenset({*MANIFEST_PATHS.values(), "/robots.txt"})
REUSE_MAX_SECONDS = 24 * 3600
# The records RFC 9309 defines, and the ones Protego reads besides (all other "name:" lines
# are ignored, so they do not end a group).
_RECORDS = frozenset(
    {"user-agent", "allow", "disallow", "sitemap", "crawl-delay", "host", "request-rate", "visit-time"}
)
_NAMED_LINE_RE = re.compile(r"^\s*([A-Za-z-]+)\s*:(.*)$", re.S)
_TOKEN_RE = re.compile(r"[A-Za-z_-]+")
_OTHER_AGENT = "-other"  # stands for every agent that is not us: can never match our token

RobotsFetch = Callable[[str], Awaitable[FetchRecord]]
StoredRobots = Callable[[], FetchRecord | None]


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """Whether robots.txt lets agentdex fetch a URL; ``note`` tells why all was allowed."""

    allowed: bool
    origin: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """One robots.txt as it applies to the product token ``agent``."""

    agent: str
    parser: Protego
    truncated: bool = False  # longer than ROBOTS_MAX_BYTES: only its prefix was read
    heavy: bool = False  # more than ROBOTS_HEAVY_BYTES of rules

    @classmethod
    def parse(cls, body: bytes | str, agent: str = PRODUCT_TOKEN) -> RobotsRules:
        """Parse ``body`` (its first :data:`ROBOTS_MAX_BYTES` when longer) for ``agent``."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        truncated = len(data) > ROBOTS_MAX_BYTES
        if truncated:
            # A cut line could read wider than written ("Allow: /a/b" as "Allow: /"): dropped.
            data = data[:ROBOTS_MAX_BYTES].rpartition(b"\n")[0]
        text = data.decode("utf-8-sig", errors="replace")
        agent = agent.strip().lower()
        return cls(agent, Protego.parse(_for_agent(text, agent)), truncated, len(data) > ROBOTS_HEAVY_BYTES)

    def allows(self, url: str) -> bool:
        """Whether robots.txt lets ``agent`` fetch ``url`` (longest match, RFC 9309 2.2.2)."""
        return self.parser.can_fetch(url, self.agent)

    def crawl_delay(self) -> float:
        """The Crawl-delay in seconds robots.txt asks of ``agent`` (0 when none)."""
        try:
            return max(0.0, float(self.parser.crawl_delay(self.agent) or 0))
        except (TypeError, ValueError):
            return 0.0


def _for_agent(text: str, agent: str) -> str:
    """``text`` with RFC 9309's group rules settled for ``agent`` (see the module docstring)."""
    settled = (_settle(line, agent) for line in text.splitlines())
    return "\n".join(line for line in settled if line is not None)


def _settle(line: str, agent: str) -> str | None:
    """One line for Protego: a user-agent line names ``agent``, ``*`` or some other agent;
    a named line that is no record goes (None)."""
    match = _NAMED_LINE_RE.match(line.split("#", 1)[0])
    if match is None:
        return line  # blank, a comment, or "disallow /" (no colon): Protego reads it
    name = match.group(1).lower()
    if name not in _RECORDS:
        return None
    if name == "crawl-delay":
        # Protego reads the value with float(): Unicode digits, exponents and inf pass. Only
        # ASCII decimal seconds are a delay (agentdex.headers); anything else is no record.
        return line if decimal_seconds(match.group(2)) is not None else None
    if name != "user-agent":
        return line
    value = match.group(2).strip()
    if value.split(" ", 1)[0] == "*":
        return "user-agent: *"
    token = _TOKEN_RE.match(value)
    return f"user-agent: {agent if token and token.group(0).lower() == agent else _OTHER_AGENT}"


@dataclass(slots=True)
class RobotsEntry:
    """What one origin's robots.txt said: its rules (None: allow all), the fetch, a note."""

    origin: str
    rules: RobotsRules | None
    record: FetchRecord
    note: str | None = None
    reused: bool = False  # seeded from an earlier crawl rather than fetched by this one
    hold_off: bool = False  # robots.txt could not be had: nothing it governs may be fetched
    next_at: float = 0.0  # the event-loop time before which Crawl-delay says wait


def product_token(user_agent: str) -> str:
    """The product token of a User-Agent header (its first word before ``/``), lower case."""
    return user_agent.split("/", 1)[0].split()[0].lower() if user_agent.strip() else PRODUCT_TOKEN


def robots_exempt(url: str) -> bool:
    """True for the paths robots.txt does not govern for agentdex (the manifests)."""
    return urlsplit(url).path in EXEMPT_PATHS


class RobotsCache:
    """One robots.txt per origin, fetched at first need and kept for the cache's life."""

    def __init__(self, fetch: RobotsFetch, agent_token: str = PRODUCT_TOKEN) -> None:
        self._fetch = fetch
        self.agent_token = agent_token
        self._entries: dict[str, RobotsEntry] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._offers: dict[str, StoredRobots] = {}

    def entry(self, origin: str) -> RobotsEntry | None:
        """The cached entry for an origin (``https://host``), if robots.txt was fetched."""
        return self._entries.get(origin.lower())

    def offer(self, origin: str, stored: StoredRobots) -> None:
        """Before fetching ``origin``'s robots.txt, ask ``stored()`` for one an earlier crawl
        kept (see :func:`reusable`); asked only when robots.txt is needed at all, so an
        origin served wholly from freshness reads nothing."""
        self._offers[origin.lower()] = stored

    def forget(self, origin: str) -> None:
        """Drop an origin's entry once the crawl is done with it, so a crawl of 100,000
        origins does not keep 100,000 parsed robots.txt files (asked again if needed)."""
        key = origin.lower()
        self._entries.pop(key, None)
        self._offers.pop(key, None)
        lock = self._locks.get(key)
        if lock is not None and not lock.locked():
            del self._locks[key]

    async def check(self, url: str) -> RobotsVerdict:
        """Whether ``url`` may be fetched; fetches the origin's robots.txt once, and waits
        out the origin's Crawl-delay before saying yes."""
        origin = origin_of(url)
        if robots_exempt(url):
            return RobotsVerdict(True, origin)
        return await self.check_governed(url, origin)

    async def check_governed(self, url: str, origin: str) -> RobotsVerdict:
        """:meth:`check` of a URL the caller found robots.txt governs (not
        :func:`robots_exempt`), whose :func:`~agentdex.crawler.origins.origin_of` it has:
        the fetch policy, which split the URL already."""
        entry = await self._entry_for(origin)
        if entry.hold_off:
            return RobotsVerdict(False, origin, entry.note)
        if entry.rules is None:
            return RobotsVerdict(True, origin, entry.note)
        if not await _allows(entry.rules, url):
            return RobotsVerdict(False, origin, entry.note)
        delay = entry.rules.crawl_delay()
        if delay > CRAWL_DELAY_MAX:
            return RobotsVerdict(
                False,
                origin,
                f"robots.txt of {origin} asks for {delay:g} s between requests; "
                f"agentdex waits at most {CRAWL_DELAY_MAX:g} s, so it fetches nothing more",
            )
        await _pace(entry, delay)
        return RobotsVerdict(True, origin, entry.note)

    def will_fetch(self, origin: str) -> bool:
        """Whether ``origin``'s robots.txt, once needed, is to be fetched: not had yet, and no
        stored one offered (which may stand in for it)."""
        key = origin.lower()
        return key not in self._entries and key not in self._offers

    async def unpaced(self, url: str, origin: str) -> bool:
        """Whether robots.txt lets ``url`` (governed by it, as for :meth:`check_governed`) go
        without waiting: it allows the URL and asks no Crawl-delay (a pipelined request, sent
        with others at once, could not wait one out)."""
        entry = await self._entry_for(origin)
        if entry.hold_off or entry.rules is None:
            return not entry.hold_off
        return entry.rules.crawl_delay() <= 0 and await _allows(entry.rules, url)

    async def _entry_for(self, origin: str) -> RobotsEntry:
        entry = self._entries.get(origin)
        if entry is not None:  # the usual case: no lock to take
            return entry
        # One lock per origin: concurrent fetches to one origin wait for a single robots fetch.
        if origin not in self._locks:
            self._locks[origin] = asyncio.Lock()
        lock = self._locks[origin]
        async with lock:
            if origin not in self._entries:
                self._entries[origin] = await self._load(origin)
            return self._entries[origin]

    async def _load(self, origin: str) -> RobotsEntry:
        """The stored robots.txt offered for ``origin``, else a fetched one, parsed."""
        offered = self._offers.pop(origin, None)
        stored = offered() if offered is not None else None
        record = stored if stored is not None else await self._fetch(f"{origin}/robots.txt")
        # Parsing 500 KiB takes a while: off the event loop (a few KiB: inline, see offload).
        entry = await offload.run(len(record.body or b""), _entry_from, origin, record, self.agent_token)
        entry.reused = stored is not None
        return entry


async def _allows(rules: RobotsRules, url: str) -> bool:
    if rules.heavy:
        return await asyncio.to_thread(rules.allows, url)
    return rules.allows(url)


async def _pace(entry: RobotsEntry, delay: float) -> None:
    """Wait until ``delay`` seconds have passed since the previous request this entry let through."""
    if delay <= 0:
        return
    now = asyncio.get_running_loop().time()
    start = max(now, entry.next_at)
    entry.next_at = start + delay  # claimed before sleeping, so concurrent requests queue up
    if start > now:
        await asyncio.sleep(start - now)


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
    return 0 <= age < reuse_lifetime(record.headers, fetched.timestamp())


def reuse_lifetime(headers: dict[str, str], fetched: float) -> float:
    """How many seconds a robots.txt answer with these headers may be reused: its freshness
    lifetime (RFC 9111) capped at 24 hours, 24 hours when it gives none, 0 when it forbids."""
    if {name for name, _ in freshness.directives(headers.get("cache-control"))} & freshness.NEVER_FRESH:
        return 0.0
    span = freshness.lifetime(headers, fetched)
    return REUSE_MAX_SECONDS if span is None else min(REUSE_MAX_SECONDS, span)


def definite(record: FetchRecord) -> bool:
    """A robots.txt answer worth keeping: its rules (2xx) or a definite "none" (4xx)."""
    if record.ok and record.body is not None:
        return True
    # 429 is "not now", not "none": asked again next time.
    return (
        record.status is not None
        and 400 <= record.status < 500
        and record.status != 429
        and record.error_code in (None, "http_status")
    )


def _entry_from(origin: str, record: FetchRecord, agent: str = PRODUCT_TOKEN) -> RobotsEntry:
    if record.ok and record.body is not None:
        rules = RobotsRules.parse(record.body, agent)
        note = (
            (
                f"robots.txt of {origin} is longer than {ROBOTS_MAX_BYTES // 1024} KiB; agentdex obeyed "
                "the rules in its first 500 KiB (RFC 9309 2.5)."
            )
            if rules.truncated
            else None
        )
        return RobotsEntry(origin, rules, record, note)
    if record.status is not None and 400 <= record.status < 500 and record.status != 429:
        return RobotsEntry(origin, None, record)  # missing: everything allowed, nothing to note
    why = record.error or "no usable answer"
    if _unreachable(record):
        note = (
            f"robots.txt of {origin} could not be had ({why}); as RFC 9309 asks, agentdex holds off: "
            "only the well-known manifests were fetched."
        )
        return RobotsEntry(origin, None, record, note, hold_off=True)
    # Redirects that lead nowhere (RFC 9309 2.3.1.2: "unavailable").
    return RobotsEntry(
        origin, None, record, f"robots.txt of {origin} could not be read ({why}); everything was treated as allowed."
    )


def _unreachable(record: FetchRecord) -> bool:
    """A server or network error (5xx, 429, no connection): RFC 9309's "unreachable"."""
    if record.status is not None and (record.status >= 500 or record.status == 429):
        return True
    return record.error_code in HOLD_OFF_ERRORS

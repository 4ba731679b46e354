"""HTTP freshness (RFC 9111) as a private cache sees it: pure functions, no IO.

A crawl asks again only about what may have changed. A stored answer that is still
*fresh* — its freshness lifetime exceeds its current age (RFC 9111, 4.2) — is used
without a request, and the snapshot says so; everything else is asked (conditionally).

When an answer arrives, :func:`fresh_until` turns its headers into the moment it stops
being fresh (epoch seconds), or ``None`` when it is never fresh:

- the lifetime (4.2.1) is ``Cache-Control: max-age`` (``s-maxage`` is for shared caches
  and is ignored, as a private cache must), else ``Expires`` minus ``Date``; an answer with
  neither has none. agentdex uses no heuristic freshness (4.2.2): an answer without an
  explicit lifetime is asked again on every crawl, so nothing is skipped on a guess;
- ``no-store`` and ``no-cache`` (in any form) mean never fresh: asked every time;
- ``max-age`` given twice with different values, an invalid ``max-age`` or an ``Expires``
  that is not a valid date (``0``, ``-1``) make the answer stale at once (4.2.1, 5.3);
- the current age (4.2.3) counts the ``Age`` header (its first member; an invalid one is
  ignored, 5.1), the time the answer took to arrive and how far ``Date`` lies in the past;
- ``must-revalidate`` (and ``proxy-revalidate``) forbid using a *stale* answer: agentdex
  never does, so a fresh one is used while fresh and asked again the moment it is stale.

Which answers may be used fresh: a 200 (or 203) with its stored body, and a definite
absence (404, 410), which RFC 9110 (15.1) lets a cache keep when its lifetime is explicit.

On top of what the origin says, agentdex's own bounds (:class:`Policy`): a *ceiling*
(``--max-fresh``, 24 hours by default) — an answer received longer ago than that is asked
again, whatever its lifetime — and a *floor* (``--min-fresh``, 60 s by default, RFC 9111's
``min-fresh``) — an answer that stays fresh for less than that is asked now rather than
trusted to the edge of its lifetime. ``revalidate`` (``crawl --revalidate``) asks
everything.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from agentdex.db.common import age_text, epoch, iso  # noqa: F401 (the catalogue's time format, re-exported)
from agentdex.headers import http_date, http_digits

DAY = 24 * 3600.0
FRESH_STATUSES = frozenset({200, 203, 404, 410})
NEVER_FRESH = frozenset({"no-store", "no-cache"})
# One directive: a name, optionally "=" and a token or a quoted string.
_DIRECTIVE_RE = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^,\s]*))?\s*(?:,|$)')


@dataclass(frozen=True, slots=True)
class Policy:
    """What agentdex trusts: ``ceiling`` seconds at most after an answer arrived,
    ``floor`` seconds of freshness left at least; ``revalidate`` trusts nothing."""

    ceiling: float = DAY
    floor: float = 60.0
    revalidate: bool = False

    def usable(self, until: float | None, received: float | None, now: float) -> bool:
        """Whether a stored answer fresh until ``until`` (received at ``received``) may be
        used at ``now`` instead of asking."""
        if self.revalidate or until is None or received is None:
            return False
        return now - received < self.ceiling and until - now > self.floor

    def trusted_until(self, until: float | None, received: float | None) -> float | None:
        """The moment a stored answer stops being usable (None: it never is)."""
        if until is None or received is None:
            return None
        end = min(until - self.floor, received + self.ceiling)
        return end if end > received else None


def directives(cache_control: str | None) -> list[tuple[str, str | None]]:
    """``Cache-Control`` as ``[(name lower case, value or None), ...]`` in order; quoted
    values unquoted. Text that is no directive ends the list (what came before stands)."""
    text = cache_control or ""
    out: list[tuple[str, str | None]] = []
    position = 0
    while position < len(text):
        match = _DIRECTIVE_RE.match(text, position)
        if match is None or match.end() == position:
            break
        name, value = match.group(1).lower(), match.group(2)
        if value is not None and value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out.append((name, value))
        position = match.end()
    return out


def lifetime(headers: Mapping[str, str], date: float) -> float | None:
    """The freshness lifetime in seconds (RFC 9111, 4.2.1); None when the answer has no
    explicit lifetime or must never be used fresh; 0 when it is stale at once."""
    said = _said(headers.get("cache-control"))
    if said is not _Said.TO_EXPIRES:
        return said
    if "expires" not in headers:
        return None
    expires = http_date(headers["expires"])
    if expires is None:
        return 0.0  # an invalid date (often "0") means already expired
    return max(0.0, expires - date)


class _Said(enum.Enum):
    """What ``_said`` gives when Cache-Control leaves the lifetime to Expires."""

    TO_EXPIRES = "expires"


_SAID_CACHED = 128  # the longest Cache-Control whose reading is kept (a server's usual few)


def _said(cache_control: str | None) -> float | None | _Said:
    """What ``Cache-Control`` alone says of the lifetime: None (never fresh), the seconds of
    its ``max-age`` (0 when invalid or given twice apart), or ``_Said.TO_EXPIRES``. A crawl
    reads the same few values tens of thousands of times: short ones are read once each."""
    if cache_control is not None and len(cache_control) <= _SAID_CACHED:
        return _said_cached(cache_control)
    return _read_said(cache_control)


def _read_said(cache_control: str | None) -> float | None | _Said:
    found = directives(cache_control)
    names = {name for name, _ in found}
    if names & NEVER_FRESH:
        return None
    ages = {http_digits(value) for name, value in found if name == "max-age"}
    if ages:
        if len(ages) > 1 or None in ages:  # differing or not ASCII digits (RFC 9111, 5.2.2.1)
            return 0.0
        return float(next(iter(ages)))  # type: ignore[arg-type]
    return _Said.TO_EXPIRES


_said_cached = functools.lru_cache(maxsize=256)(_read_said)


def corrected_initial_age(headers: Mapping[str, str], request_time: float, response_time: float) -> float:
    """How old the answer already was when it arrived (RFC 9111, 4.2.3): the larger of
    how far ``Date`` lies behind the arrival and ``Age`` plus the time the answer took."""
    date = http_date(headers.get("date"))
    apparent_age = max(0.0, response_time - date) if date is not None else 0.0
    response_delay = max(0.0, response_time - request_time)
    return max(apparent_age, age_value(headers.get("age")) + response_delay)


def age_value(text: str | None) -> float:
    """The ``Age`` header in seconds: its first member; 0 when absent or invalid (5.1)."""
    if not text:
        return 0.0
    seconds = http_digits(text.split(",")[0])
    return 0.0 if seconds is None else float(seconds)


def fresh_until(
    headers: Mapping[str, str], status: int | None, request_time: float, response_time: float
) -> float | None:
    """The moment (epoch seconds) an answer with these headers (lower-case names) stops
    being fresh; None when it never is (see the module docstring). ``request_time`` and
    ``response_time`` are when the request left and the answer arrived."""
    if status not in FRESH_STATUSES:
        return None
    if "cache-control" not in headers and "expires" not in headers:
        return None  # no explicit lifetime (most 404s): never fresh, and no Date to read for it
    date = http_date(headers.get("date"))
    span = lifetime(headers, response_time if date is None else date)
    if span is None:
        return None
    end = response_time + span - corrected_initial_age(headers, request_time, response_time)
    return end if end > response_time else None

"""Reading HTTP header values agentdex acts on. Neutral ground: the crawler's retry policy
and freshness, robots.txt and the feedback client all read HTTP numbers and dates, and none
imports the others.

Every number read from the network has a stated domain: RFC 9110 (5.6.1, 10.2.3) and RFC
9111 (1.2.2) spell ``delta-seconds`` and lengths as ASCII digits (``1*DIGIT``). Python's
``int()`` and ``float()`` also accept Unicode digits (``١٢``), superscripts (``²`` passes
``str.isdigit`` and then fails ``int``), underscores, signs and exponents; none of those is
HTTP. :func:`http_digits` is the one reader: ASCII digits or ``None``, and a value beyond
its cap is the cap (RFC 9111, 1.2.2: a delta-seconds too large to hold is 2^31).
:func:`decimal_seconds` is its twin for robots.txt's ``Crawl-delay``, which real files
write with a fraction (``0.5``).
"""

from __future__ import annotations

import email.utils
import functools
import re
import time
from collections.abc import Mapping
from datetime import UTC

# The methods agentdex ever sends to a crawled origin, and the only ones it repeats: safe
# (RFC 9110 section 9.2.1), so a retry or a resend over a fresh connection changes nothing.
# The sample web (agentdex.sampleweb) keeps its own: it is the server side, another program.
SAFE_METHODS = ("GET", "HEAD")

DELTA_SECONDS_MAX = 2**31  # RFC 9111, 1.2.2: the value a too-large delta-seconds stands for
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"([0-9]+)(?:\.([0-9]*))?", re.ASCII)
_FIELD_VALUE = re.compile(r"([\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?)?", re.ASCII)
# The media types of a web page: what a site's HTML shell (a "soft 404") is served as.
HTML_MEDIA_TYPES = ("text/html", "application/xhtml+xml")


def media_type(headers: Mapping[str, str]) -> str:
    """The media type a ``Content-Type`` field names: lower case, without its parameters
    (RFC 9110, 8.3.1); "" when there is none."""
    return headers.get("content-type", "").split(";")[0].strip().lower()


def http_digits(text: str | None, cap: int = DELTA_SECONDS_MAX) -> int | None:
    """``text`` (surrounding spaces ignored) as a non-negative integer when it is ASCII
    digits only, at most ``cap`` (larger values, however many digits, are ``cap``); ``None``
    for anything else: empty, signs, Unicode digits, decimals, exponents."""
    if text is None:
        return None
    text = text.strip(" \t")
    if not _DIGITS.fullmatch(text):
        return None
    # More digits than the cap has cannot be below it: never convert a million digits
    # (nor a million leading zeros: int() refuses more than 4,300 digits).
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(cap)):
        return cap
    return min(int(digits), cap)


def port_number(text: str | None) -> int | None:
    """A TCP port written in ASCII digits, 1 to 65535 (``--connect-to``, ``--dns-server``
    and their config and environment spellings); ``None`` for anything else (``²``, ``٥٣``,
    ``+53``, ``0``, ``65536``)."""
    value = http_digits(text, cap=65536)
    return value if value is not None and 0 < value < 65536 else None


def field_value(text: str) -> bool:
    """Whether ``text`` may be sent as an HTTP header value: RFC 9110 5.5's field-value in
    visible ASCII and inner spaces (agentdex sends no obs-text: httpx refuses non-ASCII)."""
    return _FIELD_VALUE.fullmatch(text) is not None


def decimal_seconds(text: str | None, cap: int = DELTA_SECONDS_MAX) -> float | None:
    """A number of seconds written in ASCII digits with an optional fraction (robots.txt's
    ``Crawl-delay: 0.5``, which RFC 9309 leaves unspecified), at most ``cap``; ``None`` for
    anything else: Unicode digits, signs, exponents, ``inf`` and ``nan`` (all of which
    ``float()`` takes)."""
    if text is None:
        return None
    found = _DECIMAL.fullmatch(text.strip(" \t"))
    if found is None:
        return None
    whole = http_digits(found.group(1), cap)
    fraction = found.group(2)[:9] if found.group(2) else ""  # nanoseconds are enough
    return min(float(f"{whole}.{fraction or 0}"), float(cap))


def retry_after_seconds(value: str) -> float | None:
    """Retry-After as seconds from now (delta-seconds or an HTTP date), None if unreadable."""
    seconds = http_digits(value)
    if seconds is not None:
        return float(seconds)
    when = http_date(value)
    return None if when is None else max(0.0, when - time.time())


def http_date(text: str | None) -> float | None:
    """An HTTP date (IMF-fixdate, or the obsolete forms) as epoch seconds; None if invalid.

    Cached: a crawl reads two or three dates an answer (Date, Last-Modified, Expires), most
    of them the same few seconds, and ``email.utils`` took 4% of a crawl's CPU parsing them.
    Only date-sized texts are kept (an IMF-fixdate has 29 characters): a server's long
    header stays no longer than its answer.
    """
    return _cached_http_date(text) if text is not None and len(text) <= 64 else _parse_http_date(text)


@functools.lru_cache(maxsize=512)
def _cached_http_date(text: str) -> float | None:
    return _parse_http_date(text)


def _parse_http_date(text: str | None) -> float | None:
    if not text or not text.isascii():  # an HTTP date is ASCII (RFC 9110, 5.6.7)
        return None
    try:
        when = email.utils.parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        return when.timestamp()
    except (OverflowError, ValueError):
        return None

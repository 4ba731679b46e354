"""Reading HTTP header values agentdex acts on. Neutral ground: the crawler's retry policy
and freshness and the feedback client all read HTTP dates, and none imports the others."""

from __future__ import annotations

import email.utils
import time
from datetime import UTC

# The methods agentdex ever sends to a crawled origin, and the only ones it repeats: safe
# (RFC 9110 section 9.2.1), so a retry or a resend over a fresh connection changes nothing.
# The sample web (agentdex.sampleweb) keeps its own: it is the server side, another program.
SAFE_METHODS = ("GET", "HEAD")


def retry_after_seconds(value: str) -> float | None:
    """Retry-After as seconds from now (delta-seconds or an HTTP date), None if unreadable."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = http_date(value)
    return None if when is None else max(0.0, when - time.time())


def http_date(text: str | None) -> float | None:
    """An HTTP date (IMF-fixdate, or the obsolete forms) as epoch seconds; None if invalid."""
    if not text:
        return None
    try:
        when = email.utils.parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()

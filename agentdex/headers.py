"""Reading HTTP header values agentdex acts on. Neutral ground: the crawler's retry policy
and the feedback client both read Retry-After, and neither imports the other."""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime


def retry_after_seconds(value: str) -> float | None:
    """Retry-After as seconds from now (delta-seconds or an HTTP date), None if unreadable."""
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())

"""Small helpers shared by the database modules: timestamps, JSON columns and text safe
for SQLite."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# json.dumps builds an encoder for each call with options; a save writes about fifty JSON
# columns an origin, so the two encoders are built once (encode() keeps no state between calls).
_READABLE = json.JSONEncoder(ensure_ascii=False, default=str)
_ESCAPED = json.JSONEncoder(default=str)


def utc_now() -> str:
    """The current time as the catalogue writes it: ISO 8601, UTC, milliseconds, ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(value: Any) -> str | None:
    """``value`` as JSON text for a JSON column (``None`` stays SQL NULL).

    Non-ASCII stays readable in Datasette; a lone UTF-16 surrogate (which crawled JSON can
    carry and UTF-8 cannot encode) falls back to ASCII escapes instead of failing the save.
    """
    if value is None:
        return None
    text = _READABLE.encode(value)
    if text.isascii():  # most of it: nothing to check
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _ESCAPED.encode(value)
    return text


def loads(text: str | None, default: Any = None) -> Any:
    """A JSON column's value decoded (``default`` for NULL or text that is not JSON)."""
    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def safe_text(value: Any) -> str | None:
    """A string SQLite can store: lone surrogates become U+FFFD. ``None`` stays ``None``."""
    if value is None:
        return None
    text = str(value)
    # An ASCII string has no surrogate (a save passes about three hundred strings an origin here).
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def iso(moment: float | None) -> str | None:
    """Epoch seconds as the catalogue's ISO 8601 UTC text (milliseconds, ``Z``)."""
    if moment is None:
        return None
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def epoch(text: str | None) -> float | None:
    """The catalogue's ISO 8601 text (``2026-05-01T12:00:00Z``, with or without
    milliseconds) as epoch seconds; None for missing or unreadable text."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def age_text(seconds: float | None) -> str:
    """A duration for people: ``45 s``, ``12 min``, ``3 h``, ``2 d`` (empty for None)."""
    if seconds is None:
        return ""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"

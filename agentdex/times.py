"""Times as users type them, turned into the catalogue's form (ISO 8601, UTC, ``Z``)."""

from __future__ import annotations

from datetime import UTC, datetime

from agentdex.errors import InputError


def parse_time(text: str, option: str = "time") -> str:
    """``2026-12-01``, ``2026-12-01T10:00:00Z`` or ``…+02:00`` as the catalogue writes
    times (``2026-12-01T08:00:00.000Z``); a time without a zone is UTC.

    :raises InputError: it is not an ISO 8601 date or time (``option`` names what was typed)
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InputError(
            f"{option} {text!r} is not an ISO 8601 date or time ({exc}); write e.g. 2026-12-01 or 2026-12-01T10:00:00Z"
        ) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

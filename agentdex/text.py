"""Making untrusted text safe to show: crawled strings are data, never markup, never
terminal escape sequences."""

from __future__ import annotations

import re

# C0 and C1 controls except tab and newline, plus DEL; ESC sequences are removed whole first.
_ESCAPE_SEQ = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[PX^_][^\x1b]*(\x1b\\)?|.)", re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ELLIPSIS = "…"


def plain(value: object, limit: int | None = None, *, single_line: bool = False) -> str:
    """``value`` as text with escape sequences and control characters removed, cut to
    ``limit`` characters with a visible marker."""
    text = "" if value is None else str(value)
    text = _CONTROL.sub("", _ESCAPE_SEQ.sub("", text))
    if single_line:
        text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + ELLIPSIS
    return text

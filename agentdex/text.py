"""Making untrusted text safe to show: crawled strings are data, never markup, never
terminal escape sequences, never invisible.

Public API::

    plain(value, limit=None, *, single_line=False) -> str
        escape sequences (CSI, OSC, DCS, SOS/PM/APC) removed whole, other C0/C1 controls
        and DEL removed, invisible characters shown as ``⟨U+202E⟩`` placeholders.
    invisible_spans(text) -> list[tuple[int, int, str]]
        ``(start, end, kind)`` of every invisible character (``bidi``, ``zero-width``,
        ``tag``), for findings that say exactly where they are.

Markup is not this module's concern: the CLI prints with ``typer.echo`` (no markup) and the
TUI shows :class:`rich.text.Text` objects, which neither Rich nor Textual parse.
"""

from __future__ import annotations

import re

# C0 and C1 controls except tab and newline, plus DEL; ESC sequences are removed whole first.
_ESCAPE_SEQ = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[PX^_][^\x1b]*(\x1b\\)?|.)", re.S)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Characters that change how the text around them reads while showing nothing themselves:
# bidi embeddings/overrides/isolates and marks (a "Trojan Source" reorders what is shown),
# zero-width spaces and joiners, the BOM, soft hyphen, and the tag block (U+E0000..U+E007F)
# that can smuggle a whole ASCII sentence past a reader.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff"
_TAGS = "\U000e0000-\U000e007f"
_INVISIBLE = re.compile(f"[{_BIDI}{_ZERO_WIDTH}{_TAGS}]")
_KIND = (("bidi", re.compile(f"[{_BIDI}]")), ("zero-width", re.compile(f"[{_ZERO_WIDTH}]")))
ELLIPSIS = "…"


def plain(value: object, limit: int | None = None, *, single_line: bool = False) -> str:
    """``value`` as text with escape sequences and control characters removed, invisible
    characters shown as visible placeholders (``⟨U+200B⟩``), cut to ``limit`` characters
    with a visible marker."""
    text = "" if value is None else str(value)
    text = _CONTROL.sub("", _ESCAPE_SEQ.sub("", text))
    if _INVISIBLE.search(text):
        text = _INVISIBLE.sub(_placeholder, text)
    if single_line:
        text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + ELLIPSIS
    return text


def _placeholder(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def invisible_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` holds invisible characters: ``(start, end, kind)``, runs merged."""
    spans: list[tuple[int, int, str]] = []
    for match in _INVISIBLE.finditer(text):
        kind = next((name for name, pattern in _KIND if pattern.match(match.group())), "tag")
        if spans and spans[-1][1] == match.start() and spans[-1][2] == kind:
            spans[-1] = (spans[-1][0], match.end(), kind)
        else:
            spans.append((match.start(), match.end(), kind))
    return spans


_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_TAGS}]")


def terminal_safe_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters a terminal
    may act on or hide written as ``\\uXXXX`` escapes: the same JSON value, nothing live.

    ``json.dumps`` already escapes C0 controls (ESC included); this adds DEL, the C1
    controls (U+009B is a one-character CSI) and the invisible characters.
    """
    return _JSON_UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON spells characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

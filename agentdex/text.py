"""Making untrusted text safe to show: crawled strings are data, never markup, never
terminal escape sequences, never invisible.

Public API::

    plain(value, limit=None, *, single_line=False) -> str
        escape sequences (CSI, OSC, DCS, SOS/PM/APC) removed whole, other C0/C1 controls
        and DEL removed, invisible characters shown as ``⟨U+202E⟩`` placeholders.
    invisible_spans(text) -> list[tuple[int, int, str]]
        ``(start, end, kind)`` of every invisible character (``bidi``, ``zero-width``,
        ``tag``, ``variation-selector``, ``format``, ``surrogate``), for findings that say
        exactly where they are.
    terminal_safe_json(text) -> str
        JSON text with every character a terminal may act on or hide (and lone surrogates,
        which no terminal encoding can write) as ``\\uXXXX`` escapes: the same JSON value.
    spreadsheet_cell(text) -> str
        a CSV or TSV cell a spreadsheet shows as the text it is: one that starts as a
        formula would (OWASP's CSV injection rule: ``=``, ``+``, ``-``, ``@``, tab, carriage
        return) gets a leading apostrophe, unless it is a plain number (``-1.5``).

Invisible means Unicode's Default_Ignorable_Code_Point or general category Cf (format),
read from the ``regex`` module's Unicode tables rather than a list kept by hand: bidi
controls, zero-width characters, tags, variation selectors (U+FE00.., U+E0100..), the
Hangul fillers, invisible math operators and the rest. Two exceptions stay as they are, as
they show something: the prepended concatenation marks (U+0600 ARABIC NUMBER SIGN …),
which are drawn, and one emoji or text presentation selector (U+FE0E, U+FE0F) right after a
visible character (``❤️``), which only picks how that character is drawn. A lone surrogate
(possible in a decoded JSON string) is shown as a placeholder too.

Markup is not this module's concern: the CLI prints with ``typer.echo`` (no markup) and the
TUI shows :class:`rich.text.Text` objects, which neither Rich nor Textual parse.
"""

from __future__ import annotations

import re

import regex

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
_SELECTORS = "\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"
_IGNORABLE = r"[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}--\p{Prepended_Concatenation_Mark}]"
# One presentation selector right after a visible character only chooses how it is drawn.
_PRESENTATION = (
    r"(?<=[^\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}])[\ufe0e\ufe0f](?![\ufe00-\ufe0f\U000e0100-\U000e01ef])"
)
_INVISIBLE = regex.compile(rf"(?!{_PRESENTATION}){_IGNORABLE}", regex.V1)
_KIND = (
    ("bidi", re.compile(f"[{_BIDI}]")),
    ("zero-width", re.compile(f"[{_ZERO_WIDTH}]")),
    ("tag", re.compile(f"[{_TAGS}]")),
    ("variation-selector", re.compile(f"[{_SELECTORS}]")),
    ("surrogate", re.compile("[\ud800-\udfff]")),
)
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


def _placeholder(match: regex.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def invisible_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` holds invisible characters: ``(start, end, kind)``, runs merged."""
    spans: list[tuple[int, int, str]] = []
    for match in _INVISIBLE.finditer(text):
        kind = next((name for name, pattern in _KIND if pattern.match(match.group())), "format")
        if spans and spans[-1][1] == match.start() and spans[-1][2] == kind:
            spans[-1] = (spans[-1][0], match.end(), kind)
        else:
            spans.append((match.start(), match.end(), kind))
    return spans


_JSON_UNSAFE = regex.compile(rf"[\x7f-\x9f]|{_INVISIBLE.pattern}", regex.V1)


def terminal_safe_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters a terminal
    may act on or hide written as ``\\uXXXX`` escapes: the same JSON value, nothing live.

    ``json.dumps`` already escapes C0 controls (ESC included); this adds DEL, the C1
    controls (U+009B is a one-character CSI), the invisible characters and lone surrogates
    (a string decoded from ``"\\ud800"``: printing it raw fails in every encoding).
    """
    return _JSON_UNSAFE.sub(_json_escape, text)


def _json_escape(match: regex.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON spells characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# OWASP, "CSV Injection": a cell starting with one of these is read as a formula by Excel,
# LibreOffice Calc or Google Sheets (tab and carriage return: after the spreadsheet trims them).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_cell(text: str) -> str:
    """``text`` as a CSV or TSV cell no spreadsheet evaluates: a leading apostrophe before a
    would-be formula (the apostrophe is what spreadsheets themselves use to mark text), a
    plain number left as it is (it evaluates to itself)."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text

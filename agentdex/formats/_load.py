"""Decoding untrusted bytes into a JSON object, with a finding for every way it can fail.

Nothing here raises on bad input: a finding at path ``""`` says what is wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from agentdex.models import Finding, ParseResult

MAX_DEPTH = 64  # deeper documents are refused (the decoder's own recursion limit comes first)
MAX_NUMBER_CHARS = 1000  # a longer number is refused before int()/float() spends time on it
MAX_REPEATED_REPORTED = 20  # repeated keys named in findings, at most
_BINARY_CONTROL_BYTES = bytes(sorted(set(range(0, 9)) | {11, 12} | set(range(14, 32))))


def _doc_error(code: str, message: str) -> Finding:
    return Finding("error", "", code, message)


def decode_text(data: bytes, *, what: str = "document") -> tuple[str | None, Finding | None]:
    """UTF-8 text from bytes, refusing BOMs, binary data and invalid UTF-8."""
    if not data.strip():
        return None, _doc_error("empty", f"the {what} is empty")
    if data.startswith(b"\xef\xbb\xbf"):
        return None, _doc_error("bom", f"the {what} starts with a UTF-8 byte-order mark; remove it")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, _doc_error("encoding", f"the {what} is UTF-16; it must be UTF-8")
    head = data[:4096]
    controls = len(head) - len(head.translate(None, _BINARY_CONTROL_BYTES))
    if b"\x00" in head or controls > len(head) // 10:
        return None, _doc_error("binary", f"the {what} is binary data, not text")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, _doc_error(
            "encoding", f"the {what} is not valid UTF-8 (byte {exc.start}: {data[exc.start : exc.start + 1]!r})"
        )


def load_json(
    data: bytes, *, max_bytes: int | None = None, what: str = "document", require_object: bool = True
) -> tuple[Any, list[Finding]]:
    """Decode ``data`` as a JSON document; returns ``(value or None, findings)``.

    With a value, the findings are warnings about it (a key repeated in one object: the
    last value counts); without one, they say why there is none.
    """
    if max_bytes is not None and len(data) > max_bytes:
        return None, [_doc_error("too_large", f"the {what} is {len(data):,} bytes; the limit is {max_bytes:,}")]
    text, problem = decode_text(data, what=what)
    if problem:
        return None, [problem]
    assert text is not None  # decode_text gives the text or a problem
    repeated: list[str] = []
    value, problem = parse_json_text(text, what=what, repeated=repeated)
    if problem:
        return None, [problem]
    if require_object and not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else "a JSON " + type(value).__name__
        return None, [_doc_error("not_object", f"the {what} is {kind}; it must be a JSON object")]
    return value, [_repeated_key(what, key) for key in repeated]


def read_document(
    data: bytes, validate: Callable[..., ParseResult], *, name: str, what: str, max_bytes: int, origin: str | None
) -> ParseResult:
    """Every JSON format's ``parse()``: decode ``data`` as a JSON object of at most
    ``max_bytes`` and hand it to ``validate`` (the format's ``validate_document``), the
    decoder's warnings (a repeated key) first among its findings; bytes that decode to no
    object give a result of format ``name`` without a listing, its findings saying why."""
    doc, problems = load_json(data, max_bytes=max_bytes, what=what)
    if doc is None:
        return ParseResult(name, None, problems)
    result = validate(doc, origin=origin)
    result.findings[:0] = problems  # a repeated key: the last value counts, and the finding says so
    return result


def _repeated_key(what: str, key: str) -> Finding:
    shown = json.dumps(key[:80], ensure_ascii=False)
    return Finding(
        "warning",
        "",
        "duplicate_key",
        f"the {what} repeats the key {shown} in one object; agentdex reads the last value "
        "(other readers may take the first)",
    )


class _Refused(ValueError):
    """A JSON value agentdex refuses to read (a non-finite or over-long number)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _constant(name: str) -> Any:
    raise _Refused("non_finite", f"{name} is not a JSON value (RFC 8259 has no NaN or Infinity)")


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(
            "number_too_long", f"a number of {len(text):,} characters; agentdex reads at most {MAX_NUMBER_CHARS}"
        )
    value = float(text)
    if math.isinf(value):
        raise _Refused("non_finite", f"the number {text[:40]} is too large to be a finite number")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(
            "number_too_long", f"a number of {len(text):,} digits; agentdex reads at most {MAX_NUMBER_CHARS}"
        )
    return int(text)


def _pairs_hook(repeated: list[str]) -> Any:
    """An ``object_pairs_hook`` that notes keys repeated within one object (the last counts)."""

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        value = dict(pairs)
        if len(value) != len(pairs) and len(repeated) < MAX_REPEATED_REPORTED:
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in repeated:
                    repeated.append(key)
                seen.add(key)
        return value

    return hook


def loads(text: str | bytes, repeated: list[str] | None = None) -> Any:
    """``json.loads`` for untrusted text: NaN/Infinity, numbers over 1,000 characters and
    infinite floats raise ``ValueError``; nesting too deep for the decoder raises
    ``ValueError`` too (never ``RecursionError``). ``repeated`` collects keys repeated in one
    object."""
    try:
        return json.loads(
            text,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int,
            object_pairs_hook=_pairs_hook(repeated if repeated is not None else []),
        )
    except RecursionError as exc:
        raise _Refused("too_deep", "nests deeper than agentdex reads") from exc


def parse_json_text(
    text: str, *, what: str = "document", repeated: list[str] | None = None
) -> tuple[Any, Finding | None]:
    """``json.loads`` that reports position, depth and number problems as findings."""
    try:
        value = loads(text, repeated)
    except json.JSONDecodeError as exc:
        return None, _doc_error(
            "not_json", f"the {what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        )
    except _Refused as exc:
        return None, _doc_error(exc.code, f"the {what} is refused: {exc}")
    except ValueError as exc:  # the decoder's own limits (e.g. int digits): never a traceback
        return None, _doc_error("not_json", f"the {what} cannot be read as JSON ({str(exc)[:120]})")
    if _has_lone_surrogate(text, value):
        return None, _doc_error(
            "encoding",
            f"the {what} contains an unpaired UTF-16 surrogate escape (\\ud800-\\udfff); it is not valid Unicode",
        )
    if _depth(value) > MAX_DEPTH:
        return None, _doc_error("too_deep", f"the {what} nests deeper than {MAX_DEPTH} levels")
    return value, None


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _has_lone_surrogate(text: str, value: Any) -> bool:
    """JSON may spell a lone surrogate as an escape; such text cannot be printed or stored."""
    if "\\u" not in text:
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False

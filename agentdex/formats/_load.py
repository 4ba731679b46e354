"""Decoding untrusted bytes into a JSON object, with a finding for every way it can fail.

Nothing here raises on bad input: a finding at path ``""`` says what is wrong.
"""

from __future__ import annotations

import json
from typing import Any

from agentdex.models import Finding

MAX_DEPTH = 64  # deeper documents are refused before the json module can recurse
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
        return None, _doc_error("encoding", f"the {what} is not valid UTF-8 (byte {exc.start}: {data[exc.start:exc.start + 1]!r})")


def load_json(data: bytes, *, max_bytes: int | None = None, what: str = "document",
              require_object: bool = True) -> tuple[Any, list[Finding]]:
    """Decode ``data`` as a JSON document; returns ``(value or None, findings)``."""
    if max_bytes is not None and len(data) > max_bytes:
        return None, [_doc_error("too_large", f"the {what} is {len(data):,} bytes; the limit is {max_bytes:,}")]
    text, problem = decode_text(data, what=what)
    if problem:
        return None, [problem]
    value, problem = parse_json_text(text, what=what)
    if problem:
        return None, [problem]
    if require_object and not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else "a JSON " + type(value).__name__
        return None, [_doc_error("not_object", f"the {what} is {kind}; it must be a JSON object")]
    return value, []


def parse_json_text(text: str, *, what: str = "document") -> tuple[Any, Finding | None]:
    """``json.loads`` that reports position and depth problems as findings."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, _doc_error("not_json", f"the {what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    except RecursionError:
        return None, _doc_error("too_deep", f"the {what} nests deeper than agentdex reads")
    if _has_lone_surrogate(text, value):
        return None, _doc_error("encoding", f"the {what} contains an unpaired UTF-16 surrogate escape (\\ud800-\\udfff); it is not valid Unicode")
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

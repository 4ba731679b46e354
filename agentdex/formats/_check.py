"""Small, fast field checks shared by the format modules.

A :class:`Checker` collects findings while a format walks its document. Each helper returns
the value when it is usable (so the caller can normalise it) and ``None`` otherwise, having
recorded why. Paths follow the contract: ``a.b``, ``a[3].b``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from agentdex.models import Finding

_MISSING = object()
DATE_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+\Z")
_URL_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_URL_CONTROL_OR_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\s]")
_TYPE_NAMES = {
    str: "a string",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
    int: "an integer",
    float: "a number",
}


def join(path: str, key: str | int) -> str:
    """``join("mcp", "url") == "mcp.url"``; ``join("tags", 3) == "tags[3]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def type_name(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def is_absolute_url(value: str, schemes: Iterable[str] = ("https", "http")) -> bool:
    """True for an absolute URL with a host and one of ``schemes``, without control
    characters or white space (``\\s`` is what ``str.isspace`` calls so, checked in C)."""
    if _URL_CONTROL_OR_SPACE.search(value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in schemes and bool(parts.netloc)


class Checker:
    """Collects findings for one document."""

    def __init__(self, prefix: str = "") -> None:
        self.findings: list[Finding] = []
        self.prefix = prefix  # "tools/crawl.json:" for a file inside a package

    # -- recording -------------------------------------------------------------------------
    def error(self, path: str, code: str, message: str) -> None:
        """Record an error (it makes the document invalid)."""
        self.findings.append(Finding("error", self.prefix + path, code, message))

    def warn(self, path: str, code: str, message: str) -> None:
        """Record a warning (never makes the document invalid)."""
        self.findings.append(Finding("warning", self.prefix + path, code, message))

    @property
    def has_errors(self) -> bool:
        """Whether any error was recorded so far."""
        return any(f.severity == "error" for f in self.findings)

    # -- typed reads -----------------------------------------------------------------------
    def get(self, obj: dict, key: str, path: str, kind: type | tuple, required: bool = False) -> Any:
        """``obj[key]`` when present and of ``kind``; records ``required`` / ``type``."""
        value = obj.get(key, _MISSING)
        where = join(path, key)
        if value is _MISSING or value is None:
            if required:
                self.error(where, "required", f"{where} is required")
            return None
        if not _is_kind(value, kind):
            expected = kind if isinstance(kind, tuple) else (kind,)
            names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in expected)
            self.error(where, "type", f"{where} must be {names}, not {type_name(value)}")
            return None
        return value

    def string(
        self,
        obj: dict,
        key: str,
        path: str,
        required: bool = False,
        *,
        max_len: int | None = None,
        min_len: int | None = None,
        pattern: re.Pattern | None = None,
        pattern_text: str = "",
    ) -> str | None:
        """A string field with optional length limits and pattern."""
        value = self.get(obj, key, path, str, required)
        if value is None:
            return None
        return self.check_string(
            value, join(path, key), max_len=max_len, min_len=min_len, pattern=pattern, pattern_text=pattern_text
        )

    def check_string(
        self,
        value: str,
        where: str,
        *,
        max_len: int | None = None,
        min_len: int | None = None,
        pattern: re.Pattern | None = None,
        pattern_text: str = "",
    ) -> str | None:
        """Length and pattern checks on a string already known to be one."""
        ok = True
        if max_len is not None and len(value) > max_len:
            self.error(where, "max_length", f"{where} is {len(value)} characters; the limit is {max_len}")
            ok = False
        if min_len is not None and len(value) < min_len:
            self.error(where, "min_length", f"{where} is {len(value)} characters; the minimum is {min_len}")
            ok = False
        if pattern is not None and not pattern.fullmatch(value):
            self.error(where, "pattern", f"{where} {pattern_text or 'must match ' + pattern.pattern}")
            ok = False
        return value if ok else None

    def url(self, obj: dict, key: str, path: str, required: bool = False, *, https_only: bool = False) -> str | None:
        """An absolute http(s) URL (https only when ``https_only``)."""
        value = self.get(obj, key, path, str, required)
        if value is None:
            return None
        return self.check_url(value, join(path, key), https_only=https_only)

    def check_url(self, value: str, where: str, *, https_only: bool = False) -> str | None:
        """Whether a string is an absolute URL of an allowed scheme."""
        if not is_absolute_url(value):
            self.error(where, "url", f"{where} must be an absolute URL, not {value[:80]!r}")
            return None
        if https_only and not value.startswith("https://"):
            self.error(where, "https", f"{where} must be an https:// URL")
            return None
        return value

    def enum(self, obj: dict, key: str, path: str, values: Iterable[str], required: bool = False) -> str | None:
        """A string that must be one of ``values``."""
        value = obj.get(key, _MISSING)
        if value is _MISSING or value is None:
            return self.get(obj, key, path, str, required)
        return self.check_enum(value, join(path, key), values)

    def check_enum(self, value: Any, where: str, values: Iterable[str]) -> str | None:
        """Whether ``value`` is one of ``values``."""
        allowed = tuple(values)
        if value not in allowed or not isinstance(value, str):
            shown = repr(value) if isinstance(value, str) else type_name(value)
            self.error(where, "enum", f"{where} is {shown}; it must be one of: {', '.join(allowed)}")
            return None
        return value

    def boolean(self, obj: dict, key: str, path: str, required: bool = False) -> bool | None:
        """A true JSON boolean (``"true"`` and ``1`` are type errors)."""
        return self.get(obj, key, path, bool, required)

    def number(
        self,
        obj: dict,
        key: str,
        path: str,
        required: bool = False,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        integer: bool = False,
    ) -> float | None:
        """A JSON number (booleans refused) within optional bounds."""
        kind: type | tuple = int if integer else (int, float)
        value = self.get(obj, key, path, kind, required)
        if value is None:
            return None
        where = join(path, key)
        if minimum is not None and value < minimum:
            self.error(where, "minimum", f"{where} is {value}; the minimum is {minimum}")
            return None
        if maximum is not None and value > maximum:
            self.error(where, "maximum", f"{where} is {value}; the maximum is {maximum}")
            return None
        return value

    def obj(self, obj: dict, key: str, path: str, required: bool = False) -> dict | None:
        """A nested object."""
        return self.get(obj, key, path, dict, required)

    def array(
        self,
        obj: dict,
        key: str,
        path: str,
        required: bool = False,
        *,
        max_items: int | None = None,
        min_items: int | None = None,
    ) -> list | None:
        """An array with optional item-count limits."""
        value = self.get(obj, key, path, list, required)
        if value is None:
            return None
        where = join(path, key)
        if max_items is not None and len(value) > max_items:
            self.error(where, "max_items", f"{where} has {len(value)} items; the limit is {max_items}")
        if min_items is not None and len(value) < min_items:
            self.error(where, "min_items", f"{where} has {len(value)} items; at least {min_items} required")
        return value

    def enum_array(
        self, obj: dict, key: str, path: str, values: Iterable[str], required: bool = False, **limits: int
    ) -> list[str]:
        """An array whose items each come from ``values`` (duplicates warned)."""
        items = self.array(obj, key, path, required, **limits)
        if items is None:
            return []
        allowed, out, where = tuple(values), [], join(path, key)
        for i, item in enumerate(items):
            if self.check_enum(item, join(where, i), allowed) is not None:
                if item in out:
                    self.warn(join(where, i), "duplicate", f"{join(where, i)} repeats {item!r}")
                else:
                    out.append(item)
        return out

    def unknown_keys(self, obj: dict, path: str, known: Iterable[str], silent: Iterable[str] = ()) -> None:
        """Warn about every key not in ``known`` (keys in ``silent`` produce nothing)."""
        known_set, silent_set = set(known), set(silent)
        for key in obj:
            if key not in known_set and key not in silent_set:
                where = join(path, key)
                self.warn(
                    where,
                    "unknown_key",
                    f"unknown key {key!r} {'at ' + path if path else 'at the top level'} is ignored; check for a typo",
                )


def _is_kind(value: Any, kind: type | tuple) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False  # JSON true is not a number
    return isinstance(value, kinds)

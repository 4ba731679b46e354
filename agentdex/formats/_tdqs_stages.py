"""The two computations TDQS defines byte for byte: the canonical serialization (hashed into
``inputHash``) and the required-subtree walk (``invocationCost``). Pure.

Both follow TDQS 1.2 as its reference implementation computes them (``tdqs`` 0.1.0 on PyPI,
Apache-2.0: ``stringify_json`` with ``sort_keys``, ``traverse_required_subtree``), and
``tests/test_tool_quality_reference.py`` runs both on the same inputs. They differ from it
only where it cannot finish:

- the serialization uses :func:`json.dumps` for each string (the reference escapes strings a
  character at a time in Python); the bytes are the same (``JSON.stringify``'s escapes,
  lowercase hex, lone surrogates escaped);
- the walk remembers what it found below a node for the same depth and path (the reference
  walks a schema whose ``$defs`` reference each other twice over again for every path: 20
  such definitions take it 9.9 CPU s, each one more doubles it; benchmarks/bench_tools_lint.py
  --fan-out 20) and stops after ``MAX_VISITS`` nodes or ``MAX_NESTING``
  nested calls (the reference fails with ``RecursionError`` somewhere past that); a walk
  cut short says so (:attr:`Subtree.cut_short`) and counts what it reached.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

# Deeper than this, a definition is refused (the reference's own serializer recurses and
# fails with RecursionError somewhat below 1,000 levels).
MAX_JSON_DEPTH = 400
# The walk's budgets: nodes visited, and calls nested (a chain of $refs nests without JSON
# depth). Each nested call is two Python frames (three through an object level, of which there
# are at most 10), so 300 stays well inside the interpreter's default limit of 1,000.
MAX_VISITS = 100_000
MAX_NESTING = 300

# Beyond this many object levels the walk stops (the specification's cap).
_MAX_OBJECT_LEVELS = 10
_SAFE_INTEGER = 2**53
_ARRAY_INDEX_LIMIT = 2**32 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
_LOCAL_REFERENCE = re.compile(r"#/(\$defs|definitions)/([^/]+)")


class TooDeep(ValueError):
    """The definition nests deeper than :data:`MAX_JSON_DEPTH`."""


# --- the canonical serialization -------------------------------------------------------------


def canonical_json(value: object) -> str:
    """``value`` as ``safe-stable-stringify`` writes it: ``JSON.stringify`` with every object's
    keys sorted by UTF-16 code units, no whitespace. :raises TooDeep:"""
    parts: list[str] = []
    try:
        _write(value, parts, 0)
    except RecursionError:  # a caller already deep in its own stack: refused, never a traceback
        raise TooDeep("the definition nests too deeply to serialize") from None
    return "".join(parts)


def _write(node: object, parts: list[str], depth: int) -> None:
    if depth > MAX_JSON_DEPTH:
        raise TooDeep(f"the definition nests more than {MAX_JSON_DEPTH} levels deep")
    if isinstance(node, str):
        parts.append(_quote(node))
    elif node is None or isinstance(node, bool):
        parts.append("null" if node is None else "true" if node else "false")
    elif isinstance(node, int):
        parts.append(_number(float(node)) if abs(node) > _SAFE_INTEGER else str(node))
    elif isinstance(node, float):
        parts.append(_number(node))
    elif isinstance(node, Mapping):
        _write_object(node, parts, depth)
    elif isinstance(node, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(node):
            if index:
                parts.append(",")
            _write(item, parts, depth + 1)
        parts.append("]")
    else:
        raise TypeError(f"cannot serialize a {type(node).__name__} as JSON")


def _write_object(node: Mapping, parts: list[str], depth: int) -> None:
    keys = [str(key) for key in node]
    if not all(key.isascii() for key in keys):
        # JavaScript sorts by UTF-16 code unit: astral characters sort below U+E000..U+FFFF.
        keys.sort(key=lambda key: key.encode("utf-16-be", "surrogatepass"))
    else:
        keys.sort()
    parts.append("{")
    for index, key in enumerate(keys):
        if index:
            parts.append(",")
        parts.append(_quote(key))
        parts.append(":")
        _write(node[key], parts, depth + 1)
    parts.append("}")


def _quote(text: str) -> str:
    # json.dumps escapes what JSON.stringify escapes (", \\, control characters as \b \f \n
    # \r \t or lowercase \u00xx) and nothing else; a lone surrogate it would leave raw.
    quoted = json.dumps(text, ensure_ascii=False)
    if _SURROGATE.search(text) is None:
        return quoted
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", quoted)


def _number(value: float) -> str:
    """ECMAScript ``Number::toString``: shortest round-trip digits in JavaScript's layout."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    sign = "-" if value < 0 else ""
    _, digit_tuple, raw_exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = (raw_exponent if isinstance(raw_exponent, int) else 0) + len(digit_tuple) - len(digits)
    return sign + _layout(digits, len(digits) + exponent)


def _layout(text: str, n: int) -> str:
    k = len(text)
    if k <= n <= 21:
        return text + "0" * (n - k)
    if 0 < n <= 21:
        return text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + text
    mantissa = text if k == 1 else text[0] + "." + text[1:]
    return f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


# --- the required subtree ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Subtree:
    """What an agent must construct for a minimally valid call (TDQS 1.2, stage 1)."""

    required_field_count: int = 0
    schema_depth: int = 0
    union_choice_count: int = 0
    cut_short: bool = False

    @property
    def invocation_cost(self) -> int:
        """The specification's proxy for the work of filling the schema in."""
        return self.required_field_count + 2 * max(0, self.schema_depth - 1) + 2 * self.union_choice_count


@dataclass(frozen=True, slots=True)
class _Visit:
    fields: int
    max_depth: int
    unions: int


def required_subtree(schema: Mapping[str, Any] | None) -> Subtree:
    """The required-subtree signals of an input schema, by the specification's normative rules
    (``$ref`` into ``$defs``/``definitions``, a reference already on the path stops, object
    levels capped at 10, the widest ``oneOf``/``anyOf`` branch, ``not`` for depth only)."""
    if schema is None or not _has_properties(schema):
        return Subtree()
    walk = _Walk(schema)
    try:
        top = walk.visit(schema, 0, frozenset(), 0)
    except RecursionError:  # the budgets keep the walk far from the limit; this is the backstop
        return Subtree(cut_short=True)
    return Subtree(top.fields, top.max_depth, top.unions, walk.cut_short)


def _has_properties(schema: Mapping[str, Any]) -> bool:
    properties = schema.get("properties")
    return isinstance(properties, dict) and len(properties) > 0


def _is_null_schema(schema: object) -> bool:
    """The nullable idiom's other branch (``{"type": "null"}``): no choice of its own."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and len(kind) == 1 and kind[0] == "null")


class _Walk:
    """One walk over one schema, with its memo and budgets."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.memo: dict[tuple[int, int, frozenset[str]], _Visit] = {}
        self.visits = 0
        self.cut_short = False

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
        reference = schema.get("$ref")
        if not isinstance(reference, str):
            return schema
        match = _LOCAL_REFERENCE.fullmatch(reference)
        if match is None:
            return None
        definitions = self.root.get(match.group(1))
        found = definitions.get(unquote(match.group(2))) if isinstance(definitions, dict) else None
        return found if isinstance(found, dict) else None

    def visit(self, schema: object, depth: int, visited: frozenset[str], nesting: int) -> _Visit:
        none = _Visit(0, depth, 0)
        if not isinstance(schema, dict):
            return none
        key = (id(schema), depth, visited)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.visits += 1
        if self.visits > MAX_VISITS or nesting > MAX_NESTING:
            self.cut_short = True
            return none
        found = self._visit(schema, depth, visited, nesting)
        self.memo[key] = found
        return found

    def _visit(self, schema: dict, depth: int, visited: frozenset[str], nesting: int) -> _Visit:
        reference = schema.get("$ref")
        reference = reference if isinstance(reference, str) else None
        if reference is not None and reference in visited:
            return _Visit(0, depth, 0)
        resolved = self.resolve(schema)
        if resolved is None:
            return _Visit(0, depth, 0)
        path = visited if reference is None else visited | {reference}
        totals = [0, depth, 0]  # fields, deepest level, unions
        self._own_level(resolved, depth, path, nesting, totals)
        for part in self._refinements(resolved):
            self._add(totals, self.visit(part, depth, path, nesting + 1))
        negated = resolved.get("not")
        if isinstance(negated, dict):
            totals[1] = max(totals[1], self.visit(negated, depth, path, nesting + 1).max_depth)
        for keyword in ("oneOf", "anyOf"):
            branches = resolved.get(keyword)
            if isinstance(branches, list) and branches:
                # Visited here, not in _union: one Python frame fewer for each nested union.
                constructible = [branch for branch in branches if not _is_null_schema(branch)]
                visits = [self.visit(branch, depth, path, nesting + 1) for branch in constructible]
                self._union(visits, totals)
        return _Visit(*totals)

    def _own_level(self, resolved: Mapping, depth: int, path: frozenset[str], nesting: int, totals: list) -> None:
        if not _has_properties(resolved) or depth >= _MAX_OBJECT_LEVELS:
            return
        properties = resolved["properties"]
        required = resolved.get("required")
        names = [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
        totals[1] = max(totals[1], depth + 1)
        for name in names:
            totals[0] += 1  # a required name counts for itself, with or without a schema
            if name in properties:
                self._add(totals, self.visit(properties[name], depth + 1, path, nesting + 1))

    @staticmethod
    def _refinements(resolved: Mapping) -> list:
        """An array's object items and every ``allOf`` branch, at the node's own level."""
        items = resolved.get("items")
        parts = [items] if isinstance(items, dict) else []
        all_of = resolved.get("allOf")
        return parts + (list(all_of) if isinstance(all_of, list) else [])

    @staticmethod
    def _union(visits: list[_Visit], totals: list) -> None:
        """Only the widest branch's fields (and unions) count; every branch's depth does; the
        choices cost ``branches - 1`` (the nullable idiom's null branch is no choice)."""
        widest: _Visit | None = None
        for branch in visits:
            if widest is None or branch.fields > widest.fields:
                widest = branch
        if widest is not None:
            totals[0] += widest.fields
            totals[2] += widest.unions
        for branch in visits:
            totals[1] = max(totals[1], branch.max_depth)
        totals[2] += max(0, len(visits) - 1)

    @staticmethod
    def _add(totals: list, found: _Visit) -> None:
        totals[0] += found.fields
        totals[1] = max(totals[1], found.max_depth)
        totals[2] += found.unions

"""The one loader for untrusted YAML (SKILL.md frontmatter, OpenAPI documents): pure, no IO.

``load_yaml(text, what=..., limits=...) -> (value, problem)``: a JSON-ready value, or
``None`` and a one-sentence reason. Nothing here raises on bad input.

- Only a safe loader runs (no tag builds an object), libyaml's C one when PyYAML has it
  (tens of times faster than the pure-Python one, which a megabyte keeps busy for seconds).
- The text is bounded before parsing (``limits.chars``), and the value after it: alias
  expansion ("billion laughs") and nesting count against ``limits.nodes`` and
  ``limits.depth`` while the value is copied into plain JSON data, so a bomb costs its
  budget, not its expansion.
- Dates become ISO strings, mapping keys strings, non-finite floats strings.

Parsing a large document takes CPU time: the crawler calls this through
``agentdex.crawler.offload.run`` (in a thread above 4 KiB, or when the text holds a ``&``)
so the event loop keeps serving other origins meanwhile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class YamlLimits:
    """How much YAML agentdex reads: characters of text, values after alias expansion, depth."""

    chars: int
    nodes: int = 10_000
    depth: int = 64  # also bounds the recursion of a self-referencing alias (a: &a [*a])


def load_yaml(text: str, *, what: str, limits: YamlLimits, line_offset: int = 0) -> tuple[Any, str | None]:
    """``(value, None)`` for YAML within ``limits``, else ``(None, reason)``. ``what`` names
    the document in the reason ("the frontmatter"); ``line_offset`` is added to line numbers
    (a frontmatter starts below its opening ``---``)."""
    if len(text) > limits.chars:
        return None, f"{what} is {len(text):,} characters; agentdex reads at most {limits.chars:,}"
    value, problem = _parse(text, what, line_offset)
    if problem:
        return None, problem
    budget = [limits.nodes]
    plain = _jsonable(value, budget, limits.depth)
    if budget[0] < 0:
        return None, f"{what} expands to more values than agentdex reads (aliases or nesting)"
    return plain, None


def _parse(text: str, what: str, line_offset: int) -> tuple[Any, str | None]:
    # Imported here: the format registry is imported on every start of agentdex, and only
    # a few documents are YAML.
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), None  # noqa: S506 -- a safe loader
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 + line_offset if exc.problem_mark else "?"
        return None, f"{what} is not valid YAML: {exc.problem or exc.context or 'syntax error'} (line {line})"
    except Exception as exc:  # noqa: BLE001 -- untrusted input must never raise out of a parser
        return None, f"{what} is not valid YAML: {str(exc)[:120] or type(exc).__name__}"


def _jsonable(value: Any, budget: list[int], max_depth: int, depth: int = 0) -> Any:
    """A JSON-ready copy of a YAML value, counting nodes against ``budget`` (which goes
    negative when the value is too large or too deep)."""
    budget[0] -= 1
    if depth > max_depth:
        budget[0] = -1
    if budget[0] < 0:
        return None
    if isinstance(value, dict):
        return {_key(k): _jsonable(v, budget, max_depth, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [_jsonable(v, budget, max_depth, depth + 1) for v in items]
    return _scalar(value)


def _key(key: Any) -> str:
    """Mapping keys become strings (YAML allows ``1:``, ``true:`` or ``null:`` as keys)."""
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    return key if isinstance(key, str) else str(_scalar(key))


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return str(value)

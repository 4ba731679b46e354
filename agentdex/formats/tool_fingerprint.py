"""Tool fingerprints, tool-set diffs and read-only claims that the tool contradicts. Pure.

A tool's surface is what a model reads and trusts: its name, description, input schema and
annotations. :func:`fingerprint` hashes exactly that (canonical JSON: keys sorted, no
insignificant whitespace, UTF-8; then sha256), so two crawls of an unchanged tool give the
same fingerprint whatever order the server wrote its keys in.

:func:`diff` compares two crawls' tool sets of one source and returns change events
(:class:`~agentdex.models.Event`, ``subject`` = the tool name):

- ``tool_changed``: same name, different description, schema or annotations. This is the
  "rug pull": a tool approved as harmless is silently redefined. ``old``/``new`` carry the
  parts that changed, in full, and both fingerprints.
- ``write_tool_added``: a tool that can write (not read-only, see below) appears.

:func:`read_only_contradiction` flags a tool annotated ``readOnlyHint: true`` whose name or
input schema says it writes (``delete_file``, ``{"method": {"enum": ["POST"]}}``,
``destructiveHint: true``): a finding with the reason and the exact field.

What "writes" means here: a name with a mutating verb among its words (``create``,
``delete``, ``send`` … in snake, kebab or camel case) unless a reading verb leads it
(``get_post``, ``list_orders``); an input property led by a strong mutating verb
(``overwrite``, ``delete_after``; not ``order_by``); an input property ``method`` whose allowed values include
a mutating HTTP method; or ``destructiveHint: true``. A heuristic, meant for a human reviewer.

The instruction-like text and invisible-Unicode flags of tool texts are a separate concern
(``formats/tool_safety.py``, issue 10); this module does not repeat them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentdex.models import Event, Finding, Tool
from agentdex.text import plain

WRITE_VERBS = frozenset(
    {
        "add",
        "append",
        "approve",
        "archive",
        "assign",
        "book",
        "buy",
        "cancel",
        "charge",
        "checkout",
        "clear",
        "close",
        "commit",
        "create",
        "delete",
        "deploy",
        "destroy",
        "disable",
        "drop",
        "edit",
        "enable",
        "erase",
        "execute",
        "exec",
        "insert",
        "install",
        "invite",
        "kill",
        "merge",
        "modify",
        "move",
        "order",
        "overwrite",
        "patch",
        "pay",
        "post",
        "publish",
        "purchase",
        "purge",
        "push",
        "put",
        "refund",
        "register",
        "remove",
        "rename",
        "replace",
        "reset",
        "restart",
        "revoke",
        "run",
        "save",
        "schedule",
        "send",
        "set",
        "share",
        "shutdown",
        "start",
        "stop",
        "submit",
        "subscribe",
        "transfer",
        "truncate",
        "uninstall",
        "unsubscribe",
        "update",
        "upload",
        "upsert",
        "wipe",
        "write",
    }
)
# A name led by one of these reads, whatever follows (``get_post``, ``list_orders``).
READ_VERBS = frozenset(
    {
        "get",
        "list",
        "read",
        "search",
        "find",
        "fetch",
        "query",
        "describe",
        "show",
        "view",
        "lookup",
        "look",
        "check",
        "count",
        "browse",
        "preview",
        "inspect",
        "explain",
        "validate",
    }
)
# An input property led by one of these asks for a write (``overwrite``, ``delete_after``);
# a narrower set than WRITE_VERBS, since properties are mostly nouns (``order_by``, ``post_id``).
PROPERTY_VERBS = frozenset(
    {
        "overwrite",
        "delete",
        "remove",
        "destroy",
        "drop",
        "truncate",
        "wipe",
        "erase",
        "purge",
        "write",
        "upload",
        "send",
        "publish",
        "transfer",
        "pay",
        "execute",
    }
)
MUTATING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PARTS = ("description", "inputSchema", "annotations")
_TOKEN_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A tool's fingerprint, and one hash per part so a diff can say what changed."""

    name: str
    sha256: str
    parts: tuple[tuple[str, str], ...]  # (part, sha256) for description, inputSchema, annotations

    def changed_parts(self, other: Fingerprint) -> list[str]:
        """The parts whose hash differs between two fingerprints of one tool."""
        mine, theirs = dict(self.parts), dict(other.parts)
        return [part for part in PARTS if mine.get(part) != theirs.get(part)]


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON bytes: keys sorted, no whitespace, UTF-8."""
    # surrogatepass: a lone surrogate (a crawled "\\udfff") is hashed as itself, not a crash
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def surface(tool: Tool) -> dict[str, Any]:
    """What a model reads of a tool, in MCP's spelling: name, description, inputSchema,
    annotations (empty ones as ``{}``, a missing schema as ``None``)."""
    return {
        "name": tool.name,
        "description": tool.description or "",
        "inputSchema": tool.input_schema,
        "annotations": tool.annotations or {},
    }


def fingerprint(tool: Tool) -> Fingerprint:
    """The stable fingerprint of one tool."""
    data = surface(tool)
    parts = tuple((part, _sha256(canonical_json(data[part]))) for part in PARTS)
    return Fingerprint(tool.name, _sha256(canonical_json(data)), parts)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- writing tools --------------------------------------------------------------------------------
def write_reason(tool: Tool) -> str | None:
    """Why a tool looks like it writes (its name, an input property, its annotations), or
    ``None`` when nothing says so."""
    verb = _write_verb(tool.name)
    if verb:
        return f"its name contains the verb {verb!r}"
    found = _schema_writes(tool.input_schema)
    if found:
        return found
    if (tool.annotations or {}).get("destructiveHint") is True:
        return "it is annotated destructiveHint: true"
    return None


def _tokens(name: str) -> list[str]:
    return [t.lower() for t in _TOKEN_RE.findall(name or "")]


def _write_verb(name: str) -> str | None:
    tokens = _tokens(name)
    if not tokens or tokens[0] in READ_VERBS:
        return None
    return next((t for t in tokens if t in WRITE_VERBS), None)


def _property_verb(key: str) -> str | None:
    tokens = _tokens(key)
    return tokens[0] if tokens and tokens[0] in PROPERTY_VERBS else None


def _schema_writes(schema: Any) -> str | None:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return None
    for key, prop in properties.items():
        if str(key).lower() == "method" and isinstance(prop, dict):
            methods = {str(m).upper() for m in prop.get("enum") or [prop.get("const")] if m} & MUTATING_METHODS
            if methods:
                return f"its input property 'method' allows {', '.join(sorted(methods))}"
        elif _property_verb(str(key)):
            return f"its input property {str(key)!r} names the verb {_property_verb(str(key))!r}"
    return None


def is_write_tool(tool: Tool) -> bool:
    """A tool that may change something: not derived read-only, or read-only only by a claim
    its name or schema contradicts."""
    return not tool.read_only or write_reason(tool) is not None


def read_only_contradiction(tool: Tool) -> Finding | None:
    """A warning when a tool is annotated ``readOnlyHint: true`` but says it writes."""
    if (tool.annotations or {}).get("readOnlyHint") is not True:
        return None
    reason = write_reason(tool)
    if reason is None:
        return None
    name = plain(tool.name, 80, single_line=True)
    return Finding(
        "warning",
        f"tools[{name}].annotations.readOnlyHint",
        "tool_read_only_writes",
        f"tool {name!r} is annotated readOnlyHint: true, but {reason}; treat it as a tool that writes",
    )


# -- diffs between crawls -------------------------------------------------------------------------
def diff(old: Iterable[Tool] | None, new: Iterable[Tool]) -> list[Event]:
    """The change events between two crawls' tool sets of one source (none at the first
    crawl, ``old is None``): ``tool_changed`` then ``write_tool_added``, each by tool name."""
    if old is None:
        return []
    before = {t.name: t for t in old}
    after = {t.name: t for t in new}
    changed = (_changed(before[name], after[name]) for name in sorted(before.keys() & after.keys()))
    events = [e for e in changed if e is not None]
    for name in sorted(after.keys() - before.keys()):
        if is_write_tool(after[name]):
            reason = write_reason(after[name]) or "it is not annotated readOnlyHint: true"
            events.append(
                Event(
                    "write_tool_added",
                    None,
                    {"tool": name, "reason": reason, "fingerprint": fingerprint(after[name]).sha256},
                    name,
                )
            )
    return events


def _changed(old: Tool, new: Tool) -> Event | None:
    was, now = fingerprint(old), fingerprint(new)
    if was.sha256 == now.sha256:
        return None
    parts = was.changed_parts(now)
    old_surface, new_surface = surface(old), surface(new)
    return Event(
        "tool_changed",
        {"fingerprint": was.sha256, **{p: old_surface[p] for p in parts}},
        {"fingerprint": now.sha256, **{p: new_surface[p] for p in parts}},
        old.name,
    )

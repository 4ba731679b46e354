"""Change events in words: one renderer for every surface that shows an event.

The CLI (``agentdex events``, ``show``), the TUI (the History tab, the Events screen) and
Datasette (the ``agentdex_event_text`` SQL function of :mod:`agentdex.datasette_plugin`)
all describe an event with :func:`event_text`, so one change reads the same everywhere:
``MCP tools +add_to_list``, ``"Pantry" → "Pantry Pro"``, ``t/tides: $0.01 → $0.02 a call``.

Pure: an event dict in (``kind``, ``subject``, ``old``, ``new``, as stored), one line of
plain text out. Every crawled string goes through :func:`agentdex.text.plain`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentdex.text import plain

NONE = "∅"  # no value: an event's old side when something first appears, and so on


def event_text(e: Mapping[str, Any]) -> str:
    """A short human description of one change event (its subject included)."""
    kind, old, new, subject = e.get("kind"), e.get("old"), e.get("new"), plain(e.get("subject") or "", 60)
    if kind == "guide_changed":
        return "the guide's text changed"
    if kind == "tools_changed":
        return f"MCP tools {_tool_diff(old, new)}"
    if kind == "tool_changed":
        parts = sorted(k for k in (new or {}) if k != "fingerprint") if isinstance(new, dict) else []
        return (
            f"{subject}: its {', '.join(parts) or 'surface'} changed under the same name "
            f"(fingerprint {_short(old)} → {_short(new)})"
        )
    if kind == "write_tool_added":
        reason = plain((new or {}).get("reason"), 80) if isinstance(new, dict) else ""
        return f"{subject}: a new tool that writes ({reason})"
    if kind == "tool_quality_changed":
        return f"{subject}: TDQS lint {_lint_diff(new)}"
    if kind == "price_changed":
        return f"{subject}: ${_price(old)} → ${_price(new)} a call"
    if kind == "registry_changed":
        return "the MCP registry: " + _registry_diff(old, new)
    if kind == "endpoint_unhealthy":
        return f"{subject}: unhealthy, two probes in a row failed ({plain(new, 40)})"
    if kind == "endpoint_recovered":
        return f"{subject}: healthy again ({plain(old, 40)} → {plain(new, 40)})"
    if kind == "mcp_era_changed":
        return f"MCP eras: {_era(old)} → {_era(new)}"
    if kind == "deprecation_declared":
        what = new if isinstance(new, dict) else {}
        return f"{subject}: {plain(what.get('what'), 60)} sunsets {plain(what.get('sunset'), 20)}"
    return f"{value_text(old)} → {value_text(new)}" + (f" ({subject})" if subject else "")


def stored_event_text(kind: Any, subject: Any, old: Any, new: Any) -> str:
    """:func:`event_text` of an event as the ``events`` table stores it (``old`` and ``new``
    as JSON text); for SQL, where a row arrives as columns."""
    return event_text({"kind": kind, "subject": subject, "old": _decoded(old), "new": _decoded(new)})


def _decoded(side: Any) -> Any:
    if not isinstance(side, str):
        return side
    try:
        return json.loads(side)
    except ValueError:  # not JSON: a bare stored string is its own value
        return side


# The eras of MCP an endpoint answers in, in words (the values of ``mcp_era_changed``).
ERA_WORDS = {"legacy": "initialize only", "dual": "both (2026-07-28 and initialize)", "modern": "2026-07-28 only"}


def _era(value: Any) -> str:
    return ERA_WORDS.get(value, NONE) if isinstance(value, str) else NONE


def value_text(value: Any, limit: int = 80) -> str:
    """A stored value on one line: ``∅`` for none, a string quoted, anything else as JSON."""
    if value is None:
        return NONE
    if isinstance(value, str):
        return '"' + plain(value, limit, single_line=True) + '"'
    return plain(json.dumps(value, ensure_ascii=False, default=str), limit, single_line=True)


def _registry_diff(old: Any, new: Any) -> str:
    old, new = (old if isinstance(old, dict) else {}), (new if isinstance(new, dict) else {})
    parts = []
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            parts.append(f"{plain(name, 60)} {'added' if name not in old else 'removed'}")
        else:
            moved = [
                f"{key} {value_text(old[name].get(key), 60)} → {value_text(new[name].get(key), 60)}"
                for key in ("version", "remotes")
                if old[name].get(key) != new[name].get(key)
            ]
            parts.append(f"{plain(name, 60)}: {', '.join(moved)}")
    return "; ".join(parts) or "changed"


def _short(side: Any) -> str:
    return plain((side or {}).get("fingerprint"), 64)[:12] if isinstance(side, dict) else NONE


def _tool_diff(old: Any, new: Any) -> str:
    before = set(old.get("names") or []) if isinstance(old, dict) else set()
    after = set(new.get("names") or []) if isinstance(new, dict) else set()
    parts = [f"+{n}" for n in sorted(after - before)] + [f"-{n}" for n in sorted(before - after)]
    return plain(" ".join(parts) or "changed their descriptions or annotations", 120)


def _lint_diff(new: Any) -> str:
    """The findings a changed lint result fixed and the ones it regressed, each in its text."""
    new = new if isinstance(new, dict) else {}
    parts = [
        f"{key} {plain(f.get('severity'), 8)} {plain(f.get('rule'), 40)}: "
        f"{plain(f.get('message'), 160, single_line=True)}"
        for key in ("fixed", "regressed")
        for f in new.get(key) or []
        if isinstance(f, dict)
    ]
    return plain("; ".join(parts), 600) or "findings changed"


def _price(payments: Any) -> str:
    for p in payments if isinstance(payments, list) else []:
        if isinstance(p, dict) and p.get("priceUsd") is not None:
            return plain(f"{p['priceUsd']:g}" if isinstance(p["priceUsd"], (int, float)) else p["priceUsd"], 20)
    return "?"

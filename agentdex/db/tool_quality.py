"""Storing and reading the TDQS lint of each origin's MCP tools (tables ``tool_lints`` and
``tool_set_lints``, view ``tool_quality``), and the events a changed lint result causes.

A tool whose findings change between two lints under the same specification version is a
``tool_quality_changed`` event (``subject``: the tool): ``old``/``new`` carry the findings
before and after, ``new`` also ``fixed`` (findings gone) and ``regressed`` (findings new),
each with its message. The first lint of a tool set, a tool added or removed (those are
``tools_changed``) and a new specification version cause none.

    save_tool_lint(db, origin, source, quality, at) -> list[Event]   store; the events
    stored_lint(db, origin, source="mcp") -> dict | None           what `tools lint ORIGIN` prints
    lint_summary(db, origin, source="mcp") -> dict | None          the counts `show` heads it with
    tool_findings(db, origin, source="mcp") -> {tool: [finding]}   what `show` prints
    quality_share(db) -> {total, with_findings, share}             what stats and census print
    stored_definitions(db, origin) -> [definition]                 what `tools score ORIGIN` sends
"""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database

from agentdex.db.common import dumps, safe_text
from agentdex.formats.tool_quality import SPEC_VERSION, ServerLint
from agentdex.models import Event

EVENT = "tool_quality_changed"


def save_tool_lint(db: Database, origin: str, source: str, quality: ServerLint | str | None, at: str) -> list[Event]:
    """Replace the lint of ``origin``'s ``source`` tools with ``quality`` (a lint, why TDQS
    refused the list, or None: no tools); return the events a changed result causes."""
    before = _stored_findings(db, origin, source)
    db.execute("DELETE FROM tool_lints WHERE origin = ? AND source = ?", [origin, source])
    db.execute("DELETE FROM tool_set_lints WHERE origin = ? AND source = ?", [origin, source])
    if quality is None:
        return []
    if isinstance(quality, str):
        db.execute(
            "INSERT INTO tool_set_lints (origin, source, refused, spec_version, linted_at) VALUES (?, ?, ?, ?, ?)",
            [origin, source, safe_text(quality), SPEC_VERSION, at],
        )
        return []
    db.conn.executemany(
        "INSERT INTO tool_lints (origin, source, name, input_hash, errors, warnings, infos, findings, flags, "
        "signals, note, spec_version, linted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_tool_row(origin, source, tool, quality.spec_version, at) for tool in quality.tools],
    )
    db.execute(
        "INSERT INTO tool_set_lints (origin, source, tools, with_findings, errors, warnings, infos, "
        "shadow_candidates, spec_version, linted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            origin,
            source,
            len(quality.tools),
            quality.with_findings,
            quality.counts.get("error", 0),
            quality.counts.get("warning", 0),
            quality.counts.get("info", 0),
            dumps([c.to_dict() for c in quality.shadow_candidates]),
            quality.spec_version,
            at,
        ],
    )
    return lint_events(before, quality)


def _tool_row(origin: str, source: str, tool: Any, spec_version: str, at: str) -> tuple:
    severities = [f.severity for f in tool.findings]
    return (
        origin,
        source,
        safe_text(tool.name),
        tool.input_hash,
        severities.count("error"),
        severities.count("warning"),
        severities.count("info"),
        dumps([f.to_dict() for f in tool.findings]),
        dumps(list(tool.flags)),
        dumps(tool.signals),
        tool.note,
        spec_version,
        at,
    )


def _stored_findings(db: Database, origin: str, source: str) -> dict[str, tuple[str, list[dict]]]:
    rows = db.execute(
        "SELECT name, spec_version, findings FROM tool_lints WHERE origin = ? AND source = ?", [origin, source]
    )
    return {name: (version, json.loads(findings)) for name, version, findings in rows}


def lint_events(before: dict[str, tuple[str, list[dict]]], quality: ServerLint) -> list[Event]:
    """``tool_quality_changed`` for each tool linted before (under the same specification)
    whose findings are not the same now."""
    events = []
    for tool in quality.tools:
        stored = before.get(safe_text(tool.name) or "")
        if stored is None or stored[0] != quality.spec_version:
            continue
        old, new = stored[1], [f.to_dict() for f in tool.findings]
        if _keys(old) == _keys(new):
            continue
        fixed = [f for f in old if _key(f) not in _keys(new)]
        regressed = [f for f in new if _key(f) not in _keys(old)]
        events.append(
            Event(
                EVENT,
                old={"findings": old},
                new={"findings": new, "fixed": fixed, "regressed": regressed},
                subject=tool.name,
            )
        )
    return events


def _key(finding: dict) -> tuple[str, str, str]:
    return (finding.get("rule", ""), finding.get("severity", ""), finding.get("message", ""))


def _keys(findings: list[dict]) -> set[tuple[str, str, str]]:
    return {_key(f) for f in findings}


def stored_lint(db: Database, origin: str, source: str = "mcp") -> dict[str, Any] | None:
    """``{spec_version, linted_at, refused, shadow_candidates, tools: [{tool, input_hash,
    findings}]}`` of ``origin``'s stored lint, or None when its tools were never linted."""
    head = db.execute(
        "SELECT spec_version, linted_at, refused, shadow_candidates FROM tool_set_lints "
        "WHERE origin = ? AND source = ?",
        [origin, source],
    ).fetchone()
    if head is None:
        return None
    rows = db.execute(
        "SELECT name, input_hash, findings FROM tool_lints WHERE origin = ? AND source = ? ORDER BY rowid",
        [origin, source],
    )
    return {
        "spec_version": head[0],
        "linted_at": head[1],
        "refused": head[2],
        "shadow_candidates": json.loads(head[3]),
        "tools": [{"tool": n, "input_hash": h, "findings": json.loads(f)} for n, h, f in rows],
    }


def lint_summary(db: Database, origin: str, source: str = "mcp") -> dict[str, Any] | None:
    """``{spec_version, tools, with_findings, errors, warnings, infos, refused, linted_at}`` of
    ``origin``'s last lint, or None when its tools were never linted."""
    row = db.execute(
        "SELECT spec_version, tools, with_findings, errors, warnings, infos, refused, linted_at "
        "FROM tool_set_lints WHERE origin = ? AND source = ?",
        [origin, source],
    ).fetchone()
    keys = ("spec_version", "tools", "with_findings", "errors", "warnings", "infos", "refused", "linted_at")
    return None if row is None else dict(zip(keys, row, strict=True))


def tool_findings(db: Database, origin: str, source: str = "mcp") -> dict[str, list[dict]]:
    """Each linted tool's findings (``{rule, severity, message}``), by tool name."""
    rows = db.execute("SELECT name, findings FROM tool_lints WHERE origin = ? AND source = ?", [origin, source])
    return {name: json.loads(findings) for name, findings in rows}


def stored_definitions(db: Database, origin: str) -> list[dict[str, Any]]:
    """The tools ``origin``'s MCP server listed, as definitions rebuilt from what the catalogue
    keeps (name, description, input schema, annotations; a title or output schema is not kept)."""
    rows = db.execute(
        "SELECT name, description, input_schema, annotations FROM tools WHERE origin = ? AND source = 'mcp' "
        "ORDER BY id",
        [origin],
    )
    return [
        {
            "name": name,
            "description": description or None,
            "inputSchema": json.loads(schema) if schema else None,
            "annotations": json.loads(annotations) or None,
        }
        for name, description, schema, annotations in rows
    ]


def quality_share(db: Database) -> dict[str, Any]:
    """``{total, with_findings, share}`` over every linted tool of the catalogue (``share`` in
    percent to one decimal, as the census's: 0.0 when no tool was linted) — the figure Glama
    publishes for its registry (56.4% of 228,369 tools in June 2026)."""
    total, with_findings = db.execute(
        "SELECT count(*), coalesce(sum(errors + warnings + infos > 0), 0) FROM tool_lints"
    ).fetchone()
    share = round(100.0 * with_findings / total, 1) if total else 0.0
    return {"total": total, "with_findings": with_findings, "share": share}

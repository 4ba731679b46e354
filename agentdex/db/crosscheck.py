"""Storing what the cross-check of one origin found: the consistency verdict beside the
listing, each disagreement as a finding of format ``consistency``, and the tool events
between two crawls of the live MCP tools (``tool_changed``, ``write_tool_added``:
:func:`agentdex.formats.tool_fingerprint.diff`)."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from agentdex.db.common import dumps, safe_text
from agentdex.formats._discovery import tool_from_mcp
from agentdex.formats.consistency import Consistency
from agentdex.formats.tool_fingerprint import diff as tool_diff
from agentdex.models import Event, Tool, sorted_findings

FORMAT = "consistency"  # findings.format of a disagreement


def save_consistency(db: Database, origin: str, consistency: Consistency | None, crawl_id: int | None) -> None:
    """The verdict and its disagreements (``None``: nothing parsed, so nothing compared)."""
    db.execute("DELETE FROM findings WHERE origin = ? AND format = ?", [origin, FORMAT])
    if consistency is None:
        db.execute(
            "UPDATE listings SET consistency = NULL, consistency_sources = NULL, disagreements = 0 WHERE origin = ?",
            [origin],
        )
        return
    db.execute(
        "UPDATE listings SET consistency = ?, consistency_sources = ?, disagreements = ? WHERE origin = ?",
        [consistency.verdict, dumps(list(consistency.sources)), len(consistency.disagreements), origin],
    )
    db.conn.executemany(
        "INSERT INTO findings (origin, format, severity, path, code, message, crawl_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (origin, FORMAT, f.severity, safe_text(f.path), f.code, safe_text(f.message), crawl_id)
            for f in sorted_findings(consistency.findings)
        ],
    )


def tool_events(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Event]:
    """``tool_changed`` and ``write_tool_added`` between two stored states of a listed origin
    whose MCP tools were listed both times (the first listing of the tools is no change)."""
    if not old or not new or old.get("status") != "listed" or new.get("status") != "listed":
        return []
    if old.get("tools") is None or new.get("tools") is None:
        return []
    return tool_diff(_tools(old["tools"]), _tools(new["tools"]))


def _tools(state: dict[str, dict]) -> list[Tool]:
    # Rebuilt as the probe built them, so ``read_only`` is derived from the annotations again.
    return [
        tool_from_mcp(
            {
                "name": name,
                "description": t.get("description"),
                "annotations": t.get("annotations"),
                "inputSchema": t.get("input_schema"),
            },
            source="mcp",
        )
        for name, t in state.items()
    ]

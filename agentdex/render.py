"""Plain-text reporters for the CLI: results are data, these turn them into lines.

Every crawled string goes through :func:`agentdex.text.plain`, so nothing a website wrote
can reach the terminal as an escape sequence.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from agentdex.text import plain

STATUS_MARK = {"pass": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}


def listing_rows(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per listing: origin, format, status, name, one-liner."""
    lines = []
    for r in rows:
        lines.append(f"{plain(r.get('origin'), 40):<40} {plain(r.get('format') or '-', 10):<10} "
                     f"{plain(r.get('status'), 12):<12} {plain(r.get('name') or '', 40)}")
    return lines


def event_line(e: dict[str, Any]) -> str:
    """``at  origin  kind  old → new``."""
    subject = f" [{plain(e.get('subject'), 60)}]" if e.get("subject") else ""
    return (f"{plain(e.get('at'), 25)}  {plain(e.get('origin', ''), 40)}  {plain(e.get('kind'), 22)}{subject}  "
            f"{_short(e.get('old'))} → {_short(e.get('new'))}")


def _short(value: Any) -> str:
    if value is None:
        return "∅"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return plain(text, 80, single_line=True)


def show_lines(data: dict[str, Any]) -> list[str]:
    """The human form of ``agentdex show``."""
    out = [f"{plain(data.get('name') or '(no name)', 80)}  —  {plain(data['origin'])}",
           f"format {data.get('format') or '-'}, status {data.get('status')}"]
    if data.get("status_detail"):
        out.append(f"  {plain(data['status_detail'], 200)}")
    listing = data.get("listing") or {}
    for label, key in (("one-liner", "one_liner"), ("homepage", "homepage"), ("guide", "guide_url"),
                       ("MCP", "mcp_url"), ("HTTP API", "http_base"), ("pricing", "pricing"),
                       ("publisher", "publisher_name"), ("instructions", "instructions")):
        if listing.get(key):
            out.append(f"  {label:<13}{plain(listing[key], 300, single_line=True)}")
    out += _section("Findings", [f"{f['severity']:<7} {plain(f['path'] or '(document)', 80)}: "
                                 f"{plain(f['message'], 300)} [{f['code']}]" for f in data.get("findings", [])])
    out += _section("Checks", [f"{STATUS_MARK.get(c['status'], c['status'])} {c['name']:<26} {plain(c.get('detail'), 200)}"
                               for c in data.get("checks", [])])
    out += _section("Tools", [f"{'read-only' if t.get('read_only') else 'writes   '} {plain(t['name'], 60)}  "
                              f"{plain(t.get('description'), 100, single_line=True)}" for t in data.get("tools", [])])
    out += _section("History", [event_line(e) for e in data.get("events", [])])
    out.append("")
    out.append(f"Install plans: agentdex plan {data['origin']} --host HOST  ({', '.join(sorted(data.get('plans', {})))})")
    return out


def _section(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    return ["", f"{title}:"] + [f"  {line}" for line in lines]


def plan_lines(plan: dict[str, Any]) -> list[str]:
    """The human form of one install plan: exact steps to copy."""
    out = [f"{plan['host_name']} ({plan['host']}): {plan['kind']} via {plan['auth']}"
           f"{'' if plan['supported'] else '  — no documented way'}",
           f"  host status: {plan['host_status']}" + (f" ({plain(plan['host_notes'])})" if plan.get("host_notes") else ""),
           f"  documentation confidence: {plan['confidence']}"]
    for i, step in enumerate(plan["steps"] + plan.get("skill_steps", []), 1):
        where = f" → {step['path']}" if step.get("path") else ""
        out.append(f"  {i}. {plain(step['title'])}{where}")
        out.extend(f"       {plain(line)}" for line in step["content"].splitlines())
    out.extend(f"  note: {plain(n, 400)}" for n in plan.get("notes", []))
    return out


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The closing summary of a crawl."""
    parts = ", ".join(f"{n} {k}" for k, n in sorted(summary["by_status"].items()))
    head = "interrupted" if summary.get("interrupted") else "done"
    return [f"crawl {summary['crawl_id']} {head}: {summary['origins']} origin(s) in {summary['seconds']:.1f}s — {parts or 'nothing'}",
            f"{summary['requests']} request(s), {summary['errors']} error(s), {summary['events']} change event(s)"]

"""What each tab of the listing screen shows, built from a listing view
(:func:`agentdex.tui.reader.listing_view`) as Text and rows of Text: every crawled value
plain, long values cut with a visible marker."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from agentdex.eventtext import event_text
from agentdex.render import plan_lines, sparkline, tool_access
from agentdex.text import plain
from agentdex.tui.display import (
    CHECK_STYLE,
    LINE_LIMIT,
    SEVERITY_STYLE,
    block,
    cell,
    compact_json,
    flatten,
    joined,
    kv_table,
    status_text,
    when,
)

FINDING_COLUMNS = (
    ("severity", "Severity", 8),
    ("path", "Path", 30),
    ("code", "Code", 16),
    ("message", "Message", None),
)
CHECK_COLUMNS = (
    ("status", "Status", 6),
    ("name", "Check", 24),
    ("detail", "Detail", 60),
    ("checked", "Checked", 16),
    ("last_pass", "Last pass", 16),
)
TOOL_COLUMNS = (
    ("source", "Source", 8),
    ("name", "Tool", 22),
    ("access", "Access", 10),
    ("annotations", "Annotations", 40),
    ("flags", "Safety flags", 24),
    ("quality", "TDQS lint", 40),
    ("description", "Description", None),
)
# The Cross-check tab: each disagreement between two sources, then each tool's fingerprint.
CROSSCHECK_COLUMNS = (
    ("kind", "Kind", 12),
    ("what", "Fact / tool", 22),
    ("code", "Code", 20),
    ("detail", "Detail", None),
)
HEALTH_COLUMNS = (
    ("role", "Role", 10),
    ("state", "State", 14),
    ("era", "Era", 8),
    ("history", "Last probes", 10),
    ("uptime", "Up", 10),
    ("last_ok", "Last ok", 16),
    ("url", "Endpoint", None),
)
EVENT_COLUMNS = (("at", "When", 16), ("kind", "Kind", 20), ("change", "Change", None))


def _line(value: Any, limit: int = LINE_LIMIT) -> Text:
    return block(value, limit)


def title(view: dict[str, Any]) -> Text:
    """``Name — origin · format · status``."""
    text = Text(end="")
    text.append(plain(view.get("name") or "(no name)", 80, single_line=True), style="bold")
    text.append("  —  ")
    text.append(plain(view["origin"], 100, single_line=True))
    text.append(f"  ·  {plain(view.get('format') or 'no format', 20)}  ·  ")
    text.append_text(status_text(view.get("status")))
    return text


def _links(view: dict[str, Any]) -> list[tuple[str, Text]]:
    rows = []
    for label, key in (
        ("Homepage", "homepage"),
        ("Guide", "guide_url"),
        ("llms.txt", "llms_txt_url"),
        ("Skill", "skill_url"),
        ("Privacy", "privacy_url"),
        ("Terms", "terms_url"),
    ):
        if view.get(key):
            rows.append((label, _line(view[key])))
    return rows


def _interfaces(view: dict[str, Any]) -> list[tuple[str, Text]]:
    rows = []
    if view.get("mcp_url"):
        auth = joined(view.get("mcp_auth")) or "not stated"
        rows.append(
            ("MCP", _line(f"{view['mcp_url']}  ({view.get('mcp_transport') or 'transport not stated'}, auth: {auth})"))
        )
    for label, key in (("HTTP API", "http_base"), ("OpenAPI", "http_openapi"), ("Capabilities", "http_capabilities")):
        if view.get(key):
            rows.append((label, _line(view[key])))
    feedback = view.get("feedback")
    if isinstance(feedback, dict):
        rows.append(
            (
                "Feedback",
                _line(
                    f"{feedback.get('url')}  ({feedback.get('method')}, "
                    f"authentication: {feedback.get('authentication')})"
                ),
            )
        )
    return rows


def _about(view: dict[str, Any]) -> list[tuple[str, Text]]:
    rows: list[tuple[str, Text]] = []
    for label, key in (
        ("Auth methods", "auth_methods"),
        ("Categories", "categories"),
        ("Tags", "tags"),
        ("Events", "event_channels"),
    ):
        if view.get(key):
            rows.append((label, _line(joined(view[key], LINE_LIMIT))))
    for label, key in (("Audience", "audience"), ("Pricing", "pricing")):
        if view.get(key):
            rows.append((label, _line(view[key])))
    if view.get("say"):
        rows.append(("Say", _line("\n".join(plain(s, 200, single_line=True) for s in view["say"]))))
    if view.get("hosts"):
        hosts = [
            f"{h.get('host')}: {h.get('status')}" + (f" ({h.get('notes')})" if h.get("notes") else "")
            for h in view["hosts"]
            if isinstance(h, dict)
        ]
        rows.append(("Hosts", _line("\n".join(plain(h, 200, single_line=True) for h in hosts))))
    if view.get("instructions"):
        rows.append(("Instructions", block(view["instructions"])))
    return rows


def _publisher(view: dict[str, Any]) -> list[tuple[str, Text]]:
    parts = [view.get(k) for k in ("publisher_name", "publisher_url", "publisher_contact") if view.get(k)]
    return [("Publisher", _line("\n".join(plain(p, 300, single_line=True) for p in parts)))] if parts else []


def _record(view: dict[str, Any]) -> list[tuple[str, Text]]:
    found = joined(view.get("formats_found"))
    rows = [
        (
            "Status",
            _line(f"{view.get('status')}" + (f" — {view['status_detail']}" if view.get("status_detail") else "")),
        ),
        ("Formats found", _line(found or "none")),
        ("Findings", _line(f"{view.get('error_count', 0)} error(s), {view.get('warning_count', 0)} warning(s)")),
        ("Checks", _line(f"{view.get('checks_passed', 0)} passed, {view.get('checks_failed', 0)} failed")),
    ]
    for label, key in (
        ("First seen", "first_seen_at"),
        ("First listed", "first_listed_at"),
        ("Last crawled", "last_crawled_at"),
        ("Last changed", "last_changed_at"),
    ):
        rows.append((label, _line(when(view.get(key)) or "—")))
    return rows + _schedule(view)


def _schedule(view: dict[str, Any]) -> list[tuple[str, Text]]:
    """When the origin is next due, and how old each fact is (fetched, revalidated or fresh)."""
    from agentdex.crawler.freshness import age_text

    rows = []
    if view.get("next_due_at"):
        rows.append(
            (
                "Next due",
                _line(
                    f"{when(view['next_due_at'])}  (every {age_text(view.get('recrawl_interval'))}, "
                    f"{view.get('unchanged_crawls') or 0} unchanged crawl(s) in a row)"
                ),
            )
        )
    facts = [
        f"{f['kind']}: {f['obtained']}, {age_text(f['age_seconds']) or '?'} old"
        + (f", fresh until {when(f['fresh_until'])}" if f["fresh"] else "")
        for f in view.get("facts") or []
    ]
    if facts:
        rows.append(("Facts", _line("\n".join(plain(f, 200, single_line=True) for f in facts))))
    return rows


def overview(view: dict[str, Any]) -> Group:
    """The Overview tab: the listing's fields, publisher and links, then every field of
    the stored manifest by path."""
    head = [("Name", _line(view.get("name") or "(no name)")), ("Origin", _line(view["origin"]))]
    head += [
        (label, block(view[key]))
        for label, key in (("One-liner", "one_liner"), ("Description", "description"))
        if view.get(key)
    ]
    parts: list[RenderableType] = [
        kv_table(head + _publisher(view) + _links(view) + _interfaces(view) + _about(view) + _record(view))
    ]
    manifest = view.get("manifest")
    if manifest is not None:
        parts.append(Text("\nEvery field of the manifest", style="bold underline"))
        parts.append(
            kv_table(
                (plain(path or "(document)", 80, single_line=True), _line(compact_json(value, LINE_LIMIT)))
                for path, value in flatten(manifest)
            )
        )
    return Group(*parts)


def finding_rows(view: dict[str, Any]) -> list[list[Text]]:
    """The Findings tab: errors first, each with its path and code."""
    findings = sorted(view.get("findings") or [], key=lambda f: (f["severity"] != "error", f["path"]))
    return [
        [
            cell(f["severity"], 10, SEVERITY_STYLE.get(f["severity"], "")),
            cell(f["path"] or "(document)", 200),
            cell(f["code"], 40),
            cell(f["message"], 600),
        ]
        for f in findings
    ]


def _sorted_checks(view: dict[str, Any]) -> list[dict[str, Any]]:
    order = {"fail": 0, "warn": 1, "pass": 2, "skip": 3}
    return sorted(view.get("checks") or [], key=lambda c: (order.get(c["status"], 4), c["name"]))


def check_rows(view: dict[str, Any]) -> list[list[Text]]:
    """The Checks tab: failures first."""
    checks = _sorted_checks(view)
    return [
        [
            cell(c["status"], 6, CHECK_STYLE.get(c["status"], "")),
            cell(c["name"], 60),
            cell(c.get("detail"), 600),
            cell(when(c.get("checked_at"))),
            cell(when(c.get("last_pass_at")) or "never", 20),
        ]
        for c in checks
    ]


def check_details(view: dict[str, Any]) -> list[Text]:
    """Each check in full (its detail uncut, and the facts it recorded), in the order of
    :func:`check_rows`."""
    details = []
    for c in _sorted_checks(view):
        text = Text(end="")
        text.append(f"{plain(c['name'], 60)}  ", style="bold")
        text.append(plain(c["status"], 10), style=CHECK_STYLE.get(c["status"], ""))
        text.append(f"  checked {when(c.get('checked_at'))}, last pass {when(c.get('last_pass_at')) or 'never'}\n")
        text.append(plain(c.get("detail"), LINE_LIMIT))
        if c.get("data"):
            text.append("\n" + compact_json(c["data"], LINE_LIMIT), style="dim")
        details.append(text)
    return details


ACCESS_STYLE = {"read-only": "green", "destructive": "bold red", "writes": "yellow", "not stated": "dim"}


def tool_rows(view: dict[str, Any]) -> list[list[Text]]:
    """The Tools tab: declared and probed tools, read-only or not."""
    rows = []
    for t in view.get("tools") or []:
        word = tool_access(t)
        access = cell(word, 11, ACCESS_STYLE[word])
        rows.append(
            [
                cell(t.get("source"), 10),
                cell(t.get("name"), 80),
                access,
                cell(compact_json(t.get("annotations") or {}, 300), 300),
                cell(", ".join(f["code"] for f in t.get("flags") or []), 200, "yellow" if t.get("flags") else ""),
                quality_cell(t.get("quality")),
                cell(t.get("description"), 600),
            ]
        )
    return rows


def quality_cell(quality: dict[str, Any] | None) -> Text:
    """A tool's TDQS findings, one ``severity rule`` each (red for an error); ``-`` when the
    tool was not linted (only the tools an MCP server lists are)."""
    if quality is None:
        return cell("-", 1)
    findings = quality.get("findings") or []
    text = ", ".join(f"{f['severity']} {f['rule']}" for f in findings) or "no finding"
    errors = any(f["severity"] == "error" for f in findings)
    return cell(text, 300, "bold red" if errors else ("yellow" if findings else "green"))


def crosscheck_verdict(view: dict[str, Any]) -> Text:
    """The cross-format verdict and the sources compared, on one line."""
    verdict = view.get("consistency")
    if not verdict:
        return Text("Not compared yet: a crawl compares every document the origin publishes.", style="dim")
    sources = ", ".join(plain(s, 40) for s in view.get("consistency_sources") or [])
    style = {"consistent": "green", "inconsistent": "bold red"}.get(verdict, "")
    text = Text(plain(verdict, 20), style=style)
    text.append(f" — {view.get('disagreements') or 0} disagreement(s) across {sources or 'nothing'}")
    return text


def crosscheck_rows(view: dict[str, Any]) -> list[list[Text]]:
    """The Cross-check tab: disagreements (both sources, both values), then fingerprints."""
    rows = [
        [cell("disagrees", 12, "red"), cell(f["path"], 60), cell(f["code"], 40), cell(f["message"], 600)]
        for f in view.get("findings") or []
        if f.get("format") == "consistency"
    ]
    rows += [
        [
            cell("fingerprint", 12, "dim"),
            cell(f"{t.get('source')}: {t.get('name')}", 80),
            cell("sha256", 10),
            cell(t["fingerprint"], 64),
        ]
        for t in view.get("tools") or []
        if t.get("fingerprint")
    ]
    return rows


def health_rows(view: dict[str, Any]) -> list[list[Text]]:
    """The Health tab: each endpoint's latest state, the MCP endpoint's era (legacy | dual |
    modern | unknown), its last probes as a sparkline (oldest first, █ ok, ▁ not), its uptime
    over them, when it was last ok."""
    rows = []
    for e in view.get("endpoints") or []:
        up = e.get("up") or [e["state"] == "ok"]
        style = "green" if up[-1] else "red"
        rows.append(
            [
                cell(e["role"], 12),
                cell(e["state"], 16, style),
                cell(e.get("era") or "", 10),
                cell(sparkline(e["history"], e.get("up")), 10),
                cell(f"{e['recent_ok']}/{e['recent_probes']}", 10),
                cell(when(e.get("last_ok_at")) or "never", 20),
                cell(e["url"], 300),
            ]
        )
    return rows


# The strip's cell of each outcome of a probe.
STRIP_CELLS = {"up": ("█", "green"), "down": ("▁", "red"), "unmeasurable": ("·", "yellow")}


def health_strip(view: dict[str, Any]) -> tuple[Text, list[float]]:
    """The MCP endpoint's (else the first endpoint's) last 30 probes as a strip (█ up, ▁ down,
    · unmeasurable; oldest first) with its label, and their times in ms for a sparkline."""
    endpoints = view.get("endpoints") or []
    main = next((e for e in endpoints if e["role"] == "mcp"), endpoints[0] if endpoints else None)
    if main is None or not main.get("strip"):
        return Text("No probe samples yet.", style="dim"), []
    text = Text(f"last {len(main['strip'])} probes of {main['role']} {plain(main['url'], 120)}: ")
    for outcome in main["strip"]:
        char, style = STRIP_CELLS.get(outcome, ("?", "dim"))
        text.append(char, style=style)
    latency = main.get("latency_ms") or []
    if latency:
        text.append(f"  latency (ms, below) {min(latency):g}–{max(latency):g}", style="dim")
    return text, [float(ms) for ms in latency]


def event_rows(events: list[dict[str, Any]], *, with_origin: bool = False) -> list[list[Text]]:
    """Change events as rows (newest first as given): when, [origin,] kind, and what changed
    in words, as the CLI says it (:func:`agentdex.eventtext.event_text`)."""
    rows = []
    for e in events:
        row = [cell(when(e.get("at"))), cell(e.get("kind"), 40), cell(event_text(e), 300)]
        if with_origin:
            row.insert(1, cell(e.get("origin"), 80))
        rows.append(row)
    return rows


def plan_text(plan: Any) -> str:
    """One install plan as plain lines: what is shown, and exactly what is copied."""
    return "\n".join(plain(line) for line in plan_lines(plan.to_dict()))


def plan_view(text: str) -> Group:
    """A plan's lines for the screen: a line too long for the terminal wraps under its own
    start, not at the left edge (a wrapped command stays readable as one command)."""
    lines = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        lines.append(Padding(Text(body, end="", overflow="fold"), (0, 0, 0, len(line) - len(body)), expand=False))
    return Group(*lines)


def raw_text(text: str | None, limit: int) -> str:
    """A stored document as plain text; a binary one (an .adapp ZIP) is described, not shown."""
    if text is None:
        return "(not stored)"
    if "\x00" in text[:4096] or text[:4096].count("\ufffd") > 16:
        return f"(a binary document of {len(text):,} characters; not shown as text)"
    return plain(text, limit)

"""The plain-text reporter of the CLI and the demo: results are data, these turn them into
lines. Validation results, listings, checks, change events, plans and crawl summaries are
each rendered here once, in one vocabulary (``pass``/``fail``/``warn``/``skip`` for checks, as
stored and as the TUI and Datasette show them; ``∅`` for no value).

Every crawled string goes through :func:`agentdex.text.plain`, so nothing a website wrote
can reach the terminal as an escape sequence.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agentdex.db.listing_query import BRIEF_FIELDS as BRIEF_FIELDS  # the fields of `agentdex list`: declared there
from agentdex.db.listing_query import LIST_FIELDS as LIST_FIELDS
from agentdex.db.listing_query import TABLE_FIELDS as TABLE_FIELDS
from agentdex.eventtext import event_text
from agentdex.models import ParseResult, sorted_findings
from agentdex.text import plain, spreadsheet_cell, terminal_safe_json

STATUS_MARK = {
    "pass": "pass",
    "fail": "fail",
    "warn": "warn",
    "skip": "skip",
}  # the stored words, as the TUI and Datasette say them


def result_lines(path: str, result: ParseResult) -> list[str]:
    """The human form of a validation result: a verdict, one line per finding, the counts."""
    verdict = "valid" if result.valid else "INVALID"
    out = [f"{plain(path)}: {result.format} manifest, {verdict}"]
    for f in sorted_findings(result.findings):
        out.append(f"  {f.severity:<7} {plain(f.path or '(document)', 120)}: {plain(f.message, 400)} [{f.code}]")
    errors = sum(f.severity == "error" for f in result.findings)
    out.append(f"{errors} error(s), {len(result.findings) - errors} warning(s)")
    return out


def pick_fields(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> list[dict[str, Any]]:
    """Each row cut down to ``fields``, in that order."""
    return [{f: r.get(f) for f in fields} for r in rows]


def cell(value: Any, limit: int | None = 200) -> str:
    """A value in one table, TSV or CSV cell: one line, lists joined with commas, nothing
    a terminal would act on."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"  # as JSON spells them, not Python
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        value = json.dumps(value, ensure_ascii=False)
    return plain(value, limit, single_line=True)


def tsv_lines(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """One tab-separated line per record, no header (for a pipe, as ``gh`` does); a cell a
    spreadsheet would evaluate is neutralised (:func:`agentdex.text.spreadsheet_cell`)."""
    return ["\t".join(spreadsheet_cell(cell(v, None)) for v in r.values()) for r in records]


def csv_text(records: list[dict[str, Any]], fields: Sequence[str]) -> str:
    """RFC 4180 CSV with a header row; a cell a spreadsheet would evaluate is neutralised
    (:func:`agentdex.text.spreadsheet_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(fields)
    writer.writerows([spreadsheet_cell(cell(r.get(f), None)) for f in fields] for r in records)
    return out.getvalue()


def nl_json_lines(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """Newline-delimited JSON: one object per line."""
    return [terminal_safe_json(json.dumps(r, ensure_ascii=False, default=str)) for r in records]


def check_line(c: Mapping[str, Any]) -> str:
    """One stored check as a table line: ``fail manifest.cors  what was seen``."""
    return f"{STATUS_MARK.get(c['status'], c['status'])} {c['name']:<26} {plain(c.get('detail'), 200)}"


def check_sentence(origin: str, c: Mapping[str, Any]) -> str:
    """One stored check as a sentence: ``origin: fail name — what was seen``."""
    mark = STATUS_MARK.get(c["status"], c["status"]).strip()
    return f"{plain(origin, 40)}: {mark} {c['name']} — {plain(c.get('detail'), 160, single_line=True)}"


def event_line(e: Mapping[str, Any]) -> str:
    """``at  origin  kind  what changed``."""
    return f"{plain(e.get('at'), 25)}  {plain(e.get('origin', ''), 40)}  {plain(e.get('kind'), 22)}  {event_text(e)}"


def show_lines(data: dict[str, Any]) -> list[str]:
    """The human form of ``agentdex show``."""
    name = plain(data.get("name") or "(no name)", 80, single_line=True)
    out = [
        f"{name}  —  {plain(data['origin'], single_line=True)}",
        f"format {data.get('format') or '-'}, status {data.get('status')}",
    ]
    if data.get("status_detail"):
        out.append(f"  {plain(data['status_detail'], 200)}")
    if data.get("last_error"):
        e = data["last_error"]
        out.append(
            f"  last fetch error ({plain(e.get('fetched_at'), 30)}): {plain(e.get('url'), 120)}: "
            f"{plain(e.get('error') or e.get('error_code'), 200, single_line=True)}"
        )
    listing = data.get("listing") or {}
    for label, key in (
        ("one-liner", "one_liner"),
        ("homepage", "homepage"),
        ("guide", "guide_url"),
        ("MCP", "mcp_url"),
        ("HTTP API", "http_base"),
        ("pricing", "pricing"),
        ("publisher", "publisher_name"),
        ("instructions", "instructions"),
    ):
        if listing.get(key):
            out.append(f"  {label:<13}{plain(listing[key], 300, single_line=True)}")
    out += consistency_lines(data)
    out += section(
        "Findings:",
        [
            f"{f['severity']:<7} {plain(f['path'] or '(document)', 80)}: {plain(f['message'], 300)} [{f['code']}]"
            for f in data.get("findings", [])
            if f.get("format") != "consistency"
        ],
    )
    out += section("Checks:", [check_line(c) for c in data.get("checks", [])])
    out += section(
        "Tools:",
        [
            f"{tool_access(t):<11} {plain(t['name'], 60)}  {plain(t.get('description'), 100, single_line=True)}"
            for t in data.get("tools", [])
        ],
    )
    out += section(
        "Tool fingerprints:",
        [
            f"{plain(t.get('source'), 16):<16} {plain(t['name'], 60)}  {t['fingerprint'][:16]}"
            for t in data.get("tools", [])
            if t.get("fingerprint")
        ],
    )
    out += section(
        "Tool quality (TDQS lint, beside the safety flags):",
        tool_lint_head(data.get("tool_lint")) + tool_quality_lines(data.get("tools", [])),
    )
    out += section("Endpoint health:", [health_line(e) for e in data.get("endpoints", [])])
    out += section("History:", [event_line(e) for e in data.get("events", [])])
    out += section("Seed sources:", [seed_source_line(s) for s in data.get("seed_sources", [])])
    out += schedule_lines(data)
    out.append("")
    out.append(
        f"Install plans: agentdex plan {data['origin']} --host HOST  ({', '.join(sorted(data.get('plans', {})))})"
    )
    return out


def tool_lint_head(summary: Mapping[str, Any] | None) -> list[str]:
    """The lint of the tool list in one line: its counts, or why TDQS refused the list."""
    if not summary:
        return []
    if summary.get("refused"):
        return [
            f"TDQS {summary['spec_version']} refused the tool list: {plain(summary['refused'], 300, single_line=True)}"
        ]
    return [
        f"TDQS {summary['spec_version']}: {summary['tools']} tool(s), {summary['with_findings']} with a finding "
        f"({summary['errors']} error(s), {summary['warnings']} warning(s), {summary['infos']} note(s))"
    ]


def tool_quality_lines(tools: list[Mapping[str, Any]]) -> list[str]:
    """Each linted tool (its TDQS inputHash), its safety flags, then its TDQS findings."""
    out = []
    for t in tools:
        quality = t.get("quality")
        if quality is None:
            continue
        out.append(f"{plain(t['name'], 60)}  inputHash {quality['input_hash']}")
        out += [
            f"  safety  {plain(f['code'], 30)}: {plain(f['message'], 200, single_line=True)}"
            for f in t.get("flags", [])
        ]
        out += [
            f"  {f['severity']:<7} {f['rule']}: {plain(f['message'], 300, single_line=True)}"
            for f in quality["findings"]
        ] or ["  no finding"]
    return out


def seed_source_line(s: Mapping[str, Any]) -> str:
    """One seed source of an origin: where, which entry, the registry's status (and why)."""
    status = "" if s.get("status") in ("active", "listed") else f"  {plain(s['status'], 20)}"
    message = f" ({plain(s['status_message'], 120, single_line=True)})" if s.get("status_message") else ""
    return (
        f"{plain(s['source'], 60)}  {plain(s.get('name'), 80, single_line=True)}"
        f"  [{plain(s.get('via'), 12)}]{status}{message}"
    )


# What each era of the census means, for the table a person reads.
ERA_WORDS = {
    "legacy": "legacy (initialize only)",
    "dual": "dual (both eras)",
    "modern": "modern (2026-07-28 only)",
    "unknown": "unknown",
}


def census_lines(census: Mapping[str, Any]) -> list[str]:
    """The census of MCP endpoints as tables: state, count, share; then era, then auth kind."""
    out = [f"{'state':<22} {'count':>6} {'share':>7}"]
    out += [f"{row['state']:<22} {row['count']:>6} {row['share']:>6.1f}%" for row in census["states"]]
    out.append(f"{'total':<22} {census['total']:>6}")
    if census.get("eras"):
        out += ["", f"{'era':<26} {'count':>6} {'share':>7}"]
        out += [
            f"{ERA_WORDS.get(row['era'], row['era']):<26} {row['count']:>6} {row['share']:>6.1f}%"
            for row in census["eras"]
        ]
    if census.get("auth"):
        out += ["", f"{'auth':<26} {'count':>6} {'share':>7}"]
        out += [f"{row['kind']:<26} {row['count']:>6} {row['share']:>6.1f}%" for row in census["auth"]]
    if census.get("uptime"):
        out += ["", f"{'uptime over 30 days':<26} {'count':>6} {'share':>7}"]
        out += [f"{row['bucket']:<26} {row['count']:>6} {row['share']:>6.1f}%" for row in census["uptime"]]
    tools = census.get("tools")
    if tools and tools["total"]:
        out.append(
            f"MCP tools linted (TDQS): {tools['total']}, {tools['with_findings']} with at least one finding "
            f"({tools['share']:.1f}%)"
        )
    return out


def schedule_lines(data: dict[str, Any]) -> list[str]:
    """When the origin is next due, and how old each fact is (how its answer was obtained)."""
    from agentdex.crawler.freshness import age_text

    out = []
    if data.get("next_due_at"):
        unchanged = data.get("unchanged_crawls") or 0
        out = [
            "",
            f"Schedule: next due {plain(data['next_due_at'], 30)} (every {age_text(data.get('recrawl_interval'))}; "
            f"{unchanged} crawl(s) in a row without a change)",
        ]
    facts = [
        f"{plain(f['kind'], 12):<12} {f['obtained']:<11} {age_text(f['age_seconds']) or '-':>7} old"
        f"{'  fresh until ' + plain(f['fresh_until'], 30) if f['fresh'] else ''}  {plain(f['url'], 120)}"
        for f in data.get("facts", [])
    ]
    return out + section("Facts (how each answer was obtained, and its age):", facts)


def sparkline(states: Iterable[str], up: Iterable[bool] | None = None) -> str:
    """A probe history, oldest first: ``█`` for ok (or, given ``up``, for each probe that was
    up: a paid x402 resource's 402), ``▁`` for anything else."""
    return "".join("█" if ok else "▁" for ok in (up if up is not None else (s == "ok" for s in states)))


def health_line(e: Mapping[str, Any]) -> str:
    """One endpoint's health: role, URL, latest state, its recent history and uptime, first
    seen and last ok; for the MCP endpoint, the eras it answers in."""
    return (
        f"{plain(e['role'], 12):<12} {plain(e['url'], 80)}  {plain(e['state'], 16)}  "
        f"{sparkline(e.get('history') or [], e.get('up'))}  up {e['recent_ok']}/{e['recent_probes']} "
        f"({e['uptime']:.0%}), first seen {plain(e.get('first_seen_at'), 25)}, "
        f"last ok {plain(e.get('last_ok_at'), 25) or 'never'}{era_clause(e)}"
    )


def era_clause(e: Mapping[str, Any]) -> str:
    """``, era dual (2026-07-28, 2025-11-25)`` for an MCP endpoint; nothing for another role."""
    if not e.get("era"):
        return ""
    versions = ", ".join(plain(v, 20) for v in e.get("versions") or [])
    return f", era {plain(e['era'], 10)}" + (f" ({versions})" if versions else "")


def consistency_lines(data: Mapping[str, Any]) -> list[str]:
    """The cross-format verdict, the sources compared and each disagreement (both documents,
    both values); nothing for a listing never compared."""
    verdict = data.get("consistency")
    if not verdict:
        return []
    sources = ", ".join(plain(s, 40) for s in data.get("consistency_sources") or [])
    found = [f for f in data.get("findings", []) if f.get("format") == "consistency"]
    head = f"{verdict} ({len(found)} disagreement(s)) across {sources or 'nothing'}"
    return section("Consistency:", [head] + [f"  {plain(f['message'], 300)} [{f['code']}]" for f in found])


def section(title: str, lines: list[str]) -> list[str]:
    """A titled block of indented lines after a blank line; nothing when there are none."""
    if not lines:
        return []
    return ["", title] + [f"  {line}" for line in lines]


PLAN_KINDS = {
    "mcp": "MCP",
    "http_api": "HTTP API, no MCP server",
    "none": "nothing to install (no MCP endpoint or HTTP API declared)",
}
PLAN_AUTH = {"none": "no authentication", "oauth": "OAuth sign-in", "bearer": "a bearer token"}
CONFIDENCE = {"H": "high", "M": "medium", "L": "low"}


def plan_lines(plan: dict[str, Any]) -> list[str]:
    """The human form of one install plan: exact steps to copy."""
    how = PLAN_KINDS.get(plan["kind"], plan["kind"])
    if plan["auth"] in PLAN_AUTH:
        how += f", {PLAN_AUTH[plan['auth']]}"
    out = [
        f"{plan['host_name']} ({plan['host']}): {how}{'' if plan['supported'] else '  — no documented way'}",
        f"  host status: {plan['host_status']}" + (f" ({plain(plan['host_notes'])})" if plan.get("host_notes") else ""),
        f"  documentation confidence: {CONFIDENCE.get(plan['confidence'], plan['confidence'])}",
    ]
    for i, step in enumerate(plan["steps"] + plan.get("skill_steps", []), 1):
        where = f" → {step['path']}" if step.get("path") else ""
        out.append(f"  {i}. {plain(step['title'])}{where}")
        out.extend(f"       {plain(line)}" for line in step["content"].splitlines())
    out.extend(f"  note: {plain(n, 400)}" for n in plan.get("notes", []))
    return out


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The closing summary of a crawl: every origin under the status it has now (how many
    of them are unchanged said apart), then requests, failures and change events, each with
    where to read more."""
    parts = counts_text(summary["by_status"], by_name=True)
    head = "interrupted" if summary.get("interrupted") else "done"
    took = f"{summary['origins']} origin(s) in {summary['seconds']:.1f}s"
    same = f" ({summary['unchanged']} of them unchanged since their last crawl)" if summary.get("unchanged") else ""
    failed = summary["errors"]
    lines = [
        f"crawl {summary['crawl_id']} {head}: {took} — {parts or 'nothing'}{same}",
        f"{summary['requests']} request(s), {failed} failed"
        + (" (what failed for an origin: agentdex show ORIGIN)" if failed else "")
        + f"; {summary['events']} change event(s)"
        + (" (agentdex events)" if summary["events"] else ""),
    ]
    if summary.get("internal"):
        lines.append(
            f"{summary['internal']} origin(s) failed on an internal error of agentdex "
            "(see their status_detail); the others are saved"
        )
    if summary.get("cut_short"):
        lines.append(f"{summary['cut_short']} origin(s) cut short at the per-origin budget")
    if summary.get("refused_lines"):
        lines.append(f"{summary['refused_lines']} line(s) of the seeds named no origin and were skipped (said above)")
    return lines


def due_in(at: str, now: float | None = None) -> str:
    """How long until ``at`` (ISO 8601, UTC) in words: ``in 3 h 20 min``, ``now``."""
    import time

    from agentdex.db.common import epoch

    seconds = (epoch(at) or 0.0) - (time.time() if now is None else now)
    if seconds < 60:
        return "now"
    hours, minutes = divmod(int(seconds) // 60, 60)
    days, hours = divmod(hours, 24)
    words = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes and not days)
    return "in " + " ".join(words)


def crawl_line(summary: dict[str, Any]) -> str:
    """One line on a finished crawl, as the demo prints it after each of its two crawls."""
    return (
        f"  done in {summary['seconds']:.1f} s: {counts_text(summary['by_status'], by_name=True)}; "
        f"{summary['requests']} requests, {summary['events']} change event(s)."
    )


def progress_line(state: Any, new_events: int | None = None) -> str:
    """``[ 3/27] origin  status`` for a crawl's progress (``, N change event(s)`` when given)."""
    line = f"  [{state.done:>2}/{state.total}] {plain(state.last_origin, 40):<20} {state.last_status}"
    return line + (f", {new_events} change event(s)" if new_events is not None else "")


def counts_text(counts: Mapping[str, int], *, by_name: bool = False) -> str:
    """``3 listed, 1 invalid``: largest first (or by name), ties by name."""
    key = (lambda kv: kv[0]) if by_name else (lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=key))


def stats_lines(data: Mapping[str, Any], db_option: str = "") -> list[str]:
    """``agentdex stats`` as text (:func:`agentdex.summary.overview`): the counts first, then
    the first few of each section, each ending in how many more there are and the command
    that lists them all (``db_option``, e.g. `` --db x.db``, added to each command)."""
    counts, census = data["counts"], data["census"]
    kinds = counts_text({s["state"]: s["count"] for s in census["states"] if s["count"]})
    lines = [
        f"{counts['listings']} origins: {counts_text(counts['by_status']) or 'none'}",
        f"formats: {counts_text(counts['by_format']) or 'none'}",
        f"{counts['with_mcp']} with an MCP endpoint, {counts['failing_checks']} with a failing check",
        f"{counts['events']} change events, {counts['crawls']} crawls",
        f"{census['total']} MCP endpoints known" + (f": {kinds}" if kinds else ""),
    ]
    auth = counts_text({a["kind"]: a["count"] for a in census.get("auth", []) if a["count"]})
    uptime = counts_text({u["bucket"]: u["count"] for u in census.get("uptime", []) if u["count"]})
    lines += [f"  auth: {auth}"] if auth else []
    lines += [f"  uptime over 30 days (%): {uptime}"] if uptime else []
    return (
        lines
        + _failing_lines(data["failing"], db_option)
        + _not_listed_lines(data["not_listed"], db_option)
        + (_event_lines(data["events"], db_option) + _shared_lines(data["shared_names"], db_option))
    )


def _more(count: int, what: str, command: str) -> list[str]:
    return [f"  … and {count} more {what} ({command})"] if count else []


def _origins(names: list[str], count: int) -> str:
    shown = ", ".join(plain(n, 60) for n in names)
    return shown + (f" and {count - len(names)} more" if count > len(names) else "")


def _failing_lines(failing: Mapping[str, Any], db_option: str) -> list[str]:
    if not failing["checks"]:
        return []
    command = f"agentdex list --failing-checks --fields origin,checks_failed{db_option}"
    lines = ["", f"Failing checks: {failing['checks']} on {failing['listings']} origin(s), the most failed first:"]
    lines += [f"  {c['name']:<26} {c['listings']:>6}  {_origins(c['origins'], c['listings'])}" for c in failing["top"]]
    return lines + _more(failing["more"], "check(s)", command)


def _not_listed_lines(rows: list[Mapping[str, Any]], db_option: str) -> list[str]:
    if not rows:
        return []
    command = f"agentdex list --status STATUS --fields origin,status_detail{db_option}"
    lines = ["", f"Not listed, by status ({command} says why):"]
    return lines + [f"  {r['status']:<26} {r['count']:>6}  {_origins(r['origins'], r['count'])}" for r in rows]


def _event_lines(events: Mapping[str, Any], db_option: str) -> list[str]:
    if not events["total"]:
        return []
    lines = ["", "Newest changes:"] + [f"  {event_line(e)}" for e in events["newest"]]
    return lines + _more(events["more"], "event(s)", f"agentdex events{db_option}")


def _shared_lines(shared: Mapping[str, Any], db_option: str) -> list[str]:
    if not shared["groups"]:
        return []
    lines = ["", "Names several origins share (the origin tells them apart):"]
    lines += [
        f"  {plain(g['name'], 40, single_line=True)!r:<30} {g['count']:>3}  {_origins(g['origins'], g['count'])}"
        for g in shared["top"]
    ]
    return lines + _more(shared["more"], "name(s)", f"agentdex list --sort name --fields name,origin{db_option}")


def tool_access(tool: Mapping[str, Any]) -> str:
    """What a tool may do, as far as it says: ``read-only``, ``destructive``, ``writes`` (an
    MCP tool not marked read-only: MCP's own default), or ``not stated`` (a declared service,
    such as a paid HTTP API, whose manifest says nothing either way; it was called "writes")."""
    if tool.get("read_only"):
        return "read-only"
    if tool.get("destructive"):
        return "destructive"
    if tool.get("source") != "mcp" and not tool.get("annotations"):
        return "not stated"
    return "writes"

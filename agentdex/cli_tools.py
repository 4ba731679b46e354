"""``agentdex tools lint``: the TDQS lint of a ``tools/list`` file or a catalogued origin.

A publisher runs it in their own CI (exit 1 on an error-level finding); an analyst runs it on
an origin the catalogue holds. Registered on :data:`agentdex.cli.app` as the ``tools`` group.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from agentdex.cli_support import NOT_IN_CATALOGUE, DbOpt, JsonOpt, echo_json, fail, open_catalogue, origin_argument
from agentdex.text import plain

commands = typer.Typer(
    help="Tool-definition quality: the TDQS lint of MCP tool lists (no model is ever called).",
    no_args_is_help=True,
)

# A tools/list file bigger than this is refused unread (the largest servers list a few MB).
MAX_FILE_BYTES = 64 * 1024 * 1024


@commands.command("lint")
def lint_cmd(
    source: Annotated[
        str,
        typer.Argument(
            metavar="FILE|ORIGIN",
            help="A tools/list JSON file ({tools: [...]}, a list of tools or one tool), or a catalogued origin.",
        ),
    ],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Lint MCP tool definitions as Glama's TDQS lint does (no model is called).

    Follows TDQS specification 1.2 (the reference implementation tdqs 0.1.0): each tool's
    inputHash and findings. Exit 1 when a finding is error-level (no description, or one that
    restates the name), 2 when the input is unusable."""
    if Path(source).is_file() or source in ("-",):
        found = _lint_file(Path(source))
    else:
        found = _lint_origin(source, db)
    if as_json:
        echo_json(found["tools"])
    else:
        typer.echo("\n".join(_lines(found)))
    if any(f["severity"] == "error" for tool in found["tools"] for f in tool["findings"]):
        raise typer.Exit(1)


def _lint_file(path: Path) -> dict[str, Any]:
    from agentdex.formats import tool_quality

    title = "standard input" if str(path) == "-" else str(path)
    data = _read_json(path, title)
    try:
        result = tool_quality.lint(tool_quality.parse_tools(data))
    except tool_quality.RefusedTools as exc:
        fail(f"{title}: {exc}", 2)
    return {"title": title, "spec_version": result.spec_version, "tools": lint_rows(result)}


def _read_json(path: Path, title: str) -> object:
    import sys

    try:
        if str(path) == "-":
            text = sys.stdin.read(MAX_FILE_BYTES + 1)
        else:
            if path.stat().st_size > MAX_FILE_BYTES:
                fail(f"{title} is larger than {MAX_FILE_BYTES // 2**20} MB; agentdex reads no tool list that big", 2)
            text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {title}: {getattr(exc, 'strerror', None) or exc}", 2)
    if len(text) > MAX_FILE_BYTES:
        fail(f"{title} is larger than {MAX_FILE_BYTES // 2**20} MB; agentdex reads no tool list that big", 2)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        fail(f"{title} is not JSON: {str(exc)[:200]}", 2)


def _no_constant(token: str) -> object:
    raise ValueError(f"{token} is not JSON")


def lint_rows(result: Any) -> list[dict[str, Any]]:
    """``[{tool, input_hash, findings: [{rule, severity, message}]}]`` of a ServerLint."""
    return [
        {"tool": t.name, "input_hash": t.input_hash, "findings": [f.to_dict() for f in t.findings]}
        for t in result.tools
    ]


@commands.command("score")
def score_cmd(
    source: Annotated[
        str, typer.Argument(metavar="FILE|ORIGIN", help="A tools/list JSON file, or a catalogued origin.")
    ],
    endpoint: Annotated[
        str,
        typer.Option(
            "--endpoint", metavar="URL", help="The OpenAI-compatible model endpoint to score with (its base URL)."
        ),
    ],
    model: Annotated[str, typer.Option("--model", metavar="NAME", help="The model to ask.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Score tool definitions with TDQS's rubric through the model endpoint you name.

    Runs the reference implementation (pip install 'agentdex[quality]'): each tool's TDQS and
    tier, and the server's. The endpoint's key is read from $TDQS_API_KEY. agentdex calls a
    model only here, only at --endpoint. For an origin, the definitions are rebuilt from the
    catalogue, which keeps no title or output schema."""
    import os

    from agentdex.tool_scoring import ScoringError, score_tools

    api_key = os.environ.get("TDQS_API_KEY", "").strip()
    if not api_key:
        fail("set $TDQS_API_KEY to the endpoint's key (any word for an endpoint that needs none)", 2)
    definitions, name = _score_input(source, db)
    try:
        report = score_tools(definitions, server_name=name, endpoint=endpoint, model=model, api_key=api_key)
    except ScoringError as exc:
        fail(str(exc), 2)
    if as_json:
        echo_json(report)
        return
    typer.echo("\n".join(_score_lines(report)))


def _score_input(source: str, db_file: Path | None) -> tuple[list[dict[str, Any]], str]:
    if Path(source).is_file() or source == "-":
        data = _read_json(Path(source), "standard input" if source == "-" else source)
        items: Any = data.get("tools") if isinstance(data, dict) and isinstance(data.get("tools"), list) else data
        return (list(items) if isinstance(items, list) else [items]), Path(source).stem or "tools"
    from agentdex.db.tool_quality import stored_definitions

    catalogue, origin = _catalogued(source, db_file)
    definitions = stored_definitions(catalogue, origin)
    if not definitions:
        fail(f"{origin} has no MCP tools in the catalogue: no crawl has listed them", 2)
    return definitions, origin


def _catalogued(text: str, db_file: Path | None) -> tuple[Any, str]:
    """The catalogue (read-only) and the origin ``text`` names; NOT_IN_CATALOGUE when it lacks it."""
    from agentdex.db import missing_origins

    origin = origin_argument(text)
    catalogue = open_catalogue(db_file, readonly=True)
    if missing_origins(catalogue, [origin]):
        fail(
            f"{text} is not a file, and is not in the catalogue; `agentdex list` shows the origins it has",
            NOT_IN_CATALOGUE,
        )
    return catalogue, origin


def _score_lines(report: dict[str, Any]) -> list[str]:
    server = report["serverScore"]
    lines = [
        f"TDQS score of {plain(report['server']['name'], 120)}: specification {report['specVersion']}, "
        f"model {plain(report.get('model'), 80)}"
    ]
    lines += [f"{plain(t['name'], 120, single_line=True)}  {t['tdqs']:.1f} ({t['tier']})" for t in report["tools"]]
    lines.append(
        f"server: {server['overallScore']:.1f} ({server['overallTier']}); descriptions "
        f"{server['descriptionQualityScore']:.1f}, coherence {server['coherenceScore']:.1f}"
    )
    return lines


def _lint_origin(text: str, db_file: Path | None) -> dict[str, Any]:
    from agentdex.db.tool_quality import stored_lint

    db, origin = _catalogued(text, db_file)
    found = stored_lint(db, origin)
    if found is None:
        fail(f"{origin} has no linted MCP tool list: no crawl has listed its MCP tools", 2)
    if found.get("refused"):
        fail(f"{origin}: the tool list could not be linted: {found['refused']}", 2)
    return {"title": origin, **found}


def _lines(found: dict[str, Any]) -> list[str]:
    tools = found["tools"]
    counts = {severity: 0 for severity in ("error", "warning", "info")}
    lines = [f"TDQS lint of {plain(found['title'])}: {len(tools)} tool(s), specification {found['spec_version']}"]
    for tool in tools:
        lines.append(f"{plain(tool['tool'], 120, single_line=True)}  (inputHash {tool['input_hash']})")
        for finding in tool["findings"]:
            counts[finding["severity"]] += 1
            message = plain(finding["message"], 600, single_line=True)
            lines.append(f"  {finding['severity']:<8}{finding['rule']}: {message}")
    with_findings = sum(1 for tool in tools if tool["findings"])
    lines.append(
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s); "
        f"{with_findings} of {len(tools)} tool(s) with a finding"
    )
    return lines

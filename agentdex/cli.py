"""The ``agentdex`` command: a thin typer layer over the library.

Each command parses its options, calls one library function and prints the result as
plain text or, with ``--json``, as JSON. Library errors become a message on stderr and a
non-zero exit; nothing here parses manifests or writes SQL.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from agentdex.errors import AgentdexError, InputError
from agentdex.models import ParseResult, sorted_findings
from agentdex.text import plain

app = typer.Typer(help="A local, SQLite-first catalogue of agent apps.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def fail(message: str, code: int = 1) -> None:
    """Print an error to stderr and exit with ``code``."""
    typer.echo(f"agentdex: {plain(message)}", err=True)
    raise typer.Exit(code)


def render_result(path: str, result: ParseResult) -> None:
    """The human form of a validation result: a verdict, then one line per finding."""
    verdict = "valid" if result.valid else "INVALID"
    typer.echo(f"{plain(path)}: {result.format} manifest, {verdict}")
    for f in sorted_findings(result.findings):
        where = f.path or "(document)"
        typer.echo(f"  {f.severity:<7} {plain(where, 120)}: {plain(f.message, 400)} [{f.code}]")
    errors = sum(f.severity == "error" for f in result.findings)
    typer.echo(f"{errors} error(s), {len(result.findings) - errors} warning(s)")


@app.command()
def validate(
    path: Annotated[Path, typer.Argument(help="A manifest file, an .adapp package or a repository folder.")],
    format: Annotated[str, typer.Option("--format", "-f", help="auto, agent_app, anchor, findagent, adapp or inferred.")] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Validate a manifest to the letter of its spec. Exit 0 valid, 1 invalid, 2 unusable input."""
    from agentdex.validate import validate_path

    try:
        result = validate_path(path, format)
    except InputError as exc:
        fail(str(exc), 2)
    if as_json:
        echo_json(result.to_dict())
    else:
        render_result(str(path), result)
    raise typer.Exit(0 if result.valid else 1)


@app.command()
def schema(name: Annotated[str, typer.Argument(help="agent_app or anchor.")]) -> None:
    """Print the JSON Schema agentdex ships for a format."""
    from agentdex.formats.schemas import load_schema

    try:
        echo_json(load_schema(name))
    except KeyError:
        fail(f"no schema named {name!r}; choose agent_app or anchor", 2)


@app.command()
def pack(
    folder: Annotated[Path, typer.Argument(help="An adapp source folder with manifest.json at its root.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The .adapp file to write.")],
) -> None:
    """Pack a folder into an .adapp package with its checksum computed last."""
    from agentdex.errors import PackageError
    from agentdex.formats import adapp
    from agentdex.validate import read_tree

    if not folder.is_dir():
        fail(f"not a folder: {folder}", 2)
    try:
        data = adapp.pack(read_tree(folder))
    except (PackageError, InputError) as exc:
        fail(str(exc), 1)
    result = adapp.parse_package(data)
    if not result.valid:
        render_result(str(folder), result)
        fail("not packed: the package would be invalid", 1)
    output.write_bytes(data)
    typer.echo(f"wrote {output} ({len(data):,} bytes, {result.listing.extra.get('checksum') if result.listing else ''})")


def main() -> None:
    """Console-script entry point: library errors never become tracebacks."""
    try:
        app()
    except AgentdexError as exc:
        typer.echo(f"agentdex: {plain(exc)}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("agentdex: interrupted", err=True)
        sys.exit(130)

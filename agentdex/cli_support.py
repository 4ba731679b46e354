"""What every ``agentdex`` command module shares: errors as one sentence and an exit code,
JSON output, the ``--db`` option and the catalogue, origins typed as arguments."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperArgument, TyperCommand

from agentdex.errors import DatabaseError, InputError
from agentdex.text import plain, terminal_safe_json

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", metavar="FILE", help="The catalogue file (default $AGENTDEX_DB or ./agentdex.db)."),
]


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON (nothing in it a terminal would act on or hide)."""
    typer.echo(terminal_safe_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def echo_json_items(items: Iterable[Any]) -> None:
    """Print ``items`` as :func:`echo_json` prints a list of them, one item at a time (a list
    too long to hold in memory)."""
    opened = False
    for item in items:
        text = terminal_safe_json(json.dumps(item, indent=2, ensure_ascii=False, default=str))
        typer.echo(("," if opened else "[") + "\n  " + text.replace("\n", "\n  "), nl=False)
        opened = True
    typer.echo("\n]" if opened else "[]")


# The exit code of every command asked about an origin the catalogue does not have (show,
# plan, events --origin, forget, verify without --add): 1, as for any answer that is "no";
# 2 stays for input that cannot be used at all (docs/cli.md, "Exit codes").
NOT_IN_CATALOGUE = 1


def fail(message: str, code: int = 1) -> NoReturn:
    """Print an error to stderr and exit with ``code``."""
    typer.echo(f"agentdex: {plain(message)}", err=True)
    raise typer.Exit(code)


def db_path(path: Path | None) -> Path:
    """The catalogue path: ``--db``, else ``$AGENTDEX_DB``, else ``./agentdex.db`` (a
    directory is refused: exit 2)."""
    chosen = path or Path(os.environ.get("AGENTDEX_DB") or "agentdex.db")
    if chosen.is_dir():
        fail(f"{chosen} is a directory, not a catalogue file; name the file, e.g. --db {chosen / 'agentdex.db'}", 2)
    return chosen


def open_catalogue(path: Path | None, *, readonly: bool):
    """Open the catalogue, turning a :class:`DatabaseError` into a message and exit 1."""
    from agentdex.db import open_db

    try:
        return open_db(db_path(path), readonly=readonly)
    except DatabaseError as exc:
        fail(str(exc), 1)


def origin_argument(text: str) -> str:
    """The origin a user typed as an argument, or a message (exit 2) when it cannot be one."""
    from agentdex.crawler.origins import normalise_origin

    try:
        return normalise_origin(text)
    except InputError as exc:
        fail(str(exc), 2)


def load_show(path: Path | None, origin: str) -> dict:
    """:func:`agentdex.showing.load_show` on the catalogue; an origin it lacks is exit
    :data:`NOT_IN_CATALOGUE`."""
    from agentdex.showing import load_show as load

    try:
        return load(open_catalogue(path, readonly=True), origin)
    except DatabaseError as exc:
        fail(str(exc), NOT_IN_CATALOGUE)


class PlainHelpCommand(TyperCommand):
    """A command whose help names arguments as users write them: ``ORIGIN...`` and
    ``[ORIGIN]...`` in the usage line (typer writes ``{origin}``), and no Python type
    (``<list[str]>``) beside an argument's name.

    typer (0.29 on) carries its own copy of click under a private name, and its Command
    hooks take that copy's Context, HelpFormatter and Parameter, which no public name spells:
    they are typed ``Any`` here."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """``[OPTIONS]`` then each argument by its metavar."""
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [_usage(p) for p in self.get_params(ctx) if p.param_type_name == "argument"]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The Arguments and Options sections, arguments by name and help only."""
        params = self.get_params(ctx)
        arguments = [(_name(p), p.help or "") for p in params if isinstance(p, TyperArgument) and not p.hidden]
        options = [r for p in params if not p.param_type_name == "argument" and (r := p.get_help_record(ctx))]
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _name(param: Any) -> str:
    return (param.metavar or (param.name or "").upper()) + ("..." if param.nargs != 1 else "")


def _usage(param: Any) -> str:
    name = param.metavar or (param.name or "").upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def plain_help(app: typer.Typer) -> None:
    """Give every command of ``app`` registered so far :class:`PlainHelpCommand` help."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = PlainHelpCommand


# A check's status word at the start of a line (after its indent), as render.check_line writes it.
_MARK = re.compile(r"^(\s*)(pass|fail|warn|skip)(?= )", re.M)
_COLOURS = {"pass": "32", "fail": "1;31", "warn": "33", "skip": "2"}


def use_colour(stream: Any = None) -> bool:
    """Colour for a terminal: not on a pipe or a file, not with ``NO_COLOR`` set (any value
    but empty, https://no-color.org), not on a ``dumb`` terminal."""
    stream = stream or sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def coloured_checks(text: str) -> str:
    """``text`` with each check's status word coloured (fail red, pass green, warn yellow,
    skip dim) when :func:`use_colour`; the words themselves carry the meaning without it."""
    if not use_colour():
        return text
    return _MARK.sub(lambda m: f"{m.group(1)}\x1b[{_COLOURS[m.group(2)]}m{m.group(2)}\x1b[0m", text)

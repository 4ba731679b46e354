"""The commands that read, trim or join catalogues: ``list``, ``show``, ``events``, ``plan``,
``stats``, ``forget`` and ``merge``. Registered on :data:`agentdex.cli.app`; each parses its options,
calls the library and hands the result to a reporter."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentdex.cli_support import (
    NOT_IN_CATALOGUE,
    DbOpt,
    JsonOpt,
    echo_json,
    fail,
    load_show,
    open_catalogue,
    origin_argument,
)
from agentdex.db.listing_query import (
    BRIEF_FIELDS,
    FILTERS,
    LIST_FIELDS,
    SORTS,
    TABLE_FIELDS,
    ListingFilter,
    ListingQuery,
)
from agentdex.errors import InputError
from agentdex.text import plain

commands = typer.Typer()


KEYWORD = inspect.Parameter.KEYWORD_ONLY


# Literal types become click choices: a value outside them is refused (exit 2) with the
# choices named, and --help lists them. They are built from the declaration at run time.
def _filter_option(spec: ListingFilter) -> inspect.Parameter:
    """``list``'s option for a declared listing filter (agentdex.db.listing_query.FILTERS)."""
    option = typer.Option(*spec.option, help=spec.help, metavar=spec.metavar)
    if spec.kind == "flag":
        return inspect.Parameter(spec.name, KEYWORD, default=False, annotation=Annotated[bool, option])
    kind: Any = bool if spec.kind == "bool" else str
    if spec.kind == "choice" and spec.known is None:  # a category is checked against the catalogue instead
        kind = Literal[spec.choices]
    return inspect.Parameter(spec.name, KEYWORD, default=None, annotation=Annotated[kind | None, option])


def _sort_option() -> inspect.Parameter:
    option = typer.Option("--sort", help="The order (relevance needs --search).")
    return inspect.Parameter("sort", KEYWORD, default="name", annotation=Annotated[Literal[tuple(SORTS)], option])


def _given(spec: ListingFilter, value: Any) -> Any:
    return None if spec.kind == "flag" and not value else value


class _ListingCommand:
    """A listing command whose query options (the declared filters, then --sort) are read
    from agentdex.db.listing_query each time the CLI is built, so a filter added to FILTERS
    is an option at once. Calls ``run`` with its own options and ``query``, the
    :class:`ListingQuery` they give."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.__doc__ = run.__doc__
        self.__annotations__: dict[str, Any] = {}  # typer reads the parameters from __signature__

    @property
    def __signature__(self) -> inspect.Signature:
        own = inspect.signature(self.run, eval_str=True).parameters.values()
        filters = [_filter_option(f) for f in FILTERS.values() if f.option]
        return inspect.Signature(
            [*filters, _sort_option(), *(p.replace(kind=KEYWORD) for p in own if p.name != "query")]
        )

    def __call__(self, **options: Any) -> None:
        # A flag left off is no filter (not "only those without"): the library reads False so.
        filters = {name: _given(FILTERS[name], options.pop(name)) for name in list(options) if name in FILTERS}
        self.run(query=ListingQuery(sort=options.pop("sort"), **filters), **options)


def _list(
    query: ListingQuery,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=100000, metavar="N", help="Print at most N listings.")
    ] = 200,
    fields: Annotated[
        str | None,
        typer.Option(
            "--fields", metavar="F1,F2…", help=f"The columns to print, comma-separated, from: {', '.join(LIST_FIELDS)}."
        ),
    ] = None,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV with a header row.")] = False,
    as_nl: Annotated[bool, typer.Option("--nl", help="Print newline-delimited JSON, one listing a line.")] = False,
    table: Annotated[
        bool,
        typer.Option(
            "--table",
            help="Print a table with headers even on a pipe "
            "(the default on a terminal; a pipe gets tab-separated lines).",
        ),
    ] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the catalogue's listings, filtered and sorted."""
    from agentdex.db import count_listings, list_listings

    output = _one_output(json=as_json, csv=as_csv, nl=as_nl, table=table)
    chosen = _fields(fields, BRIEF_FIELDS if output == "json" else TABLE_FIELDS)
    catalogue = open_catalogue(db, readonly=True)
    _known_values(catalogue, query)
    try:
        rows = list_listings(catalogue, query, limit=limit)
        total = count_listings(catalogue, query)
    except InputError as exc:
        fail(str(exc), 2)
    _print_listings(output, rows, chosen, total)
    _empties_note(catalogue, query)


commands.command("list")(_ListingCommand(_list))


def _empties_note(catalogue, query: ListingQuery) -> None:
    """An origin where discovery found nothing is one compact row, not a listing (issue 39:
    a sweep stores "nothing here" cheaply), so ``list`` leaves it out; say how many were
    left out when the query would have listed them (no filter but a status admitting
    ``no_manifest``), so a crawl of an empty site followed by ``list`` is no puzzle."""
    from agentdex.db import empty

    status = query.status
    if any(name != "status" for name, _ in query.values) or (status is not None and "no_manifest" not in status):
        return
    if count := empty.count(catalogue):
        typer.echo(
            f"and {count:,} origin(s) where discovery found nothing (no_manifest, every path a plain 4xx), "
            "kept apart as one row each: `agentdex show ORIGIN` tells one, `agentdex stats` counts them",
            err=True,
        )


def _known_values(catalogue, query: ListingQuery) -> None:
    """A value no listing has and the spec does not define (a category) is a typo."""
    for name, value in query.values:
        if (known_of := FILTERS[name].known) is not None and value not in (known := list(known_of(catalogue))):
            fail(f"no listing has {name} {value!r}; choose one of: {', '.join(known)}", 2)


def _one_output(**flags: bool) -> str:
    given = [name for name, on in flags.items() if on]
    if len(given) > 1:
        fail(f"choose one output: {' or '.join('--' + g for g in given)}", 2)
    if given:
        return given[0]
    return "table" if sys.stdout.isatty() else "tsv"


def _fields(text: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
    if text is None:
        return default
    chosen = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [f for f in chosen if f not in LIST_FIELDS]
    if unknown or not chosen:
        fail(f"unknown field {unknown[0] if unknown else text!r}; choose from: {', '.join(LIST_FIELDS)}", 2)
    return chosen


def _print_listings(output: str, rows: list[dict], fields: tuple[str, ...], total: int) -> None:
    from agentdex.render import csv_text, nl_json_lines, pick_fields, tsv_lines

    records = pick_fields(rows, fields)
    if output == "json":
        echo_json({"total": total, "listings": records})
    elif output == "csv":
        typer.echo(csv_text(records, fields), nl=False)
    elif output == "nl":
        typer.echo("\n".join(nl_json_lines(records)), nl=bool(records))
    elif output == "table":
        _print_table(records, fields)
        typer.echo(f"{len(rows)} of {total} shown")
    else:
        typer.echo("\n".join(tsv_lines(records)), nl=bool(records))
        typer.echo(f"{len(rows)} of {total} shown", err=True)  # not data: a pipe reads stdout only


def _print_table(records: list[dict], fields: tuple[str, ...]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from agentdex.render import cell

    grid = Table(*fields, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for record in records:
        grid.add_row(*(Text(cell(record[f], 80)) for f in fields))  # Text: crawled words are never markup
    # No colour system: not even the header's bold (a terminal gets no escape sequence at all).
    Console(soft_wrap=False, highlight=False, markup=False, color_system=None).print(grid)


@commands.command()
def show(
    origin: Annotated[str, typer.Argument(metavar="ORIGIN", help="The origin (host or https URL).")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Everything the catalogue knows about one origin: manifest, findings, checks, plans,
    events, and for one that is not listed, the last fetch error."""
    data = load_show(db, origin_argument(origin))
    if as_json:
        echo_json(data)
    else:
        from agentdex.cli_support import coloured_checks
        from agentdex.render import show_lines

        typer.echo(coloured_checks("\n".join(show_lines(data))))


@commands.command()
def events(
    origin: Annotated[
        str | None,
        typer.Option("--origin", metavar="ORIGIN", help="Only this origin's events (it must be in the catalogue)."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="TIME",
            help="Only events at or after this ISO 8601 time (2026-12-01 or 2026-12-01T10:00:00Z; no zone: UTC).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, metavar="N", help="Print at most N events.")] = 200,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change events, newest first."""
    from agentdex.db import list_events, missing_origins
    from agentdex.times import parse_time

    try:
        since = parse_time(since, "--since") if since is not None else None
    except InputError as exc:
        fail(str(exc), 2)
    catalogue = open_catalogue(db, readonly=True)
    if origin is not None and missing_origins(catalogue, [origin := origin_argument(origin)]):
        fail(f"{origin} is not in the catalogue; `agentdex list` shows the origins it has", NOT_IN_CATALOGUE)
    rows = list_events(catalogue, origin=origin, since=since, limit=limit)
    if as_json:
        echo_json(rows)
        return
    from agentdex.render import event_line, event_text, tsv_lines

    if not rows:
        typer.echo("no events", err=not sys.stdout.isatty())  # a pipe reads no line that is no event
    elif sys.stdout.isatty():
        typer.echo("\n".join(event_line(e) for e in rows))
    else:  # a pipe gets tab-separated lines, as list does: at, origin, kind, the change in words
        fields = [
            {"at": e.get("at"), "origin": e.get("origin"), "kind": e.get("kind"), "change": event_text(e)} for e in rows
        ]
        typer.echo("\n".join(tsv_lines(fields)))


@commands.command()
def plan(
    origin: Annotated[str, typer.Argument(metavar="ORIGIN", help="The origin (host or https URL).")],
    host: Annotated[
        str | None,
        typer.Option(
            "--host", metavar="HOST", help='One host, by id or name (claude_code, "Claude Code", vs-code, …).'
        ),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact install steps for each AI host (or one with --host). Plans of an invalid
    manifest come with a warning; an origin with no usable manifest has none, and says why."""
    from agentdex.plans import host_choices, host_id, similar_host
    from agentdex.showing import plan_warning

    if host is not None and (host := host_id(given := host)) is None:
        guess = similar_host(given)
        fail(
            f"unknown host {plain(given, 60, single_line=True)!r}"
            + (f" (did you mean {guess}?)" if guess else "")
            + f"; choose one of: {host_choices()}",
            2,
        )
    data = load_show(db, origin_argument(origin))
    if not data["plans"]:
        fail(_no_plan_reason(data), 1)
    warning = plan_warning(data)
    plans = {
        h: {**p, "listing_status": data["status"], "warning": warning}
        for h, p in data["plans"].items()
        if host in (None, h)
    }
    if as_json:
        echo_json(plans if host is None else plans[host])
        return
    _print_plans(plans, warning)


def _no_plan_reason(data: dict) -> str:
    detail = data.get("status_detail") or (data.get("last_error") or {}).get("error")
    return (
        f"no install plan for {data['origin']}: its status is {data['status']}, so there is no manifest to "
        f"plan from" + (f" ({detail})" if detail else "")
    )


def _print_plans(plans: dict, warning: str | None) -> None:
    from agentdex.render import plan_lines

    if warning:
        typer.echo(f"warning: {warning}", err=True)
    for p in plans.values():
        typer.echo("\n".join(plan_lines(p)) + "\n")


@commands.command()
def stats(
    top: Annotated[
        int, typer.Option("--top", min=1, max=1000, metavar="N", help="Show the first N of each section.")
    ] = 5,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A catalogue's summary: the counts, then the first N failing checks, origins not
    listed, newest changes and shared names, each with how many more and the command that
    lists them all. --json: every failing check and origin not listed, in full."""
    from agentdex.cli_support import db_path

    path = db_path(db)
    catalogue = open_catalogue(path, readonly=True)
    if as_json:
        from agentdex.summary import catalogue_summary

        echo_json(catalogue_summary(catalogue))
        return
    import shlex

    from agentdex.render import stats_lines
    from agentdex.summary import overview

    given = "" if db is None and "AGENTDEX_DB" not in os.environ else f" --db {shlex.quote(str(path))}"
    typer.echo("\n".join(stats_lines(overview(catalogue, top), given)))


@commands.command()
def forget(
    origins: Annotated[
        list[str], typer.Argument(metavar="ORIGIN", help="Origins in the catalogue (hosts or https URLs).")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask; required without a terminal.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove origins from the catalogue with their events, snapshots, documents, findings,
    checks and tools (asks first unless --yes)."""
    from agentdex.crawler.origins import unique
    from agentdex.db import forget_origins, missing_origins

    wanted = unique([origin_argument(o) for o in origins])
    catalogue = open_catalogue(db, readonly=False)
    if missing := missing_origins(catalogue, wanted):
        fail(f"not in the catalogue: {', '.join(missing)}; nothing was removed", NOT_IN_CATALOGUE)
    if not yes:
        _confirm_forget(wanted)
    removed = forget_origins(catalogue, wanted)
    if as_json:
        echo_json({"forgotten": wanted, "rows_removed": removed})
    else:
        rows = ", ".join(f"{n} {table}" for table, n in sorted(removed.items()))
        typer.echo(f"forgot {len(wanted)} origin(s): {', '.join(wanted)} ({rows})")


@commands.command()
def merge(
    out: Annotated[Path, typer.Argument(metavar="OUT", help="The catalogue to merge into (created when missing).")],
    shards: Annotated[
        list[Path], typer.Argument(metavar="SHARD", help="Catalogues to merge in, e.g. each crawl --shard's --db.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Merge catalogues into OUT on natural keys (origin, URL, body hash, crawl time): the
    shards of a sweep (crawl --shard I/N) or any catalogues. Merging one twice changes
    nothing; an origin's current state comes from the catalogue that crawled it last."""
    from agentdex.db.merge import merge_catalogues
    from agentdex.errors import DatabaseError

    try:
        summary = merge_catalogues(out, shards)
    except DatabaseError as exc:
        fail(str(exc), 1)
    if as_json:
        echo_json(summary.to_dict())
        return
    rows = ", ".join(f"{n:,} {table}" for table, n in summary.changed.items() if n)
    typer.echo(f"merged {summary.shards} catalogue(s) into {out}: {rows or 'nothing new'}")


def _confirm_forget(origins: list[str]) -> None:
    if not sys.stdin.isatty():
        fail("forget asks before removing anything and there is no terminal to ask on; pass --yes", 2)
    if not typer.confirm(f"Forget {', '.join(origins)} and all their history?", default=False):
        fail("nothing was removed", 1)

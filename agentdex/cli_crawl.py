"""The commands that go to the web: ``crawl``, ``verify`` and ``seeds``. Registered on
:data:`agentdex.cli.app` (after ``schema``, before ``census``); each parses its options, builds
the network options (:mod:`agentdex.cli_network`), runs the library and prints the result."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Annotated

import typer

from agentdex.cli_network import CONFIG_HELP, NOT_GIVEN, GivenSettings, network_settings
from agentdex.cli_support import (
    DbOpt,
    JsonOpt,
    db_path,
    echo_json,
    echo_json_items,
    fail,
    open_catalogue,
)
from agentdex.errors import DatabaseError, InputError
from agentdex.text import plain

commands = typer.Typer()


def run_crawl(
    path,
    origins,
    net,
    *,
    verify: bool,
    kind: str = "crawl",
    policy=None,
    quiet: bool = False,
    processes: int = 1,
    shard=None,
) -> dict:
    """Run a crawl with a progress display on a terminal (plain lines otherwise; none
    when ``quiet``). ``origins``: a list, or an iterable read while the crawl runs (a seeds
    file's :class:`~agentdex.crawler.seedlines.SeedLines`); a bad line of it is told on
    standard error and skipped."""
    from agentdex.crawler.crawl import crawl
    from agentdex.crawler.eventloop import run

    db = open_catalogue(path, readonly=False)
    total = len(origins) if isinstance(origins, list) else None
    with _progress_display(total, quiet) as show:
        try:
            summary = run(
                crawl(
                    db,
                    origins,
                    net,
                    verify=verify,
                    progress=show,
                    kind=kind,
                    policy=policy,
                    processes=processes,
                    shard=shard,
                    refused=_bad_line,
                )
            )
        except KeyboardInterrupt:
            fail("interrupted: every finished origin is saved; run the same command again to complete the rest", 130)
        except DatabaseError as exc:  # a full disk: a sentence, never a traceback
            fail(str(exc), 1)
        except InputError as exc:  # the seeds could not be read on (a disk error midway)
            fail(f"{exc}; every finished origin is saved", 1)
    return summary.to_dict()


def _bad_line(bad) -> None:
    """A seeds line that names no origin: told on standard error; the crawl goes on."""
    hint = "; to crawl a server of your own, name it with --connect-to HOST:ADDR:PORT or --allow-private"
    typer.echo(f"{plain(str(bad), 300)}{hint if bad.not_public else ''}; skipped", err=True)


def _progress_display(total: int | None, quiet: bool = False):
    """A rich progress bar on a terminal; plain lines on a pipe; nothing when ``quiet``.
    ``total`` None: not known before the seeds are read to their end."""
    import contextlib

    if quiet:
        return contextlib.nullcontext(None)
    if not sys.stderr.isatty():

        def plain_line(state) -> None:
            origin = plain(state.last_origin, 60)
            typer.echo(f"[{progress_count(state)}] {origin} {state.last_status} ({state.rate():.1f}/s)", err=True)

        return contextlib.nullcontext(plain_line)
    return _RichProgress(total)


def progress_count(state) -> str:
    """``done/total``; the total as ``known+`` while the seeds may name more."""
    return f"{state.done}/{state.total}{'+' if state.reading else ''}"


class _RichProgress:
    def __init__(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("crawling"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("{task.fields[info]}", markup=False),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.task = self.bar.add_task("crawl", total=total, info="", rate="")

    def __enter__(self):
        self.bar.start()
        return self.update

    def update(self, state) -> None:
        info = f"{state.requests} requests, {state.errors} failed; finished {plain(state.last_origin, 40)}"
        total = None if state.reading else state.total  # an unknown total: the bar pulses
        rate = f"{state.rate():.1f} origins/s"
        self.bar.update(self.task, completed=state.done, total=total, info=info, rate=rate)

    def __exit__(self, *exc) -> None:
        self.bar.stop()


# crawl's own options, declared apart so that the command reads as what it does (help and
# order are what typer shows and docs/cli.md lists)
OriginsArg = Annotated[
    list[str] | None,
    typer.Argument(metavar="ORIGIN", help="Hosts or https URLs. None: recrawl every known origin."),
]
SeedsOpt = Annotated[
    Path | None,
    typer.Option(
        "--seeds",
        metavar="FILE",
        help=(
            "A file with one origin per line (# comments; - reads standard input); a line may go on with "
            "the MCP endpoint a registry declares there, as agentdex seeds prints it. Read while the crawl "
            "runs (a file of any length in flat memory); a bad line is told with its number and skipped."
        ),
    ),
]
NoVerifyOpt = Annotated[bool, typer.Option("--no-verify", help="Skip verification checks.")]
DueOpt = Annotated[
    bool,
    typer.Option("--due", help="Crawl only the known origins whose next-due time has passed, most overdue first."),
]
RevalidateOpt = Annotated[
    bool,
    typer.Option(
        "--revalidate", help="Ask about every document, even one whose stored answer is still fresh (HTTP caching)."
    ),
]
MaxFreshOpt = Annotated[
    float,
    typer.Option(
        "--max-fresh",
        min=0,
        metavar="SECONDS",
        help="Seconds after its arrival a stored answer may still be used fresh, at most (0: ask every time).",
    ),
]
MinFreshOpt = Annotated[
    float,
    typer.Option(
        "--min-fresh",
        min=0,
        metavar="SECONDS",
        help="Seconds of freshness a stored answer must have left to be used instead of asking.",
    ),
]
RegistryLookupOpt = Annotated[
    bool,
    typer.Option(
        "--registry-lookup",
        help=(
            "Also ask the MCP registry (--registry, default the official one) what it lists in each "
            "origin's namespace (pantry.test: test.pantry/…), and cross-check it."
        ),
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (bar or lines); the summary only.")]
OriginBudgetOpt = Annotated[
    float,
    typer.Option(
        "--origin-budget",
        min=1,
        max=86400,
        metavar="SECONDS",
        help=(
            "Seconds one origin may take, all its requests together (2 more for each MCP endpoint past the "
            "first that a registry declares on it); past it the origin is recorded as cut short."
        ),
    ),
]
ProcessesOpt = Annotated[
    int,
    typer.Option(
        "--processes",
        min=1,
        max=64,
        metavar="N",
        help=(
            "Processes that fetch, parse and verify, this one among them, each with its share of "
            "--concurrency; this one also saves (1: all in one process). About one per core: a large crawl "
            "on a machine with cores to spare."
        ),
    ),
]


@commands.command(epilog=CONFIG_HELP)
@network_settings()
def crawl(
    origins: OriginsArg = None,
    seeds: SeedsOpt = None,
    db: DbOpt = None,
    settings: GivenSettings = NOT_GIVEN,
    no_verify: NoVerifyOpt = False,
    due: DueOpt = False,
    revalidate: RevalidateOpt = False,
    max_fresh: MaxFreshOpt = 86400.0,
    min_fresh: MinFreshOpt = 60.0,
    registry_lookup: RegistryLookupOpt = False,
    quiet: QuietOpt = False,
    origin_budget: OriginBudgetOpt = 120.0,
    processes: ProcessesOpt = 1,
    as_json: JsonOpt = False,
) -> None:
    """Crawl origins into the catalogue: discover, validate, store, diff and verify.

    A document whose stored answer is still fresh (its Cache-Control max-age or Expires)
    is not asked again; the snapshot says so. No MCP registry is asked what it lists for an
    origin unless --registry-lookup says so."""
    from agentdex.crawler.freshness import Policy

    net = settings.options(registry_lookup=registry_lookup, origin_budget=origin_budget)
    if due and (origins or seeds):
        fail("--due takes the origins the schedule says are due; name no origin and no --seeds file", 2)
    wanted = _wanted_and_seeds(origins or [], seeds, net) or _recrawl_origins(db, due)
    if not wanted:
        _nothing_due(db, as_json)
        return
    policy = Policy(ceiling=max_fresh, floor=min_fresh, revalidate=revalidate)
    summary = run_crawl(
        db, wanted, net, verify=not no_verify, policy=policy, quiet=quiet, processes=processes, shard=net.shard
    )
    _report_crawl(summary, net.shard, quiet=quiet, as_json=as_json)


def _report_crawl(summary: dict, shard, *, quiet: bool, as_json: bool) -> None:
    """Print a finished crawl's summary (JSON or lines); exit 1 when an origin hit a bug of
    agentdex (the others are saved, the run says so) or when not one origin answered."""
    if shard is not None and not summary["origins"] and not quiet:
        typer.echo(f"shard {shard}: none of the origins is this shard's; its catalogue stays empty", err=True)
    if as_json:
        echo_json(summary)
    else:
        from agentdex.render import summary_lines

        typer.echo("\n".join(summary_lines(summary)))
    if summary["internal"]:
        raise typer.Exit(1)
    _fail_when_none_reached(summary)


def wanted_origins(texts: list[str], net) -> list[str]:
    """The origins a user named, each decided by
    :func:`~agentdex.crawler.origins.public_origin`; a refusal is an exit 2 with its reason."""
    from agentdex.crawler.origins import NotPublic, chosen_by, public_origins

    try:
        return public_origins(texts, chosen_by(net))
    except NotPublic as exc:
        fail(f"{exc}; to crawl a server of your own, name it with --connect-to HOST:ADDR:PORT or --allow-private", 2)
    except InputError as exc:
        fail(str(exc), 2)


def _wanted_and_seeds(texts: list[str], seeds: Path | None, net):
    """The origins a user named (:func:`wanted_origins`), then a seeds file's, read a line at a
    time while the crawl runs (:class:`~agentdex.crawler.seedlines.SeedLines`): an iterable, or
    the list of named origins alone (empty: none named). A file that cannot be opened is an
    exit 2; a bad line of it is told and skipped as the crawl reaches it."""
    from agentdex.crawler.origins import chosen_by
    from agentdex.crawler.seedlines import SeedLines

    named = wanted_origins(texts, net)
    if seeds is None:
        return named
    try:
        return itertools.chain(named, SeedLines(seeds, chosen_by(net)))
    except InputError as exc:
        fail(str(exc), 2)


def _fail_when_none_reached(summary: dict) -> None:
    """Exit 1 with a sentence when not one origin of the run answered."""
    reached = sum(n for status, n in summary["by_status"].items() if status != "unreachable")
    if summary["origins"] and not reached and not summary.get("interrupted"):
        fail(
            f"no origin could be reached ({summary['origins']} unreachable); "
            "`agentdex list --status unreachable --fields origin,status_detail` says why",
            1,
        )


def _recrawl_origins(db, due: bool) -> list[str]:
    """Every known web origin, or with ``due`` the ones the schedule says are due."""
    from agentdex.db import due_origins, known_origins

    catalogue = open_catalogue(db, readonly=False)
    wanted = due_origins(catalogue) if due else known_origins(catalogue)
    if not wanted and not due:
        fail("nothing to crawl: name an origin (agentdex crawl example.com) or a --seeds file", 2)
    return wanted


def _nothing_due(db, as_json: bool) -> None:
    from agentdex.db import next_due
    from agentdex.render import due_in

    due = next_due(open_catalogue(db, readonly=True))
    if as_json:
        echo_json({"origins": 0, "next_due_origin": due and due[0], "next_due_at": due and due[1]})
    elif due:
        typer.echo(f"no origin is due; the next is {plain(due[0], 120)}, due at {due[1]} ({due_in(due[1])})")
    else:
        typer.echo("no origin is scheduled")


@commands.command(epilog=CONFIG_HELP)
@network_settings(exclude={"shard"})
def verify(
    origins: Annotated[list[str], typer.Argument(metavar="ORIGIN", help="Origins already in the catalogue.")],
    add: Annotated[
        bool, typer.Option("--add", help="Verify origins the catalogue does not have yet too, adding them.")
    ] = False,
    db: DbOpt = None,
    settings: GivenSettings = NOT_GIVEN,
    as_json: JsonOpt = False,
) -> None:
    """Re-check every claim the listings make (their manifests are fetched conditionally).
    An origin the catalogue does not have is refused unless --add says to add it."""
    from agentdex.crawler.origins import unique

    net = settings.options()
    wanted = unique(wanted_origins(origins, net))
    if not add:
        _refuse_unknown(db, wanted)
    summary = run_crawl(db, wanted, net, verify=True, kind="verify")
    from agentdex.cli_support import coloured_checks
    from agentdex.db import list_checks
    from agentdex.render import check_line

    catalogue = open_catalogue(db, readonly=True)
    if as_json:
        echo_json({**summary, "checks": {o: list_checks(catalogue, o) for o in wanted}})
    else:
        for origin in wanted:
            typer.echo(origin)
            for c in list_checks(catalogue, origin):
                typer.echo(coloured_checks(f"  {check_line(c)}"))
        if summary["internal"]:
            typer.echo(f"{summary['internal']} origin(s) failed on an internal error of agentdex", err=True)
    if summary["internal"]:  # as crawl: an origin hit a bug of agentdex, the others are saved
        raise typer.Exit(1)
    _fail_when_none_reached(summary)


def _refuse_unknown(db, wanted: list[str]) -> None:
    """Exit with NOT_IN_CATALOGUE when an origin is not in the catalogue (nothing is stored)."""
    from agentdex.cli_support import NOT_IN_CATALOGUE
    from agentdex.db import missing_origins

    missing = missing_origins(open_catalogue(db, readonly=True), wanted) if db_path(db).exists() else wanted
    if missing:
        fail(
            f"not in the catalogue: {', '.join(missing)}; crawl it first (agentdex crawl {missing[0]}) "
            "or add --add to verify and add it",
            NOT_IN_CATALOGUE,
        )


@commands.command(epilog=CONFIG_HELP)
@network_settings(exclude={"shard"})
def seeds(
    sources: Annotated[
        list[str],
        typer.Argument(
            metavar="SOURCE",
            help=(
                "registry:BASE (an MCP registry API), or a file: saved registry pages (JSON or NDJSON), "
                "an A2A registry listing, a CSV rank,domain list, or plain text."
            ),
        ),
    ],
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="TIME",
            help=(
                "Ask registries only for servers updated after this RFC 3339 time (default: where the "
                "last run stopped)."
            ),
        ),
    ] = None,
    read_budget: Annotated[
        float,
        typer.Option(
            "--read-budget",
            metavar="SECONDS",
            min=1,
            help="Seconds one registry read may take, all its pages together; past it the read is cut short.",
        ),
    ] = 600.0,
    db: DbOpt = None,
    settings: GivenSettings = NOT_GIVEN,
    as_json: JsonOpt = False,
) -> None:
    """Origins to crawl, one a line (ready for crawl --seeds), from MCP registries and lists;
    records which source named each origin in the catalogue as it reads. Origins come in the
    order read: the sources in the order given, each in its own order (a rank,domain list by
    rank); an origin several sources name comes once, at its first place. Refused entries go
    to stderr; a registry read cut short (by its budget, or a page that fails) too, and exits 1."""
    import asyncio

    from agentdex.db.seeds import RunWriter, load_cursors
    from agentdex.seeds import check_since, collect, default_budget, naming_row, parse_source

    net = settings.options()
    try:
        since = check_since(since)
        for source in sources:
            parse_source(source)  # refuse a bad source before the catalogue is created
        catalogue = open_catalogue(db, readonly=False)
        writer = RunWriter(catalogue)
        sink = lambda batch: writer.write([naming_row(n) for n in batch])  # noqa: E731
        budget = default_budget(read_budget)
        run = asyncio.run(collect(sources, net, since=since, cursors=load_cursors(catalogue), sink=sink, budget=budget))
    except InputError as exc:
        fail(str(exc), 2)
    writer.save_cursors(run.cursors, run.servers_seen)
    _print_seeds(writer, run, as_json)
    if run.cuts:
        raise typer.Exit(1)


def _print_seeds(writer, run, as_json: bool) -> None:
    """The run read back from the catalogue (never all in memory): JSON, or origins on stdout
    and refusals and cut reads on stderr."""
    from agentdex.seeds import Refused, from_rows

    if as_json:
        echo_json_items(itertools.chain((item.to_dict() for item in from_rows(writer.rows())), run.cut_list()))
    else:
        # One pass over the run: each seed's lines on stdout (an origin alone, or one line an
        # endpoint a registry declares there), each refusal on stderr.
        printed = 0
        for item in from_rows(writer.rows()):
            if isinstance(item, Refused):
                typer.echo(
                    f"refused {plain(item.named.url or item.named.name, 200)!r} ({plain(item.named.source, 80)} "
                    f"{plain(item.named.name, 80)}): {plain(item.reason, 200)}",
                    err=True,
                )
            else:
                for line in item.lines():
                    typer.echo(line)
                    printed += 1
        if not printed:  # an empty stdout alone reads as a failure, or as a run still to come
            typer.echo(
                "agentdex: no origin to crawl: the sources named none that is new (a registry is read from "
                "where its last run stopped; --since TIME reads from an earlier time)",
                err=True,
            )
    for cut in run.cuts:
        typer.echo(f"agentdex: {plain(cut.sentence(), 600)}", err=True)

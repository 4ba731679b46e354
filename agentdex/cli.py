"""The ``agentdex`` command: a thin typer layer over the library.

Each command parses its options, calls one library function and prints the result as
plain text or, with ``--json``, as JSON. Library errors become a message on stderr and a
non-zero exit; nothing here parses manifests or writes SQL.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Annotated

import typer

from agentdex import formats
from agentdex.cli_catalogue import commands as catalogue_commands
from agentdex.cli_datasette import commands as datasette_commands
from agentdex.cli_support import (
    DbOpt,
    JsonOpt,
    db_path,
    echo_json,
    echo_json_items,
    fail,
    open_catalogue,
    plain_help,
)  # noqa: F401 (commands in other modules use them through here too)
from agentdex.cli_tools import commands as tools_commands
from agentdex.errors import AgentdexError, DatabaseError, InputError
from agentdex.formats.schemas import FAMILIES, SHIPPED
from agentdex.models import ParseResult
from agentdex.text import plain

app = typer.Typer(
    help="A local, SQLite-first catalogue of agent apps.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.registered_commands += catalogue_commands.registered_commands  # list, show, events, plan, stats, forget
app.registered_commands += datasette_commands.registered_commands  # metadata
app.add_typer(tools_commands, name="tools")  # tools lint


def _version(value: bool) -> None:
    if value:
        from agentdex import __version__

        typer.echo(f"agentdex {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """A local, SQLite-first catalogue of agent apps."""


# agentdex.validate.CHOICES (without importing jsonschema): every format it reads.
VALIDATE_CHOICES = (*formats.FORMAT_NAMES, *formats.VALIDATE_DISCOVERY)


def render_result(path: str, result: ParseResult) -> None:
    """Print a validation result in its human form."""
    from agentdex.render import result_lines

    typer.echo("\n".join(result_lines(path, result)))


@app.command()
def validate(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PATH", help="A manifest or discovery document, an .adapp package or a repository folder."
        ),
    ],
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help=f"auto, {formats.choices(VALIDATE_CHOICES)}.")
    ] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """Validate a manifest or discovery document to the letter of its spec. Exit 0 valid, 1 invalid,
    2 unusable input (no manifest or discovery document of any kind)."""
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
def schema(name: Annotated[str, typer.Argument(metavar="FORMAT", help=f"{formats.choices(SHIPPED)}.")]) -> None:
    """Print a JSON Schema agentdex ships for a format (its own, or a publisher's copied byte for byte)."""
    from agentdex.formats.schemas import load_shipped

    if name in FAMILIES:
        fail(
            f"{name} has {len(FAMILIES[name])} schemas, one a version: name one of {formats.choices(FAMILIES[name])}", 2
        )
    try:
        echo_json(load_shipped(name))
    except KeyError:
        fail(f"no schema named {name!r}; choose {formats.choices(SHIPPED)}", 2)


# -- the catalogue ---------------------------------------------------------------------------

# Each network option is read from its flag, else its environment variable, else the
# config file (agentdex/config.py), else its default: None here means "not given".
_CONFIGURED = "; else config key {key}"
ConnectToOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--connect-to",
        metavar="PATTERN:ADDR:PORT",
        envvar="AGENTDEX_CONNECT_TO",
        help="Send connections for hosts matching PATTERN (* wildcards) to ADDR:PORT; TLS still verifies the host "
        "name. Repeatable; the variable holds several, separated by spaces or commas"
        + _CONFIGURED.format(key="connect_to")
        + ".",
    ),
]
CaOpt = Annotated[
    Path | None,
    typer.Option(
        "--ca-bundle",
        metavar="PEM",
        envvar="AGENTDEX_CA_BUNDLE",
        help="An extra trusted CA certificate (PEM file)" + _CONFIGURED.format(key="ca_bundle") + ".",
    ),
]
DnsOpt = Annotated[
    str | None,
    typer.Option(
        "--dns-server",
        metavar="ADDR:PORT",
        envvar="AGENTDEX_DNS_SERVER",
        help="The DNS server for every lookup, host addresses and DNS TXT proofs"
        + _CONFIGURED.format(key="dns_server")
        + "; default the system's resolver.",
    ),
]
CONCURRENCY = 16  # the default of every command's --concurrency (and of NetworkOptions)
ConcOpt = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        metavar="N",
        min=1,
        max=512,
        envvar="AGENTDEX_CONCURRENCY",
        help="Requests in flight at once (1-512)" + _CONFIGURED.format(key="concurrency") + f"; default {CONCURRENCY}.",
    ),
]
PrivOpt = Annotated[
    bool | None,
    typer.Option(
        "--allow-private/--no-allow-private",
        envvar="AGENTDEX_ALLOW_PRIVATE",
        help="Allow private, loopback and link-local addresses"
        + _CONFIGURED.format(key="allow_private")
        + "; default no.",
    ),
]
RegOpt = Annotated[
    str | None,
    typer.Option(
        "--registry",
        metavar="URL",
        envvar="AGENTDEX_REGISTRY",
        help="MCP registry API base for registry proofs and crawl --registry-lookup"
        + _CONFIGURED.format(key="registry")
        + "; default https://registry.modelcontextprotocol.io.",
    ),
]
DeadlineOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.5,
        max=600,
        envvar="AGENTDEX_TIMEOUT",
        help="Total seconds one request may take (connect, TLS, redirects, body)"
        + _CONFIGURED.format(key="timeout")
        + "; default 15.",
    ),
]
CONFIG_HELP = (
    "Network options not given as flags are read from AGENTDEX_* environment variables, then from "
    "the TOML file $AGENTDEX_CONFIG (default ~/.config/agentdex/config.toml, under $XDG_CONFIG_HOME "
    "when set)."
)


def network_options(
    connect_to,
    ca_bundle,
    dns_server,
    concurrency,
    allow_private,
    registry,
    deadline: float | None = None,
    registry_lookup: bool = False,
):
    """The shared network options as a :class:`NetworkOptions`: each from its flag (or
    environment variable), else the config file, else the default."""
    from agentdex.config import load_config, split_list
    from agentdex.crawler.netpolicy import parse_connect_to
    from agentdex.crawler.options import DEFAULT_REGISTRY, NetworkOptions

    try:
        config = load_config()
        specs = [part for item in connect_to or [] for part in split_list(item)] or config.connect_to
        pairs = [parse_connect_to(item) for item in specs]
    except InputError as exc:
        fail(str(exc), 2)
    ca_bundle = ca_bundle if ca_bundle is not None else config.ca_bundle
    dns_server = dns_server if dns_server is not None else config.dns_server
    if ca_bundle is not None and not ca_bundle.is_file():
        fail(f"--ca-bundle: no such file {ca_bundle}", 2)
    if dns_server is not None and not _is_addr_port(dns_server):
        fail(f"--dns-server {dns_server!r}: expected ADDR:PORT, e.g. 127.0.0.1:5353", 2)
    try:
        return NetworkOptions(
            connect_to=pairs,
            ca_bundle=ca_bundle,
            dns_server=dns_server,
            concurrency=_first(concurrency, config.concurrency, CONCURRENCY),
            allow_private=_first(allow_private, config.allow_private, False),
            registry=registry or config.registry or DEFAULT_REGISTRY,
            deadline=_first(deadline, config.timeout, 15.0),
            registry_lookup=registry_lookup,
        )
    except InputError as exc:
        fail(str(exc), 2)


def _first(*values):
    return next(v for v in values if v is not None)


def network_configured(*given) -> bool:
    """Whether any network option was given, by flag, environment or config file."""
    from agentdex.config import config_path, load_config

    try:
        if any(v not in (None, []) for v in given):
            return True
        return config_path() is not None and bool(load_config().model_dump(exclude_defaults=True))
    except InputError as exc:
        fail(str(exc), 2)


def _is_addr_port(text: str) -> bool:
    from agentdex.headers import port_number

    addr, sep, port = text.rpartition(":")
    return bool(sep and addr and port_number(port) is not None)


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
    when ``quiet``)."""
    import asyncio

    from agentdex.crawler.crawl import crawl

    db = open_catalogue(path, readonly=False)
    with _progress_display(len(origins), quiet) as show:
        try:
            summary = asyncio.run(
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
                )
            )
        except KeyboardInterrupt:
            fail("interrupted: every finished origin is saved; run the same command again to complete the rest", 130)
        except DatabaseError as exc:  # a full disk: a sentence, never a traceback
            fail(str(exc), 1)
    return summary.to_dict()


def _progress_display(total: int, quiet: bool = False):
    """A rich progress bar on a terminal; plain lines on a pipe; nothing when ``quiet``."""
    import contextlib

    if quiet:
        return contextlib.nullcontext(None)
    if not sys.stderr.isatty():

        def plain_line(state) -> None:
            typer.echo(f"[{state.done}/{state.total}] {plain(state.last_origin, 60)} {state.last_status}", err=True)

        return contextlib.nullcontext(plain_line)
    return _RichProgress(total)


class _RichProgress:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(
            TextColumn("crawling"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}", markup=False),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.task = self.bar.add_task("crawl", total=total, info="")

    def __enter__(self):
        self.bar.start()
        return self.update

    def update(self, state) -> None:
        info = f"{state.requests} requests, {state.errors} failed; finished {plain(state.last_origin, 40)}"
        self.bar.update(self.task, completed=state.done, info=info)

    def __exit__(self, *exc) -> None:
        self.bar.stop()


@app.command(epilog=CONFIG_HELP)
def crawl(
    origins: Annotated[
        list[str] | None,
        typer.Argument(metavar="ORIGIN", help="Hosts or https URLs. None: recrawl every known origin."),
    ] = None,
    seeds: Annotated[
        Path | None,
        typer.Option(
            "--seeds",
            metavar="FILE",
            help=(
                "A file with one origin per line (# comments; - reads standard input); a line may go on with "
                "the MCP endpoint a registry declares there, as agentdex seeds prints it."
            ),
        ),
    ] = None,
    db: DbOpt = None,
    connect_to: ConnectToOpt = None,
    ca_bundle: CaOpt = None,
    dns_server: DnsOpt = None,
    concurrency: ConcOpt = None,
    allow_private: PrivOpt = None,
    registry: RegOpt = None,
    timeout: DeadlineOpt = None,
    no_verify: Annotated[bool, typer.Option("--no-verify", help="Skip verification checks.")] = False,
    due: Annotated[
        bool,
        typer.Option("--due", help="Crawl only the known origins whose next-due time has passed, most overdue first."),
    ] = False,
    revalidate: Annotated[
        bool,
        typer.Option(
            "--revalidate", help="Ask about every document, even one whose stored answer is still fresh (HTTP caching)."
        ),
    ] = False,
    max_fresh: Annotated[
        float,
        typer.Option(
            "--max-fresh",
            min=0,
            metavar="SECONDS",
            help="Seconds after its arrival a stored answer may still be used fresh, at most (0: ask every time).",
        ),
    ] = 86400.0,
    min_fresh: Annotated[
        float,
        typer.Option(
            "--min-fresh",
            min=0,
            metavar="SECONDS",
            help="Seconds of freshness a stored answer must have left to be used instead of asking.",
        ),
    ] = 60.0,
    registry_lookup: Annotated[
        bool,
        typer.Option(
            "--registry-lookup",
            help=(
                "Also ask the MCP registry (--registry, default the official one) what it lists in each "
                "origin's namespace (pantry.test: test.pantry/…), and cross-check it."
            ),
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress display (bar or lines); the summary only.")
    ] = False,
    origin_budget: Annotated[
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
    ] = 120.0,
    processes: Annotated[
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
    ] = 1,
    shard_text: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="I/N",
            help=(
                "Crawl only part I of N of the origins (I from 0), chosen by a stable hash of each origin, into "
                "this --db; auto/N takes I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID. agentdex merge joins "
                "the parts' catalogues (docs/scale.md)."
            ),
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Crawl origins into the catalogue: discover, validate, store, diff and verify.

    A document whose stored answer is still fresh (its Cache-Control max-age or Expires)
    is not asked again; the snapshot says so. No MCP registry is asked what it lists for an
    origin unless --registry-lookup says so."""
    from agentdex.crawler.freshness import Policy
    from agentdex.crawler.origins import unique

    net = network_options(
        connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout, registry_lookup
    )
    shard = _shard(shard_text)
    named = _seed_file(seeds, net)
    wanted = wanted_origins(origins or [], net) + named.origins
    endpoints = [row for row in named.endpoints if shard is None or shard.owns(row["origin"])]
    if endpoints:
        _record_endpoints(db, endpoints)
    if due and wanted:
        fail("--due takes the origins the schedule says are due; name no origin and no --seeds file", 2)
    if not wanted:
        wanted = _recrawl_origins(db, due)
        if not wanted:
            _nothing_due(db, as_json)
            return
    if shard is not None:
        wanted = _shard_share(shard, unique(wanted), quiet)
    net.origin_budget = origin_budget
    policy = Policy(ceiling=max_fresh, floor=min_fresh, revalidate=revalidate)
    summary = run_crawl(
        db, unique(wanted), net, verify=not no_verify, policy=policy, quiet=quiet, processes=processes, shard=shard
    )
    if as_json:
        echo_json(summary)
    else:
        from agentdex.render import summary_lines

        typer.echo("\n".join(summary_lines(summary)))
    if summary["internal"]:  # an origin hit a bug of agentdex: the others are saved, the run says so
        raise typer.Exit(1)
    _fail_when_none_reached(summary)


def _shard(text: str | None):
    """The :class:`~agentdex.crawler.options.Shard` ``--shard`` names, or None; a bad value
    is an exit 2 with its reason."""
    from agentdex.crawler.options import parse_shard

    try:
        return None if text is None else parse_shard(text)
    except InputError as exc:
        fail(str(exc), 2)


def _shard_share(shard, origins: list[str], quiet: bool) -> list[str]:
    """This shard's origins of ``origins``; says so on standard error when it has none."""
    share = [origin for origin in origins if shard.owns(origin)]
    if not share and not quiet:
        typer.echo(
            f"shard {shard}: none of the {len(origins)} origins is this shard's; its catalogue stays empty", err=True
        )
    return share


def wanted_origins(texts: list[str], net, seeds: Path | None = None) -> list[str]:
    """The origins a user named (and a seeds file holds), each decided by
    :func:`~agentdex.crawler.origins.public_origin`; a refusal is an exit 2 with its reason."""
    from agentdex.crawler.origins import NotPublic, chosen_by, public_origins, read_seeds

    chosen = chosen_by(net)
    try:
        return public_origins(texts, chosen) + (read_seeds(seeds, chosen) if seeds else [])
    except NotPublic as exc:
        fail(f"{exc}; to crawl a server of your own, name it with --connect-to HOST:ADDR:PORT or --allow-private", 2)
    except InputError as exc:
        fail(str(exc), 2)


def _seed_file(seeds: Path | None, net):
    """What a seeds file names (:func:`agentdex.crawler.seedlines.read_seed_file`): its origins,
    each a public one as :func:`wanted_origins` decides, and the endpoints its lines declare."""
    from agentdex.crawler.origins import NotPublic, chosen_by
    from agentdex.crawler.seedlines import SeedFile, read_seed_file

    try:
        return read_seed_file(seeds, chosen_by(net)) if seeds else SeedFile()
    except NotPublic as exc:
        fail(f"{exc}; to crawl a server of your own, name it with --connect-to HOST:ADDR:PORT or --allow-private", 2)
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


def _record_endpoints(db, rows: list[dict]) -> None:
    """Record the endpoints a seeds file declares, as ``agentdex seeds`` does, so the crawl
    (and every recrawl) probes them."""
    from agentdex.db.seeds import save_run

    save_run(open_catalogue(db, readonly=False), rows, {}, {})


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


@app.command(epilog=CONFIG_HELP)
def verify(
    origins: Annotated[list[str], typer.Argument(metavar="ORIGIN", help="Origins already in the catalogue.")],
    add: Annotated[
        bool, typer.Option("--add", help="Verify origins the catalogue does not have yet too, adding them.")
    ] = False,
    db: DbOpt = None,
    connect_to: ConnectToOpt = None,
    ca_bundle: CaOpt = None,
    dns_server: DnsOpt = None,
    concurrency: ConcOpt = None,
    allow_private: PrivOpt = None,
    registry: RegOpt = None,
    timeout: DeadlineOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-check every claim the listings make (their manifests are fetched conditionally).
    An origin the catalogue does not have is refused unless --add says to add it."""
    from agentdex.crawler.origins import unique

    net = network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout)
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


@app.command(epilog=CONFIG_HELP)
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
    connect_to: ConnectToOpt = None,
    ca_bundle: CaOpt = None,
    dns_server: DnsOpt = None,
    concurrency: ConcOpt = None,
    allow_private: PrivOpt = None,
    registry: RegOpt = None,
    timeout: DeadlineOpt = None,
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

    net = network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout)
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


@app.command(epilog=CONFIG_HELP)
def census(
    db: DbOpt = None,
    state: Annotated[
        str | None,
        typer.Option(
            "--state",
            metavar="STATE",
            help="List the endpoints in this state (open, auth_gated, not_mcp, unreachable, …), one a line.",
        ),
    ] = None,
    endpoints: Annotated[
        bool,
        typer.Option("--endpoints", help="List every endpoint: URL, origin, census state and era, one a line."),
    ] = False,
    confirm: Annotated[
        bool,
        typer.Option(
            "--confirm",
            help="Probe every endpoint that is not open again through a second, independent HTTP stack "
            "and count, per state, how many it agrees with (network options as for crawl).",
        ),
    ] = False,
    connect_to: ConnectToOpt = None,
    ca_bundle: CaOpt = None,
    dns_server: DnsOpt = None,
    allow_private: PrivOpt = None,
    timeout: DeadlineOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The probe state, era and auth kind of every MCP endpoint the catalogue knows, with
    counts and shares; with --state, the endpoints in one state; with --endpoints, every
    endpoint (with its uptime windows); with --confirm, a second opinion on those not open."""
    from agentdex.db.seeds import CENSUS_STATES
    from agentdex.db.seeds import census as count

    if confirm:
        from agentdex.cli_census import confirm_census

        net = network_options(connect_to, ca_bundle, dns_server, None, allow_private, None, timeout)
        confirm_census(db, net, as_json)
        return

    if state is not None and state not in CENSUS_STATES:
        fail(f"--state {state!r}: choose one of {', '.join(CENSUS_STATES)}", 2)
    if state is not None or endpoints:
        from agentdex.cli_census import list_endpoints

        list_endpoints(db, state, as_json)
        return
    data = count(open_catalogue(db, readonly=True))
    if as_json:
        echo_json(data)
    else:
        from agentdex.render import census_lines

        typer.echo("\n".join(census_lines(data)))


# -- apps on top of the catalogue ---------------------------------------------------------------


@app.command()
def prune(
    keep: Annotated[
        float,
        typer.Option("--keep", min=0, metavar="DAYS", help="Days of history to keep: older unchanged history goes."),
    ],
    vacuum: Annotated[
        bool, typer.Option("--vacuum", help="Then compact the file (rewrites it; needs as much free space).")
    ] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Drop history last seen more than KEEP days ago: superseded snapshots no event refers
    to, endpoint probes and samples beyond each endpoint's latest ten, and bodies nothing refers to."""
    from agentdex.db.retention import prune as prune_catalogue

    result = prune_catalogue(open_catalogue(db, readonly=False), keep, vacuum=vacuum)
    if as_json:
        echo_json(result.to_dict())
        return
    typer.echo(
        f"pruned history last seen before {result.cutoff}: {result.snapshots} snapshot(s), "
        f"{result.endpoint_probes} endpoint probe(s), {result.endpoint_samples} endpoint sample(s), "
        f"{result.blobs} unused bodies" + ("; file compacted" if result.vacuumed else "")
    )


@app.command(epilog=CONFIG_HELP)
def tui(
    db: DbOpt = None,
    connect_to: ConnectToOpt = None,
    ca_bundle: CaOpt = None,
    dns_server: DnsOpt = None,
    concurrency: ConcOpt = None,
    allow_private: PrivOpt = None,
    registry: RegOpt = None,
) -> None:
    """Browse the catalogue in a terminal UI: search, filter, inspect, verify, plan, crawl.
    The network options apply to re-verify, re-crawl and feedback started from the TUI."""
    from agentdex.tui.app import run_tui

    given = network_configured(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry)
    # Without network options the app builds its defaults when a crawl first needs them:
    # importing the crawler here would hold back the first paint.
    run_tui(
        db_path(db),
        network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry) if given else None,
    )


@app.command()
def serve(
    db: DbOpt = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, metavar="PORT", help="The port to listen on.")
    ] = 8001,
    host: Annotated[str, typer.Option("--host", metavar="ADDR", help="The address to listen on.")] = "127.0.0.1",
) -> None:
    """Publish the catalogue read-only with Datasette (same as: datasette DB --metadata datasette_metadata.json)."""
    from agentdex.serve import ServeError, port_free_on
    from agentdex.serve import serve as run_serve

    path = db_path(db)
    if not path.is_file():
        fail(f"no catalogue at {path}; run `agentdex crawl ORIGIN` or `agentdex demo` first", 1)
    try:
        port_free_on(host, port)
    except ServeError as exc:
        fail(str(exc), exc.code)
    run_serve(path, host=host, port=port)


@app.command()
def demo(
    no_tui: Annotated[
        bool, typer.Option("--no-tui", help="Print a summary and exit instead of opening the TUI.")
    ] = False,
    serve_too: Annotated[bool, typer.Option("--serve", help="Also publish the demo catalogue with Datasette.")] = False,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", metavar="FILE", help="Where to write the demo catalogue (default: a fresh temporary file)."
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", metavar="PORT", help="Datasette's port with --serve.")] = 8001,
) -> None:
    """Start the bundled sample web, crawl and verify it into a fresh catalogue, open the TUI."""
    from agentdex.demo import run_demo

    raise typer.Exit(run_demo(db=db, tui=not no_tui, serve=serve_too, port=port, echo=typer.echo, load_tui=_load_tui))


def _load_tui():
    from agentdex.tui.app import run_tui

    return run_tui


@app.command()
def sampleweb(
    synthetic: Annotated[
        int,
        typer.Option("--synthetic", min=0, metavar="N", help="Serve N generated origins instead of the bundled ones."),
    ] = 0,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, metavar="PORT", help="The HTTPS port (default: a free one).")
    ] = 0,
    seeds_out: Annotated[
        Path | None,
        typer.Option("--seeds-out", metavar="FILE", help="Write the origins served, one a line, for crawl --seeds."),
    ] = None,
) -> None:
    """Serve the bundled sample web on loopback (HTTPS, throwaway CA, local DNS) until Ctrl-C
    or SIGTERM, which both remove its temporary folder (CA key included)."""
    from agentdex.sampleweb import missing_extra

    if (why := missing_extra()) is not None:
        fail(why, 2)
    from agentdex.sampleweb.server import run_forever

    if seeds_out is not None and seeds_out.is_dir():
        fail(f"--seeds-out {seeds_out} is a directory; name a file", 2)
    run_forever(synthetic=synthetic, port=port, print_fn=typer.echo, seeds_out=seeds_out)


@app.command("import")
def import_cmd(
    path: Annotated[
        Path, typer.Argument(metavar="PATH", help="An .adapp package or a repository folder (FindAgent, adapp source).")
    ],
    origin: Annotated[
        str | None,
        typer.Option("--origin", metavar="ORIGIN", help="The origin to list it under (default: its endpoint's host)."),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import a package or repository into the catalogue (only when it is valid)."""
    from agentdex.importer import import_path

    try:
        result, origin_name, events = import_path(open_catalogue(db, readonly=False), path, origin)
    except InputError as exc:
        fail(str(exc), 2)
    if as_json:
        echo_json({"origin": origin_name, **result.to_dict(), "events": [e.kind for e in events]})
    else:
        render_result(str(path), result)
        typer.echo(f"imported as {origin_name}" if result.valid else "not imported: the package is invalid")
    raise typer.Exit(0 if result.valid else 1)


@app.command()
def pack(
    folder: Annotated[
        Path, typer.Argument(metavar="FOLDER", help="An adapp source folder with manifest.json at its root.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="The .adapp file to write.")],
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
    typer.echo(
        f"wrote {output} ({len(data):,} bytes, {result.listing.extra.get('checksum') if result.listing else ''})"
    )


plain_help(app)  # last: every command registered above (and in cli_catalogue) gets it
plain_help(tools_commands)


def main() -> None:
    """Console-script entry point: library errors never become tracebacks."""
    try:
        app(prog_name="agentdex")  # the name users type, under python -m too (usage, completion)
    except AgentdexError as exc:
        typer.echo(f"agentdex: {plain(exc)}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("agentdex: interrupted", err=True)
        sys.exit(130)

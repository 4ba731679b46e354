"""The ``agentdex`` command: a thin typer layer over the library.

Each command parses its options, calls one library function and prints the result as
plain text or, with ``--json``, as JSON. Library errors become a message on stderr and a
non-zero exit; nothing here parses manifests or writes SQL.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentdex import formats
from agentdex.cli_catalogue import commands as catalogue_commands
from agentdex.cli_crawl import commands as crawl_commands
from agentdex.cli_datasette import commands as datasette_commands
from agentdex.cli_network import CONFIG_HELP, NOT_GIVEN, GivenSettings, network_settings
from agentdex.cli_support import (
    DbOpt,
    JsonOpt,
    db_path,
    echo_json,
    fail,
    open_catalogue,
    plain_help,
)  # noqa: F401 (commands in other modules use them through here too)
from agentdex.cli_tools import commands as tools_commands
from agentdex.errors import AgentdexError, InputError
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

app.registered_commands += crawl_commands.registered_commands  # crawl, verify, seeds


@app.command(epilog=CONFIG_HELP)
@network_settings(exclude={"shard", "concurrency", "registry"})  # --confirm's probes use these
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
        typer.Option(
            "--endpoints",
            help="List every endpoint, one a line: URL, origin, census state, era, auth kind, "
            "uptime over 24 h, 7 and 30 days, p95 latency, last verified.",
        ),
    ] = False,
    confirm: Annotated[
        bool,
        typer.Option(
            "--confirm",
            help="Probe every endpoint that is not open again through a second, independent HTTP stack "
            "and count, per state, how many it agrees with (network options as for crawl).",
        ),
    ] = False,
    settings: GivenSettings = NOT_GIVEN,
    as_json: JsonOpt = False,
) -> None:
    """The probe state, era and auth kind of every MCP endpoint the catalogue knows, with
    counts and shares; with --state, the endpoints in one state; with --endpoints, every
    endpoint (with its uptime windows); with --confirm, a second opinion on those not open."""
    from agentdex import cli_census
    from agentdex.db.seeds import CENSUS_STATES

    if confirm:
        cli_census.confirm_census(db, settings.options(), as_json)
        return
    if state is not None and state not in CENSUS_STATES:
        fail(f"--state {state!r}: choose one of {', '.join(CENSUS_STATES)}", 2)
    if state is not None or endpoints:
        cli_census.list_endpoints(db, state, as_json)
        return
    cli_census.print_census(db, as_json)


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
@network_settings(exclude={"shard"})
def tui(db: DbOpt = None, settings: GivenSettings = NOT_GIVEN) -> None:
    """Browse the catalogue in a terminal UI: search, filter, inspect, verify, plan, crawl.
    The network options apply to re-verify, re-crawl and feedback started from the TUI."""
    from agentdex.tui.app import run_tui

    # Without network options the app builds its defaults when a crawl first needs them:
    # validating settings (pydantic) and importing the crawler here would hold back the first paint.
    run_tui(db_path(db), settings.options() if settings.configured() else None)


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
    typer.echo(f"wrote {output} ({len(data):,} bytes, {result.listing.facts.checksum if result.listing else ''})")


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

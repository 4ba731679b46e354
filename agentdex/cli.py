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

from agentdex import formats
from agentdex.errors import AgentdexError, DatabaseError, InputError
from agentdex.formats.schemas import SCHEMAS
from agentdex.models import ParseResult
from agentdex.text import plain, terminal_safe_json

app = typer.Typer(help="A local, SQLite-first catalogue of agent apps.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)


def _version(value: bool) -> None:
    if value:
        from agentdex import __version__

        typer.echo(f"agentdex {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """A local, SQLite-first catalogue of agent apps."""

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
VALIDATE_CHOICES = (*formats.FORMAT_NAMES, "server_json", "a2a_card", "server_card", "api_catalog",
                    "x402_discovery", "ai_catalog")  # agentdex.validate.CHOICES, without importing jsonschema


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON (nothing in it a terminal would act on or hide)."""
    typer.echo(terminal_safe_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)))


def fail(message: str, code: int = 1) -> None:
    """Print an error to stderr and exit with ``code``."""
    typer.echo(f"agentdex: {plain(message)}", err=True)
    raise typer.Exit(code)


def render_result(path: str, result: ParseResult) -> None:
    """Print a validation result in its human form."""
    from agentdex.render import result_lines

    typer.echo("\n".join(result_lines(path, result)))


@app.command()
def validate(
    path: Annotated[Path, typer.Argument(help="A manifest or discovery document, an .adapp package or a repository folder.")],
    format: Annotated[str, typer.Option("--format", "-f", help=f"auto, {formats.choices(VALIDATE_CHOICES)}.")] = "auto",
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
def schema(name: Annotated[str, typer.Argument(help=f"{formats.choices(tuple(SCHEMAS))}.")]) -> None:
    """Print the JSON Schema agentdex ships for a format."""
    from agentdex.formats.schemas import load_schema

    try:
        echo_json(load_schema(name))
    except KeyError:
        fail(f"no schema named {name!r}; choose {formats.choices(tuple(SCHEMAS))}", 2)


# -- the catalogue ---------------------------------------------------------------------------

DbOpt = Annotated[Optional[Path], typer.Option("--db", help="The catalogue file (default $AGENTDEX_DB or ./agentdex.db).")]
ConnectToOpt = Annotated[Optional[list[str]], typer.Option("--connect-to", help="PATTERN:ADDR:PORT — send connections for matching hosts to ADDR:PORT (TLS still verifies the host name). Repeatable.")]
CaOpt = Annotated[Optional[Path], typer.Option("--ca-bundle", help="An extra trusted CA (PEM).")]
DnsOpt = Annotated[Optional[str], typer.Option("--dns-server", help="ADDR:PORT of the resolver for DNS TXT proofs.")]
ConcOpt = Annotated[int, typer.Option("--concurrency", min=1, max=512, help="Requests in flight at once.")]
CONCURRENCY = 16  # the default of every command's --concurrency (and of NetworkOptions)
PrivOpt = Annotated[bool, typer.Option("--allow-private", help="Allow private, loopback and link-local addresses.")]
RegOpt = Annotated[Optional[str], typer.Option("--registry", help="MCP registry API base for registry proofs and crawl --registry-lookup (default https://registry.modelcontextprotocol.io).")]
DeadlineOpt = Annotated[float, typer.Option("--timeout", min=0.5, max=600, help="Total seconds one request may take (connect, TLS, redirects, body).")]


def db_path(path: Path | None) -> Path:
    """The catalogue path: ``--db``, else ``$AGENTDEX_DB``, else ``./agentdex.db`` (a
    directory is refused: exit 2)."""
    import os

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


def network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, deadline: float = 15.0,
                    registry_lookup: bool = False):
    """The shared network options as a :class:`NetworkOptions`."""
    from agentdex.crawler.crawl import DEFAULT_REGISTRY, NetworkOptions
    from agentdex.crawler.netpolicy import parse_connect_to

    try:
        pairs = [parse_connect_to(item) for item in connect_to or []]
    except InputError as exc:
        fail(str(exc), 2)
    if ca_bundle is not None and not ca_bundle.is_file():
        fail(f"--ca-bundle: no such file {ca_bundle}", 2)
    if dns_server is not None and not _is_addr_port(dns_server):
        fail(f"--dns-server {dns_server!r}: expected ADDR:PORT, e.g. 127.0.0.1:5353", 2)
    try:
        return NetworkOptions(connect_to=pairs, ca_bundle=ca_bundle, dns_server=dns_server,
                              concurrency=concurrency, allow_private=allow_private,
                              registry=registry or DEFAULT_REGISTRY, deadline=deadline,
                              registry_lookup=registry_lookup)
    except InputError as exc:
        fail(str(exc), 2)


def _is_addr_port(text: str) -> bool:
    addr, sep, port = text.rpartition(":")
    return bool(sep and addr and port.isdigit() and 0 < int(port) < 65536)


def run_crawl(path, origins, net, *, verify: bool, kind: str = "crawl", policy=None) -> dict:
    """Run a crawl with a progress display on a terminal (plain lines otherwise)."""
    import asyncio

    from agentdex.crawler.crawl import crawl

    db = open_catalogue(path, readonly=False)
    with _progress_display(len(origins)) as show:
        try:
            summary = asyncio.run(crawl(db, origins, net, verify=verify, progress=show, kind=kind, policy=policy))
        except KeyboardInterrupt:
            fail("interrupted: every finished origin is saved; run the same command again to complete the rest", 130)
        except DatabaseError as exc:  # a full disk: a sentence, never a traceback
            fail(str(exc), 1)
    return summary.to_dict()


def _progress_display(total: int):
    """A rich progress bar on a terminal; plain lines on a pipe."""
    import contextlib

    if not sys.stderr.isatty():
        def plain_line(state) -> None:
            typer.echo(f"[{state.done}/{state.total}] {plain(state.last_origin, 60)} {state.last_status}", err=True)
        return contextlib.nullcontext(plain_line)
    return _RichProgress(total)


class _RichProgress:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("crawling"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[info]}", markup=False), TimeElapsedColumn(),
                            console=Console(stderr=True), transient=True)
        self.task = self.bar.add_task("crawl", total=total, info="")

    def __enter__(self):
        self.bar.start()
        return self.update

    def update(self, state) -> None:
        info = f"{state.requests} requests, {state.errors} errors, last: {plain(state.last_origin, 40)}"
        self.bar.update(self.task, completed=state.done, info=info)

    def __exit__(self, *exc) -> None:
        self.bar.stop()


@app.command()
def crawl(
    origins: Annotated[Optional[list[str]], typer.Argument(help="Hosts or https URLs. None: recrawl every known origin.")] = None,
    seeds: Annotated[Optional[Path], typer.Option("--seeds", help="A file with one origin per line (# comments).")] = None,
    db: DbOpt = None, connect_to: ConnectToOpt = None, ca_bundle: CaOpt = None, dns_server: DnsOpt = None,
    concurrency: ConcOpt = CONCURRENCY, allow_private: PrivOpt = False, registry: RegOpt = None,
    timeout: DeadlineOpt = 15.0,
    no_verify: Annotated[bool, typer.Option("--no-verify", help="Skip verification checks.")] = False,
    due: Annotated[bool, typer.Option("--due", help="Crawl only the known origins whose next-due time has passed, most overdue first.")] = False,
    revalidate: Annotated[bool, typer.Option("--revalidate", help="Ask about every document, even one whose stored answer is still fresh (HTTP caching).")] = False,
    max_fresh: Annotated[float, typer.Option("--max-fresh", min=0, help="Seconds after its arrival a stored answer may still be used fresh, at most (0: ask every time).")] = 86400.0,
    min_fresh: Annotated[float, typer.Option("--min-fresh", min=0, help="Seconds of freshness a stored answer must have left to be used instead of asking.")] = 60.0,
    registry_lookup: Annotated[bool, typer.Option("--registry-lookup", help="Also ask the MCP registry (--registry, default the official one) what it lists in each origin's namespace (pantry.test: test.pantry/…), and cross-check it.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Crawl origins into the catalogue: discover, validate, store, diff and verify.

    A document whose stored answer is still fresh (its Cache-Control max-age or Expires)
    is not asked again; the snapshot says so. No MCP registry is asked what it lists for an
    origin unless --registry-lookup says so."""
    from agentdex.crawler.freshness import Policy
    from agentdex.crawler.origins import normalise_origin, read_seeds, unique

    try:
        wanted = [normalise_origin(o) for o in origins or []] + (read_seeds(seeds) if seeds else [])
    except InputError as exc:
        fail(str(exc), 2)
    if due and wanted:
        fail("--due takes the origins the schedule says are due; name no origin and no --seeds file", 2)
    if not wanted:
        wanted = _recrawl_origins(db, due)
        if not wanted:
            _nothing_due(db, as_json)
            return
    net = network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout,
                          registry_lookup)
    policy = Policy(ceiling=max_fresh, floor=min_fresh, revalidate=revalidate)
    summary = run_crawl(db, unique(wanted), net, verify=not no_verify, policy=policy)
    if as_json:
        echo_json(summary)
    else:
        from agentdex.render import summary_lines

        typer.echo("\n".join(summary_lines(summary)))


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

    when = next_due(open_catalogue(db, readonly=True))
    if as_json:
        echo_json({"origins": 0, "next_due_at": when})
    else:
        typer.echo(f"no origin is due; the next is due at {when}" if when else "no origin is scheduled")


@app.command()
def verify(
    origins: Annotated[list[str], typer.Argument(help="Origins already in the catalogue (or new ones).")],
    db: DbOpt = None, connect_to: ConnectToOpt = None, ca_bundle: CaOpt = None, dns_server: DnsOpt = None,
    concurrency: ConcOpt = CONCURRENCY, allow_private: PrivOpt = False, registry: RegOpt = None,
    timeout: DeadlineOpt = 15.0, as_json: JsonOpt = False,
) -> None:
    """Re-check every claim the listings make (their manifests are fetched conditionally)."""
    from agentdex.crawler.origins import normalise_origin, unique

    try:
        wanted = unique([normalise_origin(o) for o in origins])
    except InputError as exc:
        fail(str(exc), 2)
    net = network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout)
    summary = run_crawl(db, wanted, net, verify=True, kind="verify")
    from agentdex.db import list_checks
    from agentdex.render import check_line

    catalogue = open_catalogue(db, readonly=True)
    if as_json:
        echo_json({**summary, "checks": {o: list_checks(catalogue, o) for o in wanted}})
        return
    for origin in wanted:
        typer.echo(origin)
        for c in list_checks(catalogue, origin):
            typer.echo(f"  {check_line(c)}")


@app.command()
def seeds(
    sources: Annotated[list[str], typer.Argument(help="registry:BASE (an MCP registry API), or a file: saved registry pages (JSON or NDJSON), an A2A registry listing, a CSV rank,domain list, or plain text.")],
    since: Annotated[Optional[str], typer.Option("--since", help="Ask registries only for servers updated after this RFC 3339 time (default: where the last run stopped).")] = None,
    db: DbOpt = None, connect_to: ConnectToOpt = None, ca_bundle: CaOpt = None, dns_server: DnsOpt = None,
    concurrency: ConcOpt = CONCURRENCY, allow_private: PrivOpt = False, registry: RegOpt = None,
    timeout: DeadlineOpt = 15.0, as_json: JsonOpt = False,
) -> None:
    """Origins to crawl, one a line (ready for crawl --seeds), from MCP registries and lists;
    records which source named each origin in the catalogue. Refused entries go to stderr."""
    import asyncio

    from agentdex.db.seeds import load_cursors, save_run
    from agentdex.seeds import as_rows, check_since, collect, parse_source

    net = network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry, timeout)
    try:
        since = check_since(since)
        for source in sources:
            parse_source(source)  # refuse a bad source before the catalogue is created
        catalogue = open_catalogue(db, readonly=False)
        run = asyncio.run(collect(sources, net, since=since, cursors=load_cursors(catalogue)))
    except InputError as exc:
        fail(str(exc), 2)
    save_run(catalogue, as_rows(run), run.cursors, run.servers_seen)
    if as_json:
        echo_json(run.to_list())
        return
    if run.seeds:
        typer.echo("\n".join(s.origin for s in run.seeds))
    for r in run.refused:
        typer.echo(f"refused {plain(r.named.url or r.named.name, 200)!r} ({plain(r.named.source, 80)} "
                   f"{plain(r.named.name, 80)}): {plain(r.reason, 200)}", err=True)


@app.command()
def census(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The probe state of every MCP endpoint the catalogue knows, with counts and shares."""
    from agentdex.db.seeds import census as count

    data = count(open_catalogue(db, readonly=True))
    if as_json:
        echo_json(data)
    else:
        from agentdex.render import census_lines

        typer.echo("\n".join(census_lines(data)))


@app.command("list")
def list_cmd(
    search: Annotated[Optional[str], typer.Option("--search", "-s", help="Full-text search over names, one-liners, descriptions, tags.")] = None,
    format: Annotated[Optional[str], typer.Option("--format", help=f"{formats.choices()}.")] = None,
    status: Annotated[Optional[str], typer.Option("--status", help="listed, invalid, unreachable, no_manifest or delisted.")] = None,
    category: Annotated[Optional[str], typer.Option("--category")] = None,
    pricing: Annotated[Optional[str], typer.Option("--pricing")] = None,
    has_mcp: Annotated[Optional[bool], typer.Option("--has-mcp/--no-mcp")] = None,
    failing: Annotated[bool, typer.Option("--failing-checks", help="Only listings with a failing check.")] = False,
    sort: Annotated[str, typer.Option("--sort")] = "name",
    limit: Annotated[int, typer.Option("--limit", min=1, max=100000)] = 200,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """List the catalogue's listings, filtered and sorted."""
    from agentdex.db import count_listings, list_listings

    catalogue = open_catalogue(db, readonly=True)
    filters = dict(search=search, format=format, status=status, category=category, pricing=pricing,
                   has_mcp=has_mcp, failing_checks=failing or None)
    try:
        rows = list_listings(catalogue, sort=sort, limit=limit, **filters)
        total = count_listings(catalogue, **filters)
    except InputError as exc:
        fail(str(exc), 2)
    if as_json:
        echo_json({"total": total, "listings": [_brief(r) for r in rows]})
        return
    from agentdex.render import listing_rows

    typer.echo("\n".join(listing_rows(rows)) if rows else "no listings match")
    typer.echo(f"{len(rows)} of {total} shown")


def _brief(row: dict) -> dict:
    keys = ("origin", "name", "format", "status", "one_liner", "categories", "pricing", "mcp_url",
            "http_base", "checks_passed", "checks_failed", "error_count", "warning_count", "last_changed_at",
            "last_crawled_at", "next_due_at")
    return {k: row.get(k) for k in keys}


@app.command()
def show(origin: Annotated[str, typer.Argument(help="The origin (host).")], db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Everything the catalogue knows about one origin: manifest, findings, checks, plans, events."""
    origin = origin_argument(origin)
    data = load_show(db, origin)
    if as_json:
        echo_json(data)
    else:
        from agentdex.render import show_lines

        typer.echo("\n".join(show_lines(data)))


def origin_argument(text: str) -> str:
    """The origin a user typed as an argument, or a message (exit 2) when it cannot be one."""
    from agentdex.crawler.origins import normalise_origin

    try:
        return normalise_origin(text)
    except InputError as exc:
        fail(str(exc), 2)


def load_show(path: Path | None, origin: str) -> dict:
    """:func:`agentdex.showing.load_show` on the catalogue; an origin it lacks is exit 1."""
    from agentdex.showing import load_show as load

    try:
        return load(open_catalogue(path, readonly=True), origin)
    except DatabaseError as exc:
        fail(str(exc), 1)


@app.command()
def events(
    origin: Annotated[Optional[str], typer.Option("--origin", help="Only this origin's events.")] = None,
    since: Annotated[Optional[str], typer.Option("--since", help="ISO time (2026-12-01 or 2026-12-01T10:00:00Z).")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1)] = 200,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Change events, newest first."""
    from agentdex.db import list_events

    rows = list_events(open_catalogue(db, readonly=True), origin=origin, since=since, limit=limit)
    if as_json:
        echo_json(rows)
        return
    from agentdex.render import event_line

    typer.echo("\n".join(event_line(e) for e in rows) if rows else "no events")


@app.command()
def plan(
    origin: Annotated[str, typer.Argument(help="The origin (host).")],
    host: Annotated[Optional[str], typer.Option("--host", help="One host, by id or name (claude_code, \"Claude Code\", vs-code, …).")] = None,
    db: DbOpt = None, as_json: JsonOpt = False,
) -> None:
    """Exact install steps for each AI host (or one with --host)."""
    from agentdex.plans import host_choices, host_id, similar_host

    if host is not None and (host := host_id(given := host)) is None:
        guess = similar_host(given)
        fail(f"unknown host {plain(given, 60, single_line=True)!r}"
             + (f" (did you mean {guess}?)" if guess else "") + f"; choose one of: {host_choices()}", 2)
    origin = origin_argument(origin)
    data = load_show(db, origin)
    plans = data["plans"] if host is None else {host: data["plans"][host]}
    if as_json:
        echo_json(plans if host is None else plans[host])
        return
    from agentdex.render import plan_lines

    for p in plans.values():
        typer.echo("\n".join(plan_lines(p)) + "\n")


# -- apps on top of the catalogue ---------------------------------------------------------------

@app.command()
def tui(
    db: DbOpt = None, connect_to: ConnectToOpt = None, ca_bundle: CaOpt = None, dns_server: DnsOpt = None,
    concurrency: ConcOpt = CONCURRENCY, allow_private: PrivOpt = False, registry: RegOpt = None,
) -> None:
    """Browse the catalogue in a terminal UI: search, filter, inspect, verify, plan, crawl.
    The network options apply to re-verify, re-crawl and feedback started from the TUI."""
    from agentdex.tui.app import run_tui

    given = connect_to or ca_bundle or dns_server or allow_private or registry or concurrency != CONCURRENCY
    # Without network options the app builds its defaults when a crawl first needs them:
    # importing the crawler here would hold back the first paint.
    run_tui(db_path(db), network_options(connect_to, ca_bundle, dns_server, concurrency, allow_private, registry)
            if given else None)


@app.command()
def serve(
    db: DbOpt = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 8001,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
) -> None:
    """Publish the catalogue read-only with Datasette (same as: datasette DB --metadata datasette_metadata.json)."""
    from agentdex.serve import serve as run_serve

    path = db_path(db)
    if not path.is_file():
        fail(f"no catalogue at {path}; run `agentdex crawl ORIGIN` or `agentdex demo` first", 1)
    run_serve(path, host=host, port=port)


@app.command()
def demo(
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Print a summary and exit instead of opening the TUI.")] = False,
    serve_too: Annotated[bool, typer.Option("--serve", help="Also publish the demo catalogue with Datasette.")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", help="Where to write the demo catalogue (default: a fresh temporary file).")] = None,
    port: Annotated[int, typer.Option("--port", help="Datasette's port with --serve.")] = 8001,
) -> None:
    """Start the bundled sample web, crawl and verify it into a fresh catalogue, open the TUI."""
    from agentdex.demo import run_demo

    raise typer.Exit(run_demo(db=db, tui=not no_tui, serve=serve_too, port=port, echo=typer.echo, load_tui=_load_tui))


def _load_tui():
    from agentdex.tui.app import run_tui

    return run_tui


@app.command()
def sampleweb(
    synthetic: Annotated[int, typer.Option("--synthetic", min=0, help="Serve N generated origins instead of the bundled ones.")] = 0,
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 0,
) -> None:
    """Serve the bundled sample web on loopback (HTTPS, throwaway CA, local DNS) until Ctrl-C."""
    from agentdex.sampleweb.server import run_forever

    run_forever(synthetic=synthetic, port=port, print_fn=typer.echo)


@app.command("import")
def import_cmd(
    path: Annotated[Path, typer.Argument(help="An .adapp package or a repository folder (FindAgent, adapp source).")],
    origin: Annotated[Optional[str], typer.Option("--origin", help="The origin to list it under (default: its endpoint's host).")] = None,
    db: DbOpt = None, as_json: JsonOpt = False,
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

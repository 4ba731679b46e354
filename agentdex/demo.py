"""``agentdex demo``: the bundled sample web, crawled twice into a fresh catalogue, then the
TUI (or, with ``--no-tui``, a printed summary).

    run_demo(db=None, tui=False, serve=False, port=8001, echo=typer.echo, load_tui=None) -> exit code

Steps: start :class:`~agentdex.sampleweb.SampleWeb` (HTTPS with a throwaway CA, local DNS,
MCP servers, x402, a registry) on loopback; seed from the sample MCP registry (what
``agentdex seeds registry:https://registry.test`` does: its servers' origins recorded with
their source, the entries it refuses with why); crawl and verify every demo origin into a new
catalogue; switch the origins that have a ``v2`` variant (and their sibling hosts such as
``mcp.pantry.test``) and crawl again, so History has entries; then open the TUI on the file
or print what is worth seeing in it, ending with the census of every MCP endpoint the
catalogue knows. ``serve`` also publishes the file with Datasette (a
child process running ``agentdex serve``). Every server the demo starts stops when it ends,
however it ends.

Where the catalogue goes: without ``--db``, ``agentdex-demo.db`` in a new temporary folder
(kept afterwards, so the printed commands work). With ``--db`` the demo writes that file,
and replaces an existing one only when it is a catalogue holding nothing but sample-web
origins (a previous demo) or an empty file; anything else is refused untouched.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from agentdex import render
from agentdex.serve import ServeError, free_port, in_child
from agentdex.text import plain

Echo = Callable[..., Any]

DEMO_DB_NAME = "agentdex-demo.db"
VARIANT = "v2"
DEADLINE = 5.0  # per fetch: the slow hosts give up after this, so the demo stays short
REGISTRY = "https://registry.test"

# The origins the demo crawls. Helper hosts (mcp.*, api.*, pay.*, registry.test,
# elsewhere.test) are reached through these and are not origins of their own. The slow
# ones come first so that their wait overlaps everything else.
DEMO_ORIGINS: tuple[str, ...] = (
    # slow on purpose: a manifest that drips, one that answers after 30 s
    "slowdrip.test",
    "sleepy.test",
    # complete agent-app v1 listings
    "pantry.test",
    "wayfarer.test",
    "beacon.test",
    "beaconops.test",
    "castaway.test",
    "fernpost.test",
    "vault.test",
    "keyring.test",
    # an HTTP API only; an inferred listing (SKILL.md + agent.md, no manifest)
    "ledgerline.test",
    "quillnotes.test",
    # Anchor publishers: honest, priced wrongly, lying
    "tidewater.test",
    "meridian.test",
    "driftwood.test",
    # hostile and broken
    "freeprizes.test",
    "notmcp.test",
    "deadlinks.test",
    "privateaddr.test",
    "wrongtype.test",
    "badmanifest.test",
    "latin1.test",
    "bigmanifest.test",
    "hopper.test",
    "loop.test",
    "broken.test",
    "bomb.test",
)
# Anchor checks worth showing when they pass (the failing ones are all shown).
SHOWN_PASSES = ("anchor.verify.dns", "anchor.read_only_variant")
# What Rich/Textual would take for a markup tag (their own pattern): shown as a warning sign.
_MARKUP = re.compile(r"\[[a-z#/@][^\[]*?\]")


class DemoError(Exception):
    """A reason the demo cannot go on, with the exit code to return."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def run_demo(
    *, db: Path | None, tui: bool, serve: bool, port: int, echo: Echo, load_tui: Callable[[], Callable] | None = None
) -> int:
    """Run the demo; returns the exit code. ``echo(text, err=False)`` prints (typer.echo);
    ``load_tui()`` returns the TUI's ``run_tui(path, net)`` (the CLI passes it: the demo sits
    below the TUI and never imports it).

    Never raises: errors become a message and a non-zero code, an interrupt exits 130
    after every server has stopped."""
    try:
        return _run(db, load_tui if tui else None, serve, port, echo)
    except (DemoError, ServeError) as exc:
        echo(f"agentdex demo: {plain(exc)}", err=True)
        return exc.code
    except KeyboardInterrupt:
        echo("agentdex demo: interrupted; every server it started is stopped.", err=True)
        return 130
    except Exception as exc:  # noqa: BLE001 - a newcomer gets a sentence, not a traceback
        echo(f"agentdex demo: unexpected {type(exc).__name__}: {plain(exc, 300)}", err=True)
        return 1


def _run(db: Path | None, load_tui: Callable[[], Callable] | None, serve: bool, port: int, echo: Echo) -> int:
    _check_extra()  # everything that can refuse does so before anything starts
    _check_bundle()
    serve_port = free_port(port) if serve else None
    run_tui, why_not = _tui_or_reason(load_tui) if load_tui else (None, "")
    path = prepare_db(db)
    from agentdex.sampleweb import SampleWeb

    echo("Starting the sample web on 127.0.0.1 (HTTPS with a throwaway CA, local DNS, MCP servers, x402) …")
    with SampleWeb() as web:
        addresses = f"127.0.0.1:{web.port}", web.dns_address  # kept: stopping forgets them
        echo(f"Sample web: https://{addresses[0]} serving {len(web.hosts)} hosts; DNS on {addresses[1]}.")
        net = demo_network(web)
        crawl_twice(web, path, net, echo)
        with in_child(path, serve_port) if serve_port else nullcontext() as server:
            if server is not None:
                echo(f"Datasette: http://127.0.0.1:{serve_port}/ (read-only)")
            code = _present(path, net, run_tui, why_not, server, echo)
    echo(
        f"Stopped the sample web ({addresses[0]}) and its DNS server ({addresses[1]})"
        + (f" and Datasette (127.0.0.1:{serve_port})." if serve_port else ".")
    )
    echo(f"The catalogue stays at {path}")
    return code


def _present(path: Path, net, run_tui, why_not: str, server: subprocess.Popen | None, echo: Echo) -> int:
    """Open the TUI, or print the summary (and, with Datasette, wait for Ctrl-C)."""
    if run_tui is not None:
        echo("Opening the TUI (press q to quit; quitting stops every server the demo started) …")
        run_tui(path, net)
        return 0
    for line in summary_lines(path):
        echo(line)
    if why_not:
        echo(f"(The TUI did not open: {why_not}.)")
    if server is not None:
        return _wait_for_ctrl_c(server, echo)
    return 0


# --- the catalogue file ----------------------------------------------------------------------


def prepare_db(db: Path | None) -> Path:
    """The path to write: a new temporary folder's file, or ``db`` once it is safe to replace."""
    if db is None:
        return Path(tempfile.mkdtemp(prefix="agentdex-demo-")) / DEMO_DB_NAME
    path = Path(db).expanduser()
    if path.is_dir():
        raise DemoError(f"--db {path} is a folder; give the path of a file to write", 2)
    if not path.parent.is_dir():
        raise DemoError(f"--db {path}: the folder {path.parent} does not exist", 2)
    if path.exists():
        _refuse_unless_demo(path)
        for stale in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
            stale.unlink(missing_ok=True)
    return path


def _refuse_unless_demo(path: Path) -> None:
    """Raise unless ``path`` is empty or a catalogue of sample-web origins only."""
    if path.stat().st_size == 0:
        return
    from agentdex.db import open_db
    from agentdex.errors import DatabaseError

    try:
        catalogue = open_db(path, readonly=True)
    except DatabaseError:
        raise DemoError(
            f"{path} exists and is not an agentdex catalogue; the demo never overwrites "
            "other files. Choose another --db or leave it out.",
            2,
        ) from None
    try:
        every_origin = {row[0] for row in catalogue.execute("SELECT origin FROM listings")}
        foreign = sorted(every_origin - sample_hosts())
    finally:
        catalogue.conn.close()
    if foreign:
        raise DemoError(
            f"{path} is a catalogue with {len(foreign)} origin(s) outside the sample web "
            f"(such as {plain(foreign[0], 80)}); the demo only replaces a catalogue it wrote. "
            "Choose another --db or leave it out.",
            2,
        )


def sample_hosts() -> set[str]:
    """Every folder host of the bundled sample web."""
    from agentdex.sampleweb.server import WEB_ROOT

    return {p.name for p in WEB_ROOT.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}


def _check_extra() -> None:
    """The sample web's packages (the ``demo`` extra) are installed."""
    from agentdex.sampleweb import missing_extra

    why = missing_extra()
    if why is not None:
        raise DemoError(why, 2)


def _check_bundle() -> None:
    """The bundled sample web is complete (a broken installation says so plainly)."""
    from agentdex.sampleweb.server import WEB_ROOT

    missing = [o for o in DEMO_ORIGINS if not (WEB_ROOT / o).is_dir()]
    if not (WEB_ROOT / "pantry.test" / ".well-known" / "agent-app.json").is_file():
        missing.append("pantry.test/.well-known/agent-app.json")
    if missing:
        raise DemoError(
            f"the bundled sample web is incomplete in this installation (missing {', '.join(missing[:3])}); "
            "reinstall agentdex"
        )


# --- crawling ----------------------------------------------------------------------------------


def demo_network(web):
    """Network options that reach the sample web: connect-to, its CA, its DNS, its registry."""
    return web.network_options(registry=REGISTRY, deadline=DEADLINE, concurrency=16)


def changing_hosts(web, origins: tuple[str, ...] = DEMO_ORIGINS) -> list[str]:
    """Hosts with a ``v2`` variant that belong to a demo origin (the origin itself or a
    sibling such as ``mcp.<origin>``)."""

    def belongs(host: str) -> bool:
        return host in origins or any(host.endswith("." + o) for o in origins)

    return [h for h in web.hosts if belongs(h) and VARIANT in web.variants(h)]


def crawl_twice(web, path: Path, net, echo: Echo) -> None:
    """Crawl every demo origin, switch the changing hosts to v2, crawl again."""
    from agentdex.db import open_db

    catalogue = open_db(path)
    try:
        seed(catalogue, net, echo)
        echo(f"Crawl 1 of 2: discovering, validating and verifying {len(DEMO_ORIGINS)} origins into {path}")
        first = _crawl(catalogue, net, _first_progress(echo))
        echo(render.crawl_line(first.to_dict()))
        switched = changing_hosts(web)
        for host in switched:
            web.set_variant(host, VARIANT)
        echo(
            f"The sample web changed ({', '.join(switched)} now serve their {VARIANT}). "
            "Crawl 2 of 2: the same origins again …"
        )
        second = _crawl(catalogue, net, _second_progress(echo))
        echo(render.crawl_line(second.to_dict()))
    finally:
        catalogue.conn.close()


def seed(catalogue, net, echo: Echo) -> None:
    """Read the sample MCP registry as ``agentdex seeds`` does and record its sources."""
    from agentdex.db.seeds import save_run
    from agentdex.seeds import as_rows, collect

    run = asyncio.run(collect([f"registry:{REGISTRY}"], net))
    save_run(catalogue, as_rows(run), run.cursors, run.servers_seen)
    servers = sum(run.servers_seen.values())
    ours = [s.origin for s in run.seeds if s.origin in DEMO_ORIGINS]
    echo(
        f"Seeds: the sample MCP registry ({REGISTRY}, {len(run.asked)} page(s)) lists {servers} servers naming "
        f"{len(run.seeds)} origins ({len(ours)} of them demo origins, the rest their MCP hosts); "
        f"{len(run.refused)} refused:"
    )
    for refused in run.refused:
        echo(f"  {plain(refused.named.name, 60)}: {plain(refused.named.url, 80)} — {plain(refused.reason, 120)}")


def _crawl(catalogue, net, progress):
    from agentdex.crawler.crawl import crawl

    return asyncio.run(crawl(catalogue, list(DEMO_ORIGINS), net, verify=True, progress=progress))


def _first_progress(echo: Echo):
    def show(state) -> None:
        echo(render.progress_line(state))

    return show


def _second_progress(echo: Echo):
    seen = {"events": 0}

    def show(state) -> None:
        new = state.events - seen["events"]
        seen["events"] = state.events
        if new:
            echo(render.progress_line(state, new))

    return show


# --- what the demo shows -----------------------------------------------------------------------


def summary_lines(path: Path) -> list[str]:
    """The printed summary of the demo catalogue at ``path``: counts, verification results,
    History, names, broken cases, and the commands to explore further. Every crawled
    string goes through :func:`plain`."""
    from agentdex.db import list_checks, list_events, list_listings, open_db, stats
    from agentdex.db.seeds import census

    catalogue = open_db(path, readonly=True)
    try:
        rows = list_listings(catalogue, limit=10_000, sort="origin")
        checks = {r["origin"]: list_checks(catalogue, r["origin"]) for r in rows}
        events = list(reversed(list_events(catalogue, limit=10_000)))
        counts = stats(catalogue)
        endpoints = census(catalogue)
    finally:
        catalogue.conn.close()
    listed = {r["origin"] for r in rows if r["status"] == "listed"}
    section = render.section
    return (
        ["", f"Catalogue: {path}"]
        + count_lines(counts, events)
        + section(
            "Claims checked (agentdex verifies what each listing says):",
            check_lines({o: c for o, c in checks.items() if o in listed}),
        )
        + section("History (what changed between the two crawls):", history_lines(events))
        + section("Names:", name_lines(rows))
        + section("Not listed (broken on purpose, or gone):", broken_lines(rows))
        + section("Explore it:", command_lines(path))
        + section(
            f"MCP endpoints the catalogue knows ({endpoints['total']}), by state (agentdex census):",
            render.census_lines(endpoints),
        )
    )


def count_lines(counts: dict[str, Any], events: list[dict]) -> list[str]:
    """Listings by status and format, MCP and failing-check counts, events by kind."""
    kinds = Counter(e["kind"] for e in events)
    return [
        f"  {counts['listings']} origins: {render.counts_text(counts['by_status'])}",
        f"  formats: {render.counts_text(counts['by_format'])}",
        f"  {counts['with_mcp']} with an MCP endpoint, {counts['failing_checks']} with a failing check",
        f"  {counts['events']} change events: {render.counts_text(kinds)}",
    ]


def check_lines(checks: dict[str, list[dict]]) -> list[str]:
    """Every failing check, then the Anchor proofs and variants that hold."""
    fails = [render.check_sentence(o, c) for o, rows in sorted(checks.items()) for c in rows if c["status"] == "fail"]
    passes = [
        render.check_sentence(o, c)
        for o, rows in sorted(checks.items())
        for c in rows
        if c["status"] == "pass" and c["name"] in SHOWN_PASSES
    ]
    return fails + passes


def history_lines(events: list[dict]) -> list[str]:
    """Events other than first listings, oldest first: ``origin: kind — what``."""
    return [f"{plain(e['origin'], 40)}: {e['kind']} — {render.event_text(e)}" for e in events if e["kind"] != "listed"]


def name_lines(rows: list[dict]) -> list[str]:
    """Names shared by several origins, and names carrying markup or escape sequences."""
    by_name: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r.get("name"):
            by_name[r["name"].casefold()].append(r)
    out = []
    for group in by_name.values():
        if len(group) > 1:
            where = ", ".join(
                f"{r['origin']} ({plain(', '.join(r.get('categories') or []) or '-', single_line=True)})" for r in group
            )
            out.append(
                f'"{plain(group[0]["name"], 64)}" is the name of {len(group)} apps: {where}; '
                "the origin tells them apart"
            )
    out += [_hostile_line(r) for r in rows if hostile(r.get("name")) or hostile(r.get("one_liner"))]
    return out


def hostile(text: str | None) -> bool:
    """Text that carries terminal escape sequences, control characters or markup."""
    return bool(text) and (plain(text) != text or bool(_MARKUP.search(text)))


def _hostile_line(row: dict) -> str:
    return (
        f"{row['origin']}: its listing carries markup and terminal escape sequences "
        f'(stored verbatim, shown only as text): "{plain(row["name"], 70, single_line=True)}"'
    )


def broken_lines(rows: list[dict]) -> list[str]:
    """Origins that are not (or no longer) listed, with the reason."""
    return [
        f"{r['origin']}: {r['status']}"
        + (f" — {plain(r['status_detail'], 150, single_line=True)}" if r.get("status_detail") else "")
        for r in rows
        if r["status"] != "listed"
    ]


def command_lines(path: Path) -> list[str]:
    """The commands that explore the demo catalogue."""
    db = shlex.quote(str(path))
    return [
        f"agentdex tui --db {db}",
        f"agentdex show pantry.test --db {db}",
        f"agentdex events --db {db}",
        f"agentdex list --failing-checks --db {db}",
        f"agentdex serve --db {db}",
        f"agentdex census --db {db}",
    ]


# --- the TUI and Datasette ----------------------------------------------------------------------


def _tui_or_reason(load_tui: Callable[[], Callable]) -> tuple[Callable | None, str]:
    """``(run_tui, "")`` when the TUI can open here, else ``(None, why not)``."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None, "this is not an interactive terminal; pass --no-tui to ask for this summary"
    try:
        run_tui = load_tui()
    except ImportError as exc:
        return None, f"the TUI is not available in this installation ({plain(exc, 120)})"
    return run_tui, ""


def _wait_for_ctrl_c(server: subprocess.Popen, echo: Echo) -> int:
    """Keep everything up until Ctrl-C (0), or until Datasette ends on its own (1)."""
    echo("Press Ctrl-C to stop Datasette and the sample web.")
    try:
        while server.poll() is None:
            time.sleep(0.2)
    except KeyboardInterrupt:
        return 0
    echo(f"Datasette stopped on its own (exit code {server.returncode}).", err=True)
    return 1

"""Shared ground for the TUI tests (imported by every ``test_tui_*`` module; no tests here).

One sample web runs for the whole test process, and one catalogue is built from it by the
real crawler (every served origin that is not a helper host, verified), once; each test
gets its own copy of that file. The cursor never blinks, so snapshots are stable.
"""

from __future__ import annotations

import asyncio
import atexit
import io
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from textual.worker import WorkerCancelled

from agentdex.crawler.crawl import NetworkOptions, crawl
from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb
from agentdex.tui.app import AgentdexApp, make_app

HELPER_PREFIXES = ("mcp.", "api.", "pay.", "registry.")  # served for the listings, not listings
DEADLINE = 3.0  # the slow hosts (sleepy, slowdrip) give up after this, not after 15 s
SIZE = (140, 40)
_STATE: dict[str, object] = {}


def sample_web() -> SampleWeb:
    """The process's sample web (started on first use, stopped at exit)."""
    if "web" not in _STATE:
        web = SampleWeb().start()
        atexit.register(web.stop)
        _STATE["web"] = web
    return _STATE["web"]  # type: ignore[return-value]


def net_options(web: SampleWeb) -> NetworkOptions:
    """Network options that reach the sample web (and nothing else)."""
    return web.network_options(deadline=DEADLINE)


def listing_hosts(web: SampleWeb) -> list[str]:
    """The sample web's origins (its helper hosts serve them and are not crawled)."""
    return [h for h in web.hosts if not h.startswith(HELPER_PREFIXES)]


def crawled_template() -> bytes:
    """The bytes of a catalogue the real crawler filled from the sample web (built once)."""
    if "template" not in _STATE:
        web = sample_web()
        folder = Path(tempfile.mkdtemp(prefix="agentdex-tui-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "template.db"
        run_in_thread(_crawl_into, path, listing_hosts(web), net_options(web))
        _STATE["template"] = path.read_bytes()
    return _STATE["template"]  # type: ignore[return-value]


def run_in_thread(function: Callable, *args: object) -> object:
    """Run ``function`` in a thread of its own: crawls start their own event loop, which
    must not disturb the test's."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args).result()


def _crawl_into(path: Path, origins: list[str], net: NetworkOptions) -> None:
    db = open_db(path)
    try:
        asyncio.run(crawl(db, origins, net, verify=True))
    finally:
        db.conn.close()  # the last close checkpoints the WAL into the file


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch):
    """A blinking cursor makes every screenshot a coin toss."""
    monkeypatch.setattr(Input, "cursor_blink", False)
    monkeypatch.setattr(TextArea, "cursor_blink", False)


@pytest.fixture
def web() -> SampleWeb:
    return sample_web()


@pytest.fixture
def net(web) -> NetworkOptions:
    return net_options(web)


@pytest.fixture
def db_path(tmp_path) -> Path:
    """A fresh copy of the crawled catalogue."""
    path = tmp_path / "catalogue.db"
    path.write_bytes(crawled_template())
    return path


@pytest.fixture
def app(db_path, net) -> AgentdexApp:
    return make_app(db_path, net)


# --- driving the app --------------------------------------------------------------------------


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Let every worker finish and every message it posted be handled (a worker that
    failed fails the test; one cancelled by a newer one is fine)."""
    for _ in range(rounds):
        for worker in list(pilot.app.workers):
            try:
                await worker.wait()
            except WorkerCancelled:
                pass
        await pilot.pause()


async def open_listing(app: AgentdexApp, pilot: Pilot, origin: str, *keys: str):
    """Open ``origin``'s listing screen once the app has settled, press ``keys`` there, and
    return the screen."""
    from agentdex.tui.screens.listing import ListingScreen

    await settle(pilot)
    app.open_listing(origin)
    await settle(pilot)
    assert isinstance(app.screen, ListingScreen)
    screen = app.screen
    if keys:
        await pilot.press(*keys)
        await settle(pilot)
    return screen


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Pump the app until ``condition()`` holds (a crawl takes real time on the sample web)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {getattr(condition, '__name__', condition)}")
        await pilot.pause(0.05)


def screen_text(app: AgentdexApp) -> str:
    """What the terminal shows now, as text (one line per row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def terminal_output(app: AgentdexApp) -> str:
    """The bytes a full repaint writes to the terminal (styles included)."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


def rendered(content: object, width: int = 200) -> str:
    """A Static's content (or any renderable) as the plain text it shows."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(getattr(content, "content", content))
    return console.export_text()

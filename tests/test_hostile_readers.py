"""The TUI reading while a crawl writes (another process, the real CLI): no "database is
locked", no failed read, and no half-written origin: every row the catalogue showed during
the crawl is the origin's final row (each origin is saved once, whole). Datasette under the
same load is tested in tests/test_datasette_live.py (a crawl writing while Datasette serves).
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys

import pytest

from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb
from agentdex.tui.app import make_app
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from test_tui_support import SIZE, no_cursor_blink, settle  # noqa: F401
from tests.conftest import cli_env

SYNTHETIC = 40
PAUSE = "t-delay.test"  # its manifest takes 1 s: with --concurrency 1 the crawl rests half-way


def listed(path) -> int:
    """How many origins the file holds, read apart from the app (0 before the schema exists)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
        try:
            return conn.execute("SELECT count(*) FROM listings").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def rows(app) -> dict[str, tuple[str, ...]]:
    table = app.screen.query_one(CatalogueTable)
    shown = {}
    for index, key in enumerate(table.rows):
        cells = table.get_row_at(index)
        shown[key.value] = tuple(getattr(c, "plain", str(c)) for c in cells)
    return shown


@pytest.mark.slow
async def test_the_tui_reading_during_a_crawl_sees_only_whole_origins(tmp_path, monkeypatch):
    path = tmp_path / "agentdex.db"
    open_db(path).close()
    failures: list[str] = []
    failed = CatalogueScreen._failed
    monkeypatch.setattr(CatalogueScreen, "_failed", lambda self, exc: (failures.append(str(exc)), failed(self, exc)))
    seen: list[dict[str, tuple[str, ...]]] = []
    with SampleWeb(synthetic=SYNTHETIC) as web:
        hosts = web.synthetic.hosts
        origins = [*hosts[: SYNTHETIC // 2], PAUSE, *hosts[SYNTHETIC // 2 :]]
        app = make_app(path, web.network_options())
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            # Started once the app is up, so the app reads while the crawl writes.
            crawl = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "agentdex",
                    "crawl",
                    "--db",
                    str(path),
                    *web.cli_args(),
                    "--concurrency",
                    "1",
                    *origins,
                ],
                env=cli_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            # Half-way (seen in the file apart from the app, polled often), the crawl is stopped
            # where it stands, perhaps inside a write transaction, while the TUI reads: one read
            # surely falls between writes however slow the machine (reads only timed against
            # the 1 s rest half-way missed it once in a full parallel run).
            while crawl.poll() is None and not 0 < listed(path) < len(origins):
                await asyncio.sleep(0.01)
            frozen: dict[str, tuple[str, ...]] | None = None
            if crawl.poll() is None:
                crawl.send_signal(signal.SIGSTOP)
                try:
                    await pilot.press("f5")
                    await settle(pilot, rounds=2)
                    frozen = rows(app)
                    seen.append(frozen)
                finally:
                    crawl.send_signal(signal.SIGCONT)
            while crawl.poll() is None:  # and reads while it writes, as they come
                await pilot.press("f5")
                await settle(pilot, rounds=2)
                seen.append(rows(app))
            assert crawl.wait(timeout=120) == 0, crawl.stderr.read().decode()
            await pilot.press("f5")
            await settle(pilot)
            final = rows(app)
            assert app.is_running
    assert failures == [] and not [n for n in notes if "locked" in n.lower()], (failures, notes)
    assert len(final) == len(origins)
    assert frozen is not None and 0 < len(frozen) < len(origins), "no read fell between the writes"
    for view in seen:
        for origin, row in view.items():
            assert row == final[origin], origin  # whole when first shown: never a half-written origin

"""The TUI reading while a crawl writes (another process, the real CLI): no "database is
locked", no failed read, and no half-written origin: every row the catalogue showed during
the crawl is the origin's final row (each origin is saved once, whole). Datasette under the
same load is tested in tests/test_datasette_live.py (a crawl writing while Datasette serves).
"""

from __future__ import annotations

import subprocess
import sys

from agentdex.db import open_db
from agentdex.sampleweb.server import SampleWeb
from agentdex.tui.app import make_app
from agentdex.tui.screens.catalogue import CatalogueScreen
from agentdex.tui.widgets.catalogue_table import CatalogueTable
from test_tui_support import SIZE, no_cursor_blink, settle  # noqa: F401
from tests.conftest import cli_env

SYNTHETIC = 40
PAUSE = "t-delay.test"  # its manifest takes 1 s: with --concurrency 1 the crawl rests half-way


def rows(app) -> dict[str, tuple[str, ...]]:
    table = app.screen.query_one(CatalogueTable)
    shown = {}
    for index, key in enumerate(table.rows):
        cells = table.get_row_at(index)
        shown[key.value] = tuple(getattr(c, "plain", str(c)) for c in cells)
    return shown


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
            # Started once the app is up: the crawl's 1 s rest half-way must come while the app
            # reads (started before it, a fast crawl could be over before the app's first read).
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
            while crawl.poll() is None:
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
    assert any(0 < len(view) < len(origins) for view in seen), "the reads overlapped the writes"
    for view in seen:
        for origin, row in view.items():
            assert row == final[origin], origin  # whole when first shown: never a half-written origin

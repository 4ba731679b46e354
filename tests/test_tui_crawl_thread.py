"""A crawl in the TUI runs in a thread with its own event loop: however long one of its steps
holds the CPU (a large document parsed, hashed, written), a key typed meanwhile is answered
while that step still runs, not after it. (On the UI's own loop, as before, the key waited
for the whole step.)"""

from __future__ import annotations

import asyncio
import threading
import time

from textual.widgets import TabbedContent

from agentdex.crawler import stage as stage_module
from agentdex.tui.app import make_app
from test_tui_support import SIZE, db_path, net, open_listing, wait_for, web  # noqa: F401

# A step of the crawl that holds the CPU for this long, in pure Python as a parser would: the
# frame budget the key must meet. Long, so that a loaded machine (the UI shares the GIL with the
# step, about half the CPU each) still answers well inside it.
STEP_SECONDS = 8.0


def busy_for(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(1000))


async def test_a_key_typed_while_a_crawl_holds_the_cpu_is_answered_within_a_frame_budget(db_path, net, monkeypatch):
    started, step_done = threading.Event(), threading.Event()
    original = stage_module.crawl_origin

    async def heavy_crawl_origin(*args, **kwargs):
        started.set()
        busy_for(STEP_SECONDS)
        step_done.set()
        return await original(*args, **kwargs)

    monkeypatch.setattr(stage_module, "crawl_origin", heavy_crawl_origin)
    app = make_app(db_path, net)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        await pilot.press("ctrl+r")
        await wait_for(pilot, started.is_set)
        await pilot.press("3")
        assert screen.query_one(TabbedContent).active == "checks"
        assert not step_done.is_set(), "the key waited for the crawl's step to end"
        # The crawl finishes before the test does: a crawl thread left running would go on
        # against the sample web after the test, until the process stops the web under it.
        await asyncio.wait_for(app.workers.wait_for_complete(), 300)  # a cap that only fails the test

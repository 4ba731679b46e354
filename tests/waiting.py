"""Waiting in tests for a condition, never for a time: the suite runs on a busy 2-core machine.

The condition is asked again until it holds or a generous deadline passes; the short pause
between two asks only hands the loop (or the core) to the work being waited for.
"""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

PAUSE = 0.01


def wait_for(predicate: Callable[[], object], timeout: float = 60.0) -> None:
    """Block until ``predicate()`` is true; fail the test once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(PAUSE)


async def eventually(predicate: Callable[[], object], timeout: float = 60.0) -> bool:
    """Whether ``predicate()`` (a value or an awaitable) became true within ``timeout``
    seconds, asked again between other tasks' turns of the running loop."""
    deadline = time.monotonic() + timeout
    while True:
        held = predicate()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(PAUSE)


def listed(path: Path) -> int:
    """How many listings a catalogue that a crawl is writing holds now (0 before it exists)."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM listings").fetchone()[0]
    except sqlite3.OperationalError:
        return 0

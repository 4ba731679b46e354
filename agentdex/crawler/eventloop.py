"""The event loop a crawl runs on, chosen here and nowhere else.

Public API::

    run(main) -> the coroutine's result       asyncio.run, on the loop loop_factory() names
    loop_factory() -> (() -> AbstractEventLoop) | None
        uvloop's loop where uvloop is installed (``pip install 'agentdex[fast]'``), except on
        Windows, which uvloop does not support; None (the standard library's loop) otherwise.

The crawler speaks asyncio only (its sockets wait through ``loop.add_reader`` and
``add_writer``, :mod:`agentdex.crawler.netstream`), so either loop runs it unchanged. uvloop
is optional: measured with ``benchmarks/bench_crawl.py`` (docs/benchmarks.md, issue 35) the
crawl's CPU a request moved by less than the machine's spread with it, since the transport
uses none of asyncio's own transports, where uvloop saves most.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when it is installed and supported here, else None."""
    if sys.platform == "win32":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a new loop of :func:`loop_factory`'s kind (as asyncio.run)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)

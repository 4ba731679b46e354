"""CPU work on crawled input: off the event loop only when the input is big enough to need it.

A hop to a worker thread and back is not free: in a py-spy profile of a 10,000-origin crawl
with two crawling processes (docs/benchmarks.md, issue 19, round 5) the thread hand-offs
(executor queue, futures, the loop's wake-up) took about a tenth of each crawling process's
samples, while nearly every input handed over was a robots.txt, an OpenAPI document or a
Markdown file of a few hundred bytes. ``benchmarks/bench_offload.py`` measures both sides: a
round trip to a thread costs about 0.11 ms, and a 4 KiB input parses in 0.06 ms (OpenAPI
JSON) to 1.1 ms (OpenAPI YAML), 0.5 ms for robots.txt, while 16 KiB of YAML takes 8 ms. So
inputs up to ``INLINE_BYTES`` are parsed inline (the event loop stalls about a millisecond at
worst) and larger ones in a thread, where a hostile megabyte cannot stall every other origin
of the process.

Size bounds the cost of a parse only without YAML aliases: a 550-byte alias bomb keeps the
bounded loader busy for over 200 ms (bench_yaml_openapi.py) until its budget stops it, so
:func:`yaml_size` counts any input that could hold an anchor (a ``&``) as large.

Public API::

    await run(size, fn, *args) -> fn(*args); inline when size <= INLINE_BYTES, else in a thread
    yaml_size(*bodies) -> int   the size to pass for inputs a YAML loader may read
    data_size(value) -> int     the characters of a parsed value's strings (and one a node),
                                counted only up to just above INLINE_BYTES
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# A 4 KiB input parses in about a millisecond at most (bench_offload.py).
INLINE_BYTES = 4 * 1024


async def run(size: int, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)``: inline when the input is at most ``INLINE_BYTES``, else in a worker thread."""
    if size <= INLINE_BYTES:
        return fn(*args)
    return await asyncio.to_thread(fn, *args)


def yaml_size(*bodies: bytes | str | None) -> int:
    """The total size of ``bodies``, or more than ``INLINE_BYTES`` when any could hold a YAML
    anchor (``&``), whose aliases can make a few hundred bytes expensive to load."""
    size = 0
    for body in bodies:
        if body is None:
            continue
        anchor = "&" in body if isinstance(body, str) else b"&" in body
        if anchor:
            return INLINE_BYTES + 1
        size += len(body)
    return size


def data_size(value: object) -> int:
    """The characters of ``value``'s strings plus one for each node (dicts, lists, numbers),
    counting stops just above ``INLINE_BYTES``, so a huge value costs no more than a small one."""
    size, stack = 0, [value]
    while stack and size <= INLINE_BYTES:
        item = stack.pop()
        size += len(item) if isinstance(item, str) else 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return size

"""What the processes of ``crawl --processes N`` say to each other, and how it travels.

Each message is a small frozen dataclass, sent down a pipe as one frame: a header (the
version of these messages and the length of what follows), then the message's pickle.
The parent sends a crawling process its :class:`Job`, then :class:`Origins` a few at a
time; a crawling process answers each origin with :class:`Crawled` or :class:`Failed`,
and :class:`Broken` if it has to stop. Both ends are the same agentdex (the parent starts
the child on its own path); the version still guards against a frame from another one (a
reinstall between the two starts), which is refused with :class:`MessageError` rather
than unpickled into the wrong shape. A frame is pickled: it never leaves the machine and
only agentdex's own processes write one.

A crawling process writes through :class:`Outbox`, from its event loop without blocking
it: while the parent is busy committing and the pipe is full, a result waits in the
outbox's buffer and only the worker that produced it waits; every other fetch in flight
goes on, deadlines included.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import struct
from dataclasses import dataclass
from typing import BinaryIO, TypeVar

from agentdex.crawler.options import NetworkOptions
from agentdex.crawler.stage import StagePlan
from agentdex.models import OriginCrawl

# Of these messages: raise it when one changes shape (2: OriginCrawl.tool_quality; 3:
# OriginCrawl.extra_endpoints and catalog_links; 4: the models pickled as their fields in order).
VERSION = 4
HEADER = struct.Struct("!HQ")  # each frame: the version and the length of its pickle
# Results in flight from a crawling process, at most: a pipe of 1 MiB (Linux's default
# /proc/sys/fs/pipe-max-size; the 64 KiB default holds only a few results) lets a child run
# ahead while the parent commits. The pipe of origins to a child is as large, so sending it
# a batch never waits on a child that is itself waiting for the parent to read.
PIPE_BYTES = 1 << 20


class MessageError(Exception):
    """A frame that is not a message of this version, or not one the reader expects."""


@dataclass(frozen=True)
class Job:
    """Parent to child, first: what to crawl with (the catalogue read-only, the settings)."""

    catalogue: str  # the catalogue's file
    net: NetworkOptions
    plan: StagePlan


@dataclass(frozen=True)
class Origins:
    """Parent to child: more origins to crawl."""

    origins: tuple[str, ...]


@dataclass(frozen=True)
class Crawled:
    """Child to parent: one origin's result; the counts are the child's so far (the last
    message of a child has them all)."""

    origin: str
    result: OriginCrawl
    requests: int
    errors: int


@dataclass(frozen=True)
class Failed:
    """Child to parent: an origin the child could not finish (``code`` ``internal`` or
    ``budget``, as :class:`agentdex.crawler.stage.OriginFailed`)."""

    origin: str
    code: str
    message: str
    requests: int
    errors: int


@dataclass(frozen=True)
class Broken:
    """Child to parent, last: why the child stops before it is finished."""

    reason: str


ToChild = Job | Origins
FromChild = Crawled | Failed | Broken
FROM_CHILD = (Crawled, Failed, Broken)  # what the parent reads
M = TypeVar("M")


def encode(message: ToChild | FromChild) -> bytes:
    """One frame: header and pickle. :raises pickle.PicklingError: (or another error) for a
    message that cannot be pickled."""
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(VERSION, len(data)) + data


def write_message(out: BinaryIO, message: ToChild | FromChild) -> None:
    """Send one message down a blocking pipe (waits while the pipe is full): the parent's
    origins to a child, and a child's last word after its event loop has ended."""
    out.write(encode(message))
    out.flush()


async def read_message(reader: asyncio.StreamReader, expected: type[M] | tuple[type[M], ...]) -> M:
    """The next message from a pipe, one of the ``expected`` types.

    :raises EOFError: the writer closed the pipe (or died)
    :raises MessageError: a frame of another version, or not one of ``expected``
    """
    try:
        version, size = HEADER.unpack(await reader.readexactly(HEADER.size))
        if version != VERSION:
            raise MessageError(f"a message of version {version}; this agentdex reads version {VERSION}")
        message = pickle.loads(await reader.readexactly(size))
    except asyncio.IncompleteReadError:
        raise EOFError from None
    if not isinstance(message, expected):
        raise MessageError(f"{type(message).__name__} is not a message this end reads")
    return message


async def pipe_reader(fd: int) -> asyncio.StreamReader:
    """An asyncio reader of the pipe ``fd`` (which it takes over)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=PIPE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0))
    return reader


class Outbox:
    """A crawling process's pipe to the parent, written from the event loop without blocking
    it (asyncio's pipe transport: what the pipe cannot take yet waits in its buffer)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    @classmethod
    async def open(cls, fd: int) -> Outbox:
        """An outbox on the pipe ``fd`` (which it takes over and makes non-blocking)."""
        loop = asyncio.get_running_loop()
        # A StreamReaderProtocol is the documented protocol that gives a StreamWriter its
        # drain(); its reader is never read (a write pipe has nothing to read).
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(fd, "wb", buffering=0)
        )
        return cls(asyncio.StreamWriter(transport, protocol, None, loop))

    async def send(self, frame: bytes) -> None:
        """Queue one frame (from :func:`encode`) whole, then wait, if the buffer is over its
        limit, until the pipe has taken enough: only the caller waits, the loop runs on.

        :raises ConnectionError: the parent is gone
        """
        self._writer.write(frame)
        await self._writer.drain()

    def buffered(self) -> int:
        """Bytes written to the outbox that the pipe has not taken yet."""
        return self._writer.transport.get_write_buffer_size()

    async def close(self) -> None:
        """Send what is buffered, then close the pipe (the parent then sees its end)."""
        self._writer.close()
        with contextlib.suppress(ConnectionError):
            await self._writer.wait_closed()

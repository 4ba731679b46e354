"""The messages between the processes of ``crawl --processes N`` (agentdex/crawler/messages.py):
typed and versioned on the wire, and a crawling process's writes never block its event loop.

Over real pipes, and a real fetch from the HTTPS test server (tests/netfixtures.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pickle
import threading

import pytest

from agentdex.crawler.fetch import Fetcher
from agentdex.crawler.messages import (
    FROM_CHILD,
    HEADER,
    VERSION,
    Broken,
    Failed,
    MessageError,
    Origins,
    Outbox,
    encode,
    pipe_reader,
    read_message,
)
from netfixtures import TLSServer, tls_ca, tls_server, tls_server_session  # noqa: F401
from waiting import eventually


def full_pipe() -> tuple[int, int, int]:
    """A pipe whose buffer is already full: (read end, write end, bytes in it)."""
    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError):
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the smallest: quick to fill
    os.set_blocking(write_end, False)
    filled = 0
    with contextlib.suppress(BlockingIOError):
        while True:
            filled += os.write(write_end, bytes(4096))
    os.set_blocking(write_end, True)  # as a crawling process receives it
    return read_end, write_end, filled


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def test_a_full_pipe_to_the_parent_does_not_stall_the_childs_other_fetches(tls_server: TLSServer) -> None:
    # A result waits for the parent to read while a fetch is in flight: the fetch finishes
    # (the event loop runs on), the result still waits, and arrives whole once the parent reads.
    read_end, write_end, filled = full_pipe()
    result = Failed("big.test", "internal", "x" * 300_000, 3, 1)  # larger than any buffer on the way
    seen: dict[str, object] = {}
    fetched = threading.Event()

    async def child() -> None:
        outbox = await Outbox.open(write_end)
        sending = asyncio.create_task(outbox.send(encode(result)))
        assert await eventually(outbox.buffered), "the send never started"  # the send goes first
        seen["buffered"] = outbox.buffered()
        async with Fetcher(connect_to=tls_server.connect_to, ca_bundle=tls_server.ca_path, retries=0) as fetcher:
            record = await fetcher.fetch("https://a.test/json", kind="test", max_bytes=4096, honour_robots=False)
        seen["status"], seen["still_sending"] = record.status, not sending.done()
        fetched.set()
        await sending
        await outbox.close()

    thread = threading.Thread(target=asyncio.run, args=(child(),), daemon=True)
    thread.start()
    try:
        assert fetched.wait(60), "the fetch did not finish while the pipe to the parent was full"
    finally:
        data = read_all(read_end)  # the parent reads at last (also frees a stalled child)
        thread.join(60)
    assert seen == {"buffered": len(encode(result)), "status": 200, "still_sending": True}
    version, size = HEADER.unpack_from(data, filled)
    assert version == VERSION and pickle.loads(data[filled + HEADER.size :]) == result
    assert len(data) == filled + HEADER.size + size


async def frames(*chunks: bytes) -> asyncio.StreamReader:
    """A reader of a real pipe holding ``chunks``, then closed."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as out:
        out.write(b"".join(chunks))
    return await pipe_reader(read_end)


async def test_messages_arrive_typed_and_a_closed_pipe_is_the_end() -> None:
    reader = await frames(encode(Origins(("a.test", "b.test"))), encode(Broken("disk full")))
    assert await read_message(reader, Origins) == Origins(("a.test", "b.test"))
    assert await read_message(reader, FROM_CHILD) == Broken("disk full")
    with pytest.raises(EOFError):
        await read_message(reader, FROM_CHILD)


async def test_a_frame_of_another_version_is_refused_not_unpickled() -> None:
    data = pickle.dumps(Broken("from another agentdex"))
    reader = await frames(HEADER.pack(VERSION + 1, len(data)) + data)
    with pytest.raises(MessageError, match=f"version {VERSION + 1}; this agentdex reads version {VERSION}"):
        await read_message(reader, FROM_CHILD)


async def test_a_message_the_reader_does_not_expect_is_refused() -> None:
    reader = await frames(encode(Origins(("a.test",))), encode(Broken("x")))
    with pytest.raises(MessageError, match="Origins is not a message this end reads"):
        await read_message(reader, FROM_CHILD)  # a child never sends origins
    with pytest.raises(MessageError, match="Broken is not a message this end reads"):
        await read_message(reader, Origins)

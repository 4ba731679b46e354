"""Bounded body decoding (the network side is in test_fetch_policy.py)."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import AsyncIterator

import httpx
import pytest

from agentdex.crawler.body import read_capped
from agentdex.errors import FetchError


class Chunks(httpx.AsyncByteStream):
    """A response body arriving in the given pieces."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def response(*pieces: bytes, encoding: str | None = None) -> httpx.Response:
    headers = {"Content-Encoding": encoding} if encoding else {}
    return httpx.Response(200, headers=headers, stream=Chunks(*pieces))


async def test_gzip_members_and_split_chunks_decode() -> None:
    packed = gzip.compress(b"first ") + gzip.compress(b"second")
    assert await read_capped(response(packed[:7], packed[7:30], packed[30:], encoding="gzip"), 100) == b"first second"


async def test_bytes_after_the_gzip_stream_are_ignored() -> None:
    assert await read_capped(response(gzip.compress(b"body") + b"\0\0\0", encoding="x-gzip"), 100) == b"body"


async def test_one_compressed_chunk_never_inflates_past_the_cap() -> None:
    bomb = zlib.compress(bytes(20 * 1024 * 1024), 9)  # one 20 KB chunk, 20 MB inflated
    tracemalloc.start()
    try:
        with pytest.raises(FetchError) as caught:
            await read_capped(response(bomb, encoding="deflate"), 1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.code == "too_large"
    assert peak < 2 * 1024 * 1024  # inflating the whole chunk would take 20 MB


async def test_the_cap_is_inclusive() -> None:
    assert len(await read_capped(response(b"a" * 600, b"a" * 400), 1000)) == 1000
    with pytest.raises(FetchError):
        await read_capped(response(b"a" * 600, b"a" * 401), 1000)


@pytest.mark.parametrize("encoding", ["br", "zstd", "gzip, gzip", "compress"])
async def test_an_encoding_we_did_not_ask_for_is_refused(encoding: str) -> None:
    with pytest.raises(FetchError) as caught:
        await read_capped(response(b"whatever", encoding=encoding), 100)
    assert caught.value.code == "decoding"

"""Reading a response body under the byte cap, decompression included.

Public API::

    await read_capped(response: httpx.Response | h1.Reply, max_bytes: int, *, prefix: bool = False) -> bytes
        the decoded body; FetchError("too_large") as soon as it would pass ``max_bytes``
        (or when Content-Length announces more), FetchError("decoding") for a bad or
        unexpected Content-Encoding. ``prefix=True``: a longer body is cut to its first
        ``max_bytes`` instead (robots.txt: RFC 9309 reads a prefix), and the rest is not read.

The cap counts decoded bytes and decoding is bounded: each step inflates at most the room
left under the cap, so a gzip bomb costs ``max_bytes`` of memory, not its inflated size.
Encodings: identity, gzip (several members allowed), deflate (zlib-wrapped or raw).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from typing import Any, Protocol

from agentdex.crawler.h1 import Reply
from agentdex.errors import FetchError
from agentdex.headers import http_digits


class Answer(Protocol):
    """What is read of an answer: httpx.Response, or the crawler's own transport's Reply."""

    @property
    def headers(self) -> Any: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


async def read_capped(response: Answer, max_bytes: int, *, prefix: bool = False) -> bytes:
    """The decoded body, refusing (``too_large``) as soon as it would exceed ``max_bytes``;
    with ``prefix``, its first ``max_bytes`` bytes instead."""
    # ASCII digits only (RFC 9110, 8.6); the cap bounds the conversion of a huge number.
    header = response.headers.get("content-length")
    announced = http_digits(header, cap=max_bytes + 1)
    if announced is not None and announced > max_bytes and not prefix:
        shown = header.strip()[:40]  # a length of a million digits is not repeated whole
        raise FetchError("too_large", f"The answer announces {shown} bytes, above the {max_bytes}-byte cap.")
    body = _Capped(_Inflater(response.headers.get("content-encoding") or ""), max_bytes, prefix)
    # An answer of the crawler's own transport that arrived whole is taken at once.
    whole = response.arrived() if isinstance(response, Reply) else None
    if whole is not None:
        body.add(whole)
    else:
        async for raw in response.aiter_raw():
            if body.add(raw):
                break  # the rest stays unread (the connection is not reused)
    return body.result()


class _Capped:
    """The decoded parts of a body under its cap, as they came, joined once at the end: a
    body that came in one part (most do) is that part itself, never copied."""

    __slots__ = ("_inflater", "_max", "_prefix", "_parts", "_size", "_cut")

    def __init__(self, inflater: _Inflater, max_bytes: int, prefix: bool) -> None:
        self._inflater, self._max, self._prefix = inflater, max_bytes, prefix
        self._parts: list[bytes] = []
        self._size, self._cut = 0, False

    def add(self, raw: bytes) -> bool:
        """Take ``raw``; True once a ``prefix`` is full (read no more), FetchError
        ``too_large`` when the body passes the cap otherwise."""
        part = self._inflater.feed(raw, room=self._max - self._size + 1)
        self._parts.append(part)
        self._size += len(part)
        if self._size <= self._max:
            return False
        if not self._prefix:
            raise FetchError("too_large", f"The body is larger than the {self._max}-byte cap{self._inflater.after}.")
        self._cut = True
        return True

    def result(self) -> bytes:
        """The body (its first ``max_bytes`` when cut); a compressed one that stopped before its end is refused."""
        if self._cut:
            return b"".join(self._parts)[: self._max]
        self._inflater.finish()
        parts = self._parts
        return parts[0] if len(parts) == 1 else b"".join(parts)


class _Inflater:
    """Bounded decoding of identity, gzip and deflate bodies.

    httpx's own decoders inflate a whole network chunk at once (64 KB of gzip can become
    64 MB); here every step yields at most ``room`` bytes, so memory stays near the cap.
    """

    def __init__(self, content_encoding: str) -> None:
        encoding = content_encoding.strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise FetchError(
                "decoding", f"The body uses Content-Encoding {encoding!r}, which agentdex did not ask for."
            )
        self.encoding = "gzip" if encoding == "x-gzip" else encoding
        self.after = " after decompression" if self.encoding in ("gzip", "deflate") else ""
        self._raw_deflate = False
        self._z: Any = self._new() if self.after else None  # a zlib decompressobj

    def _new(self) -> Any:
        if self.encoding == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return zlib.decompressobj(-zlib.MAX_WBITS if self._raw_deflate else zlib.MAX_WBITS)

    def feed(self, data: bytes, room: int) -> bytes:
        """Up to ``room`` decoded bytes from ``data`` (more input stays unread past that)."""
        if self._z is None:
            return data[:room]
        out = bytearray()
        while data and len(out) < room:
            if self._z.eof:
                if not (self.encoding == "gzip" and data[:2] == b"\x1f\x8b"):
                    break  # bytes after the compressed stream: ignored, as browsers do
                self._z = self._new()  # a further gzip member (RFC 1952 allows several)
            out += self._inflate(data, room - len(out))
            data = self._z.unused_data if self._z.eof else self._z.unconsumed_tail
        return bytes(out)

    def _inflate(self, data: bytes, room: int) -> bytes:
        try:
            return self._z.decompress(data, room)
        except zlib.error as exc:
            if self.encoding == "deflate" and not self._raw_deflate and not self._z.eof:
                # Some servers send raw deflate without the zlib wrapper.
                self._raw_deflate = True
                self._z = self._new()
                return self._inflate(data, room)
            raise FetchError("decoding", f"The {self.encoding} body cannot be decoded ({exc}).") from exc

    def finish(self) -> None:
        """Refuse a compressed body that stops before its end."""
        if self._z is not None and not self._z.eof:
            raise FetchError("decoding", f"The {self.encoding} body ends before its compressed stream does.")

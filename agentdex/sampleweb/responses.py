"""Raw ASGI response helpers: static bodies with validators, drip, gzip and redirects."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import threading
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_TYPES = {
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".xml": "application/xml",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".pem": "application/x-pem-file",
}
DRIP_TICK = 0.1  # seconds between drip chunks


def content_type_for(name: str) -> str:
    """The Content-Type a file name gets by its extension."""
    dot = name.rfind(".")
    return CONTENT_TYPES.get(name[dot:].lower(), "application/octet-stream") if dot >= 0 else "application/octet-stream"


def header(scope: Scope, name: str) -> str | None:
    """A request header's value (the last one wins), decoded as latin-1."""
    wanted = name.lower().encode("latin-1")
    value = None
    for key, raw in scope.get("headers", ()):
        if key.lower() == wanted:
            value = raw.decode("latin-1")
    return value


def etag_of(body: bytes) -> str:
    """A strong ETag: the sha256 of the bytes sent."""
    return '"' + hashlib.sha256(body).hexdigest() + '"'


def http_date(timestamp: float) -> str:
    """An IMF-fixdate for Last-Modified."""
    return formatdate(timestamp, usegmt=True)


@dataclass(slots=True)
class Static:
    """A static answer before it is sent."""

    status: int
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)
    last_modified: int | None = None
    etag: bool = True


def not_modified(scope: Scope, etag: str | None, last_modified: int | None) -> bool:
    """Whether the request's validators match (If-None-Match wins over If-Modified-Since)."""
    inm = header(scope, "if-none-match")
    if inm is not None:
        if etag is None:
            return False
        tags = {t.strip().removeprefix("W/") for t in inm.split(",")}
        return "*" in tags or etag in tags
    ims = header(scope, "if-modified-since")
    if ims is None or last_modified is None:
        return False
    try:
        return last_modified <= parsedate_to_datetime(ims).timestamp()
    except (TypeError, ValueError):
        return False


def encode_headers(pairs: Iterable[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """ASGI header list from (name, value) strings."""
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in pairs]


def merge_headers(base: dict[str, str], extra: dict[str, str]) -> dict[str, str]:
    """Headers with ``extra`` replacing same-named (case-insensitive) entries of ``base``."""
    out = {k: v for k, v in base.items() if k.lower() not in {e.lower() for e in extra}}
    out.update(extra)
    return out


async def send_static(
    scope: Scope, send: Send, answer: Static, *, drip: int | None = None, disconnected: asyncio.Event | None = None
) -> None:
    """Send a static answer: validators, 304 when they match, HEAD, and optional drip."""
    headers = {"Content-Type": answer.content_type}
    etag = etag_of(answer.body) if answer.etag else None
    if etag:
        headers["ETag"] = etag
    if answer.last_modified is not None:
        headers["Last-Modified"] = http_date(answer.last_modified)
    headers = merge_headers(headers, answer.headers)
    if answer.status == 200 and scope["method"] in ("GET", "HEAD") and (etag or answer.last_modified):
        if not_modified(scope, etag, answer.last_modified):
            keep = {k: v for k, v in headers.items() if k.lower() != "content-type"}
            await send_bytes(send, 304, keep, b"")
            return
    headers["Content-Length"] = str(len(answer.body))
    body = b"" if scope["method"] == "HEAD" else answer.body
    if drip and body:
        await _send_drip(send, answer.status, headers, body, drip, disconnected)
    else:
        await send_bytes(send, answer.status, headers, body)


async def send_bytes(send: Send, status: int, headers: dict[str, str], body: bytes) -> None:
    """Send one complete response."""
    await send({"type": "http.response.start", "status": status, "headers": encode_headers(headers.items())})
    await send({"type": "http.response.body", "body": body})


async def _send_drip(
    send: Send, status: int, headers: dict[str, str], body: bytes, rate: int, disconnected: asyncio.Event | None
) -> None:
    """Send ``body`` at ``rate`` bytes per second; stop early if the client went away."""
    await send({"type": "http.response.start", "status": status, "headers": encode_headers(headers.items())})
    step = max(1, int(rate * DRIP_TICK))
    for start in range(0, len(body), step):
        if disconnected is not None and disconnected.is_set():
            return
        await send({"type": "http.response.body", "body": body[start : start + step], "more_body": True})
        await asyncio.sleep(DRIP_TICK)
    await send({"type": "http.response.body", "body": b""})


async def send_text(
    send: Send,
    status: int,
    text: str,
    content_type: str = "text/plain; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    """Send a short text answer."""
    body = text.encode("utf-8")
    all_headers = {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})}
    await send_bytes(send, status, all_headers, body)


async def send_json(send: Send, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
    """Send a JSON answer."""
    await send_text(send, status, json.dumps(doc, indent=2), "application/json", headers)


def gzip_bytes(body: bytes) -> bytes:
    """The body gzip-encoded (deterministic: no timestamp)."""
    return gzip.compress(body, mtime=0)


_BOMBS: dict[int, bytes] = {}
_BOMB_LOCK = threading.Lock()


def gzip_bomb(size: int) -> bytes:
    """A small gzip body that inflates to ``size`` bytes of spaces (built once, cached)."""
    with _BOMB_LOCK:
        if size not in _BOMBS:
            comp = zlib.compressobj(9, zlib.DEFLATED, 31)
            chunk = b" " * (1 << 20)
            parts = [comp.compress(chunk[: min(len(chunk), size - done)]) for done in range(0, size, len(chunk))]
            _BOMBS[size] = b"".join(parts) + comp.flush()
        return _BOMBS[size]


class DisconnectWatch:
    """Watches ``receive`` for the client going away (for delays and drips)."""

    def __init__(self, receive: Receive) -> None:
        self.event = asyncio.Event()
        self._task = asyncio.ensure_future(self._watch(receive))

    async def _watch(self, receive: Receive) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.event.set()
                return

    async def sleep(self, seconds: float) -> bool:
        """Sleep ``seconds``; True when the client disconnected meanwhile."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout=seconds)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        """Stop watching."""
        self._task.cancel()


def with_headers(send: Send, extra: dict[str, str]) -> Send:
    """A ``send`` that adds ``extra`` headers an app's response does not set itself."""
    if not extra:
        return send

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            added = [(k, v) for k, v in extra.items() if k.lower().encode("latin-1") not in present]
            message = {**message, "headers": [*message.get("headers", []), *encode_headers(added)]}
        await send(message)

    return wrapped

"""The legacy HTTP+SSE transport of MCP (protocol 2024-11-05), as the probe speaks it.

A GET opens a ``text/event-stream``; the server's first event, ``endpoint``, names the URL
the client POSTs its JSON-RPC messages to; every answer arrives as a ``message`` event on
the stream. The transport is deprecated (Streamable HTTP replaced it) but servers still run
it, the MCP SDKs' reference servers among them.

Public API::

    EventReader(max_bytes, max_events).feed(chunk) -> [Event, ...]
        server-sent events parsed as the WHATWG rules say; StreamCapped past either cap
    await open_session(url, response) -> Session | str
        the session of an open event stream, or why it is not one
    await session.ask(body, want_id, post) -> (message | None, why)
    await first_event(response) -> Event | None      (the first event of a stream, capped)

It is hand-written rather than taken from an SSE library because the stream is untrusted
and endless: every byte and event is counted against a cap (a library reads lines of any
length), and nothing is decoded but UTF-8 text.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urljoin

import httpx

from agentdex.crawler.origins import origin_of
from agentdex.errors import TransportError
from agentdex.formats._load import loads as safe_loads
from agentdex.headers import media_type
from agentdex.models import FetchRecord

MAX_BYTES = 2 * 1024 * 1024  # the whole stream, over the session
MAX_EVENTS = 500  # answers, pings and notifications together; a probe needs a dozen
FIRST_EVENT_BYTES = 16 * 1024  # enough for an ``endpoint`` event, not for a page
_LINE_END = re.compile(rb"\r\n|\r|\n")


class Post(Protocol):
    """``post(url, body, headers, follow_redirects=True)``: a POST under the fetch policy."""

    def __call__(
        self, url: str, body: bytes, headers: dict[str, str], /, *, follow_redirects: bool = ...
    ) -> Awaitable[FetchRecord]: ...


POST_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class StreamCapped(Exception):
    """The stream went past a cap; what it says is no longer read."""


@dataclass(slots=True)
class Event:
    """One dispatched server-sent event."""

    type: str
    data: str


@dataclass
class EventReader:
    """Incremental server-sent-event parsing under a byte cap and an event cap."""

    max_bytes: int = MAX_BYTES
    max_events: int = MAX_EVENTS
    read: int = 0
    events: int = 0
    _buffer: bytes = b""
    _type: str = ""
    _data: list[str] = field(default_factory=list)

    def feed(self, chunk: bytes) -> list[Event]:
        """The events ``chunk`` completes (a line cut between chunks waits for its end)."""
        self.read += len(chunk)
        if self.read > self.max_bytes:
            raise StreamCapped(f"the event stream passed the {self.max_bytes:,}-byte cap")
        text = self._buffer + chunk
        # A final CR may be the first half of CRLF: keep it until the next chunk says.
        hold = b"\r" if text.endswith(b"\r") else b""
        lines = _LINE_END.split(text[: len(text) - len(hold)])
        self._buffer = lines.pop() + hold
        return [event for line in lines if (event := self._line(line.decode("utf-8", "replace")))]

    def _line(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._type = value
        elif name == "data":
            self._data.append(value)
        return None  # comments (":...") and id/retry fields change nothing the probe reads

    def _dispatch(self) -> Event | None:
        event_type, data = self._type or "message", self._data
        self._type, self._data = "", []
        if not data:
            return None
        self.events += 1
        if self.events > self.max_events:
            raise StreamCapped(f"the event stream sent more than {self.max_events:,} events")
        return Event(event_type, "\n".join(data))


async def events_of(response: httpx.Response, reader: EventReader) -> AsyncIterator[Event]:
    """The events of an open stream, as they arrive, until it ends or passes a cap."""
    async for chunk in response.aiter_raw():
        for event in reader.feed(chunk):
            yield event


def stream_problem(record: FetchRecord) -> str | None:
    """Why an answer to the stream's GET is no event stream (None: it is one)."""
    if record.status != 200:
        return record.error or f"HTTP {record.status} to the event-stream GET"
    ctype = media_type(record.headers)
    if ctype != "text/event-stream":
        return f"the GET answered {ctype or 'no content type'}, not an event stream"
    if record.headers.get("content-encoding", "identity").strip().lower() != "identity":
        return "the event stream is compressed, which agentdex did not ask for"
    return None


async def first_event(response: httpx.Response) -> Event | None:
    """The first event of an open stream, reading at most ``FIRST_EVENT_BYTES``."""
    reader = EventReader(FIRST_EVENT_BYTES, 1)
    try:
        async for event in events_of(response, reader):
            return event
    except (StreamCapped, TransportError):
        return None
    return None


class Session:
    """One HTTP+SSE session: the POST endpoint and the events still to read."""

    def __init__(self, endpoint: str, events: AsyncIterator[Event]) -> None:
        self.endpoint = endpoint
        self._events = events

    async def ask(self, body: bytes, want_id: int | None, post: Post) -> tuple[dict | None, str]:
        """POST ``body`` and, for a request (``want_id``), read the stream until its answer:
        ``(message, "")`` or ``(None, why)``. Requests the server sends meanwhile (ping,
        sampling…) are never answered. The POST follows no redirect: the endpoint event named
        where the session's messages go, and a 307 elsewhere would carry them there."""
        record = await post(self.endpoint, body, POST_HEADERS, follow_redirects=False)
        if record.status is None or not 200 <= record.status < 300:
            return None, f"the POST to {self.endpoint} got {record.error or 'HTTP ' + str(record.status)}"
        if want_id is None:
            return None, ""
        try:
            async for event in self._events:
                message = _answer(event, want_id)
                if message is not None:
                    return message, ""
        except (StreamCapped, TransportError) as exc:
            return None, str(exc) or type(exc).__name__
        return None, "the event stream ended before the answer"


def _answer(event: Event, want_id: int) -> dict | None:
    """The JSON-RPC response with ``want_id`` in a ``message`` event, else None."""
    if event.type != "message":
        return None
    try:
        message: Any = safe_loads(event.data)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("jsonrpc") == "2.0" and message.get("id") == want_id:
        return message
    return None


async def open_session(url: str, response: httpx.Response) -> Session | str:
    """The session of the open event stream at ``url``: its first event must be
    ``endpoint``, naming a POST URL on the stream's own origin (agentdex never sends a
    session's messages to another origin)."""
    events = events_of(response, EventReader())
    try:
        first = await anext(events, None)
    except (StreamCapped, TransportError) as exc:
        return f"the event stream failed before its endpoint event ({exc or type(exc).__name__})"
    if first is None or first.type != "endpoint":
        seen = "ended" if first is None else f"began with a {first.type[:40]!r} event"
        return f"the event stream {seen}, not with the endpoint event of the HTTP+SSE transport"
    endpoint = urljoin(url, first.data.strip())
    if origin_of(endpoint) != origin_of(url):
        return f"the endpoint event names {endpoint[:200]}, on another origin; agentdex posts only to {origin_of(url)}"
    return Session(endpoint, events)

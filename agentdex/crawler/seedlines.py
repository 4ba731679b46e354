"""Seed lines that carry endpoints: what ``agentdex seeds`` prints for ``crawl --seeds``.

A seeds file holds one origin a line (``#`` starts a comment), as it always has. A line
may go on, after the origin and a space, with ``key=value`` fields naming an MCP endpoint
a registry entry declares on that origin (one line an endpoint; the origin repeated, so
the lines can be sorted, split or sharded freely)::

    shared.example mcp=https://shared.example/a/mcp name=io.github.acme/a transport=streamable-http status=active source=registry:https://registry.modelcontextprotocol.io

Keys: ``mcp`` (the endpoint URL, with its path: https, on the line's origin, no template),
``name`` (the server's name), ``transport`` (``streamable-http`` or ``sse``), ``status``
(``active``, ``deprecated`` or ``deleted``) and ``source`` (where it was named). Values
are percent-encoded where they hold a space, ``#`` or ``%``. An unknown key is refused, so
a typo does not pass silently; a plain origin-per-line file reads as it always did.

The crawl records each endpoint as its source's naming of the origin (``seed_sources``,
as ``agentdex seeds`` does) and probes it under the origin.

A crawl reads the file a line at a time while it crawls (:class:`SeedLines` into a
:class:`~agentdex.crawler.feed.Feed`), so a file of any length is crawled in flat memory. An
origin's adjacent lines are taken together, so the crawl probes every endpoint they declare;
an endpoint on a line far from its origin's first (an unsorted file) is recorded as it is
read, and the origin is crawled once more at the end of the run when its crawl had begun by
then (:class:`~agentdex.crawler.feed.Feed`), so the run probes it. A bad line is reported with its number and skipped.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote, unquote, urlsplit

from agentdex.crawler.feed import BadLine, Seed
from agentdex.crawler.origins import NotPublic, normalise_origin, public_origin
from agentdex.errors import InputError

KEYS = ("mcp", "name", "transport", "status", "source")
TRANSPORTS = ("streamable-http", "sse")
STATUSES = ("active", "deprecated", "deleted")
SAFE = ":/?&=@+,;!$'()*[]~._-"  # what a value keeps as it is: everything of a URL but #, % and spaces
# A line: an origin and one endpoint's fields (a URL of at most 2,048 characters, a name, a
# source); a longer one is refused alone and read past, never held.
LINE_BYTES = 16 * 1024


def seed_line(origin: str, fields: dict[str, str | None]) -> str:
    """One line: the origin, then each field given (``key=value``, percent-encoded)."""
    parts = [origin] + [f"{k}={quote(v, safe=SAFE)}" for k in KEYS if (v := fields.get(k))]
    return " ".join(parts)


@dataclass
class SeedFile:
    """What a seeds file names: the origins in order, and the endpoints its lines declare
    (rows for :func:`agentdex.db.seeds.save_run`)."""

    origins: list[str] = field(default_factory=list)
    endpoints: list[dict[str, Any]] = field(default_factory=list)


def read_seed_file(path: str | Path, chosen: Callable[[str], bool] | None = None) -> SeedFile:
    """The origins and endpoints of a seeds file (``-``: standard input), held whole; each
    origin must be a public one (:func:`~agentdex.crawler.origins.public_origin`, with
    ``chosen``). A crawl streams the file instead (:class:`SeedLines`).

    :raises InputError: the file cannot be read, or a line is no origin or names a bad endpoint
    """
    found = SeedFile()
    for item in SeedLines(path, chosen):
        if isinstance(item, BadLine):
            raise (NotPublic if item.not_public else InputError)(str(item))
        found.origins.append(item.origin)
        found.endpoints.extend(item.endpoints)
    return found


class SeedLines:
    """The seeds of a file (``-``: standard input) read a line at a time, as an iterator: a
    :class:`~agentdex.crawler.feed.Seed` an origin (with the endpoints its adjacent lines
    declare: one line an endpoint, the origin repeated, as ``agentdex seeds`` prints them) and
    a :class:`~agentdex.crawler.feed.BadLine` for each line that is no origin, over
    :data:`LINE_BYTES`, or not UTF-8. Memory holds one origin's lines, never the file.

    :raises InputError: the file cannot be opened
    """

    def __init__(self, path: str | Path, chosen: Callable[[str], bool] | None = None) -> None:
        self.path, self.chosen, self.source = path, chosen, _source(path)
        self.shown = "standard input" if str(path) == "-" else str(path)  # what a bad line's number follows
        self._fh = _open(path)

    def __iter__(self) -> Iterator[Seed | BadLine]:
        try:
            yield from self._seeds()
        except OSError as exc:  # a disk or pipe that fails midway
            raise InputError(f"cannot read seeds file {self.path} on: {exc.strerror or exc}") from exc

    def _seeds(self) -> Iterator[Seed | BadLine]:
        origin, endpoints = "", []
        with self._fh as fh:
            for number, raw in read_lines(fh, LINE_BYTES):
                item = self._parse(number, raw)
                if isinstance(item, BadLine):
                    yield item
                elif item is not None and item[0] == origin:
                    endpoints += item[1]
                elif item is not None:
                    if origin:
                        yield Seed(origin, tuple(endpoints))
                    origin, endpoints = item
        if origin:
            yield Seed(origin, tuple(endpoints))

    def _parse(self, number: int, raw: bytes | None) -> BadLine | tuple[str, list[dict[str, Any]]] | None:
        """``(origin, endpoints)`` of a line, None for a blank or comment line, or why it is bad."""
        where = f"{self.shown}, line {number}"
        if raw is None:
            return BadLine(where, f"a line over {LINE_BYTES:,} bytes")
        try:
            entry = raw.decode("utf-8-sig" if number == 1 else "utf-8").split("#", 1)[0].strip()
        except UnicodeDecodeError as exc:
            return BadLine(where, f"not UTF-8 ({exc.reason} at byte {exc.start})")
        if not entry:
            return None
        try:
            origin, endpoint = parse_line(entry, default_source=self.source, chosen=self.chosen)
        except InputError as exc:
            return BadLine(where, str(exc), not_public=isinstance(exc, NotPublic))
        return origin, [endpoint] if endpoint is not None else []


def read_lines(fh: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """``(number, bytes)`` of each line of ``fh``, None for a line over ``limit`` bytes (read
    past in pieces, never held whole)."""
    number = 0
    while raw := fh.readline(limit + 1):
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(1024 * 1024)
            yield number, None
        else:
            yield number, raw


def _source(path: str | Path) -> str:
    return "stdin" if str(path) == "-" else Path(path).name


def _open(path: str | Path) -> contextlib.AbstractContextManager[BinaryIO]:
    """The seeds file opened for reading (standard input is left open after)."""
    if str(path) == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise InputError(f"cannot read seeds file {path}: {exc.strerror or exc}") from exc


def parse_line(
    entry: str, *, default_source: str = "", chosen: Callable[[str], bool] | None = None
) -> tuple[str, dict[str, Any] | None]:
    """``(origin, endpoint row or None)`` of one line without its comment."""
    first, *rest = entry.split()
    origin = public_origin(first, chosen)
    if not rest:
        return origin, None
    fields = _fields(rest)
    if "mcp" not in fields:
        raise InputError("fields after the origin name an endpoint: mcp=URL is missing")
    return origin, _endpoint_row(origin, fields, default_source)


def _fields(parts: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in KEYS:
            raise InputError(f"{part[:60]!r} is no key=value field of {', '.join(KEYS)}")
        if key in fields:
            raise InputError(f"{key}= is given twice")
        fields[key] = unquote(value)
    return fields


def _endpoint_row(origin: str, fields: dict[str, str], default_source: str) -> dict[str, Any]:
    url = fields["mcp"]
    _check_endpoint(origin, url)
    transport, status = fields.get("transport") or None, fields.get("status") or "active"
    if transport is not None and transport not in TRANSPORTS:
        raise InputError(f"transport={transport[:40]!r} is none of {', '.join(TRANSPORTS)}")
    if status not in STATUSES:
        raise InputError(f"status={status[:40]!r} is none of {', '.join(STATUSES)}")
    return {
        "origin": origin,
        "source": fields.get("source") or default_source,
        "name": fields.get("name", ""),
        "via": "remote",
        "url": url,
        "status": status,
        "status_message": None,
        "refused": None,
        "updated_at": None,
        "transport": transport,
    }


def _check_endpoint(origin: str, url: str) -> None:
    """An endpoint must be an https URL without a template, on the line's origin."""
    if "{" in url or "}" in url:
        raise InputError(f"mcp={url[:80]!r} is an unexpanded URL template; it names no one endpoint")
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError as exc:
        raise InputError(f"mcp={url[:80]!r} is no URL ({exc})") from exc
    if scheme != "https":
        raise InputError(f"mcp={url[:80]!r} is not an https URL")
    if normalise_origin(url) != origin:
        raise InputError(f"mcp={url[:80]!r} is not on the line's origin {origin}")

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
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from agentdex.crawler.origins import normalise_origin, public_origin
from agentdex.errors import InputError

KEYS = ("mcp", "name", "transport", "status", "source")
TRANSPORTS = ("streamable-http", "sse")
STATUSES = ("active", "deprecated", "deleted")
SAFE = ":/?&=@+,;!$'()*[]~._-"  # what a value keeps as it is: everything of a URL but #, % and spaces
MAX_BYTES = 256 * 1024 * 1024  # as a seed file of agentdex seeds


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
    """The origins and endpoints of a seeds file (``-``: standard input); each origin must be
    a public one (:func:`~agentdex.crawler.origins.public_origin`, with ``chosen``).

    :raises InputError: the file cannot be read, or a line is no origin or names a bad endpoint
    """
    text = _read(path)
    found = SeedFile()
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        try:
            origin, endpoint = parse_line(entry, default_source=_source(path), chosen=chosen)
        except InputError as exc:  # the same class: a non-public origin stays NotPublic
            raise type(exc)(f"{path}, line {number}: {exc}") from exc
        found.origins.append(origin)
        if endpoint is not None:
            found.endpoints.append(endpoint)
    return found


def _source(path: str | Path) -> str:
    return "stdin" if str(path) == "-" else Path(path).name


def _read(path: str | Path) -> str:
    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise InputError(f"seeds file {path} is over {MAX_BYTES:,} bytes")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read seeds file {path}: {exc}") from exc


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

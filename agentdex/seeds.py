"""``agentdex seeds``: the origins to crawl, read from the real registries.

A source is one of:

- ``registry:BASE`` — an MCP registry API (the official one's ``GET /v0.1/servers``, spec:
  modelcontextprotocol/registry ``docs/reference/api/openapi.yaml``), read page by page with
  ``limit=100`` and the ``metadata.nextCursor`` it gives, with ``include_deleted=true`` so a
  server the registry marks ``deleted`` or ``deprecated`` is seen (and becomes an event on its
  origin), never silently dropped. A run remembers the newest ``updatedAt`` it saw
  (:func:`agentdex.db.seeds.save_cursor`); the next run asks with ``updated_since`` for only
  what changed since (``--since`` overrides it);
- a file: saved registry pages (one JSON page, a JSON list of pages or of entries, or NDJSON
  with one page or entry a line); an A2A registry's listing (agent cards, or
  ``{"agents": [...]}`` entries with a card ``url``); a CSV domain list (``rank,domain``, as
  Tranco publishes it); or plain text, one host or URL a line (``#`` starts a comment).

Origins come from each server's remote URLs and its ``websiteUrl`` (from a card's endpoint
URLs, from each domain or line). What is no public https origin is refused with the reason:
a URL template not filled in (``https://{tenant}.example.com/mcp``), plain http,
``localhost``, an IP address, a string that is no host. The same origin named by several
entries is one seed that keeps every source.

A run lists its origins in the order read: the sources in the order given, each in its own
order (a registry's or a file's; a ``rank,domain`` list by rank, numerically, ties in file
order); an origin named by several sources is listed once, at its first place.

The registry's URLs, paging rules and pages are :mod:`agentdex.formats.registry_api`'s: its
pydantic models read each page in the registry's own spelling; an entry they cannot read
(wrong types in its official ``_meta``, a name over the 200 characters the registry allows)
is refused alone with the reason, the page is not.

A read streams: each page's namings go to the run's ``sink`` (the catalogue, for the CLI) as
the page arrives, so memory holds one page, never the whole registry. One registry read has a
:class:`Budget`: seconds for all its pages together, pages, and bytes after decompression. A
read cut short (by its budget, a page that does not answer or is no page, a repeated cursor)
is a :class:`Cut`: what was read is kept, and that registry's ``updated_since`` does not move,
since the pages never read may hold servers updated before the newest one seen. A file is
read under budgets too (:func:`read_file`): a line at a time, a line over its budget or an
NDJSON line that is no JSON refused alone, JSON nested too deep one sentence.
"""

from __future__ import annotations

import asyncio
import csv
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, BinaryIO

from agentdex.crawler.origins import public_origin
from agentdex.crawler.seedlines import read_lines, seed_line
from agentdex.errors import InputError
from agentdex.formats._load import loads as safe_loads
from agentdex.formats.registry_api import (
    MAX_PAGES,
    PAGE_LIMIT,
    NotRead,
    Page,
    Paging,
    list_url,
    page_of,
    read_entry,
    read_page,
    server_name_of,
)
from agentdex.headers import http_digits

REGISTRY_PREFIX = "registry:"
PAGE_BYTES = 4 * 1024 * 1024
READ_BYTES = 256 * 1024 * 1024  # every page of one registry together, after decompression
READ_SECONDS = 600.0  # every page of one registry together (seeds --read-budget)
MAX_URL = 2048
FILE_BYTES = 256 * 1024 * 1024  # a seed file
JSON_BYTES = 64 * 1024 * 1024  # a JSON seed file read whole (its objects take ~10 times that); else NDJSON
LINE_BYTES = 4096  # a rank,domain row or a host line (a domain is at most 253 characters)
HEAD_BYTES = 64 * 1024  # what tells a file's kind
BATCH = 1_000  # namings handed to the sink at once (a registry page is one batch)


# -- results ---------------------------------------------------------------------------------------
@dataclass
class Named:
    """One source's naming of a URL or host: which source, which entry, what it said."""

    source: str
    name: str
    status: str = "active"
    via: str = ""
    url: str = ""
    status_message: str | None = None
    updated_at: str | None = None
    transport: str | None = None  # a remote's declared transport (streamable-http | sse)
    rank: int | None = None  # a top list's rank (CSV): the run lists its origins in rank order


@dataclass
class Seed:
    """An origin to crawl and every source that named it."""

    origin: str
    sources: list[Named] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{origin, sources: [{source, name, status, via, url}], endpoints: [{url, name,
        transport, status, source}]}``: ``endpoints`` are the MCP endpoints registry entries
        declare on the origin (their remotes, paths kept), which the crawl probes."""
        return {
            "origin": self.origin,
            "sources": [{**_short(n), "via": n.via, "url": n.url} for n in self.sources],
            "endpoints": [
                {"url": n.url, "name": n.name, "transport": n.transport, "status": n.status, "source": n.source}
                for n in self.endpoints()
            ],
        }

    def endpoints(self) -> list[Named]:
        """The registry remotes naming this origin, one a URL."""
        found: dict[str, Named] = {}
        for named in self.sources:
            if named.via == "remote":
                found.setdefault(named.url, named)
        return list(found.values())

    def lines(self) -> list[str]:
        """The seed as ``crawl --seeds`` lines: the origin alone, or one line an endpoint
        with its declaration (:func:`agentdex.crawler.seedlines.seed_line`)."""
        endpoints = self.endpoints()
        if not endpoints:
            return [self.origin]
        return [
            seed_line(
                self.origin,
                {"mcp": n.url, "name": n.name, "transport": n.transport, "status": n.status, "source": n.source},
            )
            for n in endpoints
        ]


@dataclass
class Refused:
    """A URL or line no origin was taken from, and why."""

    named: Named
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """``{origin: null, refused, reason, sources: [{source, name, status}]}``."""
        return {"origin": None, "refused": self.named.url, "reason": self.reason, "sources": [_short(self.named)]}


@dataclass
class SeedRun:
    """What a run of ``seeds`` found: the seeds by origin, what it refused, the registry
    URLs it asked, and for each registry the newest ``updatedAt`` seen (the next run's
    ``updated_since``)."""

    seeds: list[Seed] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    cursors: dict[str, str] = field(default_factory=dict)
    servers_seen: dict[str, int] = field(default_factory=dict)
    cuts: list[Cut] = field(default_factory=list)

    def to_list(self) -> list[dict[str, Any]]:
        """The ``--json`` answer: every seed, then every refused entry, then every cut read."""
        return [s.to_dict() for s in self.seeds] + [r.to_dict() for r in self.refused] + self.cut_list()

    def cut_list(self) -> list[dict[str, Any]]:
        """Every cut read, as ``--json`` ends with them."""
        return [c.to_dict() for c in self.cuts]


@dataclass
class Budget:
    """How much one registry read may take: seconds (all its pages together), pages, and
    bytes after decompression."""

    seconds: float
    pages: int
    bytes: int


def default_budget(seconds: float | None = None) -> Budget:
    """The budget of a registry read (``seconds`` replaces the default time)."""
    return Budget(READ_SECONDS if seconds is None else seconds, MAX_PAGES, READ_BYTES)


@dataclass
class Cut:
    """A registry read stopped before its last page: how far it got and why."""

    source: str
    reason: str
    pages: int
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        """``{origin: null, cut: source, reason, pages, bytes, sources: []}``."""
        return {"origin": None, "cut": self.source, "reason": self.reason, "pages": self.pages, "bytes": self.bytes}

    def sentence(self) -> str:
        """What a person reads on stderr."""
        return (
            f"the read of {self.source} was cut short after {self.pages} page(s), {self.bytes:,} bytes: "
            f"{self.reason}; what was read is kept, its updated_since is not moved"
        )


# (origin or None when refused, the naming, why it was refused)
Naming = tuple[str | None, Named, str | None]
Sink = Callable[[list[Naming]], None]


def _short(named: Named) -> dict[str, Any]:
    return {"source": named.source, "name": named.name, "status": named.status}


# -- origins ---------------------------------------------------------------------------------------
def origin_or_reason(text: str) -> tuple[str | None, str | None]:
    """The public https origin a URL or host names, or ``(None, why not)``
    (:func:`~agentdex.crawler.origins.public_origin` decides)."""
    try:
        return public_origin(text), None
    except InputError as exc:
        return None, str(exc)


class Collector:
    """Gathers the named URLs of every source into seeds (by origin) and refusals: in memory,
    or, with a ``sink``, handed to it a batch at a time (then the run keeps none of them)."""

    def __init__(self, sink: Sink | None = None) -> None:
        self.by_origin: dict[str, Seed] = {}
        self.places: dict[str, tuple[int, int, int]] = {}  # origin: (source, rank, first seen) of its first place
        self.source_numbers: dict[str, int] = {}
        self.run = SeedRun()
        self.sink = sink
        self.pending: list[Naming] = []

    def add(self, named: Named) -> None:
        """Take ``named.url``'s origin, or refuse it with the reason."""
        if len(named.url) > MAX_URL:
            named.url = named.url[:MAX_URL]
            self.refuse(named, f"a URL over {MAX_URL:,} characters")
            return
        origin, reason = origin_or_reason(named.url)
        if origin is None:
            self.refuse(named, reason or "no origin")
        elif self.sink is not None:
            self._pend((origin, named, None))
        else:
            seed = self.by_origin.setdefault(origin, Seed(origin))
            number = self.source_numbers.setdefault(named.source, len(self.source_numbers))
            place = (number, named.rank or 0, len(self.places))
            self.places[origin] = min(self.places.get(origin, place), place)
            if named not in seed.sources:
                seed.sources.append(named)

    def refuse(self, named: Named, reason: str) -> None:
        """Record a naming no origin was taken from."""
        if self.sink is not None:
            self._pend((None, named, reason))
        else:
            self.run.refused.append(Refused(named, reason))

    def _pend(self, naming: Naming) -> None:
        self.pending.append(naming)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Hand what is pending to the sink."""
        if self.sink is not None and self.pending:
            batch, self.pending = self.pending, []
            self.sink(batch)

    def finish(self) -> SeedRun:
        """The run, seeds in run order (see the module docstring)."""
        self.flush()
        self.run.seeds = [self.by_origin[o] for o in sorted(self.by_origin, key=self.places.__getitem__)]
        return self.run


# -- registry entries ------------------------------------------------------------------------------
def entry_names(item: Any, source: str) -> Iterator[Named | tuple[Named, str]]:
    """The URLs one registry entry names (a remote URL or its website), or the entry refused."""
    try:
        entry = read_entry(item)
    except NotRead as exc:
        yield Named(source, server_name_of(item), url=""), f"not a registry entry: {exc}"
        return
    official = entry.official
    common: dict[str, Any] = {
        "source": source,
        "name": entry.server.name,
        "status": official.status,
        "status_message": official.statusMessage,
        "updated_at": official.updatedAt,
    }
    for remote in entry.server.remotes:
        yield Named(**common, via="remote", url=remote.url, transport=remote.type or None)
    if entry.server.websiteUrl:
        yield Named(**common, via="websiteUrl", url=entry.server.websiteUrl)


def add_entries(collector: Collector, items: Iterable[Any], source: str) -> int:
    """Add every entry of a page; returns how many entries there were."""
    count = 0
    for item in items:
        count += 1
        for found in entry_names(item, source):
            if isinstance(found, tuple):
                collector.refuse(*found)
            else:
                collector.add(found)
                _note_update(collector.run, source, found.updated_at)
    return count


def _note_update(run: SeedRun, source: str, updated: str | None) -> None:
    if updated and updated > run.cursors.get(source, ""):
        run.cursors[source] = updated


def _page(data: bytes, url: str) -> Page:
    """One page of the registry's answer (:class:`InputError` when it is none)."""
    try:
        return read_page(data)
    except NotRead as exc:
        raise InputError(f"{url} did not answer with a registry page: {exc}") from exc


@dataclass
class _Read:
    """How far one registry read has got."""

    source: str
    deadline: float
    paging: Paging
    pages: int = 0  # pages answered, a page that is none included
    size: int = 0  # bytes of every page, after decompression


async def read_registry(
    collector: Collector, base: str, fetcher, since: str | None, budget: Budget | None = None
) -> None:
    """Every page of the registry at ``base`` (only what changed after ``since``, when given),
    each page's namings handed on as it arrives, under ``budget`` and the registry API's paging
    rules (:class:`~agentdex.formats.registry_api.Paging`); a read cut short is recorded in
    ``collector.run.cuts`` and its cursor dropped."""
    budget = budget or default_budget()
    read = _Read(REGISTRY_PREFIX + base, time.monotonic() + budget.seconds, Paging(budget.pages))
    while not read.paging.done:
        why = read.paging.stop() or _over_budget(read, budget)
        url = list_url(base, limit=PAGE_LIMIT, include_deleted=True, updated_since=since, cursor=read.paging.cursor)
        page = None if why else await _next_page(collector, base, fetcher, url, read, budget)
        if isinstance(page, str) or why:
            _cut(collector, read, why or str(page))
            return
        assert page is not None  # a page, or the reason there is none
        count = add_entries(collector, page.servers, read.source)
        collector.flush()
        seen = collector.run.servers_seen
        seen[read.source] = seen.get(read.source, 0) + count
        why = read.paging.turn(page)
        if why:
            _cut(collector, read, why)
            return


def _over_budget(read: _Read, budget: Budget) -> str | None:
    if read.size >= budget.bytes:
        return f"the pages reached the byte budget ({budget.bytes:,} bytes)"
    if time.monotonic() >= read.deadline:
        return f"the read took longer than {budget.seconds:g} s (the time budget)"
    return None


async def _next_page(collector: Collector, base: str, fetcher, url: str, read: _Read, budget: Budget):
    """The next page, or why there is none (a sentence)."""
    collector.run.asked.append(url)
    room = min(PAGE_BYTES, budget.bytes - read.size)
    try:
        async with asyncio.timeout(max(read.deadline - time.monotonic(), 0.001)):
            record = await fetcher.fetch(url, kind="registry_page", max_bytes=room, accept="application/json")
    except TimeoutError:
        return f"the read took longer than {budget.seconds:g} s (the time budget)"
    if record.error_code == "too_large" and room < PAGE_BYTES:
        return f"the next page would pass the byte budget ({budget.bytes:,} bytes)"
    if not record.ok or record.body is None:
        return f"the registry at {base} did not answer {url}: {record.error or record.status}"
    read.pages += 1
    read.size += len(record.body)
    try:
        return _page(record.body, url)
    except InputError as exc:
        return str(exc)


def _cut(collector: Collector, read: _Read, reason: str) -> None:
    collector.run.cuts.append(Cut(read.source, reason, read.pages, read.size))
    collector.run.cursors.pop(read.source, None)  # unread pages may hold older updates


# -- files -----------------------------------------------------------------------------------------
def read_file(collector: Collector, path: Path) -> None:
    """Add what a seed file names (its kind told by its content, see the module docstring),
    under budgets: at most ``FILE_BYTES``; a JSON document of at most ``JSON_BYTES`` (a
    larger one is read as NDJSON, a line at a time), nested at most as deep as the JSON
    reader allows; a line of at most ``LINE_BYTES`` (``PAGE_BYTES`` for an NDJSON line). A
    line or entry over its budget or unreadable is refused alone, with the reason."""
    source = path.name
    with _open(path) as fh:
        head = fh.read(HEAD_BYTES).decode("utf-8-sig", errors="replace")
        fh.seek(0)
        if head.lstrip().startswith(("{", "[")):
            _add_json_file(collector, fh, path)
        elif path.suffix.lower() == ".csv" or _looks_like_csv(head):
            _add_csv(collector, _lines(fh, LINE_BYTES), source)
        else:
            _add_lines(collector, _lines(fh, LINE_BYTES), source)
    collector.flush()


@contextmanager
def _open(path: Path) -> Iterator[BinaryIO]:
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    with fh:
        if os.fstat(fh.fileno()).st_size > FILE_BYTES:
            raise InputError(f"{path} is over {FILE_BYTES:,} bytes")
        yield fh


def _lines(fh: BinaryIO, limit: int) -> Iterator[tuple[int, str | None]]:
    """``(number, text)`` of each line, ``text`` None for a line over ``limit`` bytes (read
    past, never held)."""
    for number, raw in read_lines(fh, limit):
        yield number, None if raw is None else raw.decode("utf-8-sig" if number == 1 else "utf-8", errors="replace")


def _add_json_file(collector: Collector, fh: BinaryIO, path: Path) -> None:
    """One JSON document, or NDJSON: one page or entry a line, a bad line refused alone."""
    if os.fstat(fh.fileno()).st_size <= JSON_BYTES:
        try:
            whole = safe_loads(fh.read().decode("utf-8-sig", errors="replace"))
        except ValueError as exc:
            if "nests deeper" in str(exc):
                raise InputError(f"{path} {exc}") from exc
            fh.seek(0)  # not one document: NDJSON, perhaps
        else:
            _add_document(collector, whole, path.name)
            return
    lines = ((n, t) for n, t in _lines(fh, PAGE_BYTES) if t is None or t.strip())
    for count, (number, line) in enumerate(lines):
        try:
            doc = safe_loads(line) if line is not None else None
        except ValueError as exc:
            if count == 0:  # the first line is no JSON either: the file is neither
                raise InputError(f"{path} looks like JSON but is neither JSON nor NDJSON: {exc}") from exc
            doc = exc
        if isinstance(doc, dict | list):
            _add_document(collector, doc, path.name)
        else:
            why = f"over {PAGE_BYTES:,} bytes" if line is None else f"not JSON ({str(doc)[:120]})"
            collector.refuse(Named(path.name, f"line {number}", via="line"), f"an NDJSON line {why}")


def _add_document(collector: Collector, doc: Any, source: str, depth: int = 0) -> None:
    """A registry page, a list of pages or entries, an entry, or an A2A listing."""
    if isinstance(doc, list) and depth < 2:  # a list of pages, each a list of entries
        for item in doc:
            _add_document(collector, item, source, depth + 1)
    elif isinstance(doc, dict) and (page := page_of(doc)) is not None:
        add_entries(collector, page.servers, source)
    elif isinstance(doc, dict) and isinstance(doc.get("server"), dict):
        add_entries(collector, [doc], source)
    elif isinstance(doc, dict) and isinstance(doc.get("agents"), list):
        for agent in doc["agents"]:
            _add_agent(collector, agent, source)
    else:
        _add_agent(collector, doc, source)


def _add_agent(collector: Collector, agent: Any, source: str) -> None:
    """An A2A registry's entry: an agent card, or a record with the card's URL."""
    if not isinstance(agent, dict):
        collector.refuse(Named(source, "", via="agent", url=str(agent)[:200]), "not an agent card or registry entry")
        return
    name = str(agent.get("name") or agent.get("id") or "")[:200]
    named = [agent.get(k) for k in ("url", "agentCardUrl", "wellKnownURI", "card_url")]
    named += [i.get("url") for i in agent.get("supportedInterfaces") or [] if isinstance(i, dict)]
    urls = [u for u in dict.fromkeys(named) if isinstance(u, str) and u.strip()]
    if not urls:
        collector.refuse(Named(source, name, via="agent"), "names no URL")
    for url in urls:
        collector.add(Named(source, name, via="agent", url=url))


def _looks_like_csv(text: str) -> bool:
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    return "," in first and http_digits(first.split(",", 1)[0]) is not None


def _add_csv(collector: Collector, lines: Iterable[tuple[int, str | None]], source: str) -> None:
    """``rank,domain`` rows (a header row and other columns are ignored); the rank is ASCII
    digits (``²`` is no rank)."""
    for number, line in lines:
        try:
            row = next(csv.reader([line]), []) if line is not None else None
        except csv.Error as exc:
            row, why = None, f"not a CSV row ({exc})"
        else:
            why = f"a line over {LINE_BYTES:,} bytes"
        if row is None:
            collector.refuse(Named(source, f"line {number}", status="listed", via="domain"), why)
        elif len(row) >= 2 and (rank := http_digits(row[0])) is not None:
            collector.add(Named(source, row[0].strip(), status="listed", via="domain", url=row[1].strip(), rank=rank))


def _add_lines(collector: Collector, lines: Iterable[tuple[int, str | None]], source: str) -> None:
    """One host or URL a line; ``#`` starts a comment."""
    for number, line in lines:
        if line is None:
            collector.refuse(
                Named(source, f"line {number}", status="listed", via="line"), f"a line over {LINE_BYTES:,} bytes"
            )
            continue
        value = line.split("#", 1)[0].strip()
        if value:
            collector.add(Named(source, f"line {number}", status="listed", via="line", url=value))


# -- the run ---------------------------------------------------------------------------------------
def parse_source(text: str) -> tuple[str, str]:
    """``("registry", base)`` or ``("file", path)`` (:class:`InputError` for neither)."""
    if text.startswith(REGISTRY_PREFIX):
        from agentdex.crawler.options import registry_base

        return "registry", registry_base(text[len(REGISTRY_PREFIX) :])
    path = Path(text)
    if not path.is_file():
        raise InputError(f"{text!r} is neither registry:BASE nor a file")
    return "file", text


def check_since(text: str | None) -> str | None:
    """``--since`` as given, once it is an RFC 3339 date-time with a zone (:class:`InputError`
    otherwise: the registry would refuse it)."""
    if text is None:
        return None
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError as exc:
        raise InputError(f"--since {text[:40]!r} is not an RFC 3339 date-time (2026-09-01T00:00:00Z)") from exc
    if moment.tzinfo is None:
        raise InputError(f"--since {text[:40]!r} needs a time zone (Z or ±hh:mm)")
    return text.strip()


async def collect(
    sources: list[str],
    net,
    *,
    since: str | None = None,
    cursors: dict[str, str] | None = None,
    sink: Sink | None = None,
    budget: Budget | None = None,
) -> SeedRun:
    """Read every source into one :class:`SeedRun`. ``since`` asks every registry only for
    what changed after it; else ``cursors`` (``{source: updated_since}``, from the last run)
    does, per registry. With a ``sink``, every naming goes to it as it is read and the run
    keeps none (see :class:`Collector`); ``budget`` bounds each registry read. Raises
    :class:`InputError` for an unusable source."""
    parsed = [parse_source(s) for s in sources]
    collector = Collector(sink)
    read = _Sources(parsed, since, cursors or {}, budget or default_budget())
    if any(kind == "registry" for kind, _ in parsed):
        async with net.fetcher() as fetcher:
            await read.all(collector, fetcher)
    else:
        await read.all(collector, None)
    return collector.finish()


@dataclass
class _Sources:
    parsed: list[tuple[str, str]]
    since: str | None
    cursors: dict[str, str]
    budget: Budget

    async def all(self, collector: Collector, fetcher) -> None:
        for kind, where in self.parsed:
            if kind == "registry":
                since = self.since or self.cursors.get(REGISTRY_PREFIX + where)
                await read_registry(collector, where, fetcher, since, self.budget)
            else:
                read_file(collector, Path(where))


def naming_row(naming: Naming) -> dict[str, Any]:
    """One naming as a flat dict (for the catalogue): the :class:`Named` fields, ``origin``
    and ``refused``."""
    origin, named, reason = naming
    row = {name: getattr(named, name) for name in _NAMED_FIELDS}  # asdict() deep-copies: 8 times slower
    row.update(origin=origin, refused=reason)
    return row


_NAMED_FIELDS = tuple(f.name for f in fields(Named))


def from_rows(rows: Iterable[dict[str, Any]]) -> Iterator[Seed | Refused]:
    """Seeds and refusals back from rows grouped by origin, in run order (refusals,
    ``origin`` null, last: :meth:`agentdex.db.seeds.RunWriter.rows`), one :class:`Seed` for
    each run of rows of one origin."""
    seed: Seed | None = None
    for row in rows:
        named = Named(**{k: row[k] for k in _NAMED_FIELDS if k in row})
        if seed is not None and seed.origin != row["origin"]:
            yield seed
            seed = None
        if row["origin"] is None:
            yield Refused(named, row["refused"] or "")
            continue
        seed = seed or Seed(row["origin"])
        seed.sources.append(named)
    if seed is not None:
        yield seed


def as_rows(run: SeedRun) -> list[dict[str, Any]]:
    """Every naming of the run, taken or refused, as a flat dict (for the catalogue)."""
    rows = [{**asdict(n), "origin": s.origin, "refused": None} for s in run.seeds for n in s.sources]
    rows += [{**asdict(r.named), "origin": None, "refused": r.reason} for r in run.refused]
    return rows

"""One origin's crawl and its saving: the stage every origin of a run is crawled with (its
fetcher and verifier), the per-origin pipeline (discover, verify, cross-check, under the
origin's budget), and the :class:`Saver`, the run's one writer.

Nothing here decides which origins a run takes or how many processes crawl them: that is
the run (:mod:`agentdex.crawler.crawl`, :mod:`agentdex.crawler.processes`), which uses this
module. Nothing here prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agentdex import db as catalogue
from agentdex.crawler import discovered, freshness, offload
from agentdex.crawler.crosscheck import cross_check, reread
from agentdex.crawler.discovery import REGISTRY_KINDS, Before, OriginDiscovery, Previous, served_fresh
from agentdex.crawler.fetch import SLOW_METER, SLOW_REQUESTS, Fetcher, SlowMeter
from agentdex.crawler.options import ORIGIN_BUDGET, NetworkOptions
from agentdex.crawler.origins import origin_url
from agentdex.crawler.robots import definite, reusable
from agentdex.db.seeds import count_declared, declared_endpoints, linked_documents, save_run
from agentdex.errors import DatabaseError
from agentdex.formats import tool_quality, tool_safety, x402_discovery
from agentdex.models import Check, OriginCrawl


@dataclass
class Progress:
    """What a progress display shows; passed to the callback after every origin."""

    total: int  # origins known so far (all of them once ``reading`` is over)
    done: int = 0
    reading: bool = False  # the seeds may still name more origins (a file read while crawling)
    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    errors: int = 0
    events: int = 0
    last_origin: str = ""
    last_status: str = ""

    def rate(self, now: float | None = None) -> float:
        """Origins done a second since the run started."""
        seconds = (time.monotonic() if now is None else now) - self.started
        return self.done / seconds if seconds > 0 else 0.0


@dataclass
class CrawlSummary:
    """The result of a crawl run, for the CLI's closing summary and ``--json``."""

    crawl_id: int
    origins: int
    by_status: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    requests: int = 0
    errors: int = 0
    events: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    internal: int = 0  # origins whose crawl hit a bug of agentdex (recorded as their error)
    cut_short: int = 0  # origins stopped at the per-origin budget
    refused_lines: int = 0  # lines of the seeds that named no origin (told, and skipped)

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


ProgressFn = Callable[[Progress], None]


@dataclass(frozen=True)
class StagePlan:
    """How each origin of a run is crawled, apart from the network (picklable: a crawling
    process receives it)."""

    verify: bool
    policy: freshness.Policy
    now: float | None
    ask_all: bool = False  # the verifier asks every claim (a verify run)


@dataclass(frozen=True)
class _Stage:
    """What every origin of one run is crawled with."""

    fetcher: Fetcher
    verifier: Callable | None
    policy: freshness.Policy
    now: float | None
    registry: str | None  # the registry asked for each origin's namespace (None: none)
    budget: float = ORIGIN_BUDGET  # seconds one origin may take
    ask_all: bool = False  # the verifier asks every claim (a verify run)


@contextlib.asynccontextmanager
async def open_stage(net: NetworkOptions, plan: StagePlan) -> AsyncIterator[_Stage]:
    """The fetcher (and verifier) one process crawls its origins with, closed on exit."""
    async with net.fetcher() as fetcher:
        yield _Stage(
            fetcher,
            _make_verifier(fetcher, net) if plan.verify else None,
            plan.policy,
            plan.now,
            net.registry if net.registry_lookup else None,
            net.origin_budget,
            ask_all=plan.ask_all,
        )


@dataclass
class Saver:
    """The one writer of a run: saves each origin's result in its own transaction and counts
    it (the fetch counters come from whoever fetched)."""

    db: Any
    summary: CrawlSummary
    state: Progress
    progress: ProgressFn | None
    # Takes the origins an AI Catalog named by URL into this run (None: a later crawl takes them).
    follow: Callable[[list[str]], int] | None = None
    # Whether an origin is this run's to follow (``crawl --shard``: only the shard's own; None: any).
    owns: Callable[[str], bool] | None = None
    # Told of each origin saved (its transaction committed): the run's background checkpoints.
    committed: Callable[[], None] | None = None

    def save(self, result: OriginCrawl, requests: int, errors: int) -> None:
        """Save one origin (a bug while storing becomes its recorded error) and report it."""
        events = _save(self.db, result, self.summary)
        if self.committed is not None:
            self.committed()
        if result.catalog_links:
            self._record_links(result)
        _count(self.summary, self.state, result, events, requests, errors)
        if self.progress:
            self.progress(self.state)

    def _record_links(self, result: OriginCrawl) -> None:
        """Record what the origin's AI Catalog names by URL under the origins it lives on (the
        catalog as the source) and take the other origins into this run."""
        save_run(self.db, [link.seed_row() for link in result.catalog_links], {}, {})
        others = [
            link.origin
            for link in result.catalog_links
            if link.origin != result.origin and (self.owns is None or self.owns(link.origin))
        ]
        if others and self.follow is not None:
            self.follow(others)  # the run counts them into its origins

    def failed(self, origin: str, code: str, message: str, requests: int, errors: int) -> None:
        """Save an origin agentdex could not finish (``internal`` or ``budget``)."""
        self.save(_failed(origin, self.summary, code, message), requests, errors)

    async def crawl_and_save(self, db, origin: str, stage: _Stage, totals: Callable[[], tuple[int, int]]) -> None:
        """Crawl one origin here and save it, or its failure; ``totals`` gives the run's
        (requests, errors) so far."""
        try:
            result = await crawl_one(db, origin, stage)
        except OriginFailed as failed:
            self.failed(origin, failed.code, failed.message, *totals())
            return
        self.save(result, *totals())


async def work_through(
    take: Callable[[], Awaitable[str | None]], workers: int, each: Callable[[str], Awaitable[None]]
) -> None:
    """``workers`` tasks run ``each`` on the origins ``take`` gives (waiting for them), until
    it gives None."""

    async def worker() -> None:
        while (origin := await take()) is not None:
            await each(origin)

    # A TaskGroup, not gather: when one worker fails (the catalogue itself, a full disk), the
    # others are cancelled before the fetcher's pools close under them. Callers get that
    # worker's own error, as they did from gather (a full disk stays a DatabaseError).
    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, workers)):
                group.create_task(worker())
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None


def _save(db, result: OriginCrawl, summary: CrawlSummary) -> list:
    """Save one origin's result; its boundary: a bug while storing (its transaction rolled
    back) becomes the origin's recorded error, and the crawl goes on with the others."""
    try:
        return catalogue.save_origin(db, result, summary.crawl_id)
    except DatabaseError:
        raise  # the catalogue itself failed (a full disk): every other origin would fail too
    except Exception as exc:  # noqa: BLE001 - a bug while storing: its transaction rolled back
        result = _failed(result.origin, summary, "internal", describe_error(exc))
        return catalogue.save_origin(db, result, summary.crawl_id)


class OriginFailed(Exception):
    """An origin agentdex itself could not finish: ``code`` ``internal`` or ``budget``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


# A host shared by many registry servers (a hosting platform serves hundreds) has every one of
# their endpoints probed in its one crawl, one request at a time: its budget grows by this many
# seconds for each endpoint past the first (four requests of a probe at a slow 0.5 s each).
ENDPOINT_SECONDS = 2.0


def origin_budget(db, origin: str, base: float) -> float:
    """The seconds ``origin`` may take: ``base`` (``crawl --origin-budget``), and
    :data:`ENDPOINT_SECONDS` more for each endpoint past the first that seed sources declare on it."""
    return base + ENDPOINT_SECONDS * max(0, count_declared(db, origin) - 1)


async def crawl_one(db, origin: str, stage: _Stage) -> OriginCrawl:
    """:func:`crawl_origin` under the per-origin budget (:func:`origin_budget`), cut short as
    well at its :data:`~agentdex.crawler.fetch.SLOW_REQUESTS`-th slow request;
    :class:`OriginFailed` for a bug or the budget (whatever goes wrong inside one origin never
    ends the crawl)."""
    known = catalogue.knows_origin(db, origin)  # nothing, for nearly every origin of a sweep
    seconds = origin_budget(db, origin, stage.budget) if known else stage.budget
    budget = asyncio.timeout(seconds)  # made before the try: the handler asks it
    meter = SlowMeter(lambda: _expire(budget))
    token = SLOW_METER.set(meter)
    try:
        async with budget:
            return await crawl_origin(
                db,
                origin,
                stage.fetcher,
                stage.verifier,
                policy=stage.policy,
                now=stage.now,
                registry=stage.registry,
                ask_all=stage.ask_all,
                known=known,
            )
    except TimeoutError as exc:
        if budget.expired():
            raise OriginFailed("budget", _cut_short(meter, seconds, stage.fetcher.deadline)) from exc
        raise OriginFailed("internal", describe_error(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - one origin never ends a crawl
        raise OriginFailed("internal", describe_error(exc)) from exc
    finally:
        SLOW_METER.reset(token)


def _expire(budget: asyncio.Timeout) -> None:
    """End the origin's budget now (a slow request may finish after the origin did)."""
    with contextlib.suppress(RuntimeError):  # the budget's block has already ended
        budget.reschedule(asyncio.get_running_loop().time())


def _cut_short(meter: SlowMeter, seconds: float, deadline: float) -> str:
    if meter.slow >= SLOW_REQUESTS:
        return (
            f"cut short: {meter.slow} requests each took half the {deadline:g}-second deadline or more "
            f"({meter.seconds:.1f} s together); agentdex asks a slow origin no more"
        )
    return f"cut short: the origin took more than its {seconds:g}-second budget"


def _failed(origin: str, summary: CrawlSummary, code: str, message: str) -> OriginCrawl:
    """An origin agentdex itself could not finish, counted in ``summary``: ``unreachable``
    (what is stored stands, under the unreachable grace), its detail ``<code>: <message>``."""
    if code == "budget":
        summary.cut_short += 1
    else:
        summary.internal += 1
    return OriginCrawl(origin, "unreachable", status_detail=f"{code}: {message}")


def describe_error(exc: BaseException) -> str:
    """The exception's class and message, as an origin's error."""
    return f"{type(exc).__name__}: {str(exc)[:300]}".rstrip(": ")


def _count(
    summary: CrawlSummary, state: Progress, result: OriginCrawl, events: list, requests: int, errors: int
) -> None:
    # Every origin counts under the status it has, changed or not ("1 listed, 32 unchanged"
    # read as one listing, and an origin unreachable again as reached); ``unchanged`` says
    # how many of them are as they were.
    status = result.status
    summary.by_status[status] = summary.by_status.get(status, 0) + 1
    summary.unchanged += result.unchanged
    summary.events += len(events)
    state.done += 1
    state.events += len(events)
    state.requests, state.errors = requests, errors
    state.last_origin, state.last_status = result.origin, status


@dataclass
class _Held:
    """What the catalogue holds of an origin that its crawl reads back (nothing, for an origin
    it never met: :func:`agentdex.db.knows_origin` says so in one query)."""

    previous: dict[str, Previous] = field(default_factory=dict)
    declared: list[discovered.Declared] = field(default_factory=list)
    before: Before | None = None
    registry_stored: dict[str, str] = field(default_factory=dict)
    linked: list[discovered.Linked] = field(default_factory=list)

    @classmethod
    def read(cls, db, origin: str, fetcher: Fetcher, now: float | None) -> _Held:
        """Read it (and offer ``fetcher`` the stored robots.txt, read when needed)."""
        source = catalogue.listing_source(db, origin)
        _offer_robots(db, origin, fetcher, now)
        return cls(
            {url: Previous.from_row(p) for url, p in catalogue.previous_fetches(db, origin).items()},
            [discovered.Declared(**row) for row in declared_endpoints(db, origin)],
            Before(*source) if source is not None else None,
            catalogue.stored_documents(db, origin, REGISTRY_KINDS),
            [discovered.Linked.from_row(row) for row in linked_documents(db, origin)],
        )


async def crawl_origin(
    db,
    origin: str,
    fetcher: Fetcher,
    verifier=None,
    *,
    policy: freshness.Policy = freshness.Policy(),
    now: float | None = None,
    registry: str | None = None,
    ask_all: bool = False,
    known: bool | None = None,
) -> OriginCrawl:
    """Discover (and, with a verifier, verify) one origin; nothing is written here.
    ``registry``: the MCP registry API base asked what it lists for the origin's namespace
    (``None``: no registry is asked, and what one answered before stands). ``ask_all``: the
    verifier asks every claim whatever is fresh or due (``agentdex verify``). ``known=False``:
    the caller found the catalogue holds nothing of the origin (:func:`agentdex.db.knows_origin`)."""
    if known is None:
        known = catalogue.knows_origin(db, origin)
    held = _Held.read(db, origin, fetcher, now) if known else _Held()
    previous, declared = held.previous, held.declared
    discovery = OriginDiscovery(
        origin,
        fetcher.fetch,
        previous,
        lambda sha: catalogue.get_blob(db, sha),
        held.before,
        policy=policy,
        now=now,
        registry=registry,
        registry_stored=held.registry_stored,
        declared=declared,
        linked=held.linked,
        ahead=fetcher,
    )
    try:
        result = await discovery.run()
    finally:  # none left, when discovery fetched what it sent ahead (an origin cut short may leave some)
        fetcher.unpark(origin_url(origin, ""))
    if verifier is not None and _nothing_to_verify(db, result, previous, policy, now, ask_all):
        _stand_fresh(result, previous)
    elif verifier is not None:
        # Re-checked on every crawl, unchanged or not, so a proof that disappears is seen
        # (once its stored answer is no longer fresh, or, for the probes that are never fresh,
        # once the origin is due).
        listing = result.primary.listing if result.primary else None
        if result.unchanged:
            listing = _stored_listing(db, origin)
            result.results = reread(result, lambda sha: catalogue.get_blob(db, sha))
        # Every MCP endpoint the listing names and every one a registry declares on the origin.
        result.extra_endpoints = discovered.extra_endpoints(listing, declared)
        if (
            listing is not None
            or result.primary is not None
            or x402_discovery.NAME in result.results
            or result.extra_endpoints
        ):
            await verifier(result, listing, _stored(db, result, previous, policy, now, ask_all))
    result.consistency = cross_check(result)
    result.robots = _fetched_robots(origin, fetcher)
    tools = _tools_of(result)
    # The safety scan of megabytes of hostile text takes seconds: not on the event loop (a few
    # KiB: inline, see offload).
    if tools:
        await offload.run(_tools_size(tools), tool_safety.check_tools, tools)
    if result.mcp_tools:  # the TDQS lint of what tools/list gave, for the store
        result.tool_quality = await offload.run(
            _definitions_size(result.mcp_tools), tool_quality.lint_tools, result.mcp_tools
        )
    return result


def _definitions_size(tools: list) -> int:
    """The size of what the TDQS lint reads: each tool's definition as tools/list sent it (its
    output schema and title too, which the safety scan does not read), counted only up to what
    decides inline or not."""
    return offload.data_size([(t.detail or {}).get(tool_quality.DEFINITION, t.name) for t in tools])


def _tools_size(tools: list) -> int:
    """The size of the text the tool scan reads (each tool's name, description, annotations
    and input schema), counted only up to what decides inline or not."""
    texts = [(t.name, t.description, t.annotations, t.input_schema) for t in tools]
    return offload.data_size(texts)


def _tools_of(result: OriginCrawl) -> list:
    """Every tool the origin's documents and MCP server declared this crawl."""
    declared = [t for r in result.results.values() if r.listing is not None for t in r.listing.tools]
    return declared + list(result.mcp_tools or [])


def _nothing_to_verify(
    db, result: OriginCrawl, previous: dict[str, Previous], policy: freshness.Policy, now: float | None, ask_all: bool
) -> bool:
    """Whether verifying could learn nothing: discovery asked nothing and found nothing
    changed, every stored answer of the origin is still fresh (the verifier's included) and
    the origin is not due. Then every stored verdict stands as it is, with its answer's time."""
    if ask_all or policy.revalidate or not result.unchanged or any(not r.from_freshness for r in result.fetches):
        return False
    moment = time.time() if now is None else now
    if not all(
        p.status in freshness.FRESH_STATUSES and policy.usable(p.fresh_until, p.response_at, moment)
        for p in previous.values()
    ):
        return False
    due = catalogue.due_at(db, result.origin)
    return due is not None and due > (freshness.iso(moment) or "")


def _stand_fresh(result: OriginCrawl, previous: dict[str, Previous]) -> None:
    """The verifier's stored answers, still fresh, stand for this crawl too (their snapshots
    say so, as discovery's do); the stored checks they decided stand unchanged."""
    done = {r.url for r in result.fetches}
    at = freshness.iso(time.time()) or ""
    result.fetches.extend(served_fresh(url, "stored", prev, at) for url, prev in previous.items() if url not in done)


def _stored(
    db, result: OriginCrawl, previous: dict[str, Previous], policy: freshness.Policy, now: float | None, ask_all: bool
):
    """What may stand in for the verifier's requests (:class:`agentdex.crawler.verify.Stored`):
    nothing with ``ask_all`` (``agentdex verify``); only validators with ``--revalidate``. The
    probes that are never fresh run when the origin is due by its schedule or when discovery
    had to ask it anything (a crawl that reaches the origin anyway checks its live endpoints
    too); a crawl served wholly from freshness before the origin is due leaves their stored
    checks standing. Endpoint health rows: all when the origin is due, else the changed ones."""
    from agentdex.crawler.verify import ASK_ALL, Stored

    if ask_all:
        return ASK_ALL
    load = lambda sha: catalogue.get_blob(db, sha)  # noqa: E731
    if policy.revalidate:  # asks everything, conditionally
        return Stored(previous, load, freshness.Policy(revalidate=True), now)
    due = catalogue.due_at(db, result.origin)
    scheduled = due is None or due <= (freshness.iso(time.time() if now is None else now) or "")
    asked = any(not r.from_freshness for r in result.fetches)
    return Stored(
        previous,
        load,
        policy,
        now,
        asked or scheduled,
        scheduled,
        {} if scheduled else catalogue.latest_states(db, result.origin),
        fresh_probe(catalogue.list_checks(db, result.origin), time.time() if now is None else now),
    )


def fresh_probe(checks: list[dict[str, Any]], now: float) -> tuple[Check, ...]:
    """The stored MCP checks that stand for a probe because the ``ttlMs`` its
    ``server/discover`` gave (SEP-2549, revision 2026-07-28: how long a client may reuse the
    result) has not run out since the probe's answer, each marked obtained from freshness
    with that answer's time; empty when it has run out, was 0 or is unknown. Not with
    ``--revalidate`` nor in ``agentdex verify`` (they ask everything)."""
    mcp = [c for c in checks if c["name"].startswith("mcp.")]
    init = next((c for c in mcp if c["name"] == "mcp.initialize"), None)
    ttl = init["data"].get("ttl_ms") if init is not None else None
    if init is None or not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
        return ()
    answered = init["data"].get("answer_at") or init["checked_at"]  # the probe's own time, not a reuse's
    at = freshness.epoch(answered)
    if at is None or at + ttl / 1000 <= now:
        return ()
    return tuple(
        Check(c["name"], c["status"], c["detail"], {**c["data"], "obtained": "fresh", "answer_at": answered})
        for c in mcp
    )


def _offer_robots(db, origin: str, fetcher: Fetcher, now: float | None) -> None:
    """Let the fetcher use the robots.txt an earlier crawl stored while RFC 9309 allows (24
    hours at most, judged at the crawl's ``now``), for discovery and verification alike; read
    from the catalogue only if a fetch needs it (an origin served wholly from freshness does not)."""
    at = datetime.fromtimestamp(now, UTC) if now is not None else None

    def stored():
        record = catalogue.stored_robots(db, origin)
        return record if record is not None and reusable(record, now=at) else None

    fetcher.robots.offer(origin_url(origin, ""), stored)


def _fetched_robots(origin: str, fetcher: Fetcher):
    """The origin's robots.txt when this crawl fetched it and its answer is worth keeping
    (the fetcher then forgets it: the database keeps it for the next crawl)."""
    key = origin_url(origin, "")
    entry = fetcher.robots.entry(key)
    fetcher.robots.forget(key)
    if entry is None or entry.reused or not definite(entry.record):
        return None
    return entry.record


def _stored_listing(db, origin: str):
    """The stored listing of an unchanged origin, when it is still in the catalogue (a
    delisted app's old claims are not probed again)."""
    state = catalogue.light_state(db, origin)  # its status: the whole state is not needed
    if state is None or state["status"] not in ("listed", "invalid"):
        return None
    return catalogue.load_listing(db, origin)


def _make_verifier(fetcher: Fetcher, net: NetworkOptions):
    """The verification stage, when :mod:`agentdex.crawler.verify` is available."""
    try:
        from agentdex.crawler.verify import Verifier
    except ImportError:  # verification lands with its own module
        return None
    return Verifier(fetcher, net).verify_crawl

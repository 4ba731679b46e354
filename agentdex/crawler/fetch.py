"""The fetch policy: every HTTP request the crawler makes goes through :class:`Fetcher`.

Public API::

    async with Fetcher(*, connect_to=(), ca_bundle=None, allow_private=False,
                       concurrency=16, per_host=1, user_agent=USER_AGENT,
                       deadline=15.0, connect_timeout=5.0, retries=2,
                       transport_factory=None, resolver=None, pipelining=True) as fetcher:
        record = await fetcher.fetch(url, *, kind, max_bytes, same_origin=False,
                                     etag=None, last_modified=None, accept=None,
                                     method="GET", honour_robots=True)
                                     # also: content=bytes, headers={...} for a POST
        async with fetcher.stream(url, kind=kind, accept=accept) as (record, response):
            ...                              # a GET read as it arrives (an event stream)
    await fetcher.prefetch([Ask(url, kind, max_bytes, etag, last_modified, honour_robots), ...])
                       GETs of one origin sent ahead, pipelined; each ``fetch`` of the same
                       arguments then reads its answer (see "Pipelining" below)
    fetcher.unpark(origin)   drop answers sent ahead that no fetch asked for
    fetcher.stats      FetchStats(requests, errors, bytes) for a progress display
    fetcher.robots     the RobotsCache (robots.txt records and notes per origin)
    await fetcher.aclose()   (``async with`` calls it)

``elapsed_ms`` is the whole ``fetch`` call, robots.txt included; ``fetched_at`` is UTC ISO
8601 to the second (``2025-01-01T12:00:00Z``); ``redirects`` lists every redirect target
in order (a refused one included); ``final_url`` is the last URL that answered.
Requests, retries and robots.txt fetches all count in ``stats.requests`` (a request sent
ahead once it is answered: one that was not is asked again, and counts then); ``stats.errors``
counts ``fetch`` calls that failed (robots.txt fetches, absences asked with ``absent_ok``
or at a ``same_origin`` path, fetches with ``count_errors=False`` and ``expected`` statuses are not counted there).

``fetch`` never raises (cancellation aside): every failure becomes ``record.error_code``
plus a readable ``record.error`` sentence. Codes:

    invalid_url, scheme        not an https URL without credentials (also for a redirect)
    robots                     robots.txt disallows the URL, asks for a Crawl-delay too long to
                               wait, or could not be had (5xx, 429, no connection: hold off)
    dns, refused, tls          the name does not resolve, no connection, TLS failed
    blocked_address            the address guard refused a private/loopback/... address
    timeout                    no complete answer within the deadline
    protocol, incomplete       a malformed answer; the connection ended mid-body
    redirect_loop, too_many_redirects, cross_origin
    too_large                  the body (after decompression) is above ``max_bytes``
    decoding                   a bad gzip/deflate body, or an encoding we did not ask for
    http_status                a 4xx/5xx (or unfollowable 3xx) answer; status/body kept
    internal                   a bug in agentdex, reported rather than raised

The rules: HTTPS only; redirects followed by hand, at most 5, each one checked (scheme,
loops, origin when ``same_origin`` or when the request carries a body; none at all with
``follow_redirects=False``); one deadline covers the whole request (connection,
TLS, headers, every redirect, every retry and the body); the byte cap is enforced while
streaming and counted after decompression (inflation is bounded, so a gzip bomb costs at
most ``max_bytes`` of memory); a Content-Length above the cap is refused before reading;
at most ``per_host`` requests (or pipelines, below) per host name (one by default: one
kept-alive connection an origin, so one TLS handshake; with two, a recrawl of 2,000 origins paid 4,000 handshakes and
took a fifth longer: ``benchmarks/bench_crawl.py --per-host 2``) and ``concurrency`` in all;
retries with short exponential backoff (jittered: up to half longer) only for connection
failures, 500/502/503/504 and 429 (a Retry-After above 3 s means no retry), never for any
other status, TLS, a blocked address, a too-large body or a TCP connect that timed out (a
host none of whose addresses connected within ``connect_timeout`` is not dialled again by
this Fetcher: :mod:`agentdex.crawler.netpolicy`); no cookies, no proxies from the
environment; a credential header given by the caller (Authorization, Cookie, X-API-Key, a
payment header) is dropped before a redirect to another origin.

Connection pools live in :mod:`agentdex.crawler.pools` (``transport_factory``, a
``() -> httpx.AsyncBaseTransport``, replaces them: unit tests pass an ``httpx.MockTransport``)
and the error sentences in :mod:`agentdex.crawler.fetch_errors`. ``resolver`` (async
``(host, port) -> [address, ...]``) replaces the system resolver; the address guard checks
whatever it answers, on every new connection.
The deadline starts once robots.txt has been consulted; waiting for a free slot counts.
robots.txt of a redirect's target is not consulted: the URL asked for was allowed.

Pipelining: :meth:`Fetcher.prefetch` sends an origin's next GETs in one write on its
connection (RFC 9112, 9.3.2), under the host's turn, each answer due within a request's
deadline of the one before (:meth:`agentdex.crawler.h1.HostTransport.pipeline`), and parks
each answer, read whole, for the ``fetch`` call with the same URL and request headers; that call then
applies the whole policy to it (status, redirects, retries, the body's cap and decoding) and
sends nothing for it (a redirect's target or a retry is requested as usual). Only URLs that
robots.txt allows without a Crawl-delay go ahead. An answer that did not come (a server that
stops answering, closes, or breaks HTTP) is asked by its own ``fetch``; when none came at
all, the first ``fetch`` meets the failure the pipeline met (no connection, TLS, a timeout)
as it would have met it itself. Discovery asks an empty origin 14 URLs: sent one by one,
each cost a write, a wait for the answer and several reads; pipelined, four writes, and 0.83
of the crawler's CPU (``benchmarks/bench_side_by_side.py``, docs/benchmarks.md, issue 39).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import ipaddress
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import httpx

from agentdex import __version__
from agentdex.crawler.body import read_capped
from agentdex.crawler.fetch_errors import describe_error, tls_error
from agentdex.crawler.h1 import HostTransport, Reply, ReplyHeaders
from agentdex.crawler.netpolicy import GuardedBackend, Resolver, build_ssl_context, system_resolver
from agentdex.crawler.origins import HttpsURL, plain_https_url
from agentdex.crawler.parked import Parked
from agentdex.crawler.pools import HostPools, TransportFactory, close_transport, guarded_transport, origin_key, release
from agentdex.crawler.redirects import (
    REDIRECT_STATUSES,
    check_redirect,
    checked_url,
    method_after,
    redirect_target,
    without_credentials,
)
from agentdex.crawler.robots import (
    EXEMPT_PATHS,
    PRODUCT_TOKEN,
    ROBOTS_MAX_BYTES,
    RobotsCache,
    product_token,
    robots_exempt,
)
from agentdex.crawler.turns import NO_TURN, HostSlot, Slots, Turn
from agentdex.errors import ConnectError, ConnectTimeout, FetchError, ReadTimeout
from agentdex.headers import SAFE_METHODS, field_value, retry_after_seconds
from agentdex.models import FetchRecord

USER_AGENT = f"{PRODUCT_TOKEN}/{__version__} (+https://github.com/agentdex/agentdex)"
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
BACKOFF_BASE = 0.2
BACKOFF_CAP = 2.0
RETRY_AFTER_MAX = 3.0
JITTER = 0.5  # a retry's pause is its schedule's, lengthened by up to this share
HEADER_VALUE_MAX = 8192
PLAIN_HEADER_SETS = 32  # the Accept values whose plain GET headers are kept made
KEPT_HEADERS = (
    "content-type", "content-length", "content-encoding", "etag", "last-modified",
    "cache-control", "access-control-allow-origin", "link", "www-authenticate",
    "location", "retry-after", "payment-required", "x-payment-required", "x-payment",
    "x-payment-response", "x-robots-tag", "mcp-session-id", "mcp-protocol-version",
    "date", "expires", "age",  # with cache-control: HTTP freshness (agentdex.crawler.freshness)
)  # fmt: skip
_KEPT = frozenset(KEPT_HEADERS)
# A URL the fetch path requests: read by agentdex when plain (agentdex.crawler.origins.HttpsURL),
# else by httpx; and an answer: the crawler's own transport's Reply, or a stand-in transport's
# httpx.Response (tests).
URL = HttpsURL | httpx.URL
Answer = Reply | httpx.Response


# A request whose answer took this share of its deadline or more is slow. An origin gets
# SLOW_REQUESTS of them, then no more (crawler.stage cuts it short): an origin that answers
# every request just inside the deadline (a slow loris) holds a crawl a few deadlines, never
# its whole per-origin budget.
SLOW_SHARE = 0.5
SLOW_REQUESTS = 3


@dataclass(slots=True)
class SlowMeter:
    """The slow requests of one origin's crawl (:data:`SLOW_METER`); ``exceeded`` is called
    once, at the :data:`SLOW_REQUESTS`-th."""

    exceeded: Callable[[], None]
    slow: int = 0
    seconds: float = 0.0

    def note(self, took: float, deadline: float) -> None:
        """Count one request that spent ``took`` seconds of its ``deadline``."""
        if took < SLOW_SHARE * deadline:
            return
        self.slow += 1
        self.seconds += took
        if self.slow == SLOW_REQUESTS:
            self.exceeded()


# The meter of the origin being crawled, set by crawler.stage around each origin (a context
# variable: the origin's verification tasks, started inside it, count against it too).
SLOW_METER: ContextVar[SlowMeter | None] = ContextVar("agentdex_slow_meter", default=None)


@dataclass(slots=True)
class FetchStats:
    """Running totals for a progress display: HTTP requests sent, failed fetches, body bytes."""

    requests: int = 0
    errors: int = 0
    bytes: int = 0


@dataclass(frozen=True, slots=True)
class Ask:
    """A GET :meth:`Fetcher.prefetch` may send ahead: the arguments its ``fetch`` call will
    have (the others at their defaults)."""

    url: str
    kind: str
    max_bytes: int
    etag: str | None = None
    last_modified: str | None = None
    honour_robots: bool = True


@dataclass(slots=True)
class _Options:
    """One fetch's settings, carried through redirects and retries."""

    kind: str
    max_bytes: int
    same_origin: bool
    method: str
    headers: list[tuple[str, str]]
    content: bytes | None = None
    etag: str | None = None
    last_modified: str | None = None
    deadline_at: float = 0.0
    absent_ok: bool = False
    prefix: bool = False  # a body above max_bytes is cut there rather than refused (robots.txt)
    follow: bool = True  # False: a redirect is the answer, never requested
    queued: float = 0.0  # seconds waited for the host's turn (not the server's time)
    parked: Reply | Exception | None = None  # the first request's answer, sent ahead (prefetch)


class Fetcher:
    """The crawler's HTTP client under the fetch policy (see the module docstring)."""

    def __init__(
        self,
        *,
        connect_to: Sequence[tuple[str, str, int]] = (),
        ca_bundle: str | Path | None = None,
        allow_private: bool = False,
        concurrency: int = 16,
        per_host: int = 1,
        user_agent: str = USER_AGENT,
        deadline: float = 15.0,
        connect_timeout: float = 5.0,
        retries: int = 2,
        transport_factory: TransportFactory | None = None,
        resolver: Resolver | None = None,
        pipelining: bool = True,
    ) -> None:
        self.user_agent = user_agent
        self.pipelining = pipelining
        self.deadline = deadline
        self.retries = max(0, retries)
        self.per_host = max(1, per_host)
        self.concurrency = max(1, concurrency)
        self.stats = FetchStats()
        self.backend = GuardedBackend(connect_to=connect_to, allow_private=allow_private, resolver=resolver or resolve)
        # Reads and writes have no timeout of their own: the fetch's deadline bounds them all
        # (one timer a fetch, not one for every wait on the socket).
        self._timeouts = {"connect": min(connect_timeout, deadline), "read": None, "write": None, "pool": None}
        if transport_factory is None:
            context, per_host = build_ssl_context(ca_bundle), self.per_host
            transport_factory = lambda: guarded_transport(context, self.backend, per_host)  # noqa: E731
        self._make_transport = transport_factory  # also for a stream's own connection
        self._pools = HostPools(transport_factory, keep=2 * self.concurrency)
        self.robots = RobotsCache(self._fetch_robots, agent_token=product_token(user_agent))
        self._plain_headers: dict[str | None, list[tuple[str, str]]] = {}  # by Accept
        self._host_slots: dict[str, HostSlot] = {}  # only hosts with a request waiting or in flight
        self._all_slots: asyncio.Semaphore | None = None
        # Answers sent ahead (prefetch), by URL: the request headers they answer, and the
        # answer or, when none came, the failure the first fetch is to meet.
        self._parked = Parked()
        self._one_by_one: set[str] = set()  # origins whose pipeline broke: asked one request at a time

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every pooled connection (``async with`` does this on exit)."""
        await self._pools.aclose()

    async def fetch(
        self,
        url: str,
        *,
        kind: str,
        max_bytes: int,
        same_origin: bool = False,
        etag: str | None = None,
        last_modified: str | None = None,
        accept: str | None = None,
        method: str = "GET",
        honour_robots: bool = True,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        absent_ok: bool = False,
        count_errors: bool = True,
        expected: tuple[int, ...] = (),
        follow_redirects: bool = True,
    ) -> FetchRecord:
        """Fetch ``url`` under the policy; never raises, failures are in the record.

        ``etag`` / ``last_modified`` make the request conditional: a 304 answer gives
        ``not_modified=True`` and ``body=None``. ``same_origin`` refuses (and records) a
        redirect to another origin; a request with a ``content`` body never follows one
        either (the body is for the origin asked), and with ``follow_redirects=False`` no
        redirect is followed at all: the 3xx is the answer (an ``http_status`` error).
        ``honour_robots=False`` skips robots.txt (the well-known manifest paths are exempt
        anyway). ``content`` is a request body (for the MCP probe's POST) and ``headers``
        extra request headers; the User-Agent and Accept-Encoding stay the policy's own.
        With ``absent_ok`` a 404 or 410 is not counted in ``stats.errors`` and its body is
        read but not kept (a discovery document an origin does not publish: the status is
        all there is to know). With
        ``count_errors=False`` no failure of this fetch is counted in ``stats.errors`` (a
        request to a third party, such as the MCP registry, whose failure is not the
        crawled origin's). A status in ``expected`` is the answer asked for though not a 2xx
        (the 402 of a paid resource asked unpaid): an ``http_status`` error in the record,
        not counted in ``stats.errors``.
        """
        request_headers = self._headers(accept, etag, last_modified, headers or {})
        options = _Options(
            kind,
            max_bytes,
            same_origin or content is not None,
            method.upper(),
            request_headers,
            content,
            etag,
            last_modified,
            absent_ok=absent_ok,
            follow=follow_redirects,
        )
        record = await self._run(url, options, honour_robots)
        # A 404/410 asked with absent_ok, or at a path of the origin's own that agentdex
        # probes on its own initiative (same_origin: its manifest and discovery paths), is the
        # origin saying it publishes nothing there: a definite absence, not an error.
        absent = (absent_ok or same_origin) and record.status in (404, 410)
        if count_errors and record.error_code and not absent and record.status not in expected:
            self.stats.errors += 1
        return record

    async def prefetch(self, asks: Sequence[Ask], *, robots: bool = False) -> int:
        """Send ``asks`` (GETs of one origin, in this order) ahead, pipelined; how many went.
        With ``robots``, the origin's robots.txt after them, unless this fetcher has it or
        was offered a stored one (the first governed request will ask for it: discovery's
        next step). See "Pipelining" in the module docstring. Never raises (cancellation
        aside): whatever goes wrong leaves the asks to their own ``fetch`` calls."""
        if not self.pipelining or len(asks) < 2:
            return 0
        try:
            going = await self._going(asks)
            if robots and going and self.robots.will_fetch(going[0][0].origin):
                url = checked_url(f"{going[0][0].origin}/robots.txt")
                assert isinstance(url, HttpsURL)  # an origin's own path: plain
                going.append((url, self._headers("text/plain", None, None, {}), ROBOTS_MAX_BYTES + 1))
            if len(going) > 1 and going[0][0].origin not in self._one_by_one:
                await self._pipeline(going)
                return len(going)
        except Exception:  # noqa: BLE001 - only the sending ahead is lost: each fetch asks itself
            return 0
        return 0

    async def _going(self, asks: Sequence[Ask]) -> list[tuple[HttpsURL, list[tuple[str, str]], int]]:
        """The asks that may go ahead: plain URLs of the first one's origin, allowed by
        robots.txt without a Crawl-delay (asked first, as each fetch would)."""
        going: list[tuple[HttpsURL, list[tuple[str, str]], int]] = []
        for ask in asks:
            url = plain_https_url(ask.url)
            if url is None or (going and url.origin != going[0][0].origin) or ask.url in self._parked:
                continue
            if ask.honour_robots and not _exempt(url) and not await self.robots.unpaced(ask.url, url.origin):
                continue
            going.append((url, self._headers(None, ask.etag, ask.last_modified, {}), ask.max_bytes))
        return going

    async def _pipeline(self, going: list[tuple[HttpsURL, list[tuple[str, str]], int]]) -> None:
        answers: list[Reply] = []
        options = _Options("prefetch", 0, True, "GET", [])
        started = time.monotonic()
        try:
            # Each answer has a request's deadline (h1._Due); all of them together, no more.
            async with asyncio.timeout(self.deadline * len(going)), self._host_turn(going[0][0], options) as transport:
                if not isinstance(transport, HostTransport):  # a stand-in transport: no pipelining
                    return
                await transport.pipeline(going, self._timeouts, answers, self.deadline)
        except Exception as exc:  # noqa: BLE001 - kept for the first fetch, which meets it as its own
            if not answers:  # the first answer was due at the deadline: so it is the deadline's
                failure = TimeoutError() if isinstance(exc, ReadTimeout) else exc
                self._parked.put(going[0][0], going[0][1], failure)
                self.stats.requests += 1  # the first request was made, and failed
        finally:
            # A request counts once answered; one that was not is asked again, and counts then.
            self.stats.requests += len(answers)
            for (url, headers, _), answer in zip(going, answers, strict=False):
                self._parked.put(url, headers, answer)
            if len(answers) < len(going):  # it stopped answering, closed, or broke HTTP: not again
                self._one_by_one.add(going[0][0].origin)
            meter = SLOW_METER.get()
            if meter is not None:
                self._note_slow(meter, started + options.queued, answers, len(going))

    def _note_slow(self, meter: SlowMeter, since: float, answers: list[Reply], asked: int) -> None:
        """Count a pipeline's answers as its requests would have counted one at a time: each
        took from the end of the one before (a server answers them in turn), and the wait for
        an answer that never came took until the pipeline ended."""
        for answer in answers:
            meter.note(answer.received_at - since, self.deadline)
            since = answer.received_at
        if len(answers) < asked:
            meter.note(time.monotonic() - since, self.deadline)

    def unpark(self, origin: str) -> int:
        """Drop the answers sent ahead for ``origin`` (``https://host[:port]``) that no fetch
        took; how many (none, when discovery asked for what it then fetched)."""
        self._one_by_one.discard(origin.lower().rstrip("/"))
        return self._parked.drop(origin)

    def parked_status(self, url: str) -> int | None:
        """The status of the answer sent ahead for ``url`` and not yet taken, if any."""
        return self._parked.status(url)

    async def _run(self, url: str, options: _Options, honour_robots: bool) -> FetchRecord:
        record = FetchRecord(url=url, kind=options.kind, fetched_at=_utc_now())
        started = time.perf_counter()
        try:
            await self._fetch_into(record, options, honour_robots)
        except Exception as exc:  # noqa: BLE001 - the contract: failures become data
            record.error_code, record.error = describe_error(exc, record, self.deadline)
        record.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
        return record

    @asynccontextmanager
    async def stream(
        self, url: str, *, kind: str, accept: str
    ) -> AsyncIterator[tuple[FetchRecord, httpx.Response | None]]:
        """A GET whose body the caller reads as it arrives (an event stream never ends), as
        ``(record, response)``: the record has the status and headers, or the failure (then
        ``response`` is None). No redirect is followed, nothing is retried, robots.txt is not
        asked, no compression is accepted (the caller caps what it reads, byte for byte), and
        the caller bounds the time. The stream has a connection of its own, closed on exit:
        a long-lived stream must not hold one of its host's pooled connections."""
        record, response = FetchRecord(url=url, kind=kind, fetched_at=_utc_now()), None
        headers = [(k, "identity" if k == "Accept-Encoding" else v) for k, v in self._headers(accept, None, None, {})]
        transport = self._make_transport()
        try:
            try:
                target = checked_url(url)
                response = await self._send_streamed(transport, target, headers)
                _note_response(record, response, target)
            except Exception as exc:  # noqa: BLE001 - the contract: failures become data
                record.error_code, record.error = describe_error(exc, record, self.deadline)
            if record.error_code or not 200 <= (record.status or 0) < 300:
                self.stats.errors += 1
            yield record, response
        finally:
            if response is not None:
                await response.aclose()
            await close_transport(transport)  # shielded: a cancelled probe still closes its socket

    def _headers(
        self, accept: str | None, etag: str | None, last_modified: str | None, extra: dict[str, str]
    ) -> list[tuple[str, str]]:
        """The request's headers; those of a plain GET (no validators, nothing extra) made
        once for each Accept (never changed in place: a redirect makes a new list)."""
        if etag or last_modified or extra:
            return self._built_headers(accept, etag, last_modified, extra)
        plain = self._plain_headers.get(accept)
        if plain is None:
            plain = self._built_headers(accept, None, None, {})
            if len(self._plain_headers) < PLAIN_HEADER_SETS:
                self._plain_headers[accept] = plain
        return plain

    def _built_headers(
        self, accept: str | None, etag: str | None, last_modified: str | None, extra: dict[str, str]
    ) -> list[tuple[str, str]]:
        fixed = {"user-agent", "accept-encoding", "host", "content-length", "transfer-encoding"}
        chosen = {name.lower(): (name, value) for name, value in extra.items() if name.lower() not in fixed}
        chosen.setdefault("accept", ("Accept", accept or "*/*"))
        headers = [
            ("User-Agent", self.user_agent),
            # Only what body.read_capped decodes, so every byte is counted under the cap.
            ("Accept-Encoding", "gzip, deflate"),
            *chosen.values(),
        ]
        if etag:
            headers.append(("If-None-Match", etag))
        if last_modified:
            headers.append(("If-Modified-Since", last_modified))
        # A value a server wrote and agentdex echoes (an ETag, an Mcp-Session-Id) is sent only
        # when it is a header value (visible ASCII): httpx would refuse it mid-request.
        return [(name, value) for name, value in headers if field_value(value)]

    async def _fetch_into(self, record: FetchRecord, options: _Options, honour_robots: bool) -> None:
        parcel = self._parked.take(record.url, options.headers) if self._parked and options.method == "GET" else None
        url = parcel.url if parcel is not None else checked_url(record.url)
        if honour_robots and not _exempt(url):
            robots = self.robots
            verdict = await (
                robots.check_governed(str(url), url.origin) if isinstance(url, HttpsURL) else robots.check(str(url))
            )
            if not verdict.allowed:
                raise FetchError(
                    "robots", verdict.note or f"robots.txt of {verdict.origin} disallows {url.path} for agentdex."
                )
        options.parked = parcel.answer if parcel is not None else None
        parked = options.parked
        if isinstance(parked, Reply) and _final(parked):  # here whole: no request, no redirect, no retry
            _note_response(record, parked, url)
            return await self._finish(record, parked, options)
        # asyncio's own timeout: anyio's cancel scopes cost more than the rest of a small fetch
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.deadline):
            options.deadline_at = loop.time() + self.deadline
            try:
                await self._attempts(record, url, options)
            finally:  # the server's time: robots.txt comes before, the host's turn is counted apart
                meter = SLOW_METER.get()
                if meter is not None:
                    took = self.deadline - (options.deadline_at - loop.time()) - options.queued
                    meter.note(took, self.deadline)

    async def _attempts(self, record: FetchRecord, url: URL, options: _Options) -> None:
        attempt = 0
        while True:
            try:
                delay = await self._follow(record, url, options, attempt)
            except (ConnectError, ConnectTimeout) as exc:
                delay = self._retry_pause(options, attempt, backoff(attempt))
                if delay is None or tls_error(exc) is not None:
                    raise
            if delay is None:
                return
            attempt += 1
            await asyncio.sleep(delay)

    def _retry_pause(self, options: _Options, attempt: int, delay: float | None) -> float | None:
        """``delay``, :func:`jittered`, when another try is allowed and fits before the
        deadline, else None."""
        if delay is None or attempt >= self.retries:
            return None
        delay = jittered(delay)
        return delay if asyncio.get_running_loop().time() + delay < options.deadline_at else None

    async def _follow(self, record: FetchRecord, url: URL, options: _Options, attempt: int) -> float | None:
        """Request ``url`` and its redirects; the retry pause for a transient answer, else None."""
        _forget_answer(record)
        current, method, content, seen = url, options.method, options.content, {str(url)}
        headers = options.headers
        # An answer sent ahead stands for the first request of a fetch's first attempt only.
        parked, options.parked = options.parked, None
        if isinstance(parked, Exception):
            raise parked
        while True:
            async with NO_TURN if parked is not None else self._host_turn(current, options) as transport:
                if parked is None:
                    assert transport is not None  # a turn's own
                    response = await self._send(transport, method, current, headers, content)
                else:
                    response, parked = parked, None
                try:
                    _note_response(record, response, current)
                    target = redirect_target(response, current) if options.follow else None
                    if target is None:
                        delay = self._retry_pause(options, attempt, retry_delay(response, attempt, method))
                        if delay is None:
                            await self._finish(record, response, options)
                        return delay
                finally:
                    await release(response, method)
            check_redirect(record, current, target, seen, options.same_origin)
            new_method = method_after(response.status_code, method)
            content = content if new_method == method else None
            if content is None:  # a redirect turned a POST into a GET: its body headers go too
                headers = [(k, v) for k, v in headers if not k.lower().startswith("content-")]
            if origin_key(target) != origin_key(url):  # credentials are for the origin asked, only
                headers = without_credentials(headers)
            method, current = new_method, target

    def _host_turn(self, url: URL, options: _Options) -> Turn:
        """The host's turn (its slot: one request at a time, Crawl-delay apart) and a connection;
        the wait for the turn is agentdex's own politeness, counted apart in ``options.queued``."""
        return Turn(self._slot(url.host), self._pools, url, options)

    async def _send(
        self,
        transport: httpx.AsyncBaseTransport,
        method: str,
        url: URL,
        headers: list[tuple[str, str]],
        content: bytes | None,
    ) -> Answer:
        self.stats.requests += 1
        if isinstance(transport, HostTransport):  # the crawler's own: no httpx.Request, no httpx.Response
            return await transport.exchange(method, url, headers, content, self._timeouts)
        return await _handled(transport, self._request(method, url, headers, content))

    async def _send_streamed(
        self, transport: httpx.AsyncBaseTransport, url: URL, headers: list[tuple[str, str]]
    ) -> httpx.Response:
        """A GET whose answer the caller reads as an httpx.Response (:meth:`stream`)."""
        self.stats.requests += 1
        if isinstance(transport, HostTransport):
            return await transport.request("GET", url, headers, None, self._timeouts)
        return await _handled(transport, self._request("GET", url, headers, None))

    def _request(self, method: str, url: URL, headers: list[tuple[str, str]], content: bytes | None) -> httpx.Request:
        target = url if isinstance(url, httpx.URL) else httpx.URL(str(url))
        return httpx.Request(method, target, headers=headers, content=content, extensions={"timeout": self._timeouts})

    async def _finish(self, record: FetchRecord, response: Answer, options: _Options) -> None:
        status = response.status_code
        if status == 304:
            record.not_modified = True
            # A 304 need not repeat the validators; the ones sent still describe the content.
            record.etag = record.etag or options.etag
            record.last_modified = record.last_modified or options.last_modified
            return
        if options.method != "HEAD":
            await self._read_body(
                record,
                response,
                options,
                keep_errors=status < 300,
                keep=not (options.absent_ok and status in (404, 410)),
            )
        if not 200 <= status < 300:  # set, not raised: most of a sweep's answers are 404s
            record.error_code = "http_status"
            record.error = _status_sentence(response, record.final_url or record.url)

    async def _read_body(
        self, record: FetchRecord, response: Answer, options: _Options, keep_errors: bool, keep: bool = True
    ) -> None:
        try:
            body = await read_capped(
                response, options.max_bytes, prefix=options.prefix
            )  # read whole either way: the connection is reused
        except FetchError:
            if keep_errors:
                raise
            return  # the body of an error answer is a bonus; the status is the news
        self.stats.bytes += len(body)
        if not keep:
            return
        record.body = body
        record.sha256 = hashlib.sha256(body).hexdigest()

    def _slot(self, host: str) -> Slots:
        # Created on first use, inside the event loop that will wait on them.
        if self._all_slots is None:
            self._all_slots = asyncio.Semaphore(self.concurrency)
        return Slots(self._host_slots, host.lower(), self.per_host, self._all_slots)

    async def _fetch_robots(self, url: str) -> FetchRecord:
        # Not counted in stats.errors: a missing robots.txt is no failure of the crawl.
        # One byte over the parsed prefix: the parser then knows the file was longer.
        options = _Options(
            "robots", ROBOTS_MAX_BYTES + 1, False, "GET", self._headers("text/plain", None, None, {}), prefix=True
        )
        return await self._run(url, options, honour_robots=False)


async def _handled(transport: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
    """``request`` sent through a stand-in transport (a test's): the transport, not an
    httpx.Client, so no cookie jar, no auth, no environment."""
    response = await transport.handle_async_request(request)
    response.request = request
    return response


async def resolve(host: str, port: int) -> list[str]:
    """The addresses of ``host``: an IP literal (a ``--connect-to`` target, an address URL)
    is its own answer; a name goes to the system resolver.

    getaddrinfo runs in a worker thread; skipping it for a literal saves a thread
    round trip on every new connection (what it would answer is the literal itself).
    The address guard checks the answer either way.
    """
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return await system_resolver(host, port)
    return [host]


def _utc_now() -> str:
    """Now, UTC ISO 8601 to the second; spelled once a second (a crawl asks hundreds a second)."""
    return _second_text(int(time.time()))


@functools.lru_cache(maxsize=1)
def _second_text(second: int) -> str:
    return datetime.fromtimestamp(second, UTC).isoformat().replace("+00:00", "Z")


def _final(answer: Reply) -> bool:
    """Whether ``answer`` ends its fetch: no redirect to follow, no retry to make."""
    return answer.status_code not in REDIRECT_STATUSES and answer.status_code not in TRANSIENT_STATUSES


def _forget_answer(record: FetchRecord) -> None:
    """Clear what an earlier attempt recorded, so a retry's record describes the retry."""
    record.status = record.final_url = record.etag = record.last_modified = None
    record.headers, record.redirects = {}, []


def _exempt(url: URL) -> bool:
    """Whether robots.txt does not govern ``url`` (:func:`~agentdex.crawler.robots.robots_exempt`)."""
    if isinstance(url, HttpsURL):  # its path as urlsplit reads it, without splitting it again
        return url.raw_path_only in EXEMPT_PATHS
    return robots_exempt(str(url))


def _note_response(record: FetchRecord, response: Answer, url: URL) -> None:
    record.status = response.status_code
    record.final_url = str(url)
    record.headers = kept_headers(response.headers)
    record.etag = record.headers.get("etag")
    record.last_modified = record.headers.get("last-modified")


def kept_headers(headers: httpx.Headers | ReplyHeaders) -> dict[str, str]:
    """The headers that matter to agentdex, lower-case names, values cut at 8 KB (a
    repeated header's values joined by ", ", as httpx joins them)."""
    if isinstance(headers, ReplyHeaders):  # already joined and lower-cased
        return {name: value[:HEADER_VALUE_MAX] for name, value in headers.joined().items() if name in _KEPT}
    values: dict[str, list[str]] = {}
    for name, value in headers.multi_items():  # one pass: each name lookup would scan them all
        if name in _KEPT:
            values.setdefault(name, []).append(value)
    return {name: ", ".join(parts)[:HEADER_VALUE_MAX] for name, parts in values.items()}


def _status_sentence(response: Answer, url: str) -> str:
    reason = response.reason_phrase or "error"
    if response.status_code in REDIRECT_STATUSES:
        return f"{url} answered {response.status_code} {reason} without a Location to follow."
    return f"{url} answered {response.status_code} {reason}."


# -- retries ---------------------------------------------------------------------------


def backoff(attempt: int) -> float:
    """The least pause before retry number ``attempt + 1``: 0.2 s, 0.4 s, 0.8 s … capped at
    2 s (the pause taken is :func:`jittered`)."""
    return min(BACKOFF_BASE * 2**attempt, BACKOFF_CAP)


def jittered(delay: float) -> float:
    """``delay`` lengthened by up to half of it, at random: the retries of many requests
    that failed together (a server restarting under a crawl) do not all come back at once.
    Never shortened, so a Retry-After is honoured."""
    return delay * (1 + random.random() * JITTER)


def retry_delay(response: Answer, attempt: int, method: str = "GET") -> float | None:
    """The pause before retrying a transient answer, or None when it is not worth retrying.

    500/502/503/504 and 429 are transient (a 500 is often a cold start or a deploy in
    progress); a Retry-After above 3 s means "not now": no retry.
    Only GET and HEAD are retried on an answer (a POST may have been acted on).
    """
    if response.status_code not in TRANSIENT_STATUSES or method not in SAFE_METHODS:
        return None
    header = response.headers.get("retry-after")
    if header is None:
        return backoff(attempt)
    after = retry_after_seconds(header)
    if after is None or after > RETRY_AFTER_MAX:
        return None
    return max(after, backoff(attempt))

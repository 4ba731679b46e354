"""Verification: check every claim a listing makes and store each result as a check.

Runs after discovery on every crawl (and on ``agentdex verify``), unchanged origins
included, so a claim that stops holding is seen. Everything goes through the same fetch
policy as the crawl. It only reads: MCP endpoints get ``initialize`` and ``tools/list``
over their declared transport (plus, after a refusal, a GET asking for an event stream and
the RFC 9728 metadata GET), once per URL and crawl;
payment endpoints get one unpaid request; the feedback endpoint and each A2A interface a
safe GET. It never
calls a tool, never submits feedback, never pays, never sends a credential.

A manifest too broken to give a listing (over its size limit, not JSON) still gets the
checks of its answer: location, content type, CORS and size.

The checks are those of the catalogue :mod:`agentdex.checks`: :data:`RUNNERS` holds one
runner per catalogued group, run in the catalogue's order, each emitting only its group's
checks. To add a check, add it to the catalogue and emit it from its group's runner (a new
group adds a runner here). Anchor-specific proofs (DNS, HTTP, registry), the read-only
variant and payments live in :mod:`agentdex.crawler.verify_anchor`; the live 402 of the
resources an x402 discovery document declares in :mod:`agentdex.crawler.verify_x402` (asked
for an origin with no listing too: a document that prices resources is a claim of its own).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from agentdex import formats
from agentdex.checks import GROUPS, in_group
from agentdex.crawler import freshness, health, mcp_probe, offload
from agentdex.crawler.discovery import NOTHING, Previous, note_freshness, served_fresh
from agentdex.crawler.origins import origin_url
from agentdex.crawler.verify_x402 import document_of, x402_checks
from agentdex.db.snapshots import obtained
from agentdex.formats import agent_app
from agentdex.formats._load import loads as safe_loads
from agentdex.formats._yaml import YamlLimits, load_yaml
from agentdex.headers import media_type
from agentdex.models import Check, CheckStatus, EndpointProbe, FetchRecord, Listing, OriginCrawl


@dataclass(frozen=True)
class Stored:
    """What the catalogue knows of the origin being verified, and what may stand in for asking.

    ``previous``: the latest stored answer of each URL (validators, status, body hash,
    freshness); ``load_blob`` reads a stored body. A GET whose stored answer is still fresh
    under ``policy`` is not asked (its check keeps its verdict, marked fresh with the
    answer's time); any other is asked conditionally when it has validators. ``due``: the
    probes that cannot be fresh (MCP sessions, DNS, unpaid 402s) run; otherwise their stored
    checks stand. ``scheduled``: the origin is due by its schedule, so every endpoint asked
    gets its health row; otherwise only an endpoint whose state differs from its latest row
    (``probes``: ``{(role, url): key}``, :func:`agentdex.models.probe_key`), so the health history is sampled
    on the origin's schedule and keeps every change. The default asks and records everything
    (what ``agentdex verify`` does).
    """

    previous: Mapping[str, Previous] = field(default_factory=dict)
    load_blob: Callable[[str], bytes | None] = lambda sha: None
    policy: freshness.Policy = freshness.Policy(revalidate=True)
    now: float | None = None
    due: bool = True
    scheduled: bool = True
    probes: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # The stored MCP checks a fresh ttlMs of server/discover lets stand for a probe
    # (stage.fresh_probe): the listing's endpoint is not probed while they are fresh.
    mcp_fresh: tuple[Check, ...] = ()

    def to_record(self, endpoints: list[EndpointProbe]) -> list[EndpointProbe]:
        """The endpoint rows this crawl adds to the health history."""
        if self.scheduled:
            return endpoints
        # The state (with an MCP endpoint's era and cause) alone: a 304 after a 200 is the same ok.
        return [e for e in endpoints if self.probes.get((e.role, e.url)) != e.key]

    def fresh(self, prev: Previous, kind: str) -> bool:
        """Whether ``prev`` may stand in for asking: fresh, and a definite absence, an answer
        whose status is the whole check, or one with its body stored."""
        if prev.status not in freshness.FRESH_STATUSES:
            return False
        if prev.status < 300 and not prev.sha256 and kind not in STATUS_ONLY:
            return False
        return self.policy.usable(prev.fresh_until, prev.response_at, time.time() if self.now is None else self.now)


ASK_ALL = Stored()
# The verifier's fetches whose check reads only the status (no stored body needed).
STATUS_ONLY = frozenset({"homepage", "privacy", "terms", "http_base", "feedback"})
# The groups whose probes cannot be served from freshness: run only when the origin is due.
SCHEDULED_GROUPS = frozenset({"mcp", "anchor", "x402"})
# The check each verifier fetch decides, by the kind it is asked under.
CHECK_KINDS = {
    "homepage.reachable": "homepage",
    "policies.privacy": "privacy",
    "policies.terms": "terms",
    "http.base": "http_base",
    "http.openapi": "openapi",
    "http.capabilities": "capabilities",
    "feedback.descriptor": "feedback",
}


class _Asked(list):
    """The fetches of the origin being verified, ``(kind, url, record)``, and the answer of each
    request made (``answers``): one request a method, URL and cap however many checks ask (an
    Anchor tool's endpoint is also the resource its x402 discovery document prices)."""

    def __init__(self, stored: Stored = ASK_ALL) -> None:
        super().__init__()
        self.answers: dict[tuple[str, str, int], asyncio.Future] = {}
        self.probes: dict[str, asyncio.Future] = {}  # the MCP probes this origin awaited, by URL
        self.stored = stored


# The Verifier serves every origin of a crawl at once, so each verify_crawl gives its own
# runners their own list.
_ASKED: ContextVar[_Asked | None] = ContextVar("agentdex_verify_asked", default=None)


@contextmanager
def _asking(stored: Stored = ASK_ALL) -> Iterator[_Asked]:
    """A fresh :class:`_Asked` for the origin verified inside the block."""
    asked = _Asked(stored)
    token = _ASKED.set(asked)
    try:
        yield asked
    finally:
        _ASKED.reset(token)


PAGE_CAP = 1024 * 1024
# An OpenAPI document in YAML: the whole fetch cap, and twice the values an honest document
# that large holds (about 250,000; a bomb costs at most this budget).
OPENAPI_LIMITS = YamlLimits(chars=4 * PAGE_CAP, nodes=500_000)
# A HEAD unanswered after this long gets a GET instead: some servers (an MCP SSE endpoint
# among them) never answer HEAD, and waiting the whole deadline for it proves nothing.
HEAD_WAIT = 3.0
TEXT_TYPES = ("text/markdown", "text/plain", "text/x-markdown")
MAX_A2A = 8  # A2A interfaces asked a crawl, at most (a card names one a protocol binding)


class Verifier:
    """Runs the checks for one crawl's origins with a shared fetcher."""

    def __init__(self, fetcher, net) -> None:
        self.fetcher = fetcher
        self.net = net
        # One probe per MCP URL and crawl: the listing's endpoint, its read-only variant and
        # its payment check may name the same URL, and each probe is a real session.
        self._probes: dict[str, asyncio.Task] = {}

    async def get(
        self, url: str, kind: str, cap: int = PAGE_CAP, method: str = "GET", expected: tuple[int, ...] = ()
    ) -> FetchRecord:
        """A GET (or ``method``: HEAD) under the fetch policy, sent once per method, URL and
        cap for the origin being verified however many checks ask (and recorded for its
        endpoint health). ``expected``: statuses that are
        the answer asked for, not errors of the crawl (:meth:`Fetcher.fetch`)."""
        asked = _ASKED.get()
        if asked is None:
            return await self.fetcher.fetch(url, kind=kind, max_bytes=cap, method=method, expected=expected)
        key = (method, url, cap)
        if key not in asked.answers:
            asked.answers[key] = asyncio.ensure_future(self._answer(url, kind, cap, method, expected, asked.stored))
        record = await asyncio.shield(asked.answers[key])
        asked.append((kind, url, record))
        return record

    async def _answer(
        self, url: str, kind: str, cap: int, method: str, expected: tuple[int, ...], stored: Stored
    ) -> FetchRecord:
        """The stored answer of a GET while it is fresh; otherwise a request (conditional when
        a validator is stored), stamped with its freshness for the next crawl. A 304 or a
        fresh answer carries the stored body, for the checks that read one."""
        if method != "GET":
            return await self.fetcher.fetch(url, kind=kind, max_bytes=cap, method=method, expected=expected)
        prev = stored.previous.get(url) or NOTHING
        if stored.fresh(prev, kind):
            record = served_fresh(url, kind, prev, freshness.iso(time.time()) or "")
        else:
            sent = time.time()
            record = await self.fetcher.fetch(
                url, kind=kind, max_bytes=cap, expected=expected, etag=prev.etag, last_modified=prev.last_modified
            )
            note_freshness(record, prev, sent, time.time())
            if record.not_modified and prev.status is not None:
                record.status = prev.status  # the verdict is the stored answer's, revalidated
        if (record.from_freshness or record.not_modified) and prev.sha256:
            record.body = stored.load_blob(prev.sha256)
        return record

    async def post(
        self, url: str, body: bytes, headers: dict[str, str], *, follow_redirects: bool = True
    ) -> FetchRecord:
        """A JSON-RPC POST for the MCP probe (the probe refuses every method but three). Being
        a request with a body, it follows no redirect to another origin; the HTTP+SSE
        session's POST (``follow_redirects=False``) follows none."""
        return await self.fetcher.fetch(
            url,
            kind="mcp",
            max_bytes=mcp_probe.MAX_BYTES,
            method="POST",
            content=body,
            headers=headers,
            honour_robots=False,
            follow_redirects=follow_redirects,
        )

    async def probe_get(self, url: str, method: str = "GET", accept: str | None = None) -> FetchRecord:
        """A safe request of the MCP probe (the RFC 9728 metadata GET)."""
        return await self.fetcher.fetch(
            url, kind="mcp", max_bytes=64 * 1024, method=method, accept=accept, honour_robots=False
        )

    def probe_stream(self, url: str, accept: str):
        """The MCP probe's event-stream GET (``async with``: ``(record, response)``)."""
        return self.fetcher.stream(url, kind="mcp", accept=accept)

    async def probe(self, url: str, transport: str | None = mcp_probe.STREAMABLE) -> mcp_probe.Probe:
        """The MCP probe of ``url`` over the declared ``transport``, run once per crawl
        however many checks ask (the first to ask names the transport)."""
        if url not in self._probes:
            self._probes[url] = asyncio.ensure_future(
                _timed(
                    mcp_probe.probe(
                        url,
                        self.post,
                        self.probe_get,
                        self.probe_stream,
                        transport=transport,
                        deadline=self.fetcher.deadline,
                    )
                )
            )
        task = self._probes[url]
        asked = _ASKED.get()
        if asked is not None:  # its own: another origin done with the URL may drop it from _probes
            asked.probes[url] = task
        return await asyncio.shield(task)

    async def responds(self, url: str, kind: str) -> FetchRecord:
        """Whether ``url`` answers at all (any status): a HEAD given ``HEAD_WAIT`` seconds,
        then a GET of which only the status and headers are read (its body may be an event
        stream that never ends), within the fetch deadline."""
        try:
            record = await asyncio.wait_for(self.fetcher.fetch(url, kind=kind, max_bytes=0, method="HEAD"), HEAD_WAIT)
            if record.error_code != "timeout":
                return record
        except TimeoutError:
            pass
        try:
            async with asyncio.timeout(self.fetcher.deadline):
                async with self.fetcher.stream(url, kind=kind, accept="*/*") as (record, _):
                    return record
        except TimeoutError:
            seconds = HEAD_WAIT + self.fetcher.deadline
            return FetchRecord(
                url=url,
                kind=kind,
                error_code="timeout",
                error=f"{url} answered neither HEAD nor GET within {seconds:g} seconds.",
            )

    async def verify_crawl(self, crawl: OriginCrawl, listing: Listing | None = None, stored: Stored = ASK_ALL) -> None:
        """Fill ``crawl.checks`` and ``crawl.mcp_tools`` for the crawl's listing. A manifest
        too broken to give a listing still gets the checks of its answer (size, type, …).
        ``stored``: the stored answers that may stand in for asking (default: ask everything)."""
        listing = listing or (crawl.primary.listing if crawl.primary else None)
        if listing is None:
            await self._verify_unlisted(crawl, stored)
            return
        groups = [
            g for g in GROUPS if (stored.due or g not in SCHEDULED_GROUPS) and not (g == "mcp" and stored.mcp_fresh)
        ]
        with _asking(stored) as asked:  # the runners' tasks share it: one per origin verified
            try:
                results, extra, _ = await asyncio.gather(
                    asyncio.gather(*(RUNNERS[group](self, crawl, listing) for group in groups)),
                    self._probe_extra(crawl, stored),
                    self._ask_a2a(crawl, listing, stored),
                )
                rows = health.endpoints_of(crawl, listing.mcp_url, self._probe_of(listing.mcp_url, asked), asked)
                crawl.endpoints = stored.to_record(_with_rows(rows, extra))
            finally:
                self._forget(listing, crawl)
        checks: list[Check] = []
        for found, tools in results:
            checks.extend(found)
            if tools is not None:
                crawl.mcp_tools = tools
        crawl.checks = mark_obtained(checks, asked) + list(stored.mcp_fresh if stored.due else ())
        crawl.fetches.extend(kept_answers(asked))

    async def _verify_unlisted(self, crawl: OriginCrawl, stored: Stored = ASK_ALL) -> None:
        """An origin without a listing: the checks of a broken manifest's answer, and the
        live 402s of an x402 discovery document's resources with their endpoint health
        (those only when the origin is due: an unpaid 402 is never fresh)."""
        checks = manifest_checks(crawl, crawl.primary.format) if crawl.primary is not None else []
        if document_of(crawl) is not None and stored.due:
            with _asking(stored) as asked:
                checks += await x402_checks(self, crawl)
            crawl.endpoints = stored.to_record(health.verified_rows(asked))
        extra = await self._probe_extra(crawl, stored)
        if extra:
            crawl.endpoints = stored.to_record(_with_rows(crawl.endpoints or [], extra))
        self._forget(None, crawl)
        crawl.checks = checks or None

    def _probe_of(self, url: str | None, asked: _Asked | None = None) -> mcp_probe.Probe | None:
        """The finished probe of ``url`` in this crawl, if one ran (the one ``asked`` awaited first:
        another origin that shares the URL and finished first has dropped it from the crawl's)."""
        if not url:
            return None
        task = (asked.probes.get(url) if asked is not None else None) or self._probes.get(url)
        if task is None or not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    async def _probe_extra(self, crawl: OriginCrawl, stored: Stored) -> list[EndpointProbe]:
        """The health rows of the MCP endpoints probed besides the listing's own
        (:attr:`OriginCrawl.extra_endpoints`), each over its declared transport, when the
        origin is due (a probe is never fresh)."""
        if not stored.due or not crawl.extra_endpoints:
            return []
        # One after another: they share the origin's host (a platform may serve a thousand), which
        # takes one request at a time anyway, and a request queued behind hundreds would count
        # as a slow one of the origin's (crawler.fetch.SlowMeter) and cut the origin short.
        rows = []
        for endpoint in crawl.extra_endpoints:
            found = await self.probe(endpoint.url, endpoint.transport or mcp_probe.STREAMABLE)
            rows.append(health.from_probe(endpoint.url, found))
        return rows

    async def _ask_a2a(self, crawl: OriginCrawl, listing: Listing, stored: Stored) -> None:
        """A safe GET of each A2A interface the listing names, and those of the origin's A2A
        card beside a manifest (a 1.0 card's every ``supportedInterfaces[].url``), for its
        health row (role ``a2a``; TLS, reachability and the address guard as for any
        endpoint): no A2A message is ever sent, so no task is made; a route that wants
        another method answers 405, which shows it is there."""
        card = crawl.results.get("a2a_card") if crawl.results else None
        urls = [*a2a_urls(listing), *(a2a_urls(card.listing) if card is not None and card.listing else [])]
        if stored.due and urls:
            await asyncio.gather(*(self.get(u, "a2a", 64 * 1024) for u in list(dict.fromkeys(urls))[:MAX_A2A]))

    def _forget(self, listing: Listing | None, crawl: OriginCrawl | None = None) -> None:
        """Drop the probes of this listing's URLs, so a long crawl keeps no pile of them."""
        urls: set[str | None] = {e.url for e in crawl.extra_endpoints} if crawl is not None else set()
        if listing is not None:
            urls |= {listing.mcp_url} | {
                t.get(k) for t in listing.facts.anchor_tools for k in ("endpoint", "readOnlyVariant")
            }
        for url in urls:
            self._probes.pop(url, None)  # type: ignore[arg-type]

    async def _manifest(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        return manifest_checks(crawl, listing.format), None

    async def _documents(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        return document_checks(crawl, listing), None

    async def _links(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        pairs = [
            ("homepage.reachable", listing.homepage, "homepage"),
            ("policies.privacy", listing.privacy_url, "privacy"),
            ("policies.terms", listing.terms_url, "terms"),
        ]
        checks = await asyncio.gather(*(self._reachable(n, u, k) for n, u, k in pairs))
        return list(checks), None

    async def _reachable(self, name: str, url: str | None, kind: str) -> Check:
        if not url:
            status: CheckStatus = "warn" if name == "policies.privacy" else "skip"
            why = "no privacy policy declared (shown on every card)" if status == "warn" else "not declared"
            return Check(name, status, why)
        record = await self.get(url, kind)
        if record.ok:
            return Check(name, "pass", f"HTTP {record.status} from {url}")
        return Check(name, "fail", _failure(record, url))

    async def _mcp(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], list | None]:
        if not listing.mcp_url:
            return [Check(n, "skip", "no MCP endpoint declared") for n in in_group("mcp")], None
        found = await self.probe(listing.mcp_url, listing.mcp_transport)
        # Only a complete tools/list replaces the stored tools: a half-listed surface would
        # read as tools removed.
        return mcp_checks(found, listing), (found.tools if found.state == "ok" and found.tools_listed else None)

    async def _http(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        if not listing.http_base:
            return [Check(n, "skip", "no HTTP API declared") for n in in_group("http")], None
        base, openapi, caps = await asyncio.gather(
            self.get(listing.http_base, "http_base"),
            self._maybe(listing.http_openapi, "openapi"),
            self._maybe(listing.http_capabilities, "capabilities"),
        )
        # A large OpenAPI document takes a while to parse: off the event loop (see offload).
        size = offload.yaml_size(openapi.body) if openapi is not None else 0
        openapi_result = await offload.run(size, openapi_check, openapi, listing.http_openapi)
        checks = [
            http_base_check(base, listing.http_base),
            openapi_result,
            json_check("http.capabilities", caps, listing.http_capabilities),
        ]
        return checks, None

    async def _maybe(self, url: str | None, kind: str) -> FetchRecord | None:
        return await self.get(url, kind, 4 * PAGE_CAP) if url else None

    async def _feedback(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        return [await self._feedback_check(listing.feedback)], None

    async def _feedback_check(self, feedback: dict[str, Any] | None) -> Check:
        if not feedback:
            return Check("feedback.descriptor", "skip", "no feedback descriptor declared")
        problems = agent_app.feedback_problems(feedback)
        if problems:
            return Check("feedback.descriptor", "fail", "; ".join(problems))
        # A safe request: GET is never a submission; a POST-only endpoint answers 405.
        record = await self.get(feedback["url"], "feedback")
        if record.status is None or record.status == 404 or record.status >= 500:
            return Check("feedback.descriptor", "fail", "feedback endpoint " + _failure(record, feedback["url"]))
        return Check(
            "feedback.descriptor",
            "pass",
            f"consistent; endpoint answers (HTTP {record.status} to a safe GET); never submitted",
        )

    async def _anchor(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        if listing.format != "anchor":
            return [], None
        from agentdex.crawler.verify_anchor import anchor_checks

        return await anchor_checks(self, listing), None

    async def _x402(self, crawl: OriginCrawl, listing: Listing) -> tuple[list[Check], None]:
        return await x402_checks(self, crawl), None


# One runner per group of the check catalogue (agentdex.checks.GROUPS), run in its order.
# A runner returns its group's checks and, for the MCP group, the tool list a complete
# tools/list read (None: keep what is stored).
Runner = Callable[[Verifier, OriginCrawl, Listing], Awaitable[tuple[list[Check], Any]]]
RUNNERS: dict[str, Runner] = {
    "manifest": Verifier._manifest,
    "documents": Verifier._documents,
    "links": Verifier._links,
    "mcp": Verifier._mcp,
    "http": Verifier._http,
    "feedback": Verifier._feedback,
    "anchor": Verifier._anchor,
    "x402": Verifier._x402,
}


def a2a_urls(listing: Listing) -> list[str]:
    """The A2A endpoints a listing names (:attr:`agentdex.models.CrossFacts.a2a_urls`)."""
    return list(listing.facts.a2a_urls)


def _with_rows(rows: list[EndpointProbe], more: list[EndpointProbe]) -> list[EndpointProbe]:
    """Endpoint rows with ``more``, once each, by role and URL."""
    return sorted(set(rows) | set(more), key=lambda e: (e.role, e.url))


def kept_answers(asked: _Asked) -> list[FetchRecord]:
    """The verifier's GETs of the claims whose checks obey freshness, stored as snapshots
    with the crawl's (their freshness and validators serve the next crawl)."""
    kinds = set(CHECK_KINDS.values())
    return [
        future.result()
        for (method, _, _), future in asked.answers.items()
        if method == "GET"
        and future.done()
        and not future.cancelled()
        and future.exception() is None
        and future.result().kind in kinds
    ]


def mark_obtained(checks: list[Check], asked: list[tuple[str, str, FetchRecord]]) -> list[Check]:
    """Each check decided by one verifier fetch says how that answer was obtained (fetched,
    revalidated, fresh) and when it arrived (``data``: ``obtained``, ``answer_at``): the
    verdict is the answer's, however it was had, so its detail does not change."""
    last = {kind: record for kind, _, record in asked}
    return [_marked(check, last.get(CHECK_KINDS.get(check.name, ""))) for check in checks]


def _marked(check: Check, record: FetchRecord | None) -> Check:
    if record is None:
        return check
    return replace(check, data={**(check.data or {}), "obtained": obtained(record), "answer_at": record.response_at})


def manifest_checks(crawl: OriginCrawl, fmt: str) -> list[Check]:
    """Location, content type, CORS and size of the primary manifest's answer."""
    record = _manifest_record(crawl, fmt)
    if record is None or fmt not in formats.MANIFEST_PATHS:
        return []
    if record.not_modified or record.from_freshness:
        return []  # a 304 or a fresh stored answer carries no new facts: the stored checks stand
    expected = origin_url(crawl.origin, formats.MANIFEST_PATHS[fmt])
    ctype = media_type(record.headers)
    cors = record.headers.get("access-control-allow-origin", "")
    where = record.final_url or record.url
    return [
        Check(
            "manifest.location",
            "pass" if where == expected and record.url == expected else "warn",
            f"served at {where}"
            + (" after redirects" if record.redirects else "")
            + ("" if where == expected else f", not at {expected}"),
        ),
        Check(
            "manifest.content_type",
            "pass" if ctype == "application/json" else "fail",
            f"Content-Type {ctype or '(none)'}; the spec requires application/json",
        ),
        Check(
            "manifest.cors",
            "pass" if cors.strip() == "*" else "fail",
            f"Access-Control-Allow-Origin {cors or '(missing)'}; the spec requires *",
        ),
        size_check(record, fmt),
    ]


def size_check(record: FetchRecord, fmt: str) -> Check:
    """``manifest.size``: the body is within the format's limit (a body refused for being
    over the fetch cap, which is that limit, fails with the fetcher's sentence)."""
    limit = formats.spec(fmt).max_bytes
    if record.error_code == "too_large":
        return Check("manifest.size", "fail", f"over the limit of {limit:,} bytes: {record.error}")
    size = len(record.body or b"")
    return Check("manifest.size", "pass" if size <= limit else "fail", f"{size:,} bytes (limit {limit:,})")


def _manifest_record(crawl: OriginCrawl, fmt: str) -> FetchRecord | None:
    records = [r for r in crawl.fetches if r.kind == fmt]
    return records[-1] if records else None


def document_checks(crawl: OriginCrawl, listing: Listing) -> list[Check]:
    """The guide, llms.txt and skill fetched by discovery: reachable, and of the right kind."""
    by_kind = {r.kind: r for r in crawl.fetches}
    out = []
    for name, kind, url in (
        ("guide.reachable", "guide", listing.guide_url),
        ("llms_txt.reachable", "llms_txt", listing.llms_txt_url),
        ("skill.reachable", "skill", listing.skill_url),
    ):
        record = by_kind.get(kind)
        if not url:
            out.append(Check(name, "skip", "not declared"))
        elif record is None or record.not_modified or record.from_freshness:
            continue  # not fetched this run (or unchanged, or still fresh): the stored check stands
        else:
            out.append(_document_check(name, kind, record, url, listing.format))
    return out


def _document_check(name: str, kind: str, record: FetchRecord, url: str, fmt: str) -> Check:
    if not record.ok or record.body is None:
        return Check(name, "fail", _failure(record, url))
    ctype = media_type(record.headers)
    text = record.body.decode("utf-8", "replace")
    is_html = ctype == "text/html" or text.lstrip()[:15].lower().startswith(("<!doctype", "<html"))
    if is_html and kind == "guide" and fmt == "anchor":
        # Anchor's publisher.docs is documentation for people: a web page is what it should be.
        return Check(name, "pass", f"HTTP {record.status}, {ctype}, {len(record.body):,} bytes")
    if is_html:
        return Check(name, "fail", f"{url} is an HTML page, not markdown text")
    if kind == "skill":
        from agentdex.formats.inferred import parse_frontmatter

        meta, _ = parse_frontmatter(text)
        if not meta or not meta.get("name") or not meta.get("description"):
            return Check(name, "fail", "SKILL.md has no frontmatter with name and description")
    status: CheckStatus = "pass" if ctype in TEXT_TYPES or not ctype else "warn"
    return Check(name, status, f"HTTP {record.status}, {ctype or 'no content type'}, {len(record.body):,} bytes")


def mcp_checks(found: mcp_probe.Probe, listing: Listing) -> list[Check]:
    """``mcp.initialize``, ``mcp.tools`` and ``mcp.eras`` from a probe, compared with the
    declared auth."""
    data = found.to_dict()
    return [*_mcp_checks(found, listing, data), eras_check(found, data)]


def _mcp_checks(found: mcp_probe.Probe, listing: Listing, data: dict) -> list[Check]:
    if found.state == "ok":
        over = ", over the deprecated HTTP+SSE transport" if found.transport == mcp_probe.LEGACY_SSE else ""
        init = Check(
            "mcp.initialize",
            "pass",
            f"protocol {found.protocol_version}, server {found.server_info.get('name', '?')}{over}; {era_text(found)}",
            data,
        )
        status: CheckStatus = "fail" if not found.tools_listed else "pass" if found.tools else "warn"
        tools = Check("mcp.tools", status, found.detail, data)
        return [init, tools]
    if found.state == "auth_required":
        return [
            _auth_check(found, set(listing.mcp_auth), data, listing.format),
            Check("mcp.tools", "skip", "needs credentials to list tools", data),
        ]
    if found.state == "payment_required":
        declared = "x402" in _declared_auth(listing)
        paid: CheckStatus = "pass" if declared else "warn"
        why = "declared x402" if declared else "the manifest declares no payment for it"
        return [
            Check("mcp.initialize", paid, f"{found.detail}; {why}", data),
            Check("mcp.tools", "skip", "needs payment to list tools; agentdex never pays", data),
        ]
    if found.state == "incompatible":  # MCP all the same: of a revision agentdex does not speak
        return [
            Check("mcp.initialize", "warn", f"incompatible: {found.detail}", data),
            Check("mcp.tools", "skip", "no protocol revision in common to list tools", data),
        ]
    return [
        Check("mcp.initialize", "fail", f"{found.state}: {found.detail}", data),
        Check("mcp.tools", "skip", "initialize did not succeed", data),
    ]


ERA_TEXT = {
    "legacy": "the initialize handshake only",
    "dual": "both eras (2026-07-28 and the initialize handshake)",
    "modern": "2026-07-28 only (no initialize handshake)",
}


def era_text(found: mcp_probe.Probe) -> str:
    """The eras the endpoint answered in, with the revisions seen, in words."""
    words = ERA_TEXT.get(found.era, "no era told")
    return f"{words}: {', '.join(found.versions)}" if found.versions else words


def eras_check(found: mcp_probe.Probe, data: dict) -> Check:
    """``mcp.eras``: a dual-era endpoint lists the same tools in both eras (a difference is a
    warning naming the tools); an endpoint of one era has nothing to compare."""
    if found.state != "ok":
        return Check("mcp.eras", "skip", f"no eras to compare: {found.state}", data)
    if found.era != "dual":
        return Check("mcp.eras", "skip", f"the endpoint answers {era_text(found)}: one era, nothing to compare", data)
    if found.era_difference:
        return Check("mcp.eras", "warn", mcp_probe.era_difference_text(found.era_difference), data)
    if not found.tools_listed:
        return Check("mcp.eras", "skip", "both eras answer, but the tools of 2026-07-28 were not all listed", data)
    return Check("mcp.eras", "pass", f"{era_text(found)}; the same {len(found.tools)} tool(s) in each", data)


def _auth_check(found: mcp_probe.Probe, declared: set[str], data: dict, fmt: str = "") -> Check:
    """An endpoint that wants credentials passes when the manifest declared that kind. A
    discovery document that declares no auth at all (a registry's server.json has no field
    for OAuth) only warns: its silence is no claim that the endpoint is open."""
    scheme = found.auth_scheme or "unknown"
    detail = f"{found.detail}; declared {', '.join(sorted(declared)) or 'nothing'}"
    if scheme in declared:
        return Check("mcp.initialize", "pass", detail, data)
    if declared - {"none"}:
        # It wants credentials and the manifest says so, but names another kind.
        return Check("mcp.initialize", "warn", f"{detail}; the endpoint asks for {scheme}", data)
    if not declared and fmt in formats.DISCOVERY_NAMES:
        return Check("mcp.initialize", "warn", f"{detail}; the {fmt} document does not say what it needs", data)
    return Check("mcp.initialize", "fail", f"{detail}; the manifest does not say it needs credentials", data)


def _declared_auth(listing: Listing) -> set[str]:
    """Every auth word the manifest declares for its MCP endpoint (Anchor's own words too)."""
    words = set(listing.mcp_auth)
    for tool in listing.facts.anchor_tools:
        if tool.get("endpoint") == listing.mcp_url:
            words.update(a for a in tool.get("auth") or [] if isinstance(a, str))
    return words


def http_base_check(record: FetchRecord, url: str) -> Check:
    """The API base answers HTTP: any status below 500 shows a live API (an API may well
    answer 401, 402 or 405 at its base), but a 404 or 410 there is worth a warning."""
    if record.status in (404, 410):
        return Check(
            "http.base", "warn", f"HTTP {record.status} from {url}: the server answers, nothing is at the base"
        )
    if record.status is not None and record.status < 500:
        return Check("http.base", "pass", f"HTTP {record.status} from {url}")
    return Check("http.base", "fail", _failure(record, url))


def openapi_check(record: FetchRecord | None, url: str | None) -> Check:
    """The declared OpenAPI document parses as OpenAPI 3.x."""
    if record is None:
        return Check("http.openapi", "skip", "not declared")
    if not record.ok or record.body is None:
        return Check("http.openapi", "fail", _failure(record, url or ""))
    doc, problem = openapi_document(record.body)
    version = str(doc.get("openapi", "")) if isinstance(doc, dict) else ""
    if version.startswith("3.") and isinstance(doc.get("paths", {}), dict):
        return Check("http.openapi", "pass", f"OpenAPI {version}, {len(doc.get('paths') or {})} path(s)")
    return Check("http.openapi", "fail", "not an OpenAPI 3.x document" + (f": {problem}" if problem else ""))


def json_check(name: str, record: FetchRecord | None, url: str | None) -> Check:
    """A declared JSON endpoint answers 2xx with JSON."""
    if record is None:
        return Check(name, "skip", "not declared")
    if not record.ok or record.body is None:
        return Check(name, "fail", _failure(record, url or ""))
    try:
        safe_loads(record.body)
    except ValueError:
        return Check(name, "fail", f"{url} does not answer JSON")
    return Check(name, "pass", f"HTTP {record.status}, JSON")


def openapi_document(body: bytes) -> tuple[Any, str | None]:
    """An OpenAPI document's value: JSON, else YAML through the bounded loader of untrusted
    YAML (:data:`OPENAPI_LIMITS`); ``(None, reason)`` when it is neither."""
    try:
        return safe_loads(body), None
    except ValueError:
        pass
    return load_yaml(body.decode("utf-8", errors="replace"), what="the YAML", limits=OPENAPI_LIMITS)


def _failure(record: FetchRecord, url: str) -> str:
    if record.error:
        return f"{url}: {record.error}"
    return f"{url}: HTTP {record.status}"


async def _timed(probing: Awaitable[mcp_probe.Probe]) -> mcp_probe.Probe:
    """The probe with how long it took, every request of it (the endpoint's latency sample)."""
    started = time.monotonic()
    found = await probing
    found.elapsed_ms = (time.monotonic() - started) * 1000
    return found

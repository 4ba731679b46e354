"""Discovery of one origin: which manifests it publishes, parsed and validated.

Order (each step under the fetch policy of :mod:`agentdex.crawler.fetch`), one request at a
time, so every request of an origin rides one kept-alive connection (one TLS handshake an
origin rather than one per parallel request; a crawl of many origins fills its request
slots from other origins). The requests a step will make are sent ahead together, pipelined
on that connection (``ahead``: :meth:`agentdex.crawler.fetch.Fetcher.prefetch`), and each
``get`` then reads its answer: the manifests with robots.txt, then the discovery documents a
path of each at a time with the bootstrap files (docs/scale.md lists an empty origin's four
writes). What is recorded, and in what order, is what one request at a time records:

1. ``/.well-known/agent-app.json`` and ``/.well-known/anchor.json`` (same origin only: a
   redirect to another origin is refused and recorded), plus an Anchor manifest named by a
   ``Link: <…>; rel="anchor-manifest"`` header on the origin's answers.
2. The discovery documents (:data:`agentdex.formats.DISCOVERY_PATHS`: A2A agent card, MCP
   server card, API catalog, x402, AI catalog), each at its paths in order, the next path
   only after a definite absence (4xx) of the one before: a missing document costs one
   request a path, is no error, and changes no status. They honour robots.txt and are
   skipped when a manifest fetch failed in a way that says the origin is unreachable.
   With a registry to ask (``crawl --registry-lookup``): what the MCP registry lists for the
   origin's namespace, ``GET {registry}/v0.1/servers?search=<namespace>&version=latest``
   (:mod:`agentdex.formats.registry_server_json`), following ``metadata.nextCursor`` for at
   most :data:`REGISTRY_PAGES` pages by the API's paging rules
   (:mod:`agentdex.formats.registry_api`), under the same fetch policy (robots.txt of the
   registry's host included). The registry's failure never changes the origin's status, is
   no finding and is not counted in the crawl's errors: when it cannot answer (no
   connection, timeout, 5xx, 429, robots, a 2xx that is no registry answer), or when no
   registry is asked at all, the answer an earlier crawl stored stands, as a 304 would; a
   4xx means it lists nothing.
3. Only when the origin publishes no manifest at all: the bootstrap files for an inferred
   listing, ``/SKILL.md`` and ``/llms.txt``, then, only when ``/SKILL.md`` answered with a file
   (an inferred listing needs it), ``/agent.md`` and ``/mcp.json``. (An app with a
   manifest does not need them, so they are not fetched: this keeps a crawl at a handful of
   requests an origin. A manifest that could not be fetched because of a timeout, a network
   failure or a server error does not count as absent: no inferred listing stands in for it.)
4. The documents the chosen listing declares: its guide, llms.txt and skill, and the MCP
   registry ``server.json`` an Anchor manifest links (``schemas.mcpServerJson``; any origin,
   under the same fetch policy).
5. Without a server card at its legacy paths (a ``legacy_location`` warning) or through the
   AI Catalog: ``<streamable-http-url>/server-card`` of the origin's own Streamable HTTP
   endpoint (SEP-2127; :func:`agentdex.crawler.discovered.card_endpoint`), a 404 a known
   absence, its URL kept with the declared documents (a repeating crawl asks it again).
   An A2A card at the current path: the legacy path too, to cross-check a 0.3 and a 1.0 card
   (not beside a web page there: a site answering every path with its page answers that one so too).

Discovery documents are parsed into :attr:`OriginCrawl.results` beside the manifests (so
they are stored as snapshots, documents and findings). Where the origin publishes no
manifest (every manifest path gave a definite answer, and no inferred listing stands), they
make its listing (:mod:`agentdex.crawler.discovered`): an MCP server card, an A2A card, an
AI Catalog, the registry's server.json (the remotes a registry seed declares on the origin,
or what ``--registry-lookup`` found), an API catalog; the listing's format is the
document's. Where a manifest exists it stays primary.

A manifest counts as published when its path answers 2xx with a document (a web page there,
a site's HTML shell answering every path, is no manifest), or when it was refused for being
over its format's size limit: that one exists and breaks the limit, so it becomes an invalid
result with a ``too_large`` finding.

The **primary format** of a listing is chosen by this rule: a valid manifest beats an
invalid one; among equals agent-app v1 beats Anchor, which beats an inferred listing. Every
format found is kept in :attr:`OriginCrawl.results`.

**Status** without a usable manifest: ``unreachable`` when a manifest fetch failed in a way
that says nothing about the manifest (network, TLS, timeout, a cut answer, 5xx, 429), so a
listed origin gets the grace of a few crawls; ``no_manifest`` when every manifest path gave
a definite answer (404, a refused redirect, a redirect loop).

When every answer is a 304 (or the same non-2xx status as last time, or the same bytes) the origin is
``unchanged``: nothing is parsed, validated or written but the crawl time.

HTTP freshness (:mod:`agentdex.crawler.freshness`): a URL whose stored answer is still
fresh is not asked at all; its record says it was served from freshness and stands for the
stored answer exactly as a 304 would (so a fresh guide is not read or hashed again, and the
first fetch after it goes stale finds any change). ``Policy(revalidate=True)`` asks every
URL but the known absences whose schedule has not come (a discovery path that answered 404
or 410: :func:`agentdex.schedule.absence_recheck_at`), whose records say so. A 304
updates the stored answer's freshness headers (RFC 9111, 4.3.4): the ``Cache-Control``
and ``Expires`` it does not repeat are the stored answer's.

A 304 means no parse and no validation: when every manifest answer repeats the last
crawl's and the manifest bytes are the ones the stored listing was parsed from
(:class:`Before`), the documents that listing declares are known without parsing, and only
they are revalidated. A stored body is read from the database only when something did
change and the manifests must be parsed after all.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agentdex import formats
from agentdex.crawler import discovered, freshness, offload
from agentdex.crawler.discovery_answers import (  # the names verify, crosscheck and stage read here too
    ABSENT_STATUSES,
    NOTHING,
    Previous,
    absent,
    choose_primary,
    detail_of,
    is_html_page,
    note_freshness,
    served_absence,
    served_fresh,
    status_of,
    transient,
)
from agentdex.crawler.fetch import Ask
from agentdex.crawler.origins import origin_url
from agentdex.formats import inferred as inferred_format
from agentdex.formats import registry_api
from agentdex.formats import registry_server_json as registry_format
from agentdex.formats import server_card as server_card_format
from agentdex.formats.consistency import facts_of
from agentdex.headers import HTML_MEDIA_TYPES, media_type
from agentdex.models import FetchRecord, Finding, Listing, OriginCrawl, ParseResult

# Manifests and bootstrap files: what the format registry declares (agentdex.formats).
# A declared guide is no format's file: its cap is discovery's own.
CAPS = {**formats.FETCH_CAPS, "guide": 512 * 1024}
MANIFEST_PATHS = formats.MANIFEST_PATHS
DISCOVERY_PATHS = formats.DISCOVERY_PATHS
# The registry's answer for the origin's namespace: one document a page, at most
# REGISTRY_PAGES pages (registry_format.PAGE_KINDS).
REGISTRY_KIND = registry_format.NAME
REGISTRY_PAGES = registry_format.PAGES
REGISTRY_KINDS = registry_format.PAGE_KINDS
CAPS.update({kind: registry_format.MAX_BYTES for kind in REGISTRY_KINDS})
# Documents parsed by a discovery format one by one: those at well-known paths and the linked
# server.json (the registry's pages are read together).
DISCOVERY_KINDS = tuple(k for k in formats.DISCOVERY_NAMES if k != REGISTRY_KIND)
BOOTSTRAP = {f.kind: f.path for f in formats.ORIGIN_FILES}
BOOTSTRAP_FILES = {f.kind: f.name for f in formats.ORIGIN_FILES}
# An inferred listing needs /SKILL.md (agent-app spec, "Bootstrap listings"): /agent.md and /mcp.json,
# read for it alone, wait for one; /llms.txt, a document of its own (llmstxt.org), is asked always.
BOOTSTRAP_ALWAYS = ("skill", "llms_txt")
BOOTSTRAP_WITH_SKILL = tuple(kind for kind in BOOTSTRAP if kind not in BOOTSTRAP_ALWAYS)
JSON_TYPES = ("application/json", "application/manifest+json")
CARD = server_card_format.NAME
_LINK_RE = re.compile(r'<([^>]+)>\s*;[^,]*rel="?anchor-manifest"?', re.I)


@dataclass(frozen=True, slots=True)
class Before:
    """What the stored listing was parsed from (``{format: sha256}`` of the manifests) and
    the documents it declares (``{kind: url}``)."""

    manifests_sha256: dict[str, str]
    declared: dict[str, str]


Fetch = Callable[..., Awaitable[FetchRecord]]
LoadBlob = Callable[[str], "bytes | None"]


class Ahead(Protocol):
    """What sends an origin's next requests ahead, pipelined (:class:`~agentdex.crawler.fetch.Fetcher`)."""

    async def prefetch(self, asks: Sequence[Ask], *, robots: bool = False) -> int: ...

    def parked_status(self, url: str) -> int | None: ...


class OriginDiscovery:
    """Discovers one origin with a fetch function; see the module docstring for the order."""

    def __init__(
        self,
        origin: str,
        fetch: Fetch,
        previous: dict[str, Previous],
        load_blob: LoadBlob,
        before: Before | None = None,
        *,
        policy: freshness.Policy = freshness.Policy(),
        now: float | None = None,
        registry: str | None = None,
        registry_stored: dict[str, str] | None = None,
        declared: list[discovered.Declared] | None = None,
        linked: list[discovered.Linked] | None = None,
        ahead: Ahead | None = None,
    ) -> None:
        self.origin = origin
        self.ahead = ahead  # sends the requests a step will make ahead, pipelined (None: one by one)
        self.declared = declared or []  # the MCP endpoints seed sources declare on the origin
        self.linked = linked or []  # the documents AI Catalogs name on the origin
        self.catalog_links: list[discovered.Linked] = []  # what this origin's AI Catalog names by URL
        self._fetch = fetch
        self.previous = previous
        self.load_blob = load_blob
        self.before = before
        self.policy = policy
        self.now = now  # when freshness is judged (None: the moment of each request)
        self._usable_until: list[float | None] = []  # per record: when its answer stops being usable fresh
        self._served_at = ""  # when this crawl used stored answers (one timestamp an origin)
        self.records: list[FetchRecord] = []
        self.bodies: dict[str, bytes] = {}  # kind -> body (fresh or, after a 304, the stored one)
        self.documents: dict[str, str] = {}  # kind -> sha256
        self._stored: dict[str, str] = {}  # kind -> sha256 of the stored body a 304 stands for, not read yet
        self.registry = registry  # the registry API base to ask (None: ask none)
        self.registry_stored = registry_stored or {}  # page kind -> sha256 of the answer stored last time
        self._standing: set[str] = set()  # URLs that could not answer: the stored answer stands
        self.card_url: str | None = None  # <endpoint>/server-card asked this crawl (SEP-2127)

    async def get(
        self,
        kind: str,
        url: str,
        *,
        same_origin: bool = False,
        robots: bool = True,
        absent_ok: bool = False,
        count_errors: bool = True,
    ) -> FetchRecord:
        """Fetch ``url`` as document ``kind`` (conditionally when it was seen before), or
        serve the stored answer when it is still fresh; ``absent_ok``: a 404 there is no
        error of the crawl; ``count_errors=False``: no failure there is one."""
        prev = self.previous.get(url) or NOTHING
        until: float | None
        received: float | None
        recheck = self._known_absence(prev) if absent_ok else None
        if recheck is not None:
            self._served_at = self._served_at or freshness.iso(time.time()) or ""
            record = served_absence(url, kind, prev, self._served_at, recheck)
            until, received = recheck, prev.response_at
        elif self._usable(prev):
            self._served_at = self._served_at or freshness.iso(time.time()) or ""
            record = served_fresh(url, kind, prev, self._served_at)
            until, received = prev.fresh_until, prev.response_at
        else:
            sent = time.time()
            record = await self._fetch(
                url,
                kind=kind,
                max_bytes=CAPS.get(kind, 512 * 1024),
                same_origin=same_origin,
                etag=prev.etag,
                last_modified=prev.last_modified,
                honour_robots=robots,
                absent_ok=absent_ok,
                count_errors=count_errors,
            )
            until, received = note_freshness(record, prev, sent, time.time())
        self.records.append(record)
        self._usable_until.append(self.policy.trusted_until(until, received))
        if (record.not_modified or record.from_freshness) and prev.sha256:
            self._stored[kind] = self.documents[kind] = prev.sha256
        elif record.body is not None and record.status is not None and 200 <= record.status < 300:
            self.bodies[kind] = record.body
            self.documents[kind] = record.sha256 or ""
        return record

    def _usable(self, prev: Previous) -> bool:
        """The stored answer may stand in for a request: fresh, and a 2xx with its body or
        a definite absence."""
        if prev.status not in freshness.FRESH_STATUSES or (prev.status < 300 and not prev.sha256):
            return False
        return self.policy.usable(prev.fresh_until, prev.response_at, time.time() if self.now is None else self.now)

    def _known_absence(self, prev: Previous) -> float | None:
        """When a revalidating crawl asks this known absence next, if that is still to come
        (None: ask now). Without ``--revalidate`` HTTP freshness alone decides."""
        recheck = prev.absence_recheck_at() if self.policy.revalidate else None
        now = time.time() if self.now is None else self.now
        return recheck if recheck is not None and recheck > now else None

    def stale_at(self) -> float | None:
        """When the first answer of this crawl stops being usable fresh (None: one is not)."""
        ends = self._usable_until
        return None if not ends or None in ends else min(ends)  # type: ignore[type-var]

    def _has(self, kind: str) -> bool:
        return kind in self.bodies or kind in self._stored

    def _page(self, kind: str) -> bool:
        """What was read for ``kind`` is a web page (no document of any format)."""
        return is_html_page(self.bodies.get(kind))

    def _load_stored(self) -> None:
        """Read the stored bodies the 304 answers stand for (only when they must be parsed)."""
        for kind, sha in self._stored.items():
            body = self.load_blob(sha)
            if body is None:  # a body the database lost cannot stand for anything
                self.documents.pop(kind, None)
            else:
                self.bodies[kind] = body
        self._stored.clear()

    def unchanged(self) -> bool:
        """Every answer repeats the last crawl's (a 304, or the same non-2xx status)."""
        if not self.records:
            return False
        return all(self._repeats(r) for r in self.records)

    def _repeats(self, record: FetchRecord) -> bool:
        if record.not_modified or record.from_freshness or record.url in self._standing:
            return True
        prev = self.previous.get(record.url)
        if prev is not None and record.error_code == "robots":
            return prev.status is None  # still refused by robots.txt, as last time
        if prev is None or record.status is None:
            return False
        if 200 <= record.status < 300:
            # The same bytes without validators (a registry's server.json answers no ETag).
            return record.body is not None and prev.sha256 is not None and record.sha256 == prev.sha256
        return prev.status == record.status and prev.sha256 is None

    async def run(self) -> OriginCrawl:
        """Discover the origin: manifests, bootstrap files, declared documents."""
        await self._fetch_manifests()
        declared = self._declared_before()
        if declared is not None:
            await self._fetch_declared(declared)
            if self.unchanged():
                return self._unchanged()
        self._load_stored()
        results = self._parse_manifests()
        await self._follow_catalog(results)
        # No bootstrap when a manifest could not be read at all: whether it exists is
        # unknown, and an inferred listing must never stand in for a manifest that timed out.
        if not any(k in MANIFEST_PATHS for k in results) and not any(
            transient(r) for r in self.records if r.kind in MANIFEST_PATHS
        ):
            inferred = await self._bootstrap()
            if inferred is not None:
                results["inferred"] = inferred
        primary = choose_primary(results)
        await self._endpoint_card(results, primary.listing if primary is not None else None)
        if primary is None and not any(transient(r) for r in self.records if r.kind in MANIFEST_PATHS):
            primary = self._discovered(results)
        listing = primary.listing if primary is not None else None
        if listing is not None:
            # Only their hashes matter from here: a 304's stored body is not read back (the
            # store keeps a document only when its body is in the database).
            await self._fetch_declared(declared_of(listing))
            if "server_json" in self.documents:
                self._load_stored()
                if "server_json" not in results:  # the other discovery documents are parsed already
                    results.update(self._parse_discovery(("server_json",)))
        registry = self._parse_registry(listing)
        if registry is not None:
            results[REGISTRY_KIND] = registry
        if self.unchanged():
            return self._unchanged()
        return OriginCrawl(
            self.origin,
            status=status_of(primary, self.records),
            status_detail=detail_of(primary, self.records),
            primary=primary,
            results=results,
            fetches=self.records,
            documents=self.documents,
            manifests_sha256=self._manifest_shas() if listing is not None else None,
            declared_documents={**declared_of(listing), **self._card_declared()} if listing is not None else None,
            stale_at=self.stale_at(),
            catalog_links=self.catalog_links,
        )

    def _discovered(self, results: dict[str, ParseResult]) -> ParseResult | None:
        """The listing the discovery documents (and the endpoints seed sources declare) make
        of an origin without a manifest (:func:`agentdex.crawler.discovered.choose`)."""
        registry = self._parse_registry(None)
        if registry is not None:
            results[REGISTRY_KIND] = registry
        found = discovered.choose(results, self.declared, self.origin)
        if found is None:
            return None
        results.setdefault(found.format, found)
        url = self._read_url(found.format)
        catalog = next((link.catalog for link in [*self.linked, *self.catalog_links] if link.url == url), None)
        return discovered.describe(found, url, catalog)

    def _read_url(self, kind: str) -> str | None:
        """Where this crawl read the document of ``kind`` (its last answer with a body)."""
        read = [r for r in self.records if r.kind == kind and (r.ok or r.from_freshness)]
        return (read[-1].final_url or read[-1].url) if read else None

    def _unchanged(self) -> OriginCrawl:
        return OriginCrawl(
            self.origin,
            status="listed",
            fetches=self.records,
            unchanged=True,
            documents=self.documents,
            stale_at=self.stale_at(),
        )

    def _declared_before(self) -> dict[str, str] | None:
        """The documents the stored listing declares, when every manifest answer repeats
        the last crawl's and the manifest bytes are the ones that listing was parsed from."""
        before = self.before
        manifests = [r for r in self.records if r.kind in MANIFEST_PATHS]
        if before is None or not before.manifests_sha256 or not manifests:
            return None
        if not all(self._repeats(r) for r in manifests):
            return None
        return before.declared if self._manifest_shas() == before.manifests_sha256 else None

    def _manifest_shas(self) -> dict[str, str]:
        return {k: self.documents[k] for k in MANIFEST_PATHS if k in self.documents}

    async def _send_ahead(self, asks: list[tuple[str, str, bool, bool]], robots: bool = False) -> None:
        """Send ahead, pipelined, the requests :meth:`get` will make for these ``(kind, path,
        robots, absent_ok)`` (the ones it will not answer from a stored answer), in order, and
        with ``robots`` the origin's robots.txt; each ``get`` then reads its answer."""
        if self.ahead is None:
            return
        going = []
        for kind, path, governed, absent_ok in asks:
            url = origin_url(self.origin, path)
            prev = self.previous.get(url) or NOTHING
            if (absent_ok and self._known_absence(prev) is not None) or self._usable(prev):
                continue
            going.append(Ask(url, kind, CAPS.get(kind, 512 * 1024), prev.etag, prev.last_modified, governed))
        await self.ahead.prefetch(going, robots=robots)

    async def _discovery_ahead(self) -> None:
        """Send ahead the discovery requests :meth:`_fetch_discovery` will make, a path of
        each document at a time (the next path of one only after a 404 or 410 at the path
        before, which makes the loop ask it), with the bootstrap files when every manifest
        path answered 404 or 410 (then :meth:`_bootstrap` asks for them): an empty origin's
        requests in three writes rather than one by one."""
        manifests = [r for r in self.records if r.kind in MANIFEST_PATHS]
        bootstrap = bool(manifests) and all(r.status in ABSENT_STATUSES for r in manifests)
        level = [(kind, paths[0], True, True) for kind, paths in DISCOVERY_PATHS.items()]
        await self._send_ahead(level + [(k, BOOTSTRAP[k], True, False) for k in BOOTSTRAP_ALWAYS if bootstrap])
        for depth in range(1, max(len(paths) for paths in DISCOVERY_PATHS.values())):
            gone = [
                (kind, paths[depth], True, True)
                for kind, paths in DISCOVERY_PATHS.items()
                if len(paths) > depth and self._parked(paths[depth - 1]) in ABSENT_STATUSES
            ]
            await self._send_ahead(gone)

    def _parked(self, path: str) -> int | None:
        """The status of the answer sent ahead for ``path`` and not read yet, if any."""
        return self.ahead.parked_status(origin_url(self.origin, path)) if self.ahead is not None else None

    async def _fetch_manifests(self) -> None:
        # With robots.txt, which the discovery documents after them need (its crawl-delay
        # then decides whether they go pipelined).
        await self._send_ahead([(kind, path, False, False) for kind, path in MANIFEST_PATHS.items()], robots=True)
        for kind, path in MANIFEST_PATHS.items():
            await self.get(kind, origin_url(self.origin, path), same_origin=True, robots=False)
        if not self._has("anchor"):
            link = self._anchor_link()
            if link:
                await self.get("anchor", link, same_origin=True, robots=False)
        if not any(transient(r) for r in self.records):
            await self._discovery_ahead()
            await self._fetch_discovery()
            await self._fetch_linked(self.linked)
            await self._ask_registry()

    async def _fetch_discovery(self) -> None:
        """Each discovery document at its paths in order; the next path only after a
        definite absence of the one before."""
        for kind, paths in DISCOVERY_PATHS.items():
            for path in paths:
                record = await self.get(kind, origin_url(self.origin, path), same_origin=True, absent_ok=True)
                if self._has(kind) or not absent(record):
                    break
            if kind == discovered.A2A_FORMAT and self._has(kind) and path != paths[-1] and not self._page(kind):
                # Many agents serve a 0.3 and a 1.0 card side by side: the other path too, to
                # cross-check them (discovered.a2a_pair). Not after a web page: a site that
                # answers every path with its HTML shell would answer the other path so too.
                await self.get(
                    discovered.A2A_SECOND, origin_url(self.origin, paths[-1]), same_origin=True, absent_ok=True
                )

    async def _fetch_linked(self, linked: list[discovered.Linked]) -> None:
        """The documents an AI Catalog names on this origin by URL, each under its format's
        kind unless the origin publishes that kind at its well-known path."""
        for link in linked:
            if not self._has(link.kind):
                await self.get(link.kind, link.url, same_origin=True, absent_ok=True)

    async def _follow_catalog(self, results: dict[str, ParseResult]) -> None:
        """What the origin's AI Catalog names by URL: the documents on this origin are read
        now (and by every later crawl, as the crawl records them); those on other origins are
        theirs, crawled as those origins (:attr:`OriginCrawl.catalog_links`)."""
        catalog = results.get(discovered.CATALOG_FORMAT)
        self.catalog_links = discovered.catalog_links(catalog, self._read_url(discovered.CATALOG_FORMAT))
        here = [link for link in self.catalog_links if link.origin == self.origin and link not in self.linked]
        await self._fetch_linked(here)
        self._load_stored()
        kinds = tuple(dict.fromkeys(link.kind for link in here if link.kind not in results))
        results.update(self._parse_discovery(kinds))

    async def _ask_registry(self) -> None:
        """The registry's answer for the origin's namespace, page by page (see step 2 of
        the module docstring); a page that cannot answer ends it and the stored answer stands."""
        # No registry asked (nearly every crawl): no namespace to work out of the origin's name.
        registry = self.registry
        space = registry_format.namespace(self.origin) if registry is not None else None
        if registry is None or space is None:
            return self._keep_registry()
        paging = registry_api.Paging(REGISTRY_PAGES)
        for kind in REGISTRY_KINDS:
            # The registry's failure is not the origin's: not counted in the crawl's errors.
            record = await self.get(
                kind, registry_url(registry, space, paging.cursor), absent_ok=True, count_errors=False
            )
            page = registry_format.answer_of(self._body_of(kind)) if self._has(kind) else None
            if page is None:
                if not absent(record):  # it could not answer (a 2xx that is no answer included)
                    self._forget(kind)
                    self._standing.add(record.url)
                    self._keep_registry()
                return None
            if paging.turn(page) or paging.done:  # the last page, or a cursor not followed
                return None
        return None

    def _body_of(self, kind: str) -> bytes | None:
        """The body of ``kind``: fetched now, or the stored one a 304 or freshness stands for."""
        return self.bodies.get(kind) or (self.load_blob(self._stored[kind]) if kind in self._stored else None)

    def _forget(self, kind: str) -> None:
        for found in (self.bodies, self.documents, self._stored):
            found.pop(kind, None)

    def _keep_registry(self) -> None:
        """The registry's answer stored last time stands for the pages not read this time."""
        for kind, sha in self.registry_stored.items():
            if kind not in self.documents:
                self._stored[kind] = self.documents[kind] = sha

    def _parse_registry(self, listing: Listing | None) -> ParseResult | None:
        return registry_result(
            [self.bodies[kind] for kind in REGISTRY_KINDS if kind in self.bodies], self.origin, listing
        )

    def _parse_manifests(self) -> dict[str, ParseResult]:
        kinds = list(MANIFEST_PATHS)
        self._flag_content_types()
        self._drop_pages()
        results = {k: formats.get(k).parse(self.bodies[k], origin=self.origin) for k in kinds if k in self.bodies}
        results.update(self._parse_discovery())
        for record in self.records:
            if record.kind in MANIFEST_PATHS and record.error_code == "too_large" and record.kind not in results:
                results[record.kind] = too_large(record)
        return results

    def _parse_discovery(self, kinds: tuple[str, ...] = DISCOVERY_KINDS) -> dict[str, ParseResult]:
        """The discovery documents of ``kinds`` found (a web page at their path is none)."""
        self._drop_html((*kinds, discovered.A2A_SECOND))
        found = {k: formats.get(k).parse(self.bodies[k], origin=self.origin) for k in kinds if k in self.bodies}
        if discovered.A2A_FORMAT in found:
            found[discovered.A2A_FORMAT].findings.extend(self._a2a_pair(found[discovered.A2A_FORMAT]))
        if CARD in found:  # a card at a /.well-known/mcp/ path is at an earlier draft's location
            where = server_card_format.location_finding(self._read_url(CARD) or "")
            found[CARD].findings.extend([where] if where is not None else [])
        return found

    def _a2a_pair(self, card: ParseResult) -> list[Finding]:
        """The cross-check of the origin's A2A cards (:func:`discovered.a2a_pair`)."""
        second = self.bodies.get(discovered.A2A_SECOND)
        other = formats.get(discovered.A2A_FORMAT).parse(second, origin=self.origin).document if second else None
        return discovered.a2a_pair(card.document, other)

    def _drop_html(self, kinds) -> None:
        """Forget the bodies of ``kinds`` that are HTML pages (a site's shell answering every path)."""
        for kind in kinds:
            if is_html_page(self.bodies.get(kind)):
                del self.bodies[kind]
                self.documents.pop(kind, None)

    def _anchor_link(self) -> str | None:
        """A same-origin Anchor manifest named by a ``Link`` header on an answer."""
        for record in self.records:
            match = _LINK_RE.search(record.headers.get("link", ""))
            if match:
                target = match.group(1)
                url = origin_url(self.origin, target) if target.startswith("/") else target
                if url.startswith(origin_url(self.origin, "/")) and url != origin_url(
                    self.origin, MANIFEST_PATHS["anchor"]
                ):
                    return url
        return None

    def _flag_content_types(self) -> None:
        """A manifest served as something other than JSON is still read, but the
        snapshot records why a strict client would refuse it."""
        for record in self.records:
            ctype = media_type(record.headers)
            if (
                record.kind in MANIFEST_PATHS
                and record.body is not None
                and record.error_code is None
                and record.status == 200
                and ctype not in JSON_TYPES
            ):
                record.error_code = "content_type"
                record.error = (
                    f"{record.url} is served as {ctype or 'no content type'}; a manifest must be application/json."
                )

    def _drop_pages(self) -> None:
        """A web page at a manifest path (a site that answers every path with its HTML
        shell) is no manifest at all: no JSON document starts with ``<``. So is an answer
        refused unread for its size that says it is HTML (a home page over agent-app's
        32 KiB): no manifest over its limit, which would make the origin ``invalid``."""
        for kind in MANIFEST_PATHS:
            body = self.bodies.get(kind)
            if body is not None and body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"<":
                del self.bodies[kind]
                self.documents.pop(kind, None)
                for record in self.records:
                    if record.kind == kind and record.body is not None:
                        _page_record(record)
        for record in self.records:
            if record.kind in MANIFEST_PATHS and record.error_code == "too_large" and html_typed(record):
                _page_record(record)

    async def _bootstrap(self) -> ParseResult | None:
        await self._ask_bootstrap(BOOTSTRAP_ALWAYS)
        if self._has("skill"):
            await self._ask_bootstrap(BOOTSTRAP_WITH_SKILL)
        files = {BOOTSTRAP_FILES[k]: self.bodies.get(k) for k in BOOTSTRAP}
        if files["SKILL.md"] is None or (files["agent.md"] is None and files["llms.txt"] is None):
            return None
        # Up to a megabyte of Markdown and a YAML frontmatter: parsed off the event loop
        # (a few KiB: inline, see offload).
        size = offload.yaml_size(*files.values())
        infer = functools.partial(
            inferred_format.infer, origin=self.origin, base_url=origin_url(self.origin, "").rstrip("/")
        )
        return await offload.run(size, infer, files)

    async def _ask_bootstrap(self, kinds: tuple[str, ...]) -> None:
        for kind in kinds:
            await self.get(kind, origin_url(self.origin, BOOTSTRAP[kind]), same_origin=True)
        self._load_stored()
        # A site that answers every path with its HTML shell publishes none of these files.
        self._drop_html(kinds)

    async def _fetch_declared(self, declared: dict[str, str]) -> None:
        for kind, url in declared.items():
            if kind == CARD:  # the card at its endpoint: a 404 there is a quiet known absence
                await self._ask_card(url)
            elif not self._has(kind):
                await self.get(kind, url)

    async def _endpoint_card(self, results: dict[str, ParseResult], listing: Listing | None) -> None:
        """The server card where SEP-2127 puts it, ``<streamable-http-url>/server-card`` of
        the origin's Streamable HTTP endpoint (:func:`discovered.card_endpoint`), asked when
        no card was found at a legacy path or through the AI Catalog; read as the origin's
        ``server_card`` document."""
        endpoint = discovered.card_endpoint(self.origin, listing, self.declared)
        if endpoint is None or self._has(CARD) or self.card_url:  # asked already (a repeating crawl)
            return
        self.card_url = server_card_format.card_url(endpoint)
        await self._ask_card(self.card_url)
        self._load_stored()
        results.update(self._parse_discovery((CARD,)))

    async def _ask_card(self, url: str) -> None:
        if not self._has(CARD):
            self.card_url = url
            await self.get(CARD, url, same_origin=True, absent_ok=True)

    def _card_declared(self) -> dict[str, str]:
        """The endpoint's card URL, so a crawl whose manifests repeat the last asks it again
        (found or not: a card may appear, and a 404 is asked on its schedule)."""
        return {CARD: self.card_url} if self.card_url else {}


def registry_result(pages: list[bytes], origin: str, listing: Listing | None) -> ParseResult | None:
    """What the registry's answer (its stored pages, in order) lists for the origin's
    namespace, the server compared chosen by the MCP endpoints ``listing`` names; ``None``
    when it lists no server there (an answer that is no JSON is the registry's failure, not
    a finding of the origin's)."""
    if not pages:
        return None
    endpoints = facts_of(listing).mcp_urls if listing is not None else ()
    result = registry_format.parse_pages(pages, origin=origin, endpoints=endpoints)
    listed = result.listing is not None or (result.document is not None and result.findings)
    return result if listed else None


def declared_of(listing: Listing) -> dict[str, str]:
    """``{kind: url}`` of the documents a listing declares: its guide, llms.txt and skill."""
    wanted = {
        "guide": listing.guide_url,
        "llms_txt": listing.llms_txt_url,
        "skill": listing.skill_url,
        "server_json": linked_server_json(listing),
    }
    return {kind: url for kind, url in wanted.items() if url}


def linked_server_json(listing: Listing) -> str | None:
    """The MCP registry ``server.json`` an Anchor manifest links from its first MCP tool
    (``schemas.mcpServerJson``), or ``None``."""
    for tool in listing.facts.anchor_tools:
        schemas = tool.get("schemas")
        link = schemas.get("mcpServerJson") if isinstance(schemas, dict) else None
        if isinstance(link, str) and link.startswith("https://"):
            return link
    return None


def html_typed(record: FetchRecord) -> bool:
    """The answer says it is a web page (``text/html`` or XHTML)."""
    return media_type(record.headers) in HTML_MEDIA_TYPES


def _page_record(record: FetchRecord) -> None:
    """Say on a manifest path's record that its answer is a web page."""
    record.error_code = "content_type"
    record.error = f"{record.url} answers with a web page, not a manifest."


def registry_url(base: str, space: str, cursor: str | None = None) -> str:
    """The registry API URL listing the latest version of the servers whose name holds
    ``space`` (the registry's search is a substring match), from ``cursor`` on."""
    return registry_api.list_url(base, search=space, version="latest", cursor=cursor)


def too_large(record: FetchRecord) -> ParseResult:
    """A manifest refused for its size: it exists, and breaks its format's size limit, so
    the origin is ``invalid`` with a ``too_large`` finding (the body was never read whole)."""
    limit = CAPS[record.kind]
    message = f"the manifest is over {limit:,} bytes, the size limit of its format; agentdex did not read it"
    if record.error:
        message += f" ({record.error})"
    return ParseResult(record.kind, None, [Finding("error", "", "too_large", message)])

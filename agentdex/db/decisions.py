"""The decisions a save makes, as pure functions of plain data (no IO): what the writers in
:mod:`agentdex.db.store` are told to write, never worked out by them inside the transaction.

    plan_crawl          from the crawl alone, before the transaction opens: the listing it
                        stores, its columns, and the tool-safety verdicts of every tool set
    transition          the listing status machine (listed / invalid / unreachable /
                        delisted, with the unreachable grace of :mod:`agentdex.changes`),
                        from the stored state read in the transaction and the crawl's status
    unchanged_columns   the same for a crawl whose every document answered 304
    schedule_columns    when the listing is next due (:mod:`agentdex.schedule`), once the
                        save knows whether it changed anything
    stale_checks        which stored checks a verification replaces by deleting them

The transition needs the stored state, read inside the write transaction (read before it,
a second writer saving the same origin in between would be overwritten with a stale
streak); it is decided from that read before the first write.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentdex import changes, schedule
from agentdex.checks import in_group
from agentdex.db.common import dumps, epoch, iso, safe_text
from agentdex.formats import DISCOVERY_NAMES, FORMAT_NAMES
from agentdex.formats.tool_fingerprint import read_only_contradiction
from agentdex.formats.tool_quality import lint_tools
from agentdex.formats.tool_safety import check_tool
from agentdex.models import Check, Finding, Listing, OriginCrawl, Tool

# Listing attributes stored as text columns of the same name, and those stored as JSON.
TEXT_FIELDS = (
    "name",
    "one_liner",
    "description",
    "homepage",
    "guide_url",
    "llms_txt_url",
    "skill_url",
    "mcp_url",
    "mcp_transport",
    "http_base",
    "http_openapi",
    "http_capabilities",
    "audience",
    "pricing",
    "publisher_name",
    "publisher_url",
    "publisher_contact",
    "privacy_url",
    "terms_url",
    "instructions",
)
JSON_FIELDS = ("mcp_auth", "auth_methods", "events", "hosts", "categories", "tags", "say", "feedback", "extra")
# Anchor's proofs mean nothing once the origin is listed from another format; left in place
# they would read as live facts. Every other check applies to any format.
ANCHOR_CHECKS = in_group("anchor")
# A listing keeps no more tags than its format allows: an invalid manifest may declare
# thousands, and each would be a row of the listing_tags view (FindAgent sets no limit:
# its parser keeps the first 100).
TAG_LIMITS = {"agent_app": 10}
TAG_LIMIT_DEFAULT = 100


@dataclass(frozen=True, slots=True)
class ToolSet:
    """One source's tools and their verdicts: the findings of tool texts that carry
    instructions and of read-only claims a tool contradicts (the tools stay verbatim)."""

    tools: list[Tool]
    flags: list[Finding]
    # The TDQS lint of a tools/list (ServerLint, or why TDQS refused it); None: not linted.
    quality: Any = None


@dataclass(frozen=True, slots=True)
class CrawlPlan:
    """What a crawl stores, decided from the crawl alone: the listing (None: only the status
    columns change), the listing's columns, and ``{source: ToolSet}`` for every tool set it
    replaces (``manifest``, each discovery format found, ``mcp`` when probed)."""

    listing: Listing | None
    columns: dict[str, Any]
    tools: dict[str, ToolSet] = field(default_factory=dict)

    def listing_format(self, stored: str | None) -> str | None:
        """The listing's format once saved: the crawl's, or else the ``stored`` one it keeps."""
        return self.columns["format"] if "format" in self.columns else stored


@dataclass(frozen=True, slots=True)
class Transition:
    """The listing status a crawl leaves: the status, the count of consecutive unreachable
    crawls, the status detail, and the failures the schedule backs off for."""

    status: str
    streak: int
    detail: str
    failures: int


def plan_crawl(crawl: OriginCrawl) -> CrawlPlan:
    """The listing, its columns and the tool verdicts a crawl stores (see :class:`CrawlPlan`)."""
    listing = crawl_listing(crawl)
    tools: dict[str, ToolSet] = {}
    if crawl.status != "unreachable":
        for name in (n for n in DISCOVERY_NAMES if n in crawl.results):
            found = crawl.results[name].listing
            tools[name] = tool_set(found.tools if found is not None else [])
    if listing is not None:
        # A listing read from a discovery document has its tools under that format already.
        tools["manifest"] = tool_set([] if listing.format in DISCOVERY_NAMES else listing.tools)
    if crawl.mcp_tools is not None:
        tools["mcp"] = listed_tool_set(crawl.mcp_tools, crawl.tool_quality)
    return CrawlPlan(listing, listing_columns(crawl, listing), tools)


def tool_set(tools: Iterable[Tool]) -> ToolSet:
    """``tools`` with their safety verdicts (:func:`agentdex.formats.tool_safety.check_tool`
    and :func:`agentdex.formats.tool_fingerprint.read_only_contradiction`)."""
    tools = list(tools)
    flags = [
        flag.to_finding(t.name)
        for t in tools
        for flag in check_tool(t.name, t.description, t.input_schema, t.annotations)
    ]
    flags += [f for f in map(read_only_contradiction, tools) if f is not None]
    return ToolSet(tools, flags)


def listed_tool_set(tools: list[Tool], quality: Any = None) -> ToolSet:
    """The tools a ``tools/list`` gave, with their verdicts and their TDQS lint (``quality``
    when computed already, off the event loop; an empty list has none)."""
    found = tool_set(tools)
    if tools and quality is None:
        quality = lint_tools(tools)
    return ToolSet(found.tools, found.flags, quality if tools else None)


def transition(old: dict | None, observed: str, detail: str | None) -> Transition:
    """The status to store after a crawl that ``observed`` a status (``detail``: why) over
    the ``old`` stored state (:func:`agentdex.changes.next_status`), with its detail."""
    status, streak = changes.next_status(old, observed)
    failures = streak if observed == "unreachable" else 0
    return Transition(status, streak, status_detail(observed, detail, status, streak), failures)


def status_detail(observed: str, detail: str | None, status: str, streak: int) -> str:
    """The stored status detail: the crawl's own, or for an unreachable origin still (or no
    longer) listed, how many crawls it has failed and when it is (or was) delisted."""
    detail = safe_text(detail) or ""
    if observed != "unreachable" or status == "unreachable":
        return detail
    if status == changes.LISTED:
        return (
            f"unreachable on the last {streak} crawl(s), delisted after {changes.UNREACHABLE_LIMIT}: {detail}"
        ).rstrip(": ")
    return f"delisted after {streak} consecutive unreachable crawls: {detail}".rstrip(": ")


def unchanged_columns(light: dict[str, Any], crawl_id: int | None, at: str) -> dict[str, Any]:
    """The listing columns a crawl that found the same bytes moves (``light``: the stored
    :data:`agentdex.db.reads.LIGHT_COLUMNS`). The stored listing still stands; the one status
    that can move is an origin delisted for being unreachable, which is back with the same
    listing. Only the columns whose value moves are named: an indexed column in an UPDATE's
    SET list costs its index a rewrite even when the value stays (the status has three)."""
    back = light["status"] == "delisted" and light["unreachable_streak"] > 0
    status = changes.LISTED if back else light["status"]
    columns: dict[str, Any] = {"last_crawled_at": at, "last_crawl_id": crawl_id}
    if status != light["status"]:
        columns["status"] = status
    # An origin that was unreachable and answers as before is back; one whose stored status
    # is unreachable gave the same failing answers again, and its detail still says why
    # (it was emptied here: `list --fields origin,status_detail` showed nothing for it).
    if light["unreachable_streak"] > 0 and light["status"] != "unreachable":
        columns.update(unreachable_streak=0, status_detail="")
    if status == changes.LISTED and light["first_listed_at"] is None:
        columns["first_listed_at"] = at
    return columns


def schedule_columns(
    crawl: OriginCrawl, light: dict[str, Any], *, changed: bool, failures: int, at: str
) -> dict[str, Any]:
    """The listing's schedule after this crawl (see :mod:`agentdex.schedule`); empty
    for a listing that did not come from the web (an imported package has nothing to recrawl)."""
    if not any(f.url.startswith("https://") for f in crawl.fetches):
        return {}
    asked = any(not f.from_freshness for f in crawl.fetches)
    streak = schedule.unchanged_after(light.get("unchanged_crawls") or 0, changed=changed, asked=asked)
    now = epoch(at) or 0.0
    if not asked:  # it learnt nothing: due when it was, or once something is stale
        due = max(epoch(light.get("next_due_at")) or now, crawl.stale_at or now)
    else:
        due = schedule.next_due(now, streak, failures, crawl.stale_at)
    every = schedule.interval(streak, failures)
    return {"next_due_at": iso(due), "recrawl_interval": int(every), "unchanged_crawls": streak}


def stale_checks(checks: list[Check] | None, listing_format: str | None) -> tuple[str, ...]:
    """The stored checks a save deletes: Anchor's (:data:`ANCHOR_CHECKS`) when this
    verification ran none of them and the listing is of another format; none when the
    crawl did not verify (``checks`` is None)."""
    if checks is None or listing_format == "anchor" or any(c.name in ANCHOR_CHECKS for c in checks):
        return ()
    return ANCHOR_CHECKS


def crawl_listing(crawl: OriginCrawl) -> Listing | None:
    """The listing a crawl stores: its primary format's, unless it could not reach the origin."""
    if crawl.status == "unreachable" or crawl.primary is None:
        return None
    return crawl.primary.listing


def listing_columns(crawl: OriginCrawl, listing: Listing | None) -> dict[str, Any]:
    """The listing columns a crawl sets (none when unreachable: everything is kept): its
    counts and formats always, the listing's fields when it stores a listing."""
    if crawl.status == "unreachable":
        return {}
    primary = crawl.primary
    findings = primary.findings if primary else []
    columns: dict[str, Any] = {
        "formats_found": dumps(sorted(crawl.results)),
        "error_count": sum(1 for f in findings if f.severity == "error"),
        "warning_count": sum(1 for f in findings if f.severity == "warning"),
        "manifests_sha256": None if listing is None else dumps(crawl.manifests_sha256),
        "declared_documents": None if listing is None else dumps(crawl.declared_documents),
    }
    if listing is None:
        if primary is not None and primary.format in FORMAT_NAMES:
            # A manifest too broken for a listing still has a known format.
            columns["format"] = primary.format
        return columns
    data = listing.to_dict()
    data["origin"] = crawl.origin
    columns["format"] = primary.format if primary else listing.format
    if data.get("tags"):
        data["tags"] = stored_tags(columns["format"], data["tags"])
    columns.update({name: safe_text(data.get(name)) for name in TEXT_FIELDS})
    columns.update({name: dumps(data.get(name)) for name in JSON_FIELDS})
    columns["listing_json"] = dumps(data)
    columns["has_mcp"] = int(bool(listing.mcp_url))
    return columns


def stored_tags(fmt: str | None, tags: list) -> list:
    """The tags stored for a listing of format ``fmt``: the first its format allows."""
    return list(tags)[: TAG_LIMITS.get(fmt or "", TAG_LIMIT_DEFAULT)]

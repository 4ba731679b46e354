"""Recorded crawl data for the database tests: the example Pantry manifest (and edits of
it) as the crawler would hand it over in an :class:`OriginCrawl`."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from agentdex.db import open_db
from agentdex.formats import agent_app
from agentdex.models import Check, FetchRecord, Listing, OriginCrawl, ParseResult, Tool

HERE = Path(__file__).resolve().parent
PANTRY = HERE / "examples" / "valid" / "agent_app" / "pantry.json"
ORIGIN = "pantry.example.com"
MANIFEST_URL = f"https://{ORIGIN}/.well-known/agent-app.json"
GUIDE_URL = f"https://{ORIGIN}/agent.md"
GUIDE = b"# Pantry\n\nAdd items with add_item; ask for plans with plan_meals.\n"
AT = "2026-05-01T12:00:00.000Z"


_TEMPLATE: list[bytes] = []


def new_catalogue(path: Path) -> Database:
    """A new, fully migrated catalogue at ``path`` (migrated once, then copied: fast)."""
    if not _TEMPLATE:
        first = path.with_name(path.name + ".template")
        open_db(first).close()
        _TEMPLATE.append(first.read_bytes())
        first.unlink()
    path.write_bytes(_TEMPLATE[0])
    return open_db(path)


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def pantry_doc(**changes: Any) -> dict:
    """The Pantry manifest with top-level keys replaced (``None`` removes a key); nested
    keys as ``mcp__url``."""
    doc = json.loads(PANTRY.read_bytes())
    for key, value in changes.items():
        target, *rest = key.split("__")
        if rest:
            doc[target] = {**doc[target], rest[0]: value}
        elif value is None:
            doc.pop(target, None)
        else:
            doc[target] = value
    return doc


def body(doc: dict) -> bytes:
    return json.dumps(doc, indent=2).encode()


def fetch(
    url: str,
    kind: str,
    content: bytes | None = None,
    *,
    status: int = 200,
    etag: str | None = None,
    not_modified: bool = False,
    error_code: str | None = None,
    error: str | None = None,
) -> FetchRecord:
    return FetchRecord(
        url=url,
        kind=kind,
        status=status,
        final_url=url if status else None,
        headers={"content-type": "application/json" if kind == "agent_app" else "text/markdown"} if status else {},
        etag=etag,
        body=content,
        sha256=sha(content) if content is not None else None,
        elapsed_ms=12.5,
        error_code=error_code,
        error=error,
        not_modified=not_modified,
        fetched_at=AT,
    )


def pantry_crawl(
    doc: dict | None = None,
    guide: bytes | None = GUIDE,
    *,
    origin: str = ORIGIN,
    checks: list[Check] | None = None,
    mcp_tools: list[Tool] | None = None,
) -> OriginCrawl:
    """A crawl that found the (given) Pantry manifest and guide."""
    manifest = body(doc if doc is not None else pantry_doc())
    result = agent_app.parse(manifest, origin=origin)
    fetches = [
        fetch(
            f"https://{origin}/.well-known/agent-app.json", "agent_app", manifest, etag='"m-' + sha(manifest)[:8] + '"'
        )
    ]
    documents = {"agent_app": sha(manifest)}
    if guide is not None:
        fetches.append(fetch(f"https://{origin}/agent.md", "guide", guide, etag='"g-' + sha(guide)[:8] + '"'))
        documents["guide"] = sha(guide)
    return OriginCrawl(
        origin=origin,
        status="listed" if result.valid else "invalid",
        primary=result,
        results={"agent_app": result},
        fetches=fetches,
        documents=documents,
        checks=checks,
        mcp_tools=mcp_tools,
    )


def listing_crawl(
    listing: Listing, *, origin: str, checks: list[Check] | None = None, mcp_tools: list[Tool] | None = None
) -> OriginCrawl:
    """A crawl whose format produced ``listing`` (any format; the manifest is its JSON)."""
    manifest = json.dumps(listing.to_dict()).encode()
    result = ParseResult(listing.format, listing, [], listing.to_dict())
    return OriginCrawl(
        origin=origin,
        status="listed",
        primary=result,
        results={listing.format: result},
        fetches=[fetch(f"https://{origin}/.well-known/{listing.format}.json", listing.format, manifest)],
        documents={listing.format: sha(manifest)},
        checks=checks,
        mcp_tools=mcp_tools,
    )


def no_manifest_crawl(origin: str = ORIGIN) -> OriginCrawl:
    return OriginCrawl(
        origin=origin,
        status="no_manifest",
        status_detail="no manifest at /.well-known/",
        fetches=[fetch(f"https://{origin}/.well-known/agent-app.json", "agent_app", b"not here", status=404)],
    )


def unreachable_crawl(origin: str = ORIGIN) -> OriginCrawl:
    return OriginCrawl(
        origin=origin,
        status="unreachable",
        status_detail="connection refused",
        fetches=[
            fetch(
                f"https://{origin}/.well-known/agent-app.json",
                "agent_app",
                status=None,
                error_code="refused",
                error="connection refused",
            )
        ],
    )


def unchanged_crawl(origin: str = ORIGIN, urls: tuple[tuple[str, str], ...] | None = None) -> OriginCrawl:
    """Every document answered 304."""
    urls = urls or (
        (f"https://{origin}/.well-known/agent-app.json", "agent_app"),
        (f"https://{origin}/agent.md", "guide"),
    )
    return OriginCrawl(
        origin=origin,
        status="listed",
        unchanged=True,
        fetches=[fetch(u, k, status=304, not_modified=True, etag='"same"') for u, k in urls],
    )


def anchor_listing(tools: list[dict], name: str = "Anchor Tool") -> Listing:
    return Listing(
        format="anchor",
        name=name,
        one_liner="An anchored tool.",
        mcp_url=tools[0].get("endpoint") if tools else None,
        extra={"anchor_tools": copy.deepcopy(tools)},
    )


CRASH_TOOLS = 40


def crawl_for(i: int) -> OriginCrawl:
    """The crawl of origin number ``i`` for the SIGKILL test: a manifest, a large guide,
    MCP tools and checks, so that each save takes a while."""
    guide = (f"# Guide {i}\n" + "Use the tools well. " * 8000).encode()
    tools = [Tool(f"tool_{n}", f"Tool {n} of origin {i}", source="mcp") for n in range(CRASH_TOOLS)]
    checks = [Check("mcp.initialize", "pass"), Check("guide.reachable", "pass")]
    return pantry_crawl(origin=f"o{i:04d}.example.com", guide=guide, mcp_tools=tools, checks=checks)

"""``agentdex import``: put a local package or repository into the catalogue.

Only a valid result is imported. The stored document is the decoded manifest as the format
returned it (an adapp package's secrets already redacted), never the package's raw bytes:
a package that carried a secret value must leave no trace of it in the database.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agentdex import db as catalogue
from agentdex.crawler.origins import normalise_origin
from agentdex.errors import InputError
from agentdex.models import Event, FetchRecord, Listing, OriginCrawl, ParseResult
from agentdex.validate import validate_path


def import_path(db, path: str | Path, origin: str | None = None) -> tuple[ParseResult, str, list[Event]]:
    """Validate ``path`` and, when valid, save it as the listing of ``origin`` (by default
    the host of its MCP endpoint, API base or homepage). Returns the result, the origin and
    the change events."""
    path = Path(path)
    result = validate_path(path, discovery=False)  # a discovery document describes an origin, it is no listing
    if not result.valid or result.listing is None:
        return result, origin or "", []
    # The same identity rules as a crawl: ``--origin https://Reports.Example/`` is reports.example.
    origin = normalise_origin(origin) if origin else _origin_of(result.listing)
    if not origin:
        raise InputError(f"cannot tell which origin {path.name} belongs to: pass --origin HOST")
    result.listing.origin = origin
    body = json.dumps(result.document, ensure_ascii=False, sort_keys=True).encode("utf-8")
    sha = hashlib.sha256(body).hexdigest()
    record = FetchRecord(
        url=f"file:{path.name}",
        kind=result.format,
        status=200,
        body=body,
        sha256=sha,
        headers={"content-type": "application/json"},
    )
    crawl = OriginCrawl(
        origin,
        status="listed",
        status_detail=f"imported from {path.name}",
        primary=result,
        results={result.format: result},
        fetches=[record],
        documents={result.format: sha},
    )
    crawl_id = catalogue.start_crawl(db, "import", 1)
    events = catalogue.save_origin(db, crawl, crawl_id)
    catalogue.finish_crawl(db, crawl_id)
    return result, origin, events


def _origin_of(listing: Listing) -> str | None:
    for url in (listing.mcp_url, listing.http_base, listing.homepage):
        if url:
            try:
                return normalise_origin(url)
            except InputError:
                continue  # not an https URL: try the next one
    return None

"""What ``agentdex show`` and ``agentdex plan`` report about one origin, as data: the stored
listing row with its findings, checks, tools and events, plus the install plans derived from
the stored listing. Reporters (:mod:`agentdex.render`, ``--json``) print it."""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database

from agentdex.db import get_document_text, get_listing, last_fetch_error, load_listing
from agentdex.db.seeds import sources_of
from agentdex.errors import DatabaseError
from agentdex.plans import plans_for


def load_show(catalogue: Database, origin: str) -> dict[str, Any]:
    """The ``show`` contract: origin, name, format, status, manifest, findings, checks,
    plans, events (and the rest of the stored row).

    :raises DatabaseError: ``origin`` is not in the catalogue
    """
    row = get_listing(catalogue, origin)
    if row is None:
        raise DatabaseError(f"{origin} is not in the catalogue; {_crawl_hint(origin)}")
    listing = load_listing(catalogue, origin)
    guide = get_document_text(catalogue, origin, "guide")
    row["plans"] = {h: p.to_dict() for h, p in plans_for(listing, guide).items()} if listing else {}
    row["seed_sources"] = sources_of(catalogue, origin)  # which registry or list named it
    # Why an origin is not listed: the last request of its own that failed (not a 404 of
    # an optional document).
    row["last_error"] = last_fetch_error(catalogue, origin) if row["status"] != "listed" else None
    return row


def plan_warning(row: dict[str, Any]) -> str | None:
    """Why the plans of a listing shown by :func:`load_show` may be wrong, or ``None``."""
    if row.get("status") == "listed":
        return None
    errors = sum(f.get("severity") == "error" for f in row.get("findings", []))
    if row.get("status") == "invalid":
        return (
            f"the manifest of {row['origin']} is invalid ({errors} error(s)); these plans use what could be "
            "read from it and may not work"
        )
    return f"{row['origin']} is {row.get('status')}; these plans come from its last stored manifest"


def _crawl_hint(origin: str) -> str:
    # Suggest a crawl only of what can be a web host: a name with a dot, or an address.
    if "." in origin.split(":")[0] or origin.startswith("["):
        return f"crawl it first: agentdex crawl {origin}"
    return "a web host has a dot in its name (example.com): check the spelling"

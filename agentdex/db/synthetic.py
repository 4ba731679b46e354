"""Fake but realistic listings in bulk, for benchmarks of the TUI and Datasette.

``fill_synthetic(db, 100_000)`` builds a catalogue the size of a large crawl in seconds:
names, one-liners and descriptions drawn from varied word pools (so full-text search has
something to find), every format and status, categories, pricing, auth methods, a few
checks per listing and change events. The same ``seed`` gives the same rows.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields
from typing import Any

from sqlite_utils import Database

from agentdex.db.connection import transaction
from agentdex.db.decisions import JSON_FIELDS, TEXT_FIELDS
from agentdex.formats.agent_app import CATEGORIES
from agentdex.models import Listing

ADJECTIVES = (
    "swift",
    "quiet",
    "bright",
    "clever",
    "steady",
    "lucky",
    "amber",
    "coral",
    "polar",
    "urban",
    "rustic",
    "nimble",
    "golden",
    "silver",
    "cosmic",
    "gentle",
    "bold",
    "tidy",
    "sunny",
    "lunar",
)
NOUNS = (
    "pantry",
    "ledger",
    "atlas",
    "harbor",
    "garden",
    "compass",
    "lantern",
    "orchard",
    "studio",
    "beacon",
    "archive",
    "market",
    "kitchen",
    "journal",
    "signal",
    "voyage",
    "canvas",
    "forge",
    "meadow",
    "pulse",
)
VERBS = (
    "tracks",
    "plans",
    "books",
    "finds",
    "sorts",
    "summarises",
    "translates",
    "schedules",
    "monitors",
    "compares",
    "drafts",
    "reconciles",
    "forecasts",
    "curates",
    "audits",
)
THINGS = (
    "groceries",
    "invoices",
    "flights",
    "recipes",
    "meetings",
    "receipts",
    "playlists",
    "workouts",
    "contracts",
    "podcasts",
    "tickets",
    "inventory",
    "budgets",
    "lessons",
    "deliveries",
    "repairs",
    "photos",
    "reviews",
    "shifts",
    "symptoms",
)
QUALIFIERS = (
    "for small teams",
    "for families",
    "for freelancers",
    "across time zones",
    "without spreadsheets",
    "from your inbox",
    "in plain language",
    "on a budget",
    "with receipts attached",
    "every morning",
)
TAGS = (
    "kitchen",
    "meal-planning",
    "accounting",
    "calendar",
    "email",
    "search",
    "maps",
    "weather",
    "fitness",
    "music",
    "notes",
    "crm",
    "analytics",
    "translation",
    "shopping",
    "security",
    "ai",
    "pdf",
    "chat",
    "tasks",
)
AUTH = ("email_code", "magic_link", "oauth_provider", "mcp_oauth", "api_key", "none")
FORMATS = (("agent_app", 45), ("anchor", 10), ("findagent", 15), ("adapp", 10), ("inferred", 20))
STATUSES = (("listed", 70), ("invalid", 8), ("unreachable", 7), ("no_manifest", 10), ("delisted", 5))
TLDS = ("com", "io", "app", "dev", "net", "org", "co")
CHECK_NAMES = ("manifest.location", "guide.reachable", "mcp.initialize", "mcp.tools", "anchor.verify.dns")
LISTING_FIELDS = tuple(f.name for f in fields(Listing))
LISTING_COLUMNS = (
    "origin",
    "format",
    "formats_found",
    "status",
    "status_detail",
    *TEXT_FIELDS,
    *JSON_FIELDS,
    "listing_json",
    "error_count",
    "warning_count",
    "has_mcp",
    "checks_passed",
    "checks_failed",
    "first_seen_at",
    "first_listed_at",
    "last_crawled_at",
    "last_changed_at",
)


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([w[0] for w in weighted], weights=[w[1] for w in weighted])[0]


def _stamp(rng: random.Random, day_from: int = 0) -> str:
    day = rng.randint(day_from, 364)
    return f"2025-{1 + day // 31 % 12:02d}-{1 + day % 28:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000Z"


def _listing(rng: random.Random, host: str, fmt: str, name: str) -> Listing:
    thing, verb = rng.choice(THINGS), rng.choice(VERBS)
    sentences = [
        f"{name} {verb} your {thing} {rng.choice(QUALIFIERS)}.",
        f"It {rng.choice(VERBS)} {rng.choice(THINGS)} and {rng.choice(VERBS)} {rng.choice(THINGS)}.",
        f"Built {rng.choice(QUALIFIERS)}, it keeps {rng.choice(THINGS)} and {rng.choice(THINGS)} in one place.",
    ]
    has_mcp = rng.random() < 0.6
    return Listing(
        format=fmt,
        origin=host,
        name=name,
        one_liner=f"{verb.capitalize()} {thing} {rng.choice(QUALIFIERS)}.",
        description=" ".join(sentences[: rng.randint(1, 3)]),
        homepage=f"https://{host}/",
        guide_url=f"https://{host}/agent.md",
        mcp_url=f"https://{host}/mcp" if has_mcp else None,
        mcp_transport="streamable-http" if has_mcp else None,
        http_base=f"https://api.{host}/v1" if rng.random() < 0.4 else None,
        auth_methods=rng.sample(AUTH, rng.randint(1, 2)),
        categories=rng.sample(CATEGORIES, rng.randint(1, 2)),
        tags=rng.sample(TAGS, rng.randint(1, 5)),
        pricing=rng.choice(("free", "freemium", "paid", None)),
        publisher_name=f"{name} Labs",
        instructions=f"{name} {verb} {thing}; use it when the user asks about {thing}.",
    )


def _row(rng: random.Random, i: int, seed: int) -> tuple[dict[str, Any], list[tuple], list[tuple]]:
    adjective, noun = rng.choice(ADJECTIVES), rng.choice(NOUNS)
    host = f"{adjective}-{noun}-{i:x}{f'-s{seed}' if seed else ''}.{rng.choice(TLDS)}"
    status, fmt = _pick(rng, STATUSES), _pick(rng, FORMATS)
    seen = _stamp(rng)
    row: dict[str, Any] = dict.fromkeys(LISTING_COLUMNS)
    row.update(
        origin=host,
        status=status,
        status_detail="",
        formats_found="[]",
        error_count=0,
        warning_count=0,
        has_mcp=0,
        checks_passed=0,
        checks_failed=0,
        first_seen_at=seen,
        last_crawled_at=_stamp(rng),
    )
    if status in ("unreachable", "no_manifest"):
        row["status_detail"] = "connection refused" if status == "unreachable" else "no manifest found"
        return row, [], []
    listing = _listing(rng, host, fmt, f"{adjective.capitalize()} {noun.capitalize()}")
    # A shallow dict: what Listing.to_dict() gives for a listing without tools, many times faster.
    data = {name: getattr(listing, name) for name in LISTING_FIELDS}
    dumps = json.dumps
    row.update({name: data[name] for name in TEXT_FIELDS})
    row.update({name: dumps(data[name]) for name in JSON_FIELDS})
    errors = rng.randint(1, 4) if status == "invalid" else 0
    row.update(
        format=fmt,
        formats_found=dumps([fmt]),
        listing_json=dumps(data),
        error_count=errors,
        warning_count=rng.randint(0, 3),
        has_mcp=int(bool(listing.mcp_url)),
        first_listed_at=seen,
        last_changed_at=seen,
    )
    checks = [
        (host, name, rng.choices(("pass", "fail", "warn"), (80, 12, 8))[0], "", "{}", row["last_crawled_at"], seen)
        for name in rng.sample(CHECK_NAMES, 3)
    ]
    row["checks_passed"] = sum(c[2] == "pass" for c in checks)
    row["checks_failed"] = sum(c[2] == "fail" for c in checks)
    events: list[tuple] = [(host, "listed", seen, None, '"listed"', "")]
    if rng.random() < 0.1:
        events.append((host, "name_changed", row["last_crawled_at"], dumps(f"Old {noun}"), dumps(listing.name), ""))
    return row, checks, events


def fill_synthetic(db: Database, n: int, seed: int = 0) -> int:
    """Insert ``n`` fake listings (with checks and events) in one transaction; return ``n``.

    Origins carry their index (and ``seed`` when not 0), so fill an empty catalogue or use
    a new seed each time.
    """
    rng = random.Random(seed)
    listings, checks, events = [], [], []
    for i in range(n):
        row, row_checks, row_events = _row(rng, i, seed)
        listings.append(tuple(row[c] for c in LISTING_COLUMNS))
        checks += row_checks
        events += row_events
    listings.sort()  # in primary-key order: appends to the B-tree instead of splitting pages
    cache = db.execute("PRAGMA cache_size").fetchone()[0]
    db.execute("PRAGMA cache_size = -262144")  # 256 MB while filling: the indexes stay in memory
    try:
        _insert(db, listings, checks, events)
    finally:
        db.execute(f"PRAGMA cache_size = {int(cache)}")
    return n


def _insert(db: Database, listings: list[tuple], checks: list[tuple], events: list[tuple]) -> None:
    # The search index is rebuilt once at the end rather than by a trigger per row (twice
    # as fast); the triggers are put back in the same transaction.
    triggers = [
        row[0]
        for row in db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'listings' ORDER BY name"
        )
    ]
    with transaction(db):
        for name in [
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'listings'")
        ]:
            db.execute(f'DROP TRIGGER "{name}"')
        db.conn.executemany(
            f"INSERT INTO listings ({', '.join(LISTING_COLUMNS)}) VALUES ({', '.join('?' for _ in LISTING_COLUMNS)})",
            listings,
        )
        db.execute("INSERT INTO listings_fts (listings_fts) VALUES ('rebuild')")
        for sql in triggers:
            db.execute(sql)
        db.conn.executemany(
            "INSERT INTO checks (origin, name, status, detail, data, checked_at, last_pass_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            checks,
        )
        db.conn.executemany(
            "INSERT INTO events (origin, kind, at, old, new, subject) VALUES (?, ?, ?, ?, ?, ?)", events
        )

"""The catalogue database: one SQLite file (WAL), a versioned schema, one transaction per
origin for writes, and the named queries the CLI and the TUI read through.

    open_db / transaction           connection.py   open, check, migrate; the write transaction
    start_crawl / finish_crawl      runs.py         a run's life and counters
    save_origin / save_verification store.py        writes (told what to write as data)
    plan_crawl / transition / …     decisions.py    what a save writes: pure functions
    previous_fetches / load_state…  reads.py        the reads a writer needs
    list_listings / get_listing / … queries.py      reads of the CLI and the TUI
    ListingQuery / FILTERS          listing_query.py a listing query's filters, sorts, columns
    migrations                      migrations.py   the schema, step by step
"""

from agentdex.db.connection import open_db, schema_version, transaction
from agentdex.db.health import latest_states
from agentdex.db.listing_query import FILTERS, ListingFilter, ListingQuery, fts_query
from agentdex.db.origins import forget_origins, known_categories, last_fetch_error, missing_origins
from agentdex.db.queries import (
    count_listings,
    get_blob,
    get_document_text,
    get_listing,
    list_checks,
    list_crawls,
    list_events,
    list_facts,
    list_listings,
    list_tools,
    load_listing,
    next_due,
    stats,
)
from agentdex.db.reads import (
    due_at,
    due_origins,
    known_origins,
    knows_origin,
    last_body,
    light_state,
    listing_source,
    load_state,
    previous_fetches,
    previous_validators,
    stored_documents,
    stored_robots,
)
from agentdex.db.runs import finish_crawl, start_crawl
from agentdex.db.store import save_feedback_receipt, save_origin, save_verification

__all__ = [
    "FILTERS",
    "ListingFilter",
    "ListingQuery",
    "count_listings",
    "due_at",
    "due_origins",
    "finish_crawl",
    "forget_origins",
    "known_categories",
    "last_fetch_error",
    "missing_origins",
    "fts_query",
    "get_blob",
    "get_document_text",
    "get_listing",
    "known_origins",
    "knows_origin",
    "last_body",
    "latest_states",
    "listing_source",
    "previous_fetches",
    "list_checks",
    "list_crawls",
    "list_events",
    "list_facts",
    "list_listings",
    "list_tools",
    "load_listing",
    "light_state",
    "load_state",
    "next_due",
    "open_db",
    "previous_validators",
    "save_feedback_receipt",
    "save_origin",
    "save_verification",
    "schema_version",
    "start_crawl",
    "stats",
    "stored_documents",
    "stored_robots",
    "transaction",
]

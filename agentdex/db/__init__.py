"""The catalogue database: one SQLite file (WAL), a versioned schema, one transaction per
origin for writes, and the named queries the CLI and the TUI read through.

    open_db(path, readonly=False)   connection.py   open, check, migrate
    start_crawl / save_origin / …   store.py        writes
    list_listings / get_listing / … queries.py      reads
    migrations                      migrations.py   the schema, step by step
"""

from agentdex.db.connection import open_db, schema_version
from agentdex.db.health import latest_states
from agentdex.db.origins import forget_origins, known_categories, last_fetch_error, missing_origins
from agentdex.db.queries import (
    count_listings,
    fts_query,
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
from agentdex.db.store import (
    due_at,
    due_origins,
    finish_crawl,
    known_origins,
    last_body,
    listing_source,
    load_state,
    previous_fetches,
    previous_validators,
    save_feedback_receipt,
    save_origin,
    save_verification,
    start_crawl,
    stored_documents,
    stored_robots,
    transaction,
)

__all__ = [
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

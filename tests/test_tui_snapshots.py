"""Snapshots (pytest-textual-snapshot) of the catalogue and listing screens at a fixed
terminal size, from the crawled catalogue cut to a fixed set of origins and with every
timestamp set to one moment (so a new sample-web host or the clock never changes them).

Update deliberately, in a commit of its own: ``pytest tests/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from agentdex.db import open_db
from agentdex.tui.app import make_app
from test_tui_support import crawled_template, net, no_cursor_blink, settle, web  # noqa: F401

SIZE = (140, 40)
AT = "2026-05-01T12:00:00.000Z"
ORIGINS = (
    "pantry.test",
    "tidewater.test",
    "badmanifest.test",
    "quillnotes.test",
    "ledgerline.test",
    "vault.test",
    "keyring.test",
    "notmcp.test",
    "wrongtype.test",
    "hopper.test",
    "loop.test",
    "broken.test",
)
TIMESTAMPS = {
    "listings": (
        "first_seen_at",
        "first_listed_at",
        "last_crawled_at",
        "last_changed_at",
        "mcp_tools_checked_at",
        "next_due_at",
    ),
    "snapshots": ("fetched_at", "response_at", "fresh_until"),
    "checks": ("checked_at", "last_pass_at"),
    "events": ("at",),
    "documents": ("fetched_at",),
    "tools": ("seen_at",),
}


@pytest.fixture
def snapshot_db(tmp_path):
    path = tmp_path / "snapshot.db"
    path.write_bytes(crawled_template())
    db = open_db(path)
    with db.conn:
        marks = ", ".join("?" for _ in ORIGINS)
        db.execute(f"DELETE FROM listings WHERE origin NOT IN ({marks})", ORIGINS)  # cascades
        for table, columns in TIMESTAMPS.items():
            for column in columns:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE {column} IS NOT NULL", [AT])
    db.conn.close()
    return path


def test_catalogue_screen(snap_compare, snapshot_db, net):
    assert snap_compare(make_app(snapshot_db, net), terminal_size=SIZE, run_before=settle)


def open_listing(origin: str, *keys: str):
    """A ``run_before`` that opens ``origin``'s listing and presses ``keys`` there."""

    async def run_before(pilot):
        await settle(pilot)
        pilot.app.open_listing(origin)
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)

    return run_before


def test_listing_screen_overview(snap_compare, snapshot_db, net):
    assert snap_compare(make_app(snapshot_db, net), terminal_size=SIZE, run_before=open_listing("pantry.test"))


def test_listing_screen_findings(snap_compare, snapshot_db, net):
    assert snap_compare(
        make_app(snapshot_db, net), terminal_size=SIZE, run_before=open_listing("badmanifest.test", "2")
    )

"""One renderer for change events on every surface: agentdex.eventtext describes the events
a real crawl stored exactly as the CLI's reporter does, from decoded events (CLI, TUI) and
from the stored columns (Datasette's SQL function)."""

from __future__ import annotations

import sqlite3

import pytest

from agentdex import render
from agentdex.db import list_events, open_db
from agentdex.eventtext import event_text, stored_event_text
from test_tui_support import crawled_template


@pytest.mark.slow
def test_every_stored_event_reads_as_the_cli_reads_it(tmp_path):
    path = tmp_path / "catalogue.db"
    path.write_bytes(crawled_template())
    events = list_events(open_db(path, readonly=True), limit=10_000)
    assert events and {"listed", "tools_changed"} & {e["kind"] for e in events}
    assert [event_text(e) for e in events] == [render.event_text(e) for e in events]
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT id, kind, subject, old, new FROM events")
    stored = {row[0]: stored_event_text(*row[1:]) for row in rows}
    conn.close()
    assert {e["id"]: event_text(e) for e in events} == stored


def test_a_tool_surface_change_is_told_in_words_and_stays_one_plain_line():
    tools = stored_event_text("tools_changed", "", '{"names": ["a"]}', '{"names": ["a", "add_to_list"]}')
    assert tools == "MCP tools +add_to_list"
    hostile = stored_event_text("name_changed", "", '"\\u001b[31mred"', '"a\\nb<b>"')
    assert hostile == '"red" → "a b<b>"'
    assert stored_event_text("listed", "", None, "not json") == '∅ → "not json"'

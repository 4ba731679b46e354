"""The TUI's helpers without an app: plain cells, query filters, typed origins, problem
kinds, origin lookup and what the Raw tab shows."""

from __future__ import annotations

import pytest

from agentdex.db import open_db
from agentdex.db.listing_query import ListingQuery
from agentdex.errors import DatabaseError, InputError
from agentdex.tui.display import cell, compact_json, flatten, when
from agentdex.tui.reader import Reader, find_origins
from agentdex.tui.screens.crawl import parse_origins
from agentdex.tui.screens.problem import problem_kind
from agentdex.tui.widgets.catalogue_table import SORTABLE, row_cells
from agentdex.tui.widgets.listing_parts import raw_text
from test_tui_support import db_path  # noqa: F401


def test_a_cell_is_plain_text_cut_with_a_visible_marker():
    text = cell("[bold]x[/bold] \x1b[31mred\x1b[0m\nnext " + "y" * 200, limit=30)
    assert text.plain == "[bold]x[/bold] red next yyyyy…"
    assert len(text.plain) == 30 and not text.spans  # no style came from the value
    assert cell(None).plain == "" and cell("short").plain == "short"


def test_compact_json_keeps_strings_and_encodes_the_rest_on_one_line():
    assert compact_json("a\nb") == "a b"
    assert compact_json({"readOnlyHint": True}) == '{"readOnlyHint": true}'
    assert compact_json(None) == ""


def test_when_shows_minutes_and_nothing_for_none():
    assert when("2026-05-01T12:34:56.789Z") == "2026-05-01 12:34"
    assert when(None) == ""


def test_flatten_spells_paths_as_findings_do():
    doc = {"mcp": {"url": "u", "auth": ["none"]}, "tags": [], "name": "n"}
    assert flatten(doc) == [("mcp.url", "u"), ("mcp.auth[0]", "none"), ("tags", []), ("name", "n")]


def test_a_query_passes_only_the_filters_set():
    query = ListingQuery(search="  kitchen ", format="anchor", has_mcp=False)
    assert query.filters() == {
        "search": "kitchen",
        "format": "anchor",
        "status": None,
        "category": None,
        "pricing": None,
        "auth": None,
        "has_mcp": False,
        "failing_checks": None,
    }
    assert query.describe() == "format=anchor, no MCP"
    assert ListingQuery(search="   ").filters()["search"] is None


def test_a_row_shows_every_column_as_plain_text():
    row = {
        "origin": "a.test",
        "name": "[b]A[/b]",
        "format": "agent_app",
        "status": "listed",
        "categories": ["home", "lifestyle"],
        "pricing": "free",
        "has_mcp": True,
        "checks_passed": 3,
        "checks_failed": 1,
        "last_changed_at": "2026-05-01T12:00:00.000Z",
    }
    assert [c.plain for c in row_cells(row)] == [
        "[b]A[/b]",
        "a.test",
        "agent_app",
        "listed",
        "home, lifestyle",
        "free",
        "✓",
        "3✓ 1✗",
        "2026-05-01 12:00",
    ]
    assert {"name", "origin", "format", "status", "pricing", "checks", "last_changed_at"} <= set(SORTABLE)


def test_typed_origins_are_normalised_and_a_bad_one_is_named():
    assert parse_origins("Pantry.test, https://quillnotes.test/x\npantry.test") == ["pantry.test", "quillnotes.test"]
    assert parse_origins(" , ") == []
    with pytest.raises(InputError, match="not an https origin"):
        parse_origins("ok.test http://plain.test")


def _error(path) -> str:
    try:
        open_db(path, readonly=True)
    except DatabaseError as exc:
        return str(exc)
    raise AssertionError("expected a DatabaseError")


def test_each_problem_has_its_kind(tmp_path):
    missing = tmp_path / "none.db"
    assert problem_kind(missing, _error(missing)) == "missing"
    blank = tmp_path / "blank.db"
    blank.write_bytes(b"")  # SQLite calls an empty file an empty database
    assert problem_kind(blank, _error(blank)) == "missing"
    junk = tmp_path / "junk.db"
    junk.write_text("not a database " * 100)
    assert problem_kind(junk, _error(junk)) == "other"


def test_find_origins_puts_the_typed_origin_first_then_name_matches(db_path):
    reader = Reader(db_path)
    with reader.connect() as db:
        assert [f["origin"] for f in find_origins(db, "https://Pantry.test/")][:1] == ["pantry.test"]
        assert "tidewater.test" in [f["origin"] for f in find_origins(db, "tidewater")]
        assert find_origins(db, "") == [] and find_origins(db, "http://not an origin") == []
    reader.close()


def test_the_raw_tab_describes_a_binary_document_instead_of_showing_it():
    assert raw_text("PK\x03\x04\x00\x00binary", 100).startswith("(a binary document")
    assert raw_text('{"a": "\x1b[31mred"}', 100) == '{"a": "red"}'
    assert raw_text(None, 100) == "(not stored)"
    assert raw_text("x" * 50, 10) == "xxxxxxxxx…"


def test_the_install_tab_opens_on_the_first_tested_host_the_manifest_names():
    """Issue 40: pantry's manifest names claude_code, codex and chatgpt as tested, in that
    order; the catalogue's own host order opened the tab on ChatGPT."""
    from types import SimpleNamespace

    from agentdex.plans import HOST_IDS
    from agentdex.tui.screens.listing import choose_host

    tested = {"claude_code", "codex", "chatgpt"}
    plans = {h: SimpleNamespace(host_status="tested" if h in tested else "untested") for h in HOST_IDS}
    assert choose_host(plans, ["claude_code", "codex", "chatgpt", "muse"]) == "claude_code"
    assert choose_host(plans, ["codex", "claude_code"]) == "codex"
    assert choose_host({h: SimpleNamespace(host_status="untested") for h in HOST_IDS}, []) == "claude_code"

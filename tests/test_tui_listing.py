"""The listing screen on crawled sample-web origins: every tab shows what the catalogue
holds, and the Install tab copies exactly the plan it shows."""

from __future__ import annotations

import pytest
from textual.notifications import Notify
from textual.widgets import Select, TabbedContent, TextArea

from agentdex.db import get_document_text, get_listing, load_listing, open_db
from agentdex.plans import plans_for
from agentdex.render import plan_lines
from agentdex.tui.app import make_app
from agentdex.tui.display import flatten
from agentdex.tui.widgets.safe_table import SafeTable
from test_tui_support import SIZE, app, db_path, net, no_cursor_blink, open_listing, rendered, settle, web  # noqa: F401


def table_rows(screen, table_id: str) -> list[list[str]]:
    table = screen.query_one(table_id, SafeTable).table
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


def stored(db_path, origin):
    return get_listing(open_db(db_path, readonly=True), origin)


async def test_overview_shows_every_manifest_field_the_publisher_and_the_links(app, db_path):
    data = stored(db_path, "pantry.test")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        text = rendered(screen.query_one("#overview-body"))
        for path, value in flatten(data["manifest"]):
            assert path in text, path
            if isinstance(value, str) and len(value) < 60:
                assert value in text, value
        for value in (
            "Pantry Labs",
            "mailto:support@pantry.test",
            "https://pantry.test/privacy",
            "https://mcp.pantry.test/mcp",
            "https://api.pantry.test/v1/feedback",
        ):
            assert value in text
        assert "Pantry  —  pantry.test  ·  agent_app  ·  listed" in rendered(screen.query_one("#listing-title"))
        # The schedule and how each fact was obtained (the catalogue was crawled once: fetched).
        assert f"{data['next_due_at'][:16].replace('T', ' ')}  (every 1 h, 0 unchanged crawl(s) in a row)" in text
        assert "guide: fetched, " in text and "agent_app: fetched, " in text
        await pilot.press("2", "3")
        await settle(pilot)
        assert screen.query_one("#findings-table", SafeTable).has_class("-empty")  # says so, no table
        assert "No findings: the manifest follows its spec." in rendered(screen.query_one("#findings-table .empty"))
        assert not screen.query_one("#checks-table", SafeTable).has_class("-empty")


async def test_findings_lists_each_error_and_warning_with_its_path(app, db_path):
    findings = stored(db_path, "badmanifest.test")["findings"]
    assert any(f["severity"] == "warning" for f in findings) and any(f["severity"] == "error" for f in findings)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "badmanifest.test")
        await pilot.press("2")
        await settle(pilot)
        rows = table_rows(screen, "#findings-table")
        assert sorted((r[0], r[1], r[2], r[3]) for r in rows) == sorted(
            (f["severity"], f["path"] or "(document)", f["code"], f["message"]) for f in findings
        )
        assert rows[0][0] == "error" and rows[-1][0] == "warning"  # errors first
        assert screen.query_one(TabbedContent).active == "findings"


async def test_checks_shows_each_check_with_status_detail_and_last_pass(app, db_path):
    checks = stored(db_path, "badmanifest.test")["checks"]
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "badmanifest.test")
        await pilot.press("3")
        await settle(pilot)
        rows = table_rows(screen, "#checks-table")
        assert {(r[1], r[0]) for r in rows} == {(c["name"], c["status"]) for c in checks}
        assert rows[0][0] == "fail"  # failures first
        passed = next(c for c in checks if c["status"] == "pass")
        row = next(r for r in rows if r[1] == passed["name"])
        assert row[4] == passed["last_pass_at"][:16].replace("T", " ")
        assert any(r[4] == "never" for r in rows if r[0] == "fail")
        detail = rendered(screen.query_one("#checks-table .detail"))  # the first (failing) check, uncut
        first = next(c for c in checks if c["name"] == rows[0][1])
        assert first["detail"] in " ".join(detail.split()) or first["detail"][:60] in detail


async def test_tools_shows_annotations_and_whether_each_tool_is_read_only(app, db_path):
    tools = stored(db_path, "tidewater.test")["tools"]
    assert any(t["read_only"] for t in tools) and any(t["destructive"] for t in tools)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "tidewater.test")
        await pilot.press("4")
        await settle(pilot)
        rows = {(r[0], r[1]): r for r in table_rows(screen, "#tools-table")}
        for tool in tools:
            row = rows[(tool["source"], tool["name"])]
            access = "read-only" if tool["read_only"] else ("destructive" if tool["destructive"] else "writes")
            if tool["source"] == "manifest" and not tool["annotations"]:
                access = "not stated"  # a declared service (a paid HTTP API) says nothing either way
            assert row[2] == access
            for hint in tool["annotations"]:
                assert hint in row[3]


async def test_a_paid_http_service_is_not_called_writes(app, db_path):
    """Issue 40: tidewater's paid forecast API (an Anchor http tool) states no access."""
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "tidewater.test")
        await pilot.press("4")
        await settle(pilot)
        rows = {(r[0], r[1]): r for r in table_rows(screen, "#tools-table")}
        assert rows[("manifest", "test.tidewater/forecast-api")][2] == "not stated"
        assert rows[("mcp", "create_alert")][2] == "writes"


async def test_install_shows_the_plan_for_the_chosen_host_and_copies_exactly_it(app, db_path):
    catalogue = open_db(db_path, readonly=True)
    plans = plans_for(load_listing(catalogue, "pantry.test"), get_document_text(catalogue, "pantry.test", "guide"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        await pilot.press("5")
        await settle(pilot)
        assert screen.query_one("#host", Select).value == "claude_code"  # the listing says it was tested there
        screen.query_one("#host", Select).value = "codex"
        await settle(pilot)
        want = "\n".join(plan_lines(plans["codex"].to_dict()))
        assert rendered(screen.query_one("#plan-body")).rstrip() == want
        await pilot.press("y")
        assert app.clipboard == want
        assert "codex mcp add" in app.clipboard and "\x1b" not in app.clipboard


async def test_history_and_raw_show_the_origin_events_and_its_stored_documents(app, db_path):
    catalogue = open_db(db_path, readonly=True)
    data = stored(db_path, "pantry.test")
    assert {"agent_app", "guide", "skill"} <= {d["kind"] for d in data["documents"]}
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "pantry.test")
        await pilot.press("6")
        await settle(pilot)
        rows = table_rows(screen, "#history-table")
        assert [r[1] for r in rows] == [e["kind"] for e in reversed(data["events"])]  # newest first
        assert rows[-1][2] == '∅ → "listed"'  # in words, as `agentdex events` says it
        await pilot.press("7")
        await settle(pilot)
        select = screen.query_one("#document", Select)
        assert select.value == "agent_app"
        assert screen.query_one("#raw-text", TextArea).text == get_document_text(catalogue, "pantry.test", "agent_app")
        select.value = "guide"
        await settle(pilot)
        assert screen.query_one("#raw-text", TextArea).text == get_document_text(catalogue, "pantry.test", "guide")


async def test_an_origin_not_in_the_catalogue_says_how_to_get_it(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_listing("nowhere.test")
        await settle(pilot)
        assert "nowhere.test is not in the catalogue: press ctrl+r to crawl it." in rendered(
            app.screen.query_one("#overview-body")
        )


# pantry.test's feedback route is POST-only: a safe GET gets 405, which proves it is there;
# t-brokenlinks.test's answers 404.
@pytest.mark.parametrize(
    ("origin", "check", "state"), [("pantry.test", "pass", "ok"), ("t-brokenlinks.test", "fail", "not_found")]
)
async def test_the_health_tab_and_the_checks_tab_give_one_verdict_on_the_feedback_route(app, origin, check, state):
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, origin, "3")
        checks = {r[1]: r[0] for r in table_rows(screen, "#checks-table")}
        await pilot.press("9")
        await settle(pilot)
        health = {r[0]: r for r in table_rows(screen, "#health-table")}
        assert (checks["feedback.descriptor"].strip(), health["feedback"][1]) == (check, state)


async def test_y_says_how_the_plan_was_copied_and_ctrl_s_writes_it_to_a_file(db_path, net, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))  # no clipboard tool on this PATH
    monkeypatch.delenv("DISPLAY", raising=False)
    notes: list[str] = []
    app = make_app(db_path, net)
    async with app.run_test(
        size=SIZE, message_hook=lambda m: notes.append(m.notification.message) if isinstance(m, Notify) else None
    ) as pilot:
        screen = await open_listing(app, pilot, "pantry.test", "5")
        want = rendered(screen.query_one("#plan-body")).rstrip()
        await pilot.press("y")
        await settle(pilot)
        note = notes[-1]
        assert "Copied" not in note and "terminal's clipboard (OSC 52), which some terminals ignore" in note
        assert "system clipboard" not in note and "press ctrl+s to write it to a file" in note
        await pilot.press("ctrl+s")
        await settle(pilot)
        written = tmp_path / "pantry.test-claude_code-plan.txt"
        assert written.read_text(encoding="utf-8") == want + "\n"
        assert f"Wrote the claude_code plan to {written}" in notes[-1]


async def test_tools_shows_each_listed_tools_tdqs_findings_beside_its_safety_flags(app, db_path):
    tools = stored(db_path, "tidewater.test")["tools"]
    linted = [t for t in tools if t["quality"] is not None]
    assert linted  # the MCP server's tools/list was linted by the crawl
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_listing(app, pilot, "tidewater.test")
        await pilot.press("4")
        await settle(pilot)
        rows = {(r[0], r[1]): r for r in table_rows(screen, "#tools-table")}
        for tool in tools:
            row = rows[(tool["source"], tool["name"])]
            assert row[4] == ", ".join(f["code"] for f in tool["flags"])
            if tool["quality"] is None:
                assert row[5] == "-"
            else:
                shown = [f"{f['severity']} {f['rule']}" for f in tool["quality"]["findings"]]
                assert row[5] == (", ".join(shown) or "no finding")

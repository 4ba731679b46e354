"""The one plain-text reporter: the CLI and the demo render checks, events and results
through agentdex.render, in one vocabulary, and never pass a crawled escape sequence on."""

from __future__ import annotations

from agentdex import render
from agentdex.models import Finding, ParseResult


def test_an_event_reads_the_same_in_the_cli_and_the_demo():
    renamed = {"kind": "name_changed", "at": "2026-01-01T00:00:00Z", "origin": "a.test", "old": "A", "new": "B"}
    assert render.event_text(renamed) == '"A" → "B"'
    assert render.event_line(renamed) == '2026-01-01T00:00:00Z  a.test  name_changed  "A" → "B"'
    listed = {"kind": "listed", "old": None, "new": "listed", "subject": ""}
    assert render.event_text(listed) == '∅ → "listed"'  # one mark for no value everywhere
    assert (
        render.event_text({"kind": "mcp_url_changed", "old": {"a": 1}, "new": None, "subject": "x"})
        == '{"a": 1} → ∅ (x)'
    )


def test_events_with_meaning_are_told_in_words():
    price = {"kind": "price_changed", "subject": "t/tides", "old": [{"priceUsd": 0.01}], "new": [{"priceUsd": 0.02}]}
    assert render.event_text(price) == "t/tides: $0.01 → $0.02 a call"
    tools = {"kind": "tools_changed", "old": {"names": ["a", "b"]}, "new": {"names": ["b", "c"]}}
    assert render.event_text(tools) == "MCP tools +c -a"
    assert render.event_text({"kind": "guide_changed", "old": "x", "new": "y"}) == "the guide's text changed"


def test_crawled_text_in_an_event_or_a_check_stays_text():
    hostile = {"kind": "name_changed", "old": "\x1b[31mred", "new": "a\nb\x07", "origin": "a.test", "at": "t"}
    line = render.event_line(hostile)
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line and '"a b"' in line
    check = {"name": "manifest.cors", "status": "fail", "detail": "seen \x1b]52;c;eA==\x07 here"}
    assert "\x1b" not in render.check_line(check) + render.check_sentence("a.test", check)


def test_a_check_is_a_table_line_or_a_sentence_with_the_same_marks():
    failed = {"name": "manifest.cors", "status": "fail", "detail": "Access-Control-Allow-Origin (missing)"}
    assert render.check_line(failed) == "fail manifest.cors              Access-Control-Allow-Origin (missing)"
    assert (
        render.check_sentence("a.test", failed) == "a.test: fail manifest.cors — Access-Control-Allow-Origin (missing)"
    )
    assert render.check_sentence("a.test", {**failed, "status": "pass"}).startswith("a.test: pass manifest.cors")


def test_a_validation_result_is_a_verdict_findings_and_counts():
    result = ParseResult(
        "agent_app",
        None,
        [Finding("warning", "tags[3]", "max_length", "too long"), Finding("error", "", "not_json", "not JSON")],
    )
    assert render.result_lines("m.json", result) == [
        "m.json: agent_app manifest, INVALID",
        "  error   (document): not JSON [not_json]",
        "  warning tags[3]: too long [max_length]",
        "1 error(s), 1 warning(s)",
    ]


def test_counts_read_largest_first_or_by_name():
    assert render.counts_text({"listed": 3, "invalid": 5, "delisted": 3}) == "5 invalid, 3 delisted, 3 listed"
    assert render.counts_text({"listed": 3, "invalid": 5}, by_name=True) == "5 invalid, 3 listed"

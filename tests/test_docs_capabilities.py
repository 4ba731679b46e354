"""The capability pages in docs/ name what the code does: every discovery format with its
paths, every consistency code, every tool event and flag, every federation route and limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentdex import federation, formats
from agentdex.formats import consistency
from agentdex.formats.codes import CODES
from agentdex.headers import SAFE_METHODS

DOCS = Path(__file__).resolve().parent.parent / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text("utf-8")


@pytest.mark.parametrize("name", formats.DISCOVERY_NAMES)
def test_every_discovery_format_is_documented_with_its_paths(name):
    module = formats.get(name)  # every registered one: a new format fails here until documented
    text = page("discovery-formats.md")
    assert f"`{module.NAME}`" in text and f"formats/{module.__name__.rsplit('.', 1)[1]}.py" in text
    for path in getattr(module, "WELL_KNOWN_PATHS", ()) + getattr(module, "FILE_NAMES", ()):
        assert f"`{path}`" in text, path


def test_every_consistency_code_and_verdict_is_documented():
    text = page("consistency.md")
    codes = (
        set(consistency.CODES.values())
        | {"tools_differ", "tool_not_listed", "tool_not_declared", "price_differs"}
        | set(consistency.LIVE_402_CODES)
    )
    assert codes <= CODES.keys()
    for word in sorted(codes) + list(consistency.VERDICTS):
        assert f"`{word}`" in text, word


def test_the_live_402_of_x402_resources_is_documented_with_its_limit_and_health_role():
    from agentdex.changes import live_price_changes
    from agentdex.crawler import verify_x402

    text = page("consistency.md")
    [event] = live_price_changes({"https://pay.test/a": 0.01}, {"https://pay.test/a": 0.02})  # the event the page names
    for word in (verify_x402.NAME, event.kind, "tollgate.test"):
        assert f"`{word}`" in text, word
    assert f"at most {verify_x402.MAX_RESOURCES} resources an origin" in text
    assert all(f"`{method}`" in text for method in SAFE_METHODS)
    assert f"`{verify_x402.ROLE}`" in page("endpoint-health.md")


def test_tool_events_and_the_flag_are_documented():
    text = page("tool-fingerprints.md")
    for word in ("tool_changed", "write_tool_added", "tool_read_only_writes"):
        assert f"`{word}`" in text, word


def test_the_federation_page_names_the_routes_parameters_and_limits():
    text = page("federation.md")
    for word in (
        "/v0.1/servers",
        "/v0.1/servers/{serverName}/versions/{version}",
        "cursor",
        "limit",
        "search",
        "updated_since",
        "version",
        "include_deleted",
    ):
        assert f"`{word}`" in text or f"`GET {word}`" in text, word
    for key in (federation.OFFICIAL, federation.AGENTDEX_META):
        assert f'`_meta["{key}"]`' in text, key
    assert f"1–{federation.MAX_LIMIT}, default {federation.DEFAULT_LIMIT}" in text


def test_the_tool_quality_page_names_every_rule_table_query_and_the_event():
    from agentdex.db.tool_quality import EVENT
    from agentdex.formats.tool_quality import RULES, SPEC_VERSION

    text = page("tool-quality.md")
    for word in [*RULES, "tool_lints", "tool_set_lints", "tool_quality", EVENT]:
        assert f"`{word}`" in text, word
    for query in ("servers_by_tool_findings", "tools_with_undocumented_parameters"):
        assert f"`{query}`" in text, query
    assert f"specification {SPEC_VERSION}" in text

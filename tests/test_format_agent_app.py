"""agent-app v1: every example file under tests/examples/{valid,invalid}/agent_app is a case.

A new regression case is a file, not code: drop ``<name>.json`` into ``invalid/agent_app``
with a sibling ``<name>.expect.json`` listing the findings it must produce
(``{"findings": [{"path", "code", "severity"?, "message_contains"?}]}``; severity defaults
to ``error``). A valid example without an expect file must produce no finding at all.
The list of findings is compared exactly, so a case also fails when a rule starts
reporting something extra.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentdex.formats import agent_app, codes
from example_corpus import EXAMPLES, EXPECT_SUFFIX, assert_findings, example_files, expect_path, load_expect

VALID_DIR = EXAMPLES / "valid" / "agent_app"
INVALID_DIR = EXAMPLES / "invalid" / "agent_app"


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


VALID_FILES = example_files(VALID_DIR)
INVALID_FILES = example_files(INVALID_DIR)
PANTRY = VALID_DIR / "pantry.json"


# -- the example corpus -------------------------------------------------------------------


@pytest.mark.parametrize("path", VALID_FILES, ids=_ids(VALID_FILES))
def test_valid_example(path: Path) -> None:
    result = agent_app.parse(path.read_bytes(), origin="tidewatch.example.org")
    assert result.valid, [f.to_dict() for f in result.findings]
    assert result.listing is not None and result.listing.format == "agent_app"
    assert_findings(result, (load_expect(path) or {"findings": []})["findings"])


@pytest.mark.parametrize("path", INVALID_FILES, ids=_ids(INVALID_FILES))
def test_invalid_example(path: Path) -> None:
    expected = load_expect(path)
    assert expected is not None, f"{path.name} needs a sibling {expect_path(path).name}"
    result = agent_app.parse(path.read_bytes(), origin="tidewatch.example.org")
    assert not result.valid
    assert_findings(result, expected["findings"])


def test_every_expect_file_has_its_example() -> None:
    for folder in (VALID_DIR, INVALID_DIR):
        for expect in folder.glob("*" + EXPECT_SUFFIX):
            example = expect.with_name(expect.name[: -len(EXPECT_SUFFIX)] + ".json")
            assert example.exists(), f"{expect.name} has no {example.name}"


# Every code agent_app can emit, each of which must have a failing example above.
EMITTED = {
    "too_large",
    "empty",
    "bom",
    "encoding",
    "binary",
    "not_json",
    "too_deep",
    "not_object",
    "unsupported_version",
    "required",
    "type",
    "max_length",
    "min_length",
    "max_items",
    "min_items",
    "enum",
    "const",
    "url",
    "minimum",
    "maximum",
    "lowercase",
    "duplicate",
    "unknown_key",
    "one_of_required",
    "leading_name",
    "contact",
    "single_line",
}


def test_every_code_has_a_failing_example() -> None:
    declared = {e["code"] for p in INVALID_FILES for e in (load_expect(p) or {"findings": []})["findings"]}
    declared |= {e["code"] for p in VALID_FILES for e in (load_expect(p) or {"findings": []})["findings"]}
    assert EMITTED - declared == set(), "codes without an example"
    assert declared - EMITTED == set(), "examples declare codes agent_app does not emit"
    tree = ast.parse(Path(agent_app.__file__).read_text("utf-8"))
    literal_codes = {
        node.args[1].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("error", "warn")
        and len(node.args) > 1
        and isinstance(node.args[1], ast.Constant)
    }
    assert literal_codes and literal_codes <= EMITTED
    assert EMITTED <= codes.CODES.keys()


# -- rules that read better as code --------------------------------------------------------


def _pantry() -> dict:
    return json.loads(PANTRY.read_text("utf-8"))


def test_pantry_normalises_into_a_listing() -> None:
    listing = agent_app.parse(PANTRY.read_bytes(), origin="pantry.example.com").listing
    assert listing is not None
    assert (listing.origin, listing.name) == ("pantry.example.com", "Pantry")
    assert listing.mcp_url == "https://mcp.pantry.example.com/mcp"
    assert listing.mcp_transport == "streamable-http" and listing.mcp_auth == ["oauth"]
    assert listing.http_base == "https://api.pantry.example.com/v1"
    assert listing.guide_url == "https://pantry.example.com/agent.md"
    assert listing.categories == ["home", "lifestyle"] and listing.pricing == "freemium"
    assert listing.hosts[1] == {"host": "chatgpt", "status": "untested", "notes": "OAuth flow not yet tried"}
    assert listing.pattern == {"install_by_url": True, "server_llm": False, "human_ui": "auth_only"}
    assert listing.publisher_contact == "mailto:support@pantry.example.com"
    assert listing.instructions.startswith("Pantry ")
    assert listing.feedback["operation"] == "feedback.submit"
    assert listing.feedback["max_message_length"] == 4000


def test_a_field_that_fails_is_left_out_of_the_listing() -> None:
    doc = _pantry() | {"audience": "16+", "tags": ["kitchen", "Groceries"]}
    result = agent_app.validate_document(doc)
    assert result.listing.audience is None
    assert result.listing.tags == ["kitchen"]


def test_unsupported_version_checks_nothing_else() -> None:
    result = agent_app.validate_document({"agent_app": "2", "name": 7})
    assert [(f.path, f.code) for f in result.findings] == [("agent_app", "unsupported_version")]
    assert result.listing is None


def test_the_number_one_is_reported_and_the_rest_still_checked() -> None:
    result = agent_app.validate_document(_pantry() | {"agent_app": 1, "pricing": "gratis"})
    assert {(f.path, f.code) for f in result.findings} == {("agent_app", "type"), ("pricing", "enum")}


@pytest.mark.parametrize("value", [[1], {"v": 1}, True])
def test_agent_app_of_another_type_is_a_type_error(value: object) -> None:
    result = agent_app.validate_document(_pantry() | {"agent_app": value})
    assert [(f.path, f.code) for f in result.findings] == [("agent_app", "type")]


def test_validate_document_refuses_a_non_object_without_raising() -> None:
    result = agent_app.validate_document(["agent_app", "1"])  # type: ignore[arg-type]
    assert [(f.path, f.code) for f in result.findings] == [("", "not_object")]


def test_size_limit_is_32_kib() -> None:
    assert agent_app.MAX_BYTES == 32 * 1024
    assert len((VALID_DIR / "size-at-limit.json").read_bytes()) == agent_app.MAX_BYTES
    assert len((INVALID_DIR / "too-large.json").read_bytes()) == 33 * 1024


def test_looks_like() -> None:
    assert agent_app.looks_like(_pantry())
    assert agent_app.looks_like({"agent_app": "2"})
    assert not agent_app.looks_like({"name": "Pantry"})
    assert not agent_app.looks_like(["agent_app"])


def test_every_catalogue_value_is_accepted() -> None:
    catalogue_fields = {"auth_methods": agent_app.AUTH_METHODS, "events": agent_app.EVENTS}
    for key, values in catalogue_fields.items():
        for value in values:
            assert agent_app.validate_document(_pantry() | {key: [value]}).valid, (key, value)
    for value in agent_app.CATEGORIES:
        assert agent_app.validate_document(_pantry() | {"categories": [value]}).valid, value
    for key, values in (("audience", agent_app.AUDIENCES), ("pricing", agent_app.PRICING)):
        for value in values:
            assert agent_app.validate_document(_pantry() | {key: value}).valid, (key, value)


# -- the catalogues are the spec's ---------------------------------------------------------

SPEC_CATALOGUES = {
    "AUTH_METHODS": r"auth_methods catalogue \|\s*no \| (.*?)\. \|",
    "EVENTS": r"How the app can wake an agent: (.*?)\.",
    "HOSTS": r"hosts catalogue \((.*?)\)",
    "HOST_STATUSES": r"status is (\w+, \w+) or (\w+)",
    "HUMAN_UI": r"pattern\.human_ui \|\s*(.*?) \|",
    "CATEGORIES": r"categories catalogue, ≤ 3 \|\s*yes \| (.*?)\. \|",
    "AUDIENCES": r"audience \|\s*(.*?) \|",
    "PRICING": r"pricing \|\s*(.*?) \|",
    "MCP_AUTH": r"mcp\.auth \|\s*array of (.*?) \|",
    "MCP_TRANSPORTS": r'mcp\.transport \|\s*"(.*?)" \|',
}


def _spec_values(text: str, pattern: str) -> list[str]:
    match = re.search(pattern, text)
    assert match, f"the spec no longer matches {pattern!r}"
    listed = ", ".join(match.groups())
    return [v.strip() for v in re.sub(r"\([^)]*\)", "", listed).split(",")]


@pytest.mark.parametrize("name", sorted(SPEC_CATALOGUES))
def test_catalogue_matches_the_spec(shared: Path, name: str) -> None:
    text = (shared / "specs" / "agent-app-manifest-v1.md").read_text("utf-8")
    assert list(getattr(agent_app, name)) == _spec_values(text, SPEC_CATALOGUES[name])


def test_the_specs_feedback_snippet_is_accepted(shared: Path) -> None:
    text = (shared / "specs" / "agent-app-manifest-v1.md").read_text("utf-8")
    snippet = re.search(r'"feedback": (\{.*?\})', text, re.S).group(1)
    doc = _pantry() | {"feedback": json.loads(snippet)}
    result = agent_app.validate_document(doc)
    assert result.valid and result.findings == []
    assert result.listing.feedback["authentication"] == "none"


# -- bad input never raises ---------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_FIELDS = st.sampled_from(sorted(agent_app.TOP_LEVEL) + ["updated_at", "x"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_FIELDS, _json, max_size=6),
    st.sampled_from(["guide", "mcp", "http", "feedback", "publisher", "hosts"]),
    _json,
)
def test_any_json_becomes_findings_never_an_exception(overrides: dict, nested: str, value: object) -> None:
    doc = _pantry() | overrides
    if isinstance(doc.get(nested), dict):
        doc[nested] = doc[nested] | {"url": value}
    elif isinstance(doc.get(nested), list) and doc[nested]:
        doc[nested] = [value, *doc[nested][1:]]
    result = agent_app.parse(json.dumps(doc).encode())
    assert all(f.code in codes.CODES for f in result.findings)
    if result.valid:
        assert result.listing is not None

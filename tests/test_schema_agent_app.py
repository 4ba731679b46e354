"""The JSON Schema agentdex ships for agent-app v1 agrees with the hand-written validator.

Every valid example must pass the schema; every invalid example must fail it, unless its
expect file names (``schema_cannot``) why a schema cannot express that rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.formats import agent_app
from agentdex.formats.schemas import load_schema

EXAMPLES = Path(__file__).resolve().parent / "examples"
VALID = sorted(p for p in (EXAMPLES / "valid" / "agent_app").glob("*.json") if not p.name.endswith(".expect.json"))
INVALID = sorted(p for p in (EXAMPLES / "invalid" / "agent_app").glob("*.json") if not p.name.endswith(".expect.json"))


def _expect(path: Path) -> dict:
    return json.loads(path.with_name(path.stem + ".expect.json").read_text("utf-8"))


SCHEMA_REJECTS = [p for p in INVALID if "schema_cannot" not in _expect(p)]


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema("agent_app"))


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = load_schema("agent_app")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_schema_accepts_every_valid_example(validator: Draft202012Validator, path: Path) -> None:
    errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(json.loads(path.read_bytes()))]
    assert errors == []


@pytest.mark.parametrize("path", SCHEMA_REJECTS, ids=[p.stem for p in SCHEMA_REJECTS])
def test_schema_rejects_what_the_validator_rejects(validator: Draft202012Validator, path: Path) -> None:
    errors = list(validator.iter_errors(json.loads(path.read_bytes())))
    assert errors, "the schema accepts a document the validator rejects"
    # ...and at the same place: each schema error sits at (or above) a validator finding.
    finding_paths = [e["path"] for e in _expect(path)["findings"] if e.get("severity", "error") == "error"]
    for error in errors:
        where = _dotted(error.absolute_path)
        assert any(_within(f, where) for f in finding_paths), (where, error.message, finding_paths)


def _dotted(parts) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _within(path: str, ancestor: str) -> bool:
    return not ancestor or path == ancestor or path.startswith((ancestor + ".", ancestor + "["))


def test_most_invalid_examples_are_checked_against_the_schema() -> None:
    # schema_cannot is for rules a schema truly cannot state, not a way out of the agreement.
    assert len(SCHEMA_REJECTS) >= 0.8 * len(INVALID)


def _enum(schema: dict, *path: str) -> list:
    node = schema
    for key in path:
        node = node[key]
    return node["enum"] if "enum" in node else [node["const"]]


@pytest.mark.parametrize("module_name, path", [
    ("AUTH_METHODS", ("properties", "auth_methods", "items")),
    ("EVENTS", ("properties", "events", "items")),
    ("HOSTS", ("properties", "hosts", "items", "properties", "host")),
    ("HOST_STATUSES", ("properties", "hosts", "items", "properties", "status")),
    ("HUMAN_UI", ("properties", "pattern", "properties", "human_ui")),
    ("CATEGORIES", ("properties", "categories", "items")),
    ("AUDIENCES", ("properties", "audience")),
    ("PRICING", ("properties", "pricing")),
    ("MCP_AUTH", ("properties", "mcp", "properties", "auth", "items")),
    ("MCP_TRANSPORTS", ("properties", "mcp", "properties", "transport")),
    ("FEEDBACK_AUTH", ("$defs", "feedback", "properties", "authentication")),
])
def test_schema_catalogues_equal_the_validators(module_name: str, path: tuple[str, ...]) -> None:
    assert _enum(load_schema("agent_app"), *path) == list(getattr(agent_app, module_name))


def test_schema_top_level_names_every_field_the_validator_knows() -> None:
    properties = load_schema("agent_app")["properties"]
    assert set(properties) == set(agent_app.TOP_LEVEL) | set(agent_app.RETIRED_TOP_LEVEL)


def test_schema_command_prints_the_shipped_schema() -> None:
    result = CliRunner().invoke(app, ["schema", "agent_app"])
    assert result.exit_code == 0
    assert json.loads(result.output) == load_schema("agent_app")

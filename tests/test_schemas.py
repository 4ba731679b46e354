"""Every JSON Schema agentdex authors (:data:`agentdex.formats.schemas.SCHEMAS`) agrees with
the hand-written validator of its format, by one mechanism for all of them:

- every valid example of the format (``tests/examples/valid/<format>``) passes the schema;
- every invalid example fails it, at (or above) a place the validator reports, unless its
  expect file says (``schema_cannot``) why no schema can state that rule;
- the schema's top-level properties and its enumerations are the validator's own tuples;
- ``agentdex schema <format>`` prints the shipped file.

A new authored schema is covered by adding it to ``SCHEMAS`` and its catalogues to
``CATALOGUES`` below; nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from agentdex import formats
from agentdex.cli import app
from agentdex.formats.schemas import SCHEMAS, load_schema
from example_corpus import EXAMPLES, example_files, load_expect

# (format, validator tuple, where its enum sits in the schema), for every authored schema.
CATALOGUES = [
    ("agent_app", "AUTH_METHODS", ("properties", "auth_methods", "items")),
    ("agent_app", "EVENTS", ("properties", "events", "items")),
    ("agent_app", "HOSTS", ("properties", "hosts", "items", "properties", "host")),
    ("agent_app", "HOST_STATUSES", ("properties", "hosts", "items", "properties", "status")),
    ("agent_app", "HUMAN_UI", ("properties", "pattern", "properties", "human_ui")),
    ("agent_app", "CATEGORIES", ("properties", "categories", "items")),
    ("agent_app", "AUDIENCES", ("properties", "audience")),
    ("agent_app", "PRICING", ("properties", "pricing")),
    ("agent_app", "MCP_AUTH", ("properties", "mcp", "properties", "auth", "items")),
    ("agent_app", "MCP_TRANSPORTS", ("properties", "mcp", "properties", "transport")),
    ("agent_app", "FEEDBACK_AUTH", ("$defs", "feedback", "properties", "authentication")),
    ("anchor", "KINDS", ("$defs", "tool", "properties", "kind")),
    ("anchor", "TRANSPORTS", ("$defs", "tool", "properties", "transport")),
    ("anchor", "AUTH", ("$defs", "tool", "properties", "auth", "items")),
    ("anchor", "REGISTRIES", ("$defs", "package", "properties", "registry")),
    ("anchor", "PROTOCOLS", ("$defs", "payment", "properties", "protocol")),
    ("anchor", "UNITS", ("$defs", "payment", "properties", "unit")),
]


def _examples(kind: str) -> list[tuple[str, Path]]:
    return [(fmt, p) for fmt in SCHEMAS for p in example_files(EXAMPLES / kind / fmt)]


VALID = _examples("valid")
INVALID = _examples("invalid")
SCHEMA_REJECTS = [(fmt, p) for fmt, p in INVALID if "schema_cannot" not in (load_expect(p) or {})]


def _ids(cases: list[tuple[str, Path]]) -> list[str]:
    return [f"{fmt}/{p.stem}" for fmt, p in cases]


def validator(fmt: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(fmt), format_checker=Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("fmt", SCHEMAS)
def test_schema_is_a_valid_draft_2020_12_schema(fmt: str) -> None:
    schema = load_schema(fmt)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("fmt", SCHEMAS)
def test_every_authored_schema_has_examples_both_ways(fmt: str) -> None:
    # A schema with no examples would pass every test below without being checked.
    assert fmt in formats.REGISTRY
    assert example_files(EXAMPLES / "valid" / fmt) and example_files(EXAMPLES / "invalid" / fmt)


@pytest.mark.parametrize("fmt, path", VALID, ids=_ids(VALID))
def test_schema_accepts_every_valid_example(fmt: str, path: Path) -> None:
    errors = [f"{e.json_path}: {e.message}" for e in validator(fmt).iter_errors(json.loads(path.read_bytes()))]
    assert errors == []


@pytest.mark.parametrize("fmt, path", SCHEMA_REJECTS, ids=_ids(SCHEMA_REJECTS))
def test_schema_rejects_what_the_validator_rejects(fmt: str, path: Path) -> None:
    errors = list(validator(fmt).iter_errors(json.loads(path.read_bytes())))
    assert errors, "the schema accepts a document the validator rejects"
    # ...and at the same place: each schema error sits at (or above) a validator finding.
    expect = load_expect(path)
    assert expect is not None, f"{path.name} needs a sibling .expect.json"
    finding_paths = [e["path"] for e in expect["findings"] if e.get("severity", "error") == "error"]
    for error in errors:
        where = _dotted(error.absolute_path)
        assert any(_within(f, where) for f in finding_paths), (where, error.message, finding_paths)


def _dotted(parts) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _within(path: str, ancestor: str) -> bool:
    return not ancestor or path == ancestor or path.startswith((ancestor + ".", ancestor + "["))


@pytest.mark.parametrize("fmt", SCHEMAS)
def test_most_invalid_examples_are_checked_against_the_schema(fmt: str) -> None:
    # schema_cannot is for rules a schema truly cannot state, not a way out of the agreement.
    rejects = [p for f, p in SCHEMA_REJECTS if f == fmt]
    assert len(rejects) >= 0.8 * len([p for f, p in INVALID if f == fmt])


def _enum(schema: dict, *path: str) -> list:
    node = schema
    for key in path:
        node = node[key]
    return node["enum"] if "enum" in node else [node["const"]]


@pytest.mark.parametrize("fmt, name, path", CATALOGUES, ids=[f"{f}.{n}" for f, n, _ in CATALOGUES])
def test_schema_catalogues_equal_the_validators(fmt: str, name: str, path: tuple[str, ...]) -> None:
    assert _enum(load_schema(fmt), *path) == list(getattr(formats.get(fmt), name))


@pytest.mark.parametrize("fmt", SCHEMAS)
def test_schema_top_level_names_every_field_the_validator_knows(fmt: str) -> None:
    module = formats.get(fmt)
    known = set(module.TOP_LEVEL) | set(getattr(module, "RETIRED_TOP_LEVEL", ()))
    assert set(load_schema(fmt)["properties"]) == known


@pytest.mark.parametrize("fmt", SCHEMAS)
def test_schema_command_prints_the_shipped_schema(fmt: str) -> None:
    result = CliRunner().invoke(app, ["schema", fmt])
    assert result.exit_code == 0
    assert json.loads(result.output) == load_schema(fmt)

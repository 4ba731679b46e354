"""Parser bombs: every one gives typed findings, never a traceback, through the library and
the ``validate`` command. (Their memory and time are printed by
benchmarks/bench_parser_bombs.py, not asserted here.)
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agentdex.cli import app
from agentdex.formats import findagent, inferred, parse_json
from agentdex.formats._load import MAX_NUMBER_CHARS

GUIDE = b"# Guide\n\nUse the MCP endpoint.\n"


def manifest(**extra) -> dict:
    return {
        "agent_app": "1",
        "name": "Bomb",
        "one_liner": "A test.",
        "description": "Bomb is a test document.",
        "homepage": "https://bomb.test/",
        "guide": {"url": "https://bomb.test/agent.md"},
        "categories": ["utilities"],
        "pricing": "free",
        **extra,
    }


BOMBS = {
    "deep arrays": (b"[" * 100_000 + b"]" * 100_000, "too_deep"),
    "deep objects": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "too_deep"),
    "a million digits": (b'{"agent_app": "1", "n": ' + b"7" * 1_000_000 + b"}", "number_too_long"),
    "a million-digit fraction": (b'{"n": 0.' + b"3" * 1_000_000 + b"}", "number_too_long"),
    "NaN": (b'{"agent_app": "1", "priceUsd": NaN}', "non_finite"),
    "-Infinity": (b'{"agent_app": "1", "priceUsd": -Infinity}', "non_finite"),
    "1e999": (b'{"agent_app": "1", "priceUsd": 1e999}', "non_finite"),
    "a BOM": (b"\xef\xbb\xbf" + json.dumps(manifest()).encode(), "bom"),
    "UTF-16": (json.dumps(manifest()).encode("utf-16"), "encoding"),
    "invalid UTF-8": (json.dumps(manifest(name="Bad\udcff")).encode("utf-8", "surrogateescape"), "encoding"),
    "a lone surrogate escape": (b'{"agent_app": "1", "name": "\\ud800"}', "encoding"),
    "binary": (bytes(range(256)) * 64, "binary"),
}


@pytest.mark.parametrize("name", BOMBS)
def test_a_json_bomb_is_a_typed_finding(name):
    data, code = BOMBS[name]
    result = parse_json(data)
    assert not result.valid and code in {f.code for f in result.findings}, [f.to_dict() for f in result.findings]


@pytest.mark.parametrize("name", ["deep arrays", "a million digits", "NaN", "invalid UTF-8"])
def test_validate_reports_a_bomb_without_a_traceback(tmp_path, name):
    path = tmp_path / "agent-app.json"
    path.write_bytes(BOMBS[name][0])
    result = CliRunner().invoke(app, ["validate", str(path), "--json"])
    assert result.exit_code in (1, 2) and (result.exception is None or isinstance(result.exception, SystemExit))
    assert "Traceback" not in result.output and BOMBS[name][1] in result.output


def test_a_repeated_key_is_a_warning_that_says_which_value_counts():
    text = json.dumps(manifest())[:-1] + ', "name": "Second"}'
    result = parse_json(text.encode())
    repeated = [f for f in result.findings if f.code == "duplicate_key"]
    assert result.listing.name == "Second"
    assert (
        len(repeated) == 1
        and repeated[0].severity == "warning"
        and '"name"' in repeated[0].message
        and "the last value" in repeated[0].message
    )


def test_fifty_thousand_tags_are_a_finding_not_fifty_thousand_rows():
    result = parse_json(json.dumps(manifest(tags=[f"t{i}" for i in range(50_000)])).encode(), "agent_app")
    assert "too_large" in {f.code for f in result.findings}  # 32 KB: refused before parsing
    findagent_doc = {
        "schema_version": "1.1",
        "name": "tagbomb",
        "system_prompt": "x",
        "tags": [f"t{i}" for i in range(50_000)],
    }
    result = findagent.parse(json.dumps(findagent_doc).encode())  # 1 MB allowed: the tags fit
    assert [(f.path, f.code) for f in result.findings if f.path == "tags"] == [("tags", "max_items")]
    assert len(result.listing.tags) == findagent.MAX_LISTED_TAGS


def test_numbers_at_the_limit_still_parse():
    result = parse_json(json.dumps(manifest(n=int("9" * MAX_NUMBER_CHARS))).encode())
    assert "number_too_long" not in {f.code for f in result.findings}


SKILL_BOMBS = {
    "an alias bomb": (
        "---\nname: bomb\ndescription: d\n"
        + "\n".join([f"l{i}: &l{i} [{', '.join(['*l' + str(i - 1)] * 9)}]" for i in range(1, 10)]).replace("*l0", "lol")
        + "\n---\n",
        "aliases or nesting",
    ),
    "a self-referencing alias": ("---\nname: bomb\ndescription: d\na: &a [*a]\n---\n", "aliases or nesting"),
    "oversize frontmatter": ("---\nname: big\ndescription: " + "x" * 70_000 + "\n---\n", "agentdex reads at most"),
    "a YAML tag": ("---\nname: !!python/object/apply:os.system ['id']\ndescription: d\n---\n", "not valid YAML"),
    "an unclosed block": ("---\nname: x\ndescription: d\n", "not closed"),
}


@pytest.mark.parametrize("name", SKILL_BOMBS)
def test_a_skill_frontmatter_bomb_is_a_typed_finding(name):
    text, words = SKILL_BOMBS[name]
    result = inferred.infer({"SKILL.md": text.encode(), "agent.md": GUIDE}, origin="bomb.test")
    found = [f for f in result.findings if f.severity == "error" and f.path.startswith("SKILL.md")]
    assert found and any(words in f.message for f in found), [f.to_dict() for f in result.findings]

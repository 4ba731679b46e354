"""The format lists in prose (Datasette's column descriptions, the CLI's help and messages)
are derived from the format registry, so they name every format and go stale never."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentdex import formats
from agentdex.cli import app
from agentdex.validate import InputError, validate_path
from tests.conftest import load_script

REGENERATE = "python scripts/gen_formats_doc.py"


def test_datasette_format_descriptions_are_generated_from_the_registry():
    gen = load_script("gen_formats_doc")
    for path in gen.METADATA_FILES:
        text = path.read_text("utf-8")
        assert text == gen.render_metadata(text), f"{path.name} is out of date; run {REGENERATE}"
        columns = json.loads(text)["databases"]["agentdex"]["tables"]["listings"]["columns"]
        assert all(name in columns["format"] for name in formats.FORMAT_NAMES)
        assert all(name in columns["consistency_sources"] for name in formats.VALIDATE_DISCOVERY)


def test_an_unknown_format_is_refused_naming_every_registered_one(tmp_path):
    doc = tmp_path / "x.json"
    doc.write_text("{}", "utf-8")
    try:
        validate_path(doc, "no_such_format")
    except InputError as exc:
        message = str(exc)
    else:
        raise AssertionError("an unknown --format was accepted")
    assert all(name in message for name in (*formats.FORMAT_NAMES, *formats.VALIDATE_DISCOVERY))


def test_a_document_of_no_format_is_told_every_format_it_could_be_forced_as(tmp_path):
    doc = tmp_path / "plain.json"
    doc.write_text(json.dumps({"hello": "world"}), "utf-8")
    result = CliRunner().invoke(app, ["validate", str(doc)])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert all(name in text for name in formats.VALIDATE_DISCOVERY)
    assert all(name in text for name in formats.JSON_FORMATS if name != "inferred")

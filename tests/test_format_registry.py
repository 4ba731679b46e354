"""The format registry: every format module declares its facts in one place, and the rest of
agentdex (discovery, verification, validate, the CLI) reads them from there."""

from __future__ import annotations

import inspect
import json

from typer.testing import CliRunner

from agentdex import formats
from agentdex.cli import app
from agentdex.crawler import discovery, discovery_answers
from agentdex.crawler.verify import size_check
from agentdex.formats._spec import FormatSpec, OriginFile
from agentdex.models import FetchRecord
from agentdex.validate import validate_path

SHAPE = ("parse", "looks_like", "validate_document")


def test_every_registered_format_has_the_full_shape():
    assert formats.FORMAT_NAMES, "the registry found no format module"
    for name, spec in formats.REGISTRY.items():
        module = formats.get(name)
        assert isinstance(spec, FormatSpec) and spec is module.SPEC
        assert module.NAME == spec.name == name == module.__name__.rsplit(".", 1)[1]
        for function in SHAPE:
            assert callable(getattr(module, function, None)), f"{name} has no {function}()"
        assert "origin" in inspect.signature(module.parse).parameters
        assert type(spec.priority) is int and spec.max_bytes > 0
        assert spec.folder_files or spec.discovery, f"{name} declares no folder file for validate"
        assert all(path.startswith("/.well-known/") for path in spec.paths)
        assert not spec.also_at or spec.well_known, "further paths without a first one"
        assert spec.title, f"{name} has no title for messages"
        if spec.detect_rank is not None:  # validate reads it alone: it must be told apart
            assert spec.discovery and spec.keys and module.looks_like({}) is False
        for file in spec.origin_files:
            assert isinstance(file, OriginFile) and file.path.startswith("/") and file.max_bytes > 0
        if spec.origin_files:
            assert callable(getattr(module, "infer", None)), f"{name} has origin files but no infer()"
    priorities = [s.priority for s in formats.REGISTRY.values()]
    assert priorities == sorted(priorities) and len(set(priorities)) == len(priorities)


def test_the_registry_is_the_contract_list_in_its_order():
    # DESIGN.md: format ∈ agent_app | anchor | findagent | adapp | inferred.
    assert formats.FORMAT_NAMES == ("agent_app", "anchor", "findagent", "adapp", "inferred")
    assert formats.choices() == "agent_app, anchor, findagent, adapp or inferred"


def test_discovery_reads_caps_paths_and_primary_order_from_the_registry():
    assert discovery.MANIFEST_PATHS == {
        "agent_app": "/.well-known/agent-app.json",
        "anchor": "/.well-known/anchor.json",
    }
    assert discovery.CAPS["agent_app"] == formats.get("agent_app").MAX_BYTES == 32 * 1024  # the spec's limit
    assert discovery.CAPS["anchor"] == formats.get("anchor").MAX_BYTES
    assert discovery.BOOTSTRAP == {
        "agent_md": "/agent.md",
        "llms_txt": "/llms.txt",
        "skill": "/SKILL.md",
        "mcp_json": "/mcp.json",
    }
    order = [n for n in discovery_answers.PRIMARY_ORDER if n in ("agent_app", "anchor", "inferred")]
    assert order == ["agent_app", "anchor", "inferred"]


def test_the_size_check_holds_each_format_to_its_declared_limit():
    limit = formats.spec("anchor").max_bytes
    record = FetchRecord(url="https://a.test/.well-known/anchor.json", kind="anchor", body=b" " * (limit + 1))
    check = size_check(record, "anchor")
    assert check.status == "fail" and f"limit {limit:,}" in check.detail
    assert (
        size_check(FetchRecord(url="u", kind="agent_app", body=b"{}"), "agent_app").detail == "2 bytes (limit 32,768)"
    )


def test_validate_reads_a_folder_by_the_registry(tmp_path):
    (tmp_path / "anchor.json").write_text("{}")
    assert validate_path(tmp_path).format == "anchor"
    assert set(formats.FOLDER_FILES) >= {"agent-app.json", "findagent.json", "SKILL.md", "manifest.json"}


def test_cli_help_and_errors_name_the_registered_formats(tmp_path):
    runner = CliRunner()
    help_text = " ".join(runner.invoke(app, ["validate", "--help"]).output.split())
    # In registry order: the manifests, then the discovery documents validate reads alone.
    readable = (*formats.FORMAT_NAMES, *formats.VALIDATE_DISCOVERY)
    assert f"auto, {formats.choices(readable)}." in help_text
    assert {"agent_app", "server_json", "a2a_card", "ai_catalog"} <= set(readable)
    (tmp_path / "m.json").write_text(json.dumps({"agent_app": "1"}))
    result = runner.invoke(app, ["validate", str(tmp_path / "m.json"), "--format", "nope"])
    assert result.exit_code == 2 and "agent_app, anchor, findagent, adapp, inferred" in result.output

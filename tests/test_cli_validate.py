"""``agentdex validate`` on agent-app files, as a user runs it: exit codes, --json, text, and
bad input that must become a finding rather than a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdex.cli import app

EXAMPLES = Path(__file__).resolve().parent / "examples"
PANTRY = EXAMPLES / "valid" / "agent_app" / "pantry.json"
SEVERAL = EXAMPLES / "invalid" / "agent_app" / "relative-urls.json"  # eight findings at eight paths


def run(*args: str):
    """Invoke the CLI in-process; no exception may escape except typer's exit."""
    result = CliRunner().invoke(app, ["validate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("fmt", [[], ["--format", "agent_app"]], ids=["auto", "agent_app"])
def test_valid_manifest_exits_0(fmt: list[str]) -> None:
    result = run(str(PANTRY), *fmt)
    assert result.exit_code == 0
    assert "agent_app manifest, valid" in result.output
    assert "0 error(s), 0 warning(s)" in result.output


@pytest.mark.parametrize("fmt", [[], ["--format", "agent_app"]], ids=["auto", "agent_app"])
def test_invalid_manifest_exits_1(fmt: list[str]) -> None:
    result = run(str(SEVERAL), *fmt)
    assert result.exit_code == 1
    assert "INVALID" in result.output


def test_a_warning_alone_leaves_the_manifest_valid() -> None:
    result = run(str(EXAMPLES / "valid" / "agent_app" / "unknown-keys.json"), "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["valid"] is True
    assert {f["severity"] for f in data["findings"]} == {"warning"}


def test_unreadable_path_exits_2(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nowhere.json"))
    assert result.exit_code == 2
    assert "nowhere.json" in result.output


def test_json_output_is_format_valid_findings_sorted_by_path() -> None:
    result = run(str(SEVERAL), "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert set(data) == {"format", "valid", "findings"}
    assert (data["format"], data["valid"]) == ("agent_app", False)
    paths = [f["path"] for f in data["findings"]]
    assert len(paths) == 8 and paths == sorted(paths)
    assert all(set(f) == {"severity", "path", "code", "message"} for f in data["findings"])
    assert {"homepage", "mcp.url", "guide.llms_txt"} <= set(paths)


def test_human_output_has_one_line_per_finding_with_path_and_code() -> None:
    findings = json.loads(run(str(SEVERAL), "--json").output)["findings"]
    lines = run(str(SEVERAL)).output.splitlines()
    finding_lines = [line for line in lines if line.startswith("  ")]
    assert len(finding_lines) == len(findings)
    for line, finding in zip(finding_lines, findings, strict=True):
        assert f" {finding['path']}: " in line and line.endswith(f"[{finding['code']}]")
    assert lines[-1] == "8 error(s), 0 warning(s)"


def test_human_output_shows_untrusted_text_without_escape_sequences(tmp_path: Path) -> None:
    doc = json.loads(PANTRY.read_text("utf-8"))
    doc["\x1b]0;owned\x07\x1b[31mred"] = 1  # an unknown key is echoed in its finding
    path = tmp_path / "escapes.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = run(str(path))
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "red" in result.output


# -- input that is no manifest at all ------------------------------------------------------


def _pantry_bytes() -> bytes:
    return PANTRY.read_bytes()


BAD_INPUT = {
    "not_json": (lambda: b'{"agent_app": "1", "name": }', "not_json"),
    "json_array": (lambda: b'[{"agent_app": "1"}]', "not_object"),
    "bom": (lambda: b"\xef\xbb\xbf" + _pantry_bytes(), "bom"),
    "invalid_utf8": (lambda: _pantry_bytes().replace(b"Pantry Labs", b"Pantry \xc3\x28Labs"), "encoding"),
    "deep_nesting": (lambda: b"[" * 100_000, None),
    "binary": (lambda: bytes(range(256)) * 64, "binary"),
    "empty": (lambda: b"", "empty"),
    "lone_surrogate": (lambda: _pantry_bytes().replace(b'"Pantry"', b'"\\udc00Pantry"'), "encoding"),
}


@pytest.mark.parametrize("fmt", [[], ["--format", "agent_app"]], ids=["auto", "agent_app"])
@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_a_finding_not_a_traceback(tmp_path: Path, case: str, fmt: list[str]) -> None:
    make, code = BAD_INPUT[case]
    path = tmp_path / f"{case}.json"
    path.write_bytes(make())
    result = run(str(path), "--json", *fmt)
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["valid"] is False and data["findings"]
    if code is None:  # too deep to read, or too large for an agent-app manifest
        code = "too_large" if fmt else "too_deep"
    assert [(f["path"], f["code"]) for f in data["findings"]] == [("", code)]


@pytest.fixture(scope="module")
def fifty_megabytes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "huge.json"
    with path.open("wb") as fh:
        chunk = (b" " * 1023 + b"\x7f") * 1024  # 1 MiB of spaces and garbage
        for _ in range(50):
            fh.write(chunk)
    return path


@pytest.mark.parametrize("fmt", [[], ["--format", "agent_app"]], ids=["auto", "agent_app"])
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_fifty_megabytes_is_too_large(fifty_megabytes: Path, fmt: list[str], as_json: bool) -> None:
    result = run(str(fifty_megabytes), *(["--json"] if as_json else []), *fmt)
    assert result.exit_code == 1
    if as_json:
        findings = json.loads(result.output)["findings"]
        assert [(f["path"], f["code"]) for f in findings] == [("", "too_large")]
    else:
        assert "(document)" in result.output and "[too_large]" in result.output


# Real files named agent-app.json that are another format: (file, closest, keys it must name)
LOOKALIKES = [
    ("agent_app/dale0525__SecondLoop__app__agent-app.json", "an AgentWeave app manifest", ("appId", "branding")),
    (
        "agent_app/dale0525__agentweave__examples__minimal-agent__agent-app.json",
        "an AgentWeave app manifest",
        ("appId", "compatibility"),
    ),
]


@pytest.mark.parametrize(("name", "closest", "keys"), LOOKALIKES, ids=[n.split("/")[1][:40] for n, _, _ in LOOKALIKES])
def test_a_file_of_another_format_is_told_what_it_looks_like_and_how_to_force_one(shared, name, closest, keys):
    path = shared / "realworld" / name
    result = run(str(path))
    assert result.exit_code == 2  # no manifest or discovery document of any kind: unusable input
    line = result.stderr
    assert f"it looks closest to {closest}, which agentdex does not validate" in line
    decided = line.split("decided by the keys ", 1)[1].split(")", 1)[0]
    assert all(key in decided for key in keys) and "name" not in decided.split(", ")
    assert "named agent-app.json but not that format (it has no agent_app key)" in line
    assert line.rstrip().endswith("--format agent_app")
    forced = run(str(path), "--format", "agent_app", "--json")  # what the message says to do works
    assert forced.exit_code == 1 and json.loads(forced.stdout)["format"] == "agent_app"


@pytest.mark.parametrize(
    "name", ["ANAMASGARD__Stitch__.well-known__agent-card.json", "0xdeeper__BaseAi8004__.well-known__agent-card.json"]
)
def test_a_real_agent_card_is_validated_as_one(shared, name):
    result = run(str(shared / "realworld" / "agent_card" / name), "--json")
    assert json.loads(result.stdout)["format"] == "a2a_card" and result.exit_code in (0, 1)


def test_a_document_like_no_format_says_so(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"colour": "blue", "count": 3}')
    result = run(str(path), "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert "shares no telling key with any format" in result.stderr and "--format agent_app" in result.stderr

"""docs/benchmarks.md is kept true to the benchmarks: every command it gives names a script
in the repository and only options that script takes, so a reader can run it again."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
# A command in backticks: `python benchmarks/x.py ...` or `.venv/bin/python benchmarks/x.py ...`
COMMAND = re.compile(r"`(?:\.venv/bin/)?python (benchmarks/[\w/]+\.py)([^`]*)`")


def _commands() -> list[tuple[str, list[str]]]:
    found = []
    for script, rest in COMMAND.findall(DOC.read_text("utf-8")):
        options = [token.split("=", 1)[0] for token in rest.split() if token.startswith("--")]
        found.append((script, options))
    return found


def _options_of(script: str) -> set[str]:
    """The options ``script --help`` lists (its real parser, not a reading of its source)."""
    shown = subprocess.run(
        [sys.executable, str(ROOT / script), "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert shown.returncode == 0, f"{script} --help failed:\n{shown.stderr[-2000:]}"
    return set(re.findall(r"(?<![\w-])--[a-z][\w-]*", shown.stdout))


def test_the_doc_gives_commands_to_check():
    scripts = {script for script, _ in _commands()}
    assert {"benchmarks/bench_crawl.py", "benchmarks/bench_fetch.py"} <= scripts


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted({script for script, _ in _commands()}))
def test_each_command_runs_a_script_with_options_it_takes(script):
    assert (ROOT / script).is_file(), f"docs/benchmarks.md runs {script}, which is not in the repository"
    known = _options_of(script)
    for named, options in _commands():
        if named == script:
            unknown = sorted(set(options) - known)
            assert not unknown, f"docs/benchmarks.md runs {script} with {unknown}, which it does not take"

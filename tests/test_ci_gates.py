"""The gates every change passes: the README's test command is the one CI runs, and the
suite collects without any plugin forced on it (so `pytest -p no:xdist` and tools that
collect without xdist keep working)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    """The README's second command: the one that runs the whole suite."""
    commands = re.findall(r"^python3 -m venv .*$", (ROOT / "README.md").read_text("utf-8"), re.M)
    [test] = [c for c in commands if "pytest" in c]
    return test


def test_ci_runs_exactly_the_readme_test_command():
    assert readme_test_command() in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()


@pytest.mark.slow
def test_the_suite_collects_without_xdist():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q", "tests/test_plans.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\d+ tests? collected", done.stdout)


# -- scripts/lint ---------------------------------------------------------------------------
def lint_project(tmp_path: Path, source: str) -> Path:
    """A small project with this checkout's lint configuration and script, one module of
    ``source`` and the running interpreter's environment as its .venv (ruff and mypy come
    with the test extra)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "lint", tmp_path / "scripts" / "lint")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "agentdex").mkdir()
    (tmp_path / "agentdex" / "__init__.py").write_text(source, "utf-8")
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    return tmp_path


def run_lint(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(project / "scripts" / "lint")], capture_output=True, text=True, timeout=300)


CLEAN = '"""A module every check accepts."""\n\n\ndef double(n: int) -> int:\n    return n * 2\n'


@pytest.mark.slow
def test_lint_passes_a_clean_project(tmp_path):
    done = run_lint(lint_project(tmp_path, CLEAN))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "all checks passed" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "failing"),
    [
        (CLEAN.replace('"""\n', '"""\n\nimport os\n', 1), "ruff check"),  # F401: an unused import
        (CLEAN.replace("return n * 2", "return n*2"), "ruff format"),  # formatted otherwise
        (CLEAN + '\n\nTOTAL: int = double("two")\n', "mypy"),  # a str where an int is wanted
    ],
)
def test_lint_fails_when_any_check_fails_and_names_it(tmp_path, source, failing):
    done = run_lint(lint_project(tmp_path, source))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"lint: failed: {failing}\n" in done.stderr, "the failing check is named, and only it"


def test_ci_runs_the_static_gates_before_the_tests():
    lines = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    assert lines.index("bash scripts/lint") < lines.index(readme_test_command())


@pytest.mark.slow
def test_a_run_with_skips_ends_with_their_reasons_counted(tmp_path):
    """Issue 40: 96 skips and no reason shown; the README's command stays as it is (no -rs),
    so tests/conftest.py prints the reasons."""

    shutil.copy(Path(__file__).parent / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_some.py").write_text(
        "import pytest\n"
        "@pytest.mark.skip(reason='needs tmux')\ndef test_a(): pass\n"
        "@pytest.mark.skip(reason='needs tmux')\ndef test_b(): pass\n"
        "def test_c(): pytest.skip('Chromium is not installed')\n"
        "def test_d(): pass\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    tail = result.stdout.split("3 skipped, by reason", 1)[1].splitlines()
    assert [line.split(None, 1) for line in tail[1:3]] == [["2", "needs tmux"], ["1", "Chromium is not installed"]]

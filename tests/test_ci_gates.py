"""The gates every change passes: the README's test command is the one CI runs, and the
suite collects without any plugin forced on it (so `pytest -p no:xdist` and tools that
collect without xdist keep working)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    """The README's second command: the one that runs the whole suite."""
    commands = re.findall(r"^python3 -m venv .*$", (ROOT / "README.md").read_text("utf-8"), re.M)
    [test] = [c for c in commands if "pytest" in c]
    return test


def test_ci_runs_exactly_the_readme_test_command():
    assert readme_test_command() in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()


def test_the_suite_collects_without_xdist():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q", "tests/test_plans.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\d+ tests? collected", done.stdout)
